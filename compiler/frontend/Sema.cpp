//===- Sema.cpp - kernels, statements and scopes ---------------------------===//
#include "NearestNames.h"
#include "SemaImpl.h"
#include "tilec/frontend/InstanceNote.h"

#include "tilec/Target/ClusterGeometry.h"

#include <algorithm>
#include <unordered_map>

namespace tile::frontend {

bool checkModule(ModuleAST &module, DiagnosticEngine &diags, const CheckOptions &options) {
  Sema sema(diags, options);
  return sema.run(module);
}

/// Why PTX (or the CUDA device runtime tilec links against) cannot have a
/// kernel named `name`, or nullptr. Kernel names reach PTX unchanged, since
/// the runtime looks kernels up by them; parameter names never reach PTX
/// (NVPTX names parameters KERNEL_param_N), and the symbols tilec generates
/// contain a '$' that tile identifiers cannot (see TileToLLVM.h).
static const char *reservedKernelName(const std::string &name) {
  if (name == "_")
    return "a PTX identifier that starts with '_' needs a second character (PTX ISA 4.4)";
  if (name == "WARP_SZ")
    return "WARP_SZ is a predefined PTX identifier (PTX ISA 4.4)";
  if (name == "vprintf")
    return "vprintf is the CUDA device printf, which tilec calls for --debug-hangs";
  if (name.rfind("__nv_", 0) == 0)
    return "names that start with __nv_ are libdevice's functions, which tilec links for the "
           "math builtins (exp, sin, ...)";
  return nullptr;
}

bool Sema::run(ModuleAST &module) {
  size_t errorsBefore = diags_.numErrors();
  // Functions are inlined into kernels and constants folded: a file without
  // a kernel compiles to PTX without an entry point, which nothing can launch.
  if (module.kernels.empty())
    diags_.warning({module.file, 1, 1}, "the file defines no kernel: its PTX has no entry point",
                   "write `kernel name(params) { ... }`; functions emit code only where a kernel "
                   "calls them");
  prepareModule(module); // file-level consts and functions, template instances
  for (auto &k : module.kernels)
    kernelNames_.insert(k->sourceName.empty() ? k->name : k->sourceName);
  std::unordered_map<std::string, KernelAST *> names;
  for (auto &k : module.kernels) {
    if (const char *why = reservedKernelName(k->name))
      error(k->loc, "kernel name '" + k->name + "' is reserved: " + why,
            "rename the kernel (the host launches kernels by this name)");
    auto [it, inserted] = names.emplace(k->name, k.get());
    if (!inserted) {
      error(k->loc, "redefinition of kernel '" + k->name + "'",
            "give every kernel in a file a distinct name");
      diags_.note(it->second->loc, "previous definition of '" + k->name + "' is here");
    }
    checkKernel(*k);
  }
  // NVPTX names kernel parameters KERNEL_param_N in PTX; a kernel with that
  // name makes the PTX ambiguous (ptxas crashes on it).
  for (auto &k : module.kernels) {
    for (size_t i = 0; i < k->params.size(); ++i) {
      auto clash = names.find(k->name + "_param_" + std::to_string(i));
      if (clash == names.end())
        continue;
      error(clash->second->loc,
            "kernel name '" + clash->first + "' is the PTX name of parameter " + std::to_string(i) +
                " of kernel '" + k->name + "'",
            "PTX names kernel parameters KERNEL_param_N; rename one of the kernels");
      diags_.note(k->loc, "kernel '" + k->name + "' is here");
    }
  }
  if (!diags_.hasErrors() && uncheckedExpr_)
    error(*uncheckedExpr_, "tilec could not check this expression",
          "this is a gap in tilec's checker: please report it with this file; writing "
          "the expression as a statement of its own may avoid it");
  return diags_.numErrors() == errorsBefore && !diags_.hasErrors();
}

void Sema::declare(Decl &d) {
  d.id = nextId_++;
  auto &scope = scopes_.back();
  auto [it, inserted] = scope.emplace(d.name, &d);
  if (!inserted) {
    error(d.loc, "redefinition of '" + d.name + "'",
          "pick another name (an inner block may shadow an outer name, the same block may not)");
    diags_.note(it->second->loc, "previous definition of '" + d.name + "' is here");
    it->second = &d; // later uses see the newest one
  }
}

Decl *Sema::lookup(const std::string &name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end())
      return f->second;
  }
  auto g = globalConsts_.find(name); // file-level constants
  return g == globalConsts_.end() ? nullptr : g->second;
}

std::string Sema::nearestVisibleName(const std::string &name) const {
  std::vector<std::string> visible;
  for (const auto &scope : scopes_)
    for (const auto &[n, decl] : scope)
      visible.push_back(n);
  for (const auto &[n, decl] : globalConsts_)
    visible.push_back(n);
  std::sort(visible.begin(), visible.end()); // the maps' order is no order
  // A third of the name's letters (a one- or two-letter name only when its
  // case differs: `y` is no misspelled `x`).
  std::vector<std::string> near = nearestAmong(name, visible, 1, name.size() / 3);
  return near.empty() ? "" : near[0];
}

bool Sema::requireCluster(const Location &loc, const std::string &what) {
  kernel_->usesClusterFeatures = true;
  if (hasCluster())
    return true;
  error(loc, what + " needs a kernel with a cluster attribute",
        "add cluster(N) or cluster(dynamic) after the kernel's parameter list");
  return false;
}

/// threads(X, Y, Z) is the exact block shape (.reqntid), max_threads(N) an
/// upper bound (.maxntid) and min_blocks(N) the CTAs to keep resident per SM
/// (.minnctapersm). PTX ISA 11.4.3: .reqntid and .maxntid exclude each
/// other; ptxas ignores .minnctapersm without one of them.
void Sema::checkLaunchBounds(KernelAST &k) {
  const LaunchBoundsAttr &b = k.bounds;
  // A block over the thread limit is reported as that alone (checkKernel);
  // within it only z can exceed its own limit.
  if (k.threads.present && (long long)k.threads.dims[0] * k.threads.dims[1] * k.threads.dims[2] <=
                               target::kMaxThreadsPerBlock) {
    const char *axes[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
      if (k.threads.dims[i] > target::kMaxBlockDims[i]) {
        error(k.threads.loc,
              "threads dimension " + std::string(axes[i]) + " of " +
                  std::to_string(k.threads.dims[i]) + " exceeds the limit of " +
                  std::to_string(target::kMaxBlockDims[i]),
              "blocks are at most " + std::to_string(target::kMaxBlockDims[0]) + " x " +
                  std::to_string(target::kMaxBlockDims[1]) + " x " +
                  std::to_string(target::kMaxBlockDims[2]) + " threads");
        return;
      }
  }
  if (b.maxThreads) {
    if (*b.maxThreads > target::kMaxThreadsPerBlock) {
      error(b.maxThreadsLoc,
            "max_threads(" + std::to_string(*b.maxThreads) + ") is over the limit of " +
                std::to_string(target::kMaxThreadsPerBlock) + " threads per block",
            "give at most " + std::to_string(target::kMaxThreadsPerBlock));
      return;
    }
    if (k.threads.present) {
      error(b.maxThreadsLoc, "max_threads(N) and threads(...) exclude each other",
            "threads(...) is the exact block shape (.reqntid) and bounds the block already; "
            "max_threads(N) (.maxntid) is for kernels launched with varying block sizes");
      return;
    }
  }
  if (b.minBlocks) {
    if (*b.minBlocks > target::kMaxBlocksPerSM) {
      error(b.minBlocksLoc,
            "min_blocks(" + std::to_string(*b.minBlocks) + ") is more than the " +
                std::to_string(target::kMaxBlocksPerSM) + " CTAs an SM can hold",
            "give 1.." + std::to_string(target::kMaxBlocksPerSM));
      return;
    }
    if (!k.threads.present && !b.maxThreads) {
      error(b.minBlocksLoc, "min_blocks(N) needs threads(...) or max_threads(N)",
            "ptxas ignores .minnctapersm unless the block size is bounded");
      return;
    }
    long long perBlock = b.maxThreads
                             ? *b.maxThreads
                             : (long long)k.threads.dims[0] * k.threads.dims[1] * k.threads.dims[2];
    if (perBlock * *b.minBlocks > target::kMaxThreadsPerSM)
      error(b.minBlocksLoc,
            "min_blocks(" + std::to_string(*b.minBlocks) + ") blocks of " +
                std::to_string(perBlock) + " threads are more than the " +
                std::to_string(target::kMaxThreadsPerSM) + " threads an SM can hold",
            "lower min_blocks or the block size");
  }
}

void Sema::checkKernel(KernelAST &k) {
  size_t errorsBefore = diags_.numErrors();
  size_t diagnosticsBefore = diags_.diagnostics().size();
  kernel_ = &k;
  distributedThreadsReported_ = false;
  nextId_ = 0;
  dynamicCount_ = 0;
  scopes_.clear();
  mbarrierUses_.clear();
  curRole_ = nullptr;
  turn_ = nullptr;
  nextTurnBarrier_ = target::kFirstTurnBarrier;
  constChecked_.clear();
  loops_.clear();
  unrolled_.clear();
  unrollCopies_ = 1;
  ifGuards_.clear();
  boundValues_.clear();
  boundResults_.clear();
  shadowingLets_.clear();
  tmaTileNames_.clear();
  tmaBarriers_.clear();
  curBlock_ = nullptr;
  inlinedCalls_ = 0;
  fnParams_.clear();
  expandedStmts_ = 0;
  expansionReported_ = false;
  expandedAsWritten_ = true;
  resolveAttrNames(k);

  if (opts_.clusterOverride) {
    k.cluster.kind = ClusterAttr::Static;
    k.cluster.dims = *opts_.clusterOverride;
    k.cluster.overridden = true;
    if (k.cluster.loc.line == 0)
      k.cluster.loc = k.loc;
  }
  if (k.cluster.kind == ClusterAttr::Static) {
    // A non-positive extent counts as a cluster of 0 CTAs (the message).
    int64_t n =
        std::all_of(k.cluster.dims.begin(), k.cluster.dims.end(), [](int d) { return d >= 1; })
            ? cluster::ctaCount(k.cluster.dims)
            : 0;
    if (!cluster::isLegalShape(k.cluster.dims))
      error(k.cluster.loc,
            "cluster of " + std::to_string(n) + " CTAs is not supported (at most " +
                std::to_string(target::kMaxClusterSize) + ")",
            "portable cluster sizes are 1.." + std::to_string(target::kMaxPortableClusterSize) +
                " CTAs; " + std::to_string(target::kMaxPortableClusterSize + 1) + ".." +
                std::to_string(target::kMaxClusterSize) + " need a non-portable launch");
  }
  if (k.threads.present) { // checkLaunchBounds: each dimension's limit
    long long n = (long long)k.threads.dims[0] * k.threads.dims[1] * k.threads.dims[2];
    if (n > target::kMaxThreadsPerBlock)
      error(k.threads.loc,
            "threads(" + std::to_string(k.threads.dims[0]) + "," +
                std::to_string(k.threads.dims[1]) + "," + std::to_string(k.threads.dims[2]) +
                ") is " + std::to_string(n) + " threads per block, over the limit of " +
                std::to_string(target::kMaxThreadsPerBlock),
            "use at most " + std::to_string(target::kMaxThreadsPerBlock) + " threads per block");
  }
  checkLaunchBounds(k);

  pushScope(); // parameters
  for (size_t i = 0; i < k.params.size(); ++i) {
    Decl &p = *k.params[i];
    TypeSyntax &ts = k.paramTypes[i];
    if (!ts.namedExtents.empty()) // `x: vec<f32, L>`: reported below with its value
      p.type = resolveTypeExtents(ts) ? ts.type : Type::invalid();
    // A refused parameter is no value: its uses add no second error.
    if (p.type.isPointer() && p.type.space != AddressSpace::Global) {
      error(ts.loc,
            std::string("kernel parameter '") + p.name + "' points to " + spaceName(p.type.space) +
                " memory",
            "kernel parameters are scalars or global pointers; declare shared arrays inside the "
            "kernel");
      p.type = Type::invalid();
    }
    if (p.type.isPointer() && p.type.scalar == ScalarKind::I1) {
      error(ts.loc, "pointers to i1 are not supported", "store booleans as i8");
      p.type = Type::invalid();
    }
    if (p.type.isVector()) {
      error(ts.loc, std::string("kernel parameter '") + p.name + "' cannot be a vector",
            "pass the elements as scalars (or a pointer) and build the vector in the kernel");
      p.type = Type::invalid();
    }
    if (p.type.isDistributed()) {
      // A distributed value lives in the registers of a warpgroup's threads:
      // no launch argument can hold one.
      error(ts.loc, std::string("kernel parameter '") + p.name + "' cannot be " + p.type.str(),
            "pass a pointer to the data and build the value in the kernel (`load_per_row`, "
            "`load_per_col`, or an mma of tiles loaded into shared memory)");
      p.type = Type::invalid();
    }
    declare(p);
  }
  checkTensorParams();
  checkSemaphoreParams(); // SemaPeer.cpp
  collectTmaTileNames(k.body);
  for (auto &t : k.templateDecls) // compile-time parameters: constants
    declare(*t);
  pushScope(); // body
  checkBlock(k.body, /*kernelTopLevel=*/true);
  popScope();
  popScope();
  finishPeerParams(); // SemaPeer.cpp: the hidden multi-GPU parameters it uses
  checkMBarrierUses();
  checkTmaBarriers();
  checkRings();
  checkInflightUses();                    // SemaMma.cpp
  if (diags_.numErrors() == errorsBefore) // the analysis needs a well-typed kernel
    checkMBarrierArrivalCounts();
  // Divergence is the IR's (tile-check-divergence); the waits no arrival
  // reaches are evaluated per CTA rank here.
  if (diags_.numErrors() == errorsBefore)
    checkWaitsReachArrivals();
  if (diags_.numErrors() == errorsBefore) { // SemaAsyncProxy.cpp
    checkTmaReadsBeforeWait();
    checkRingCounts();
  }
  k.numDecls = nextId_;
  kernel_ = nullptr;
  // An error in an instance names the instance: which arguments (and which
  // -D) made this copy of the kernel, e.g. T = i32 where mma needs f16. One
  // that every instance finds alike is shown once.
  if (auto note = instanceNote(k))
    diags_.closeCopy(diagnosticsBefore, {Diagnostic::Note, note->first, note->second, "", {}},
                     instanceCopiesSeen_[k.sourceName]);
}

void Sema::checkBlock(Block &block, bool kernelTopLevel) {
  Block *outer = curBlock_;
  curBlock_ = &block;
  for (StmtPtr &s : block)
    checkStmt(*s, kernelTopLevel);
  curBlock_ = outer;
}

void Sema::checkStmt(StmtAST &s, bool kernelTopLevel) {
  NestingGuard nesting(nesting_);
  resolveStmtNames(s); // SemaResolve.cpp: before any check holds a node
  // Each limit alone (copies of one nest, inlined calls) does not bound
  // their product: a call in an unrolled loop, or an unrolled loop in a
  // function, is emitted once per copy and per inlining. The statements
  // MLIRGen will emit are counted here, each function body once per
  // inlining (Sema checks it there) times the copies around it.
  expandedStmts_ += unrollCopies_;
  expandedAsWritten_ = expandedAsWritten_ && unrollCopies_ == 1 && inlineStack_.empty();
  if (expandedStmts_ > kMaxExpandedStmts && !expansionReported_) {
    expansionReported_ = true;
    if (expandedAsWritten_) // no copies: the statements as written are too many
      error(s.loc,
            "the kernel has more than " + std::to_string(kMaxExpandedStmts) + " statements",
            "write repeated work as a loop (`for i in 0 .. n { ... }`), or split it into "
            "several kernels");
    else
      error(s.loc,
            "the kernel expands to more than " + std::to_string(kMaxExpandedStmts) +
                " statements once its unrolled loops and function calls are expanded",
            "leave a loop rolled (drop `unroll`, or unroll by a factor), or call functions from "
            "fewer places");
  }
  switch (s.kind()) {
  case StmtAST::Let:
    if (s.as<LetStmt>()->isTuple())
      checkTupleLet(*s.as<LetStmt>()); // SemaTuples.cpp
    else
      checkLet(*s.as<LetStmt>());
    break;
  case StmtAST::SharedArray:
    checkSharedArray(*s.as<SharedArrayStmt>(), kernelTopLevel);
    break;
  case StmtAST::Assign:
    checkAssign(*s.as<AssignStmt>());
    break;
  case StmtAST::For:
    loops_.push_back(&s);
    checkFor(*s.as<ForStmt>());
    loops_.pop_back();
    break;
  case StmtAST::Break:
  case StmtAST::Continue:
    checkLoopExit(s);
    break;
  case StmtAST::If: {
    auto &i = *s.as<IfStmt>();
    if (i.isTurn) {
      checkTurn(i); // SemaRoles.cpp
      break;
    }
    if (i.isConst) {
      checkConstIf(i); // SemaTemplates.cpp
      break;
    }
    Type b = Type::i1();
    bool condOk = !checkValue(i.cond, &b, "condition of 'if'", "compare explicitly, e.g. `x != 0`")
                       .isInvalid();
    // In an instance of a kernel with compile-time parameters, an error in
    // a branch its condition rules out (`if FP8 { ... } else { x * y }` with
    // T = e4m3) gets a note: every branch is checked in every instance.
    std::optional<ConstValue> constCond;
    bool generic = (kernel_ && !kernel_->sourceName.empty()) ||
                   (!inlineStack_.empty() && !inlineStack_.back().fn->typeParams.empty());
    if (condOk && generic && i.cond->type.isBool())
      constCond = evalConstant(*i.cond);
    auto deadBranchNote = [&](size_t errorsBefore, bool taken) {
      if (!constCond || (constCond->i != 0) == taken || diags_.numErrors() == errorsBefore)
        return;
      diags_.note(i.cond->loc,
                  std::string("this branch is not taken in this instance (the condition is ") +
                      (constCond->i != 0 ? "true" : "false") +
                      "), but every branch of an `if` is checked in every instance: write `if "
                      "const` to check only the branch each instance takes, or code that is "
                      "valid for each instance (compute through f32: `(x as f32 * s) as T`)");
    };
    pushScope();
    ifGuards_.push_back(i.cond.get());
    size_t errorsBefore = diags_.numErrors();
    checkBlock(i.thenBody, false);
    deadBranchNote(errorsBefore, true);
    ifGuards_.pop_back();
    popScope();
    pushScope();
    errorsBefore = diags_.numErrors();
    checkBlock(i.elseBody, false);
    deadBranchNote(errorsBefore, false);
    popScope();
    break;
  }
  case StmtAST::While: {
    auto &w = *s.as<WhileStmt>();
    Type b = Type::i1();
    checkValue(w.cond, &b, "condition of 'while'", "compare explicitly, e.g. `x != 0`");
    pushScope();
    loops_.push_back(&s);
    checkBlock(w.body, false);
    loops_.pop_back();
    popScope();
    break;
  }
  case StmtAST::ExprStmt: {
    auto &es = *s.as<ExprStmtAST>();
    Type t = inferValues(es.expr); // a call's values may be left unused
    if (t.isUntyped())
      finalize(es.expr);
    if (t.isArray() || t.isMBarrier() || t.kind == Type::MBarrierArray) {
      // Arrays, views and mbarriers name storage; they are not values, so a
      // statement of one (`b[1]`, `remote(b, 1)`, `h.local`) has no meaning.
      error(es.expr->loc, t.str() + " is not a value: as a statement it does nothing",
            t.isArray() ? "index it (`a[i]`) or pass it to a builtin, or remove the statement"
                        : "pass it to arrive(), wait() or expect_tx(), or remove the statement");
      break;
    }
    if (auto *call = es.expr->as<CallExpr>()) {
      call->resultUnused = true;
    } else if (!t.isInvalid()) {
      diags_.warning(es.expr->loc, "expression result unused",
                     "only calls have an effect as statements; assign the value or remove it");
    }
    break;
  }
  case StmtAST::Return:
    checkReturn(*s.as<ReturnStmt>());
    break;
  case StmtAST::MBarrier:
    checkMBarrier(*s.as<MBarrierStmt>(), kernelTopLevel);
    break;
  case StmtAST::Warpgroups:
    checkWarpgroups(*s.as<WarpgroupsStmt>(), kernelTopLevel);
    break;
  case StmtAST::Ring:
    checkRing(*s.as<RingStmt>(), kernelTopLevel);
    break;
  case StmtAST::Produce:
  case StmtAST::Consume:
    checkRingAccess(*s.as<RingAccessStmt>());
    break;
  case StmtAST::Const: {
    auto &c = *s.as<ConstStmt>();
    checkConstDecl(c);
    declare(*c.decl);
    break;
  }
  case StmtAST::LocalArray:
    checkLocalArray(*s.as<LocalArrayStmt>());
    break;
  }
  checkConstantOpsInStmt(s);
}

void Sema::checkLet(LetStmt &s) {
  Decl &d = *s.decl;
  bool isVar = d.kind == DeclKind::Var;
  Type t;
  if (s.annotation && !resolveTypeExtents(*s.annotation)) {
    resolveOnly(s.init); // the annotation's error alone
    t = Type::invalid();
  } else if (s.annotation) {
    Type want = s.annotation->type;
    if (want.isPointer() && want.scalar == ScalarKind::I1)
      error(s.annotation->loc, "pointers to i1 are not supported", "store booleans as i8");
    if (want.isDistributed() && !checkDistributedShape(s.annotation->loc, want))
      want = Type::invalid();
    t = checkValue(s.init, &want, "initializer of '" + d.name + "'",
                   "convert explicitly with `as`, or change the declared type");
    t = want;
  } else {
    t = checkValue(s.init, nullptr, "");
  }
  if (t.kind == Type::Void) {
    error(s.init->loc, "'" + d.name + "' is initialized with a call that returns no value",
          "call it as a statement on its own line");
    t = Type::invalid();
  } else if (t.kind == Type::DistArray) {
    error(s.init->loc, "a dshared array cannot be bound to another name",
          "use the array's own name; `h.local` gives this CTA's part");
    t = Type::invalid();
  } else if (t.kind == Type::MBarrier || t.kind == Type::MBarrierArray) {
    error(s.init->loc, "an mbarrier cannot be bound to another name",
          "use the mbarrier's name directly (`arrive(b)`, `wait(s[i])`, `remote(b, r)`)");
    t = Type::invalid();
  } else if (!checkPlainArrayUse(*s.init, "a 'let' binding")) {
    t = Type::invalid();
  } else if (isVar && t.kind == Type::CachePolicy) {
    error(s.init->loc, "a cache policy is bound with 'let', not 'var'",
          "write `let P = cache_policy(...)`; a policy never changes");
    t = Type::invalid();
  } else if (t.kind == Type::LocalArray) {
    error(s.init->loc, "a local array cannot be bound to another name",
          "use the array's own name, or pass it to a function as `local<T>[N]`");
    t = Type::invalid();
  } else if (isVar && (t.kind == Type::SharedArray || t.kind == Type::ArrayView)) {
    error(s.init->loc, "a 'var' holds a scalar or a pointer, not " + t.str(),
          "use 'let' to name an array");
    t = Type::invalid();
  }
  d.type = t;
  if (!isVar && t.isScalar())
    boundValues_[&d] = s.init.get();
  declare(d);
  if (!isVar && (t.isScalar() || t.isPointer() || t.isVector()))
    noteShadowingLet(d);
}

void Sema::noteShadowingLet(const Decl &d) {
  // The name in an enclosing block of this body (not the file's constants):
  // a `var` that the `let` hides from here on.
  for (size_t i = scopes_.size() - 1; i-- > 0;) {
    auto f = scopes_[i].find(d.name);
    if (f == scopes_[i].end())
      continue;
    if (f->second->kind == DeclKind::Var)
      shadowingLets_.push_back({&d, f->second, scopes_.size()});
    return;
  }
}

void Sema::warnUnreadShadows() {
  while (!shadowingLets_.empty() && shadowingLets_.back().depth >= scopes_.size()) {
    ShadowingLet sl = shadowingLets_.back();
    shadowingLets_.pop_back();
    if (readDecls_.count(sl.let) || diags_.hasErrors() ||
        !shadowWarned_.insert({sl.let->loc.line, sl.let->loc.col}).second)
      continue;
    diags_.warning(sl.let->loc,
                   "'" + sl.let->name +
                       "' is never read: this `let` declares a new name that "
                       "hides the `var` '" +
                       sl.var->name + "' of line " + std::to_string(sl.var->loc.line),
                   "to change the var, assign it: `" + sl.let->name +
                       " = ...` (a `let` in an "
                       "inner block never changes the outer name)");
    diags_.note(sl.var->loc, "the `var` '" + sl.var->name + "' is declared here");
  }
}

void Sema::checkAssign(AssignStmt &s) {
  Type target;
  // A target name is a place: resolveStmtNames left it as written, so `inf`,
  // `nan` and constants are still names here, and infer (below) does not
  // replace it.
  if (auto *v = s.target->as<VarRefExpr>(); v && namesValue(*v)) {
    if (const Decl *c = lookup(v->name)) {
      error(v->loc, "cannot assign to '" + v->name + "': it is a constant",
            "a constant is fixed at compile time: copy it into a mutable local (`var x = " +
                v->name + "`) and assign to that");
      if (c->loc.line)
        diags_.note(c->loc, "constant '" + v->name + "' is declared here");
    } else {
      error(v->loc,
            "cannot assign to '" + v->name + "': it is the float value " +
                (v->name == "inf" ? "infinity" : "NaN") + ", not a variable",
            "declare a mutable local of another name, e.g. `var x = " + v->name +
                "`, and assign to that");
    }
    resolveOnly(s.value);
    return;
  }
  if (auto *v = s.target->as<VarRefExpr>()) {
    assigningVar_ = s.op == AssignOp::Assign; // `x op= v` reads x too
    target = infer(s.target);
    assigningVar_ = false;
    if (v->decl)
      noteRoleVarUse(v->decl, v->loc, /*write=*/true);
    // A type parameter: infer said it is not a value.
    if (v->decl && v->decl->kind != DeclKind::Var && v->decl->kind != DeclKind::TypeParam) {
      auto [what, hint] = whyNotAssignable(*v->decl, /*element=*/false);
      error(v->loc, "cannot assign to '" + v->name + "': it is " + what, hint);
      target = Type::invalid();
    }
  } else {
    target = inferIndex(*s.target->as<IndexExpr>(), IndexUse::Store);
    s.target->type = target;
    if (!target.isInvalid() && !checkRingTileWrite(*s.target->as<IndexExpr>()->base, s.loc, ""))
      target = Type::invalid();
  }
  auto op = assignBinaryOp(s.op);
  if (target.isInvalid()) {
    infer(s.value);
    abandonUntyped(s.value);
    return;
  }
  if (target.isPointer() && (s.op == AssignOp::Add || s.op == AssignOp::Sub)) {
    Type off = infer(s.value);
    if (off.isUntyped())
      off = finalize(s.value);
    if (!off.isInvalid() && (!off.isInteger() || off.isBool()))
      error(s.value->loc, "pointer offset must be an integer, found " + off.str(),
            "offset pointers by an element count: `p += i`");
    return;
  }
  if (target.isPointer() && s.op == AssignOp::Assign) { // a `var` holding a pointer
    checkValue(s.value, &target, "assigned value",
               "assign a pointer of the same element type and space");
    return;
  }
  if (target.isPointer()) {
    error(s.loc,
          "'" + std::string(binaryOpSpelling(*op)) + "=' cannot be applied to " + target.str(),
          "pointers only move by element counts: `p += i`, `p -= i`");
    infer(s.value);
    abandonUntyped(s.value);
    return;
  }
  if (target.isDistributed()) { // a `var` of a fragment (per_row, per_col) is assigned whole
    checkValue(s.value, &target, "assigned value", "assign a value of the same type and shape");
    if (op)
      error(s.loc,
            "'" + std::string(binaryOpSpelling(*op)) + "=' cannot be applied to " + target.str(),
            "fragments, per_row and per_col values are assigned whole: write `x = x " +
                std::string(binaryOpSpelling(*op)) + " v`");
    return;
  }
  if (target.isVector()) { // a `var` of vec<T, N>: `=`, and `+= -= *=` on float vectors
    Type v = checkValue(s.value, &target, "assigned value", "convert explicitly with `as`");
    bool arith = op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul;
    // `v += w` is `v = v + w`: an fp8 vector is no more computed on here.
    if (op && !v.isInvalid() && arith &&
        !checkNotFp8(s.loc, target, binaryOpSpelling(*op)))
      return;
    if (op && !v.isInvalid() && (!arith || !isFloatKind(target.scalar)))
      error(s.loc,
            "'" + std::string(binaryOpSpelling(*op)) + "=' cannot be applied to " + target.str(),
            "float vectors take `+= -= *=`; other vectors are assigned whole with `=`");
    return;
  }
  if (!target.isScalar()) {
    error(s.loc, "cannot assign a value of type " + target.str(),
          "assign to scalar variables or elements");
    return;
  }
  if (op && isShift(*op) && target.isInteger() && !target.isBool()) {
    // `x <<= n`: n is a count of any integer type, as in `x << n`.
    Type n = infer(s.value);
    if (n.isUntyped() && n.kind == Type::UntypedInt) {
      Type amount = literalShiftAmountType(*s.value, target);
      n = adapt(s.value, amount) ? amount : Type::invalid();
    } else if (n.isUntyped()) {
      n = adapt(s.value, target) ? target : Type::invalid();
    }
    if (!n.isInvalid() && (!n.isScalar() || !n.isInteger()))
      error(s.value->loc, "shift amount must be an integer, found " + n.str(),
            nonScalarHint(n, "convert it with `as`, e.g. `... as u32`"));
    else if (!n.isInvalid())
      checkBinaryOperands(*op, n, s.value->loc);
    return;
  }
  Type v = checkValue(s.value, &target, "assigned value", "convert explicitly with `as`");
  if (op && !v.isInvalid())
    checkBinaryOperands(*op, target, s.loc);
}

void Sema::checkFor(ForStmt &s) {
  Type t = Type::invalid();
  if (s.forKind == ForKind::Range) {
    t = unify(s.start, s.end, s.loc, "the loop bounds");
    if (t.kind == Type::UntypedFloat) {
      // `0 .. 1.5`: both literals take the float type (an integer literal in
      // a float context is a float), so the integer check below reports it.
      Type f32 = Type::scalarTy(ScalarKind::F32);
      adapt(s.start, f32);
      adapt(s.end, f32);
      t = f32;
    } else if (t.isUntyped()) {
      Type i32 = Type::i32();
      adapt(s.start, i32);
      adapt(s.end, i32);
      t = i32;
    }
    if (!t.isInvalid() && (!t.isInteger() || t.isBool())) {
      error(s.start->loc, "loop bounds must be integers, found " + t.str(),
            nonScalarHint(t, "use integer bounds; cast with `as` if needed"));
      t = Type::invalid();
    }
    if (s.step && !t.isInvalid()) {
      checkValue(s.step, &t, "loop step", "convert it with `as`");
      bool overflow = false; // any constant step (`2 - 2`), not only a literal
      if (auto step = foldConstant(*s.step, overflow); step && !overflow && *step <= 0)
        error(s.step->loc, "loop step must be positive, found " + std::to_string(*step),
              "`for` counts upwards; rewrite the loop to count up");
    } else if (s.step) {
      infer(s.step);
      finalize(s.step);
    }
  } else {
    Type b = infer(s.end);
    if (b.isUntyped())
      b = finalize(s.end);
    const char *name = forKindName(s.forKind);
    if (b.isArray()) {
      Location loc = s.end->loc;
      std::vector<ExprPtr> args;
      args.push_back(std::move(s.end));
      auto len = std::make_unique<CallExpr>(loc, "len", std::move(args), std::vector<NamedArg>{});
      len->builtin = Builtin::Len;
      len->type = Type::scalarTy(b.lengthType);
      len->depth = len->args[0]->depth + 1;
      s.end = std::move(len);
      s.boundIsArray = true;
      t = Type::scalarTy(b.lengthType);
    } else if (!b.isInvalid() && (!b.isInteger() || b.isBool())) {
      error(s.end->loc, std::string(name) + " needs an integer count or an array, found " + b.str(),
            std::string("write `") + name + "(N)` with an integer N, or `" + name + "(array)`");
    } else {
      t = b;
    }
  }
  s.loopVar->type = t;
  // A full unroll's copies are known before its body is checked: there the
  // loop variable is a constant in each copy (foldEveryCopy).
  if (s.unrollFull || s.unrollFactor)
    checkUnroll(s);
  bool unrolled = s.unrollFull && !s.unrolledValues.empty();
  // Nested unrolls multiply their copies (compile time grows faster than
  // the copies: 128 x 128 took a minute), each loop within its own limit.
  constexpr int64_t kMaxNestedCopies = 4096;
  int64_t copies = unrolled ? (int64_t)s.unrolledValues.size()
                   : s.unrollFactorValue > 1 ? s.unrollFactorValue + 1
                                             : 1;
  if (unrolled && !s.unrollDeps.empty()) { // a triangular loop: its largest copy count
    copies = 1;
    for (const auto &kv : s.unrolledByOuter)
      copies = std::max(copies, (int64_t)kv.second.size());
  }
  int64_t outerCopies = unrollCopies_;
  if (copies > 1 && outerCopies * copies > kMaxNestedCopies) { // both <= 4096: no overflow
    error(s.unrollLoc,
          "unrolling this loop inside unrolled loops makes " +
              std::to_string(outerCopies * copies) + " copies of its body, more than " +
              std::to_string(kMaxNestedCopies),
          "leave this loop or an outer one rolled, or unroll it by a smaller factor");
    copies = 1;
  }
  unrollCopies_ = outerCopies * copies;
  if (unrolled)
    unrolled_.push_back({s.loopVar.get(), &s});
  pushScope();
  declare(*s.loopVar);
  checkBlock(s.body, false);
  popScope();
  checkUnrollReturn(s); // SemaUnroll.cpp
  if (unrolled)
    unrolled_.pop_back();
  unrollCopies_ = outerCopies;
}

} // namespace tile::frontend
