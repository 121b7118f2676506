//===- SemaRings.cpp - pipeline rings, produce and consume ------------------===//
//
// `let r = pipeline[S] { a: shared<T>[...], ... }`: every member is laid out
// as a TMA tile (the same swizzle/panel/alignment choice as copy_async
// tiles, SemaTma.cpp), S copies of it one after the other. The checks here
// make the compiler's bookkeeping sound: the bytes a produce block lands
// (expect_tx) are known statically, every consumer thread reaches each
// consume (the warps' release arrivals are counted), one role produces and
// one other consumes (stage and phase are per-role state), nobody leaves a
// ring block or the kernel early (the releases and the producer tail must
// run), and ring tiles are written only by the produce block's copies.
// docs/reference/tma-and-rings.md "Rings" is the user-facing summary.
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "tilec/Target/ClusterGeometry.h"

namespace tile::frontend {

namespace {
/// Builtins that only compute a value from their arguments or a special
/// register, in the thread that runs them (allowed in a produce block next
/// to its copies: the block runs in one elected thread). Not the warp's
/// collectives (shuffles, votes, redux, elect_one), which need the other
/// lanes, nor memory, synchronisation or nanosleep.
bool isPureBuiltin(const std::string &name) {
  static const char *pure[] = {
      "thread_id",      "block_dim",      "block_id",       "grid_dim",     "cluster_rank",
      "cluster_size",   "cluster_id",     "cluster_dim",    "block_in_cluster",
      "num_clusters",   "min",            "max",            "clamp",        "len",
      "dim",            "warpgroup_rank", "role_threads",   "bitcast",      "device_rank",
      "device_count",   "lane_id",        "warp_id",        "role_thread_id",
      "lanemask_lt",    "lanemask_le",    "lanemask_eq",    "lanemask_ge",  "lanemask_gt",
      "select",         "static_assert",  "pack",           "popc",         "clz",
      "ctz",            "brev",           "bfind",          "mul_hi",       "fma",
      "abs",            "sqrt",           "rsqrt",          "exp",          "exp2",
      "log",            "log2",           "sin",            "cos",          "tanh",
      "erf",            "pow",            "floor",          "ceil",         "round",
      "rint",           "trunc",          "copysign"};
  for (const char *p : pure)
    if (name == p)
      return true;
  return isMathBuiltin(builtinFromName(name)); // log1p ... fmod too: values from values
}

const ExprAST *firstNonScalar(const ExprAST &e, bool copies,
                              std::vector<const CallExpr *> *via = nullptr);

/// The first thing in an inlined function's body that is not scalar code
/// (as firstNonScalar: no copies there, the stage's tiles are not passed),
/// or nullptr; `call` itself for a statement that is no scalar code.
const ExprAST *firstNonScalarBody(const CallExpr &call, std::vector<const CallExpr *> *via) {
  const ExprAST *bad = nullptr;
  forEachStmtIn(call.inlined->body, [&](const StmtAST &s) {
    switch (s.kind()) {
    case StmtAST::Let:
    case StmtAST::Assign:
    case StmtAST::For:
    case StmtAST::If:
    case StmtAST::While:
    case StmtAST::ExprStmt:
    case StmtAST::Return:
    case StmtAST::Break:
    case StmtAST::Continue:
    case StmtAST::Const:
    case StmtAST::LocalArray:
      break;
    default:
      if (!bad)
        bad = &call;
    }
  });
  forEachExprIn(call.inlined->body, [&](const ExprAST &x) {
    if (!bad)
      bad = firstNonScalar(x, /*copies=*/false, via);
  });
  return bad;
}

/// The first call or memory access in `e` that is not scalar computation (a
/// pure builtin, or a function whose inlined body is scalar code; with
/// `copies`, copy_async / prefetch_tensor and their tensor boxes too), or
/// nullptr. `via` receives the function calls (outermost first) whose body
/// holds what was found.
const ExprAST *firstNonScalar(const ExprAST &e, bool copies, std::vector<const CallExpr *> *via) {
  // A fragment, per_row or per_col value is spread over a warpgroup's
  // threads: one thread's arithmetic on it changes only that thread's part.
  if (e.type.isDistributed())
    return &e;
  if (auto *c = e.as<CallExpr>(); c && c->inlined) {
    // A function is inlined where it is called: scalar code when its
    // arguments and its body are.
    for (const ExprPtr &a : c->args)
      if (const ExprAST *bad = firstNonScalar(*a, copies, via))
        return bad;
    const ExprAST *bad = firstNonScalarBody(*c, via);
    if (bad && bad != c && via)
      via->insert(via->begin(), c);
    return bad;
  }
  if (auto *c = e.as<CallExpr>()) {
    bool copy = copies && (c->callee == "copy_async" || c->callee == "prefetch_tensor");
    if (!copy && !isPureBuiltin(c->callee))
      return c;
    for (const ExprPtr &a : c->args) {
      if (copy && a->is<IndexExpr>()) { // the tensor box A[c...]
        for (const ExprPtr &m : a->as<IndexExpr>()->moreIndices)
          if (const ExprAST *bad = firstNonScalar(*m, copies, via))
            return bad;
        if (const ExprAST *bad = firstNonScalar(*a->as<IndexExpr>()->index, copies, via))
          return bad;
      } else if (const ExprAST *bad = firstNonScalar(*a, copies, via)) {
        return bad;
      }
    }
    return nullptr;
  }
  // An element of memory; an element of a vector or register array is a
  // register (its operands are checked below).
  if (auto *ix = e.as<IndexExpr>())
    if (!ix->base->type.isVector() && ix->base->type.kind != Type::LocalArray)
      return &e;
  // Everything else (a vector, a member, an operator): its operands.
  const ExprAST *bad = nullptr;
  forEachOperand(e, [&](const ExprAST &x) {
    if (!bad)
      bad = firstNonScalar(x, copies, via);
  });
  return bad;
}

/// Whether a role body only fills rings: produce blocks, with scalar code
/// and loops/ifs around them (nothing another warp could observe but the
/// copies the elected thread issues).
bool onlyProduces(const Block &body) {
  for (const StmtPtr &s : body) {
    if (auto *r = s->as<RingAccessStmt>()) {
      if (!r->isProduce())
        return false;
    } else if (auto *l = s->as<LetStmt>()) {
      if (!l->init || firstNonScalar(*l->init, false))
        return false;
    } else if (auto *a = s->as<AssignStmt>()) {
      if (!a->target->is<VarRefExpr>() || firstNonScalar(*a->value, false))
        return false;
    } else if (auto *f = s->as<ForStmt>()) {
      if (!onlyProduces(f->body))
        return false;
    } else if (auto *w = s->as<WhileStmt>()) {
      if (firstNonScalar(*w->cond, false) || !onlyProduces(w->body))
        return false;
    } else if (auto *i = s->as<IfStmt>()) {
      // A turn synchronises the role's warpgroups: every thread runs it.
      if (i->isTurn || firstNonScalar(*i->cond, false) || !onlyProduces(i->thenBody) ||
          !onlyProduces(i->elseBody))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

bool containsCopy(const Block &b);
bool containsCopy(const StmtAST &s) {
  if (auto *e = s.as<ExprStmtAST>()) {
    auto *c = e->expr->as<CallExpr>();
    return c && c->callee == "copy_async";
  }
  if (auto *f = s.as<ForStmt>())
    return containsCopy(f->body);
  if (auto *w = s.as<WhileStmt>())
    return containsCopy(w->body);
  if (auto *i = s.as<IfStmt>())
    return containsCopy(i->thenBody) || containsCopy(i->elseBody);
  return false;
}
bool containsCopy(const Block &b) {
  for (const StmtPtr &s : b)
    if (containsCopy(*s))
      return true;
  return false;
}
} // namespace

void Sema::checkRing(RingStmt &r, bool kernelTopLevel) {
  namespace T = ::tile::target;
  Decl &d = *r.decl;
  d.ring = &r;
  if (!kernelTopLevel)
    error(r.loc, "rings must be declared at the top level of the kernel body",
          "move the declaration out of the enclosing loop, if or role");
  if (r.stagesExpr) {
    // `pipeline[S]` with S a constant expression: a template kernel's value
    // parameter makes the depth a parameter of one source.
    const char *hint = "write `pipeline[4]`, or a constant: `const S = 4` or a kernel's value "
                       "parameter `kernel k<S: i32>`";
    bool reported = false;
    std::optional<int64_t> n = integerConstant(r.stagesExpr, reported);
    r.stages = 1; // keeps the checks below meaningful after an error
    if (!n) {
      if (!reported)
        error(r.stagesLoc, "the number of stages must be an integer constant from 1 to 32", hint);
    } else if (*n < 1 || *n > 32) {
      error(r.stagesLoc, "a ring has 1 to 32 stages, found " + std::to_string(*n),
            "4 stages hide a TMA load behind the consumers' work in most kernels");
    } else {
      r.stages = *n;
    }
  }
  std::unordered_set<std::string> names;
  for (RingMember &m : r.members) {
    if (!names.insert(m.name).second) {
      error(m.loc, "ring '" + d.name + "' already has a tile named '" + m.name + "'",
            "give each member its own name");
      continue;
    }
    if (m.elem.type.scalar == ScalarKind::I1) {
      error(m.elem.loc, "ring tiles of i1 are not supported", "TMA moves bytes: use i8");
      continue;
    }
    if (m.dims.size() > (size_t)T::kTmaMaxRank) {
      error(m.loc, "a ring tile has at most 5 dimensions", "reshape the tile");
      continue;
    }
    std::vector<int64_t> dims;
    int64_t total = 1;
    bool ok = true;
    for (ExprPtr &x : m.dims) {
      bool reported = false;
      std::optional<int64_t> v = integerConstant(x, reported);
      if (!v || *v <= 0) {
        if (!reported)
          error(x->loc, "a ring tile's dimensions must be positive integer constants",
                "write `a: shared<T>[128, 64]`");
        ok = false;
        break;
      }
      if (__builtin_mul_overflow(total, *v, &total)) {
        error(x->loc, "ring tile size overflows", "use smaller dimensions");
        ok = false;
        break;
      }
      dims.push_back(*v);
    }
    if (!ok)
      continue;
    auto decl = std::make_unique<Decl>();
    decl->kind = DeclKind::SharedArray;
    decl->name = d.name + "." + m.name;
    decl->loc = m.loc;
    decl->ring = &r;
    auto st = std::make_unique<SharedArrayStmt>(m.loc, std::move(decl), false, m.elem, nullptr);
    st->decl->array = st.get();
    st->decl->id = nextId_++; // declared only through the stage (`s.NAME`)
    st->constantCount = total;
    st->staticPerBlock = total;
    st->isStatic = true;
    if (dims.size() > 1)
      st->dims = dims;
    if (!chooseTileLayout(*st))
      continue;
    int64_t elem = byteSize(m.elem.type.scalar);
    int64_t bytes = total * elem;
    int64_t stride = (bytes + st->alignBytes - 1) / st->alignBytes * st->alignBytes;
    m.strideElems = stride / elem;
    st->staticBytes = bytes;
    int64_t all = 0;
    if (__builtin_mul_overflow(stride, r.stages, &all))
      all = INT64_MAX / 2;
    addStaticSmem(m.loc, all, st->alignBytes);
    st->decl->type = Type::array(Type::SharedArray, m.elem.type.scalar, AddressSpace::Shared,
                                 ScalarKind::I32, total);
    st->decl->type.dims = st->dims;
    m.stage = std::move(st);
  }
  // S full and S empty mbarriers.
  addStaticSmem(r.loc, target::kMBarrierBytes * r.stages);
  addStaticSmem(r.loc, target::kMBarrierBytes * r.stages);
  d.type = Type::voidTy();
  kernel_->rings.push_back(&r);
  declare(d);
}

bool Sema::checkProduceBody(const Block &body, bool topLevel) {
  bool ok = true;
  for (const StmtPtr &s : body) {
    if (!topLevel && containsCopy(*s)) {
      error(s->loc, "copy_async inside a produce block must be at the block's top level",
            "the compiler counts the bytes of every copy of the stage before issuing them; a "
            "conditional or repeated copy cannot be counted");
      ok = false;
      continue;
    }
    if (auto *f = s->as<ForStmt>())
      ok = checkProduceBody(f->body, false) && ok;
    else if (auto *w = s->as<WhileStmt>())
      ok = checkProduceBody(w->body, false) && ok;
    else if (auto *i = s->as<IfStmt>())
      ok = checkProduceBody(i->thenBody, false) && checkProduceBody(i->elseBody, false) && ok;
  }
  return ok;
}

/// Memory accesses and synchronisation inside a produce block (which runs in
/// one elected thread): only copies and scalar code belong there.
bool Sema::checkProduceExpr(const ExprAST &e) {
  std::vector<const CallExpr *> via;
  const ExprAST *bad = firstNonScalar(e, /*copies=*/true, &via);
  if (!bad)
    return true;
  reportNonScalarInProduce(*bad);
  for (const CallExpr *c : via)
    diags_.note(c->loc, "in the call of '" + c->callee +
                            "' here, inlined into the produce block (its body runs in the "
                            "block's one thread)");
  return false;
}

void Sema::reportNonScalarInProduce(const ExprAST &e) {
  const ExprAST *bad = &e;
  if (bad->type.isDistributed())
    error(bad->loc, bad->type.str() + " value in a produce block",
          "a produce block runs in one elected thread of the role, and a fragment, per_row or "
          "per_col value is spread over a warpgroup's 128 threads: one thread would change "
          "only its own part; compute it outside the block");
  else if (auto *c = bad->as<CallExpr>(); c && c->callee == "nanosleep")
    error(c->loc, "'nanosleep' cannot be used in a produce block",
          "a produce block waits for its stage's slot itself and reads no memory, so nothing "
          "in it can be polled: a sleep there only delays the copies the consumers wait "
          "for; back off in the loop that polls, outside the block");
  else if (auto *c = bad->as<CallExpr>(); c && c->inlined)
    error(c->loc, "'" + c->callee + "' cannot be called in a produce block",
          "a function called there is inlined into the block's one elected thread, so its body "
          "may hold only scalar code (no shared arrays, mbarriers or other declarations of "
          "memory); call it outside the block");
  else if (auto *c = bad->as<CallExpr>())
    error(c->loc, "'" + c->callee + "' cannot be used in a produce block",
          "a produce block runs in one elected thread of the role and holds copy_async and "
          "scalar code; synchronise, use the warp's collectives and access memory outside it");
  else
    error(bad->loc, "a produce block cannot read or write memory",
          "a produce block runs in one elected thread and holds copy_async and scalar code: "
          "read what the copies' coordinates need before it (`let page = table[j]` in the "
          "loop, then `produce r as s { copy_async(s.k, K[page * 64, 0]) }`), and "
          "what the consumers need in a consume block");
}

bool Sema::checkProduceStmts(const Block &body) {
  bool ok = true;
  for (const StmtPtr &s : body) {
    if (auto *l = s->as<LetStmt>())
      ok = checkProduceExpr(*l->init) && ok;
    else if (auto *a = s->as<AssignStmt>())
      ok = checkProduceExpr(*a->target) && checkProduceExpr(*a->value) && ok;
    else if (auto *e = s->as<ExprStmtAST>())
      ok = checkProduceExpr(*e->expr) && ok;
    else if (auto *f = s->as<ForStmt>())
      ok = checkProduceStmts(f->body) && ok;
    else if (auto *w = s->as<WhileStmt>())
      ok = checkProduceExpr(*w->cond) && checkProduceStmts(w->body) && ok;
    else if (auto *i = s->as<IfStmt>())
      ok = checkProduceExpr(*i->cond) && checkProduceStmts(i->thenBody) &&
           checkProduceStmts(i->elseBody) && ok;
  }
  return ok;
}

void Sema::checkRingAccess(RingAccessStmt &s) {
  const char *what = s.isProduce() ? "produce" : "consume";
  if (!inlineStack_.empty()) {
    error(s.loc, std::string("a ") + what + " block cannot be inside a function",
          "write it in the kernel body: each role's stage and phase are kernel state");
    return;
  }
  Decl *d = lookup(s.ringName);
  if (!d || d->kind != DeclKind::Ring) {
    error(s.ringLoc, d ? "'" + s.ringName + "' is not a ring" : "unknown ring '" + s.ringName + "'",
          "declare it at the top of the kernel: `let " + s.ringName +
              " = pipeline[4] { a: shared<bf16>[128, 64] }`");
    return;
  }
  RingStmt &ring = *d->ring;
  s.ring = &ring;
  s.role = curRole_;
  s.stage->ring = &ring;
  s.stage->type = Type::voidTy();
  // One role produces, one other consumes (stage and phase are per-role state).
  const StmtAST *&first = s.isProduce() ? ring.firstProduce : ring.firstConsume;
  const RoleAST *&role = s.isProduce() ? ring.producer : ring.consumer;
  auto roleName = [](const RoleAST *r) {
    return r ? "in role '" + r->name + "'" : std::string("outside warpgroups");
  };
  if (!first) {
    first = &s;
    role = curRole_;
  } else if (role != curRole_) {
    error(s.loc,
          std::string("ring '") + s.ringName + "' is " + what + "d " + roleName(curRole_) +
              " here and " + roleName(role) + " earlier",
          std::string("each ring has one ") + (s.isProduce() ? "producer" : "consumer") +
              " role: its stage and phase are that role's state");
    diags_.note(first->loc, std::string("the earlier ") + what + " is here");
  }
  if (turn_ && s.isProduce()) {
    error(s.loc, "a produce block inside a turn",
          "a produce block runs in one elected thread while the turn's barriers need the "
          "role's warpgroups: put the produce blocks outside the turn");
    diags_.note(turn_->loc, "the turn is here");
  }
  // A consume may sit in a consume of another ring (each stage is released
  // at its own block's end: FlashAttention-3's K, released once S = Q K^T
  // completed, inside V's, released after P V).
  bool nestedConsume = ringAccess_ && !ringAccess_->isProduce() && !s.isProduce();
  if (nestedConsume) {
    for (const RingAccessStmt *o = ringAccess_; o; o = o->enclosing)
      if (o->ring == s.ring) {
        error(s.loc, "a consume of ring '" + s.ringName + "' nested in a consume of the same ring",
              "a stage of a ring is consumed in order: finish the enclosing block first");
        diags_.note(o->loc, "the enclosing consume is here");
        break;
      }
    s.enclosing = ringAccess_;
    ringAccess_->enclosesConsume = true;
  } else if (ringAccess_) {
    error(s.loc,
          std::string("a ") + what + " block cannot be nested in a " +
              (ringAccess_->isProduce() ? "produce" : "consume") + " block",
          s.isProduce() ? "finish the enclosing block first"
                        : "finish the enclosing block first (a consume may be nested only in a "
                          "consume of another ring)");
  }
  RingAccessStmt *outer = ringAccess_;
  ringAccess_ = &s;
  produceBytes_ = 0;
  produceTiles_.clear();
  bool ok = !s.isProduce() || checkProduceBody(s.body, true);
  size_t errorsBefore = diags_.numErrors();
  pushScope();
  declare(*s.stage);
  checkBlock(s.body, false);
  popScope();
  ringAccess_ = outer;
  checkConsumeInflight(s); // SemaMma.cpp
  if (!s.isProduce() && s.ring && !s.slotReadOnlyByMma())
    s.ring->consumedGenerically = true;
  if (!s.isProduce() || !ok || diags_.numErrors() != errorsBefore)
    return;
  if (!checkProduceStmts(s.body))
    return;
  // A member whose declaration was refused (reported there) has no tile:
  // its copies count nothing, which is no second error.
  if (s.ring)
    for (const RingMember &m : s.ring->members)
      if (!m.stage)
        return;
  if (produceBytes_ == 0) {
    error(s.loc, "produce block of ring '" + s.ringName + "' loads no tile",
          "copy the stage's tiles: `copy_async(s.a, A[r, c])`");
    return;
  }
  if (produceBytes_ > ::tile::target::kMaxMBarrierTxBytes) {
    error(s.loc,
          "produce block of ring '" + s.ringName + "' lands " + std::to_string(produceBytes_) +
              " bytes on one full barrier phase, over the limit of 2^20-1",
          "use smaller tiles or split them over two rings");
    return;
  }
  if (ring.txBytes >= 0 && ring.txBytes != produceBytes_) {
    error(s.loc,
          "this produce of ring '" + s.ringName + "' lands " + std::to_string(produceBytes_) +
              " bytes, an earlier one " + std::to_string(ring.txBytes),
          "every produce fills the same tiles of a stage");
    return;
  }
  ring.txBytes = produceBytes_;
}

/// Whether an enclosing `if` selects `thread_id() == C` or `role_thread_id()
/// == C` (possibly under &&) with C in the first warp of a warpgroup: a
/// thread of a warp that releases ring stages when one warp per consumer
/// warpgroup does.
bool Sema::guardedByWarpgroupLeaderWarp() const {
  std::function<bool(const ExprAST &)> leader = [&](const ExprAST &g) {
    auto *b = boundValue(g).as<BinaryExpr>(); // `let` names stand for their values
    if (!b)
      return false;
    if (b->op == BinaryOp::LogicalAnd)
      return leader(*b->lhs) || leader(*b->rhs);
    if (b->op != BinaryOp::Eq)
      return false;
    auto check = [&](const ExprAST &id, const ExprAST &c) {
      auto *call = boundValue(id).as<CallExpr>();
      auto *lit = boundValue(c).as<IntLiteralExpr>();
      return call && lit && !lit->negated &&
             (call->builtin == Builtin::ThreadId || call->builtin == Builtin::RoleThreadId) &&
             call->args.empty() &&
             lit->magnitude % ::tile::target::kWarpgroupSize < ::tile::target::kWarpSize;
    };
    return check(*b->lhs, *b->rhs) || check(*b->rhs, *b->lhs);
  };
  for (const ExprAST *g : ifGuards_)
    if (leader(*g))
      return true;
  return false;
}

bool Sema::inRingProduce() const { return ringAccess_ && ringAccess_->isProduce(); }

bool Sema::checkRingCopy(CallExpr &e, SharedArrayStmt &tile) {
  RingStmt *ring = tile.decl->ring;
  if (e.tma.isStore) {
    if (!ring)
      return true;
    // Forwarding the stage being consumed (the ring all-gather
    // GEMM): the slot's release waits for the store's read (MLIRGenRings.cpp).
    if (ringAccess_ && !ringAccess_->isProduce() && ringAccess_->ring == ring) {
      ring->storedByTma = true;
      if (!guardedByWarpgroupLeaderWarp())
        ring->storedOutsideLeaderWarp = true;
      return true;
    }
    error(e.loc, "a TMA store cannot read ring tile '" + tile.decl->name + "'",
          "copy the data into a plain shared tile first, or store it inside a `consume` block of "
          "the ring (the slot is released once the store has read it)");
    return false;
  }
  if (!inRingProduce()) {
    if (!ring)
      return true;
    error(e.loc,
          "copy_async into ring tile '" + tile.decl->name + "' outside a `produce " +
              ring->decl->name + "` block",
          "the ring's producer fills its stages: `produce " + ring->decl->name +
              " as s { copy_async(s.a, A[...]) }`");
    return false;
  }
  RingAccessStmt &p = *ringAccess_;
  if (ring != p.ring) {
    error(e.args[0]->loc,
          "inside `produce " + p.ringName + "`, copy_async loads into the stage's tiles",
          "name a tile of the stage: `copy_async(" + p.stage->name + ".NAME, A[...])`");
    return false;
  }
  if (e.args.size() == 3) {
    error(e.args[2]->loc, "inside a produce block copy_async takes no mbarrier",
          "the copy completes on the ring's full barrier; the compiler expects its bytes");
    return false;
  }
  if (!produceTiles_.insert(&tile).second) {
    error(e.loc, "tile '" + tile.decl->name + "' is loaded twice in one produce block",
          "each tile of a stage is filled by one copy");
    return false;
  }
  int axis = e.tma.multicastAxis;
  if (axis >= 0 && kernel_->cluster.kind == ClusterAttr::Static) {
    int64_t c = cluster::groupSize(kernel_->cluster.dims, axis);
    if (c > 1) {
      // Copies along two axes (a 2-D cluster sharing one operand along each):
      // a slot is then written by the CTAs of this CTA's group along either
      // axis, so its release must reach all of them before any refills it.
      // The ring's group becomes the whole cluster (a superset: every CTA
      // arrives on every CTA's empty barrier, the empty count is consumer
      // warps x cluster size), which keeps one release pattern per ring.
      if (ring->multicastAxis >= 0 && ring->multicastAxis != axis)
        axis = cluster::kAllAxes;
      ring->multicastAxis = axis;
      ring->groupSize = cluster::groupSize(kernel_->cluster.dims, axis);
    }
  }
  produceBytes_ += *tile.constantCount * byteSize(tile.elem.type.scalar);
  return true;
}

void Sema::checkRingPlacement(const Block &b, int ifDepth, const RingAccessStmt *in) {
  for (const StmtPtr &s : b) {
    if (auto *a = s->as<RingAccessStmt>()) {
      if (ifDepth > 0)
        error(a->loc,
              std::string("a ") + (a->isProduce() ? "produce" : "consume") +
                  " block cannot be inside an `if`",
              "every thread of the role runs it (its stage and phase advance in every thread, "
              "and each consumer warp releases the slot): put the condition inside the block, "
              "in a loop bound, or skip the iteration with `if COND { continue }` before the "
              "block (COND the same in every thread of the role)");
      checkRingPlacement(a->body, 0, a);
    } else if (s->is<ReturnStmt>()) {
      error(s->loc, "a kernel with a ring cannot return early",
            "the ring's releases and the producer's final waits must run in every thread: "
            "end the loops instead");
    } else if ((s->is<BreakStmt>() || s->is<ContinueStmt>()) && in) {
      auto *loop = s->is<BreakStmt>() ? s->as<BreakStmt>()->loop : s->as<ContinueStmt>()->loop;
      // A loop inside the block is fine; leaving the block is not.
      if (!loop || !containsStmt(in->body, loop))
        error(s->loc,
              std::string("cannot leave a ") + (in->isProduce() ? "produce" : "consume") +
                  " block with break or continue",
              "the stage must be completed and released: end the loop after the block");
    } else if (auto *f = s->as<ForStmt>()) {
      checkRingPlacement(f->body, ifDepth, in);
    } else if (auto *w = s->as<WhileStmt>()) {
      checkRingPlacement(w->body, ifDepth, in);
    } else if (auto *i = s->as<IfStmt>()) {
      // A turn's body runs in every thread of the role (in turn).
      checkRingPlacement(i->thenBody, i->isTurn ? ifDepth : ifDepth + 1, in);
      checkRingPlacement(i->elseBody, ifDepth + 1, in);
    } else if (auto *g = s->as<WarpgroupsStmt>()) {
      for (const auto &r : g->roles)
        checkRingPlacement(r->body, ifDepth, in);
    }
  }
}

/// A generic write into a ring tile races the slot's next TMA fill: the
/// release that hands the slot back to the producer orders generic *reads*
/// (bar.warp.sync + mbarrier.arrive.release), but a generic write followed
/// by an async-proxy write of the same bytes needs fence.proxy.async between
/// them (PTX ISA 9.7.13.6, proxy ordering), which no release provides. The
/// stage tiles are reached only by name (`s.NAME`: a let, remote() or a
/// function's view parameter cannot take a TMA tile, checkPlainArrayUse), so
/// the writers checked here are every way to write one.
bool Sema::checkRingTileWrite(const ExprAST &target, const Location &loc,
                              const std::string &writer) {
  auto *ref = target.as<VarRefExpr>();
  if (!ref || !ref->decl || !ref->decl->ring || ref->decl->kind != DeclKind::SharedArray)
    return true;
  error(loc,
        writer.empty() ? "ring tile '" + ref->decl->name + "' is read-only"
                       : writer + " writes ring tile '" + ref->decl->name + "', which is read-only",
        "only the produce block's copies write a ring's tiles; copy the values into "
        "registers or a plain shared array");
  return false;
}

bool Sema::containsStmt(const Block &b, const StmtAST *target) {
  for (const StmtPtr &s : b) {
    if (s.get() == target)
      return true;
    if (auto *f = s->as<ForStmt>(); f && containsStmt(f->body, target))
      return true;
    if (auto *w = s->as<WhileStmt>(); w && containsStmt(w->body, target))
      return true;
    if (auto *i = s->as<IfStmt>();
        i && (containsStmt(i->thenBody, target) || containsStmt(i->elseBody, target)))
      return true;
  }
  return false;
}

void Sema::checkRings() {
  KernelAST &k = *kernel_;
  if (k.rings.empty())
    return;
  checkRingPlacement(k.body, 0, nullptr);
  for (RingStmt *r : k.rings) {
    const std::string &name = r->decl->name;
    if (!r->firstProduce && !r->firstConsume) {
      diags_.warning(r->loc, "ring '" + name + "' is never produced or consumed",
                     "remove it, or fill it with `produce " + name + " as s { ... }`");
      continue;
    }
    if (!r->firstProduce || !r->firstConsume) {
      error(r->loc,
            "ring '" + name + "' is " + (r->firstProduce ? "produced" : "consumed") +
                " but never " + (r->firstProduce ? "consumed" : "produced"),
            r->firstProduce ? "its producer would wait forever for a free stage: consume it "
                              "(`consume " +
                                  name + " as s { ... }`) in another role"
                            : "its consumers would wait forever for a full stage: fill it "
                              "(`produce " +
                                  name + " as s { ... }`) in another role");
      continue;
    }
    if (r->producer != r->consumer || !r->producer) {
      if (!r->producer != !r->consumer) {
        error(r->firstConsume->loc,
              "ring '" + name + "' is produced " +
                  (r->producer ? "in role '" + r->producer->name + "'"
                               : std::string("outside warpgroups")) +
                  " and consumed " +
                  (r->consumer ? "in role '" + r->consumer->name + "'"
                               : std::string("outside warpgroups")),
              "produce and consume it in two roles of one warpgroups block (or both without "
              "roles)");
        continue;
      }
    } else {
      error(r->firstConsume->loc,
            "ring '" + name + "' is produced and consumed in the same role '" + r->producer->name +
                "'",
            "give the producer its own role (`producer(regs = 40) { ... }`), or use no "
            "warpgroups block at all");
      continue;
    }
    // A producing role that does nothing else runs in its first warp only
    // (MLIRGen): the other warps of its warpgroup(s) would only loop.
    if (r->producer && onlyProduces(r->producer->body))
      r->producer->onlyProduces = true;
    if (r->consumer && !r->consumedGenerically && !r->storedOutsideLeaderWarp) {
      // Slots read only by wgmma (warpgroup-wide operations, retired by
      // wgmma.wait_group before the release): one warp of each consumer
      // warpgroup releases, as CUTLASS's PipelineTmaAsync counts its
      // consumers (one arrival per consumer warpgroup and destination CTA).
      r->releasedPerWarpgroup = true;
      r->consumerWarps = r->consumer->numWarpgroups;
    } else if (r->consumer) {
      r->consumerWarps = r->consumer->threads() / ::tile::target::kWarpSize;
    } else {
      int64_t t = (int64_t)k.threads.dims[0] * k.threads.dims[1] * k.threads.dims[2];
      if (!k.threads.present || t % ::tile::target::kWarpSize != 0) {
        error(r->firstConsume->loc,
              "consuming ring '" + name + "' needs an exact block size, a multiple of 32",
              "declare the kernel with `threads(T)`: each consumer warp releases the slot once, "
              "so the compiler counts the warps");
        continue;
      }
      r->consumerWarps = (int)(t / ::tile::target::kWarpSize);
    }
    if ((int64_t)r->consumerWarps * r->groupSize > ::tile::target::kMaxMBarrierArrivals)
      error(r->loc, "ring '" + name + "' would count too many release arrivals",
            "use fewer consumer warps");
  }
}

} // namespace tile::frontend

namespace tile::frontend {

void Sema::resolveRingMember(ExprPtr &e, const Decl &d) {
  auto &m = *e->as<MemberExpr>();
  const std::string &base = m.base->as<VarRefExpr>()->name;
  RingStmt &ring = *d.ring;
  e->type = Type::invalid(); // unless it names a tile (infer does not check it again)
  if (d.kind == DeclKind::Ring) {
    error(m.loc, "the tiles of ring '" + base + "' are reached through a stage",
          "write `produce " + base + " as s { ... }` or `consume " + base +
              " as s { ... }` and name `s." + m.name + "`");
    return;
  }
  for (RingMember &mem : ring.members) {
    if (mem.name != m.name)
      continue;
    if (!mem.stage) // its declaration was in error
      return;
    auto ref = std::make_unique<VarRefExpr>(m.loc, mem.stage->decl->name);
    ref->decl = mem.stage->decl.get();
    ref->type = ref->decl->type;
    ref->depth = m.depth;
    ref->ringStageTile = true;
    e = std::move(ref);
    return;
  }
  std::string names;
  for (RingMember &mem : ring.members)
    names += (names.empty() ? "`" : ", `") + base + "." + mem.name + "`";
  error(m.loc, "ring '" + ring.decl->name + "' has no tile '" + m.name + "'",
        "its tiles are " + names);
}

} // namespace tile::frontend
