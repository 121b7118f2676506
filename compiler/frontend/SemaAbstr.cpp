//===- SemaAbstr.cpp - fn, const, kernel specialisation, local arrays ------===//
//
// Abstraction and register arrays:
//  - `const` declarations are checked once; every use of the name becomes a
//    literal of the value (constantLiteral), so sizes, bounds, attributes and
//    the constant evaluator (foldConstant / evalConstant) see plain literals.
//  - Template kernels are instantiated in SemaTemplates.cpp.
//  - A call of a `fn` parses the function's body again and checks it at the
//    call, in a scope of its own (parameters and file-level constants only):
//    functions are always inlined, so every kernel-level check (barriers in
//    divergent code, cluster features, the sync passes) sees the code where it
//    runs. Diagnostics point into the function, with a note at the call.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"
#include "tilec/frontend/Parser.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace tile::frontend {

namespace {
constexpr int64_t kMaxLocalElements = 4096; // N of `local<T>[N]`
constexpr int kMaxInlinedCallsPerKernel = 4096;
/// Calls inside calls: each level is a recursion of the checker and of
/// MLIRGen over a whole function body, so a chain of thousands of functions
/// would overflow the stack.
constexpr size_t kMaxInlineDepth = 64;
/// Statements and expressions around a call, summed over the calls it is
/// inlined through (each function may nest 256 blocks and 256 expression
/// levels: 64 such functions in a chain would overflow the stack).
constexpr int kMaxInlinedNesting = 512;

/// A block that ends in `return` on every path (loops are not assumed to run).
bool alwaysReturns(const Block &b) {
  for (const StmtPtr &s : b) {
    if (s->is<ReturnStmt>())
      return true;
    if (auto *i = s->as<IfStmt>();
        i && i->hasElse && alwaysReturns(i->thenBody) && alwaysReturns(i->elseBody))
      return true;
    if (auto *i = s->as<IfStmt>(); i && i->isConst && (i->constFailed || alwaysReturns(i->thenBody)))
      return true; // `if const`: only the taken branch is left (checkConstIf)
  }
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

ExprPtr Sema::constantLiteral(const Decl &d, const Location &loc) {
  ExprPtr e;
  if (d.constIsFloat) {
    e = std::make_unique<FloatLiteralExpr>(loc, d.constFloat);
  } else if (d.type.isBool()) {
    e = std::make_unique<BoolLiteralExpr>(loc, d.constInt != 0);
  } else {
    auto lit = std::make_unique<IntLiteralExpr>(loc, d.constInt);
    lit->negated = d.constInt < 0;
    lit->magnitude = d.constInt < 0 ? 0 - (uint64_t)d.constInt : (uint64_t)d.constInt;
    e = std::move(lit);
  }
  e->type = d.type; // UntypedInt for an untyped integer constant: adapts like a literal
  e->constant = &d;
  return e;
}

bool Sema::checkConstDecl(ConstStmt &s) {
  Decl &d = *s.decl;
  d.type = Type::invalid();
  resolveNames(s.init); // the constants before it (file level: not a statement)
  std::string what = "value of constant '" + d.name + "'";
  Type t;
  bool wasCast = adaptingCastOperand_;
  adaptingCastOperand_ = true; // a wrapping step is the error below, reported once
  if (s.annotation)
    t = checkValue(s.init, &s.annotation->type, what,
                   "convert explicitly with `as`, or change the declared type");
  else
    t = infer(s.init);
  adaptingCastOperand_ = wasCast;
  if (t.isInvalid())
    return false;
  if (t.kind == Type::UntypedFloat)
    t = finalize(s.init); // f32, like a float literal
  if (!t.isScalar() && t.kind != Type::UntypedInt) {
    error(s.init->loc, "a constant must be a scalar, found " + t.str(),
          "constants are integers, floats or i1; use `let` for other values");
    return false;
  }
  if (!checkConstantOps(*s.init))
    return false;
  const char *hint = "a constant is built from literals, other constants, compile-time kernel "
                     "parameters, operators, casts and min/max/clamp";
  if (t.isFloat()) {
    std::optional<ConstValue> v = evalConstant(*s.init);
    if (!v) {
      error(s.init->loc, "the " + what + " is not a compile-time constant", hint);
      return false;
    }
    d.constIsFloat = true;
    d.constFloat = v->f;
  } else {
    bool overflow = false;
    std::optional<int64_t> v = foldConstant(*s.init, overflow);
    if (!v && !overflow && t.isScalar()) // min/max/clamp and the exact run-time semantics
      if (std::optional<ConstValue> c = evalConstant(*s.init))
        v = c->i;
    if (overflow && reportUndefinedConstantStep(*s.init))
      return false;
    if (overflow) {
      error(s.init->loc, "the " + what + " overflows",
            "the value of every step must fit its type (and 64 bits)");
      return false;
    }
    if (!v) {
      error(s.init->loc, "the " + what + " is not a compile-time constant", hint);
      return false;
    }
    d.constInt = *v;
  }
  d.type = t;
  return true;
}

void Sema::resolveAttrNames(KernelAST &k) {
  // The dimensions see the file-level constants and the kernel's
  // compile-time parameters (not its runtime parameters: the attributes are
  // fixed in the PTX).
  pushScope();
  for (auto &t : k.templateDecls)
    scopes_.back().emplace(t->name, t.get());
  attrKernel_ = &k;
  auto resolve = [&](std::array<DimName, 3> &names, std::array<int, 3> &dims, const char *attr) {
    std::string hint = std::string("write ") + attr +
                       "(X[, Y[, Z]]) with integer literals, file-level constants and the "
                       "kernel's compile-time parameters";
    for (int i = 0; i < 3; ++i) {
      if (!names[i].expr)
        continue;
      ExprPtr &e = names[i].expr;
      resolveNames(e);
      Type t = checkValue(e, nullptr, "");
      std::optional<int64_t> v;
      bool overflow = false;
      if (!t.isInvalid() && (!t.isInteger() || t.isBool()))
        error(e->loc, std::string(attr) + " dimension must be an integer, found " + t.str(), hint);
      else if (!t.isInvalid() && checkConstantOps(*e) && !(v = foldConstant(*e, overflow)))
        error(e->loc,
              std::string(attr) + " dimension must be a compile-time constant" +
                  (overflow ? " (it overflows)" : ""),
              hint);
      else if (v && (*v < 1 || *v > (1 << 20)))
        error(e->loc, std::string(attr) + " dimension " + std::to_string(*v) + " is out of range",
              hint);
      else if (v)
        dims[i] = (int)*v;
    }
  };
  if (k.cluster.kind == ClusterAttr::Static)
    resolve(k.cluster.names, k.cluster.dims, "cluster");
  if (k.threads.present)
    resolve(k.threads.names, k.threads.dims, "threads");
  // max_threads(N) / min_blocks(N) written as constant expressions.
  for (bool isMax : {true, false}) {
    DimName &name = isMax ? k.bounds.maxThreadsName : k.bounds.minBlocksName;
    if (!name.expr)
      continue;
    const char *attr = isMax ? "max_threads" : "min_blocks";
    std::string hint = std::string("write ") + attr +
                       "(N) with an integer literal, a file-level constant or one of the "
                       "kernel's compile-time parameters";
    ExprPtr &e = name.expr;
    resolveNames(e);
    Type t = checkValue(e, nullptr, "");
    std::optional<int64_t> v;
    bool overflow = false;
    if (!t.isInvalid() && (!t.isInteger() || t.isBool()))
      error(e->loc, std::string(attr) + " must be an integer, found " + t.str(), hint);
    else if (!t.isInvalid() && checkConstantOps(*e) && !(v = foldConstant(*e, overflow)))
      error(e->loc,
            std::string(attr) + " must be a compile-time constant" +
                (overflow ? " (it overflows)" : ""),
            hint);
    else if (v && (*v < 1 || *v > (1 << 20)))
      error(e->loc, std::string(attr) + " of " + std::to_string(*v) + " is out of range", hint);
    else if (v)
      (isMax ? k.bounds.maxThreads : k.bounds.minBlocks) = (int)*v;
  }
  attrKernel_ = nullptr;
  popScope();
}

//===----------------------------------------------------------------------===//
// The module: constants, functions (then the template instances)
//===----------------------------------------------------------------------===//

void Sema::prepareModule(ModuleAST &module) {
  // File-level constants, in order: each may use the ones before it.
  // A stand-in kernel without a cluster: a builtin in a constant's value
  // (thread_id(), cluster_size()) is checked as usual and is not constant.
  KernelAST fileScope;
  fileScope.name = "<file>";
  kernel_ = &fileScope;
  scopes_.clear();
  pushScope();
  for (auto &c : module.consts) {
    Decl &d = *c->decl;
    checkConstDecl(*c); // before it is visible: `const N = N + 1` names nothing
    auto [it, inserted] = globalConsts_.emplace(d.name, &d);
    if (!inserted) {
      error(d.loc, "redefinition of constant '" + d.name + "'",
            "give every file-level constant a distinct name");
      diags_.note(it->second->loc, "previous definition of '" + d.name + "' is here");
    }
    if (builtinFromName(d.name) != Builtin::Unknown)
      error(d.loc, "constant '" + d.name + "' has the name of a builtin", "rename the constant");
  }
  popScope();
  scopes_.clear();
  kernel_ = nullptr;

  for (auto &f : module.functions) {
    if (builtinFromName(f->name) != Builtin::Unknown) {
      error(f->loc, "function '" + f->name + "' has the name of a builtin",
            "rename the function; builtins cannot be redefined");
      refusedFunctions_.insert(f->name);
      continue;
    }
    auto [it, inserted] = functions_.emplace(f->name, f.get());
    if (!inserted) {
      error(f->loc, "redefinition of function '" + f->name + "'",
            "give every function a distinct name (there is no overloading)");
      diags_.note(it->second->loc, "previous definition of '" + f->name + "' is here");
    }
    // A shape parameter's extents stay unresolved: each call binds them
    // (bindShapeParams) and checks the shapes it makes.
    const std::vector<TemplateParam> *shapes = &f->shapeParams;
    if (f->result)
      resolveTypeExtents(*f->result, shapes);
    for (TypeSyntax &r : f->results) {
      resolveTypeExtents(r, shapes);
      if (r.type.isDistributed() && r.namedExtents.empty())
        checkDistributedShape(r.loc, r.type);
    }
    checkShapeParamsBound(*f);
    for (size_t i = 0; i < f->paramTypes.size(); ++i) {
      resolveTypeExtents(f->paramTypes[i], shapes);
      const Type &t = f->paramTypes[i].type;
      bool shaped = !f->paramTypes[i].namedExtents.empty(); // its argument's shape
      if (t.isPointer() && t.scalar == ScalarKind::I1)
        error(f->paramTypes[i].loc, "pointers to i1 are not supported", "store booleans as i8");
      if (!shaped && t.kind == Type::LocalArray && (!t.staticLength || *t.staticLength < 1))
        error(f->paramTypes[i].loc, "a local array parameter needs a positive length",
              "write `local<T>[N]` with N >= 1");
      if (!shaped && t.isDistributed())
        checkDistributedShape(f->paramTypes[i].loc, t);
      for (size_t j = 0; j < i; ++j)
        if (f->paramNames[j] == f->paramNames[i]) {
          error(f->paramLocs[i], "duplicate parameter '" + f->paramNames[i] + "'",
                "give every parameter a distinct name");
          diags_.note(f->paramLocs[j], "previous definition of '" + f->paramNames[i] + "' is here");
        }
    }
    if (f->result && f->result->type.isDistributed() && f->result->namedExtents.empty())
      checkDistributedShape(f->result->loc, f->result->type);
  }
  instantiateTemplates(module);
}

//===----------------------------------------------------------------------===//
// Local arrays and unrolling
//===----------------------------------------------------------------------===//

void Sema::checkLocalArray(LocalArrayStmt &s) {
  Decl &d = *s.decl;
  d.local = &s;
  d.type = Type::invalid();
  bool ok = true;
  if (s.elem.type.scalar == ScalarKind::I1) {
    error(s.elem.loc, "local arrays of i1 are not supported", "store booleans as i8");
    ok = false;
  }
  Type t = checkValue(s.count, nullptr, "");
  std::string hint = "write `local<T>[N]` with a constant N from 1 to " +
                     std::to_string(kMaxLocalElements) + " (a literal or a `const`)";
  if (!t.isInvalid() && (!t.isInteger() || t.isBool())) {
    error(s.count->loc, "local array size must be an integer, found " + t.str(), hint);
    ok = false;
  } else if (!t.isInvalid() && checkConstantOps(*s.count)) {
    bool overflow = false;
    std::optional<int64_t> n = foldConstant(*s.count, overflow);
    if (overflow || !n) {
      error(s.count->loc,
            overflow ? std::string("local array size overflows")
                     : std::string("local array size must be a compile-time constant"),
            hint);
      ok = false;
    } else if (*n < 1 || *n > kMaxLocalElements) {
      error(s.count->loc,
            "local array size " + std::to_string(*n) + " is out of range (1 to " +
                std::to_string(kMaxLocalElements) + ")",
            hint);
      ok = false;
    } else {
      s.length = *n;
    }
  } else {
    ok = false;
  }
  if (ok)
    d.type = Type::array(Type::LocalArray, s.elem.type.scalar, AddressSpace::Local, ScalarKind::I32,
                         s.length);
  declare(d);
}

bool Sema::rejectLocalArrayAccess(CallExpr &e) {
  if (e.args.empty())
    return false;
  auto *idx = e.args[0]->as<IndexExpr>();
  auto *ref = idx ? idx->base->as<VarRefExpr>() : nullptr;
  Decl *d = ref ? lookup(ref->name) : nullptr;
  if (!d || d->type.kind != Type::LocalArray)
    return false;
  error(e.loc, e.callee + "() cannot access a local array",
        "local arrays are private to the thread: read and write them by indexing (`r[i] = v`)");
  for (ExprPtr &a : e.args)
    resolveOnly(a);
  return true;
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void Sema::checkReturn(ReturnStmt &s) {
  if (turn_ && inlineStack_.size() == turnInlines_)
    error(s.loc, "'return' leaves a turn",
          "a turn hands the next warpgroup its turn at the end of its body, which the other "
          "warpgroups wait for: return after the turn");
  if (inlineStack_.empty())
    return; // a kernel's return (the parser rejects a value)
  const FnAST &fn = *inlineStack_.back().fn;
  checkTupleReturn(s, fn, inlineStack_.back().result, inlineStack_.back().results);
  if (!s.values.empty() || !fn.results.empty())
    return; // SemaTuples.cpp
  if (fn.result) {
    const Type &result = inlineStack_.back().result; // T bound for this call
    if (!s.value) {
      error(s.loc, "function '" + fn.name + "' returns " + result.str() + ": `return` needs a value",
            "write `return EXPR`");
      return;
    }
    checkValue(s.value, &result, "returned value", "convert explicitly with `as`");
    return;
  }
  if (s.value) {
    error(s.value->loc, "function '" + fn.name + "' returns no value",
          "declare the result type: `fn " + fn.name + "(...) -> TYPE`, or write `return` alone");
    resolveOnly(s.value);
  }
}

Type Sema::inferInlinedCall(CallExpr &e, const FnAST &fn) {
  auto fail = [&] {
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  };
  // Only the call inferValues was given may have several values (not a
  // call in its arguments).
  bool valuesAllowed = std::exchange(tupleCallAllowed_, false);
  if (rejectValuesCall(e, fn, valuesAllowed))
    return fail();
  for (size_t i = 0; i < inlineStack_.size(); ++i) {
    if (inlineStack_[i].fn != &fn)
      continue;
    std::string cycle;
    for (size_t j = i; j < inlineStack_.size(); ++j)
      cycle += inlineStack_[j].fn->name + " -> ";
    cycle += fn.name;
    error(e.loc, "recursive call of function '" + fn.name + "' (" + cycle + ")",
          "functions are inlined, so they cannot call themselves; write the recursion as a loop");
    for (size_t j = i + 1; j < inlineStack_.size(); ++j)
      diags_.note(inlineStack_[j].call->loc, "'" + inlineStack_[j - 1].fn->name + "' calls '" +
                                                 inlineStack_[j].fn->name + "' here");
    return fail();
  }
  if (inlineStack_.size() >= kMaxInlineDepth) {
    error(e.loc,
          "function calls nested too deeply (more than " + std::to_string(kMaxInlineDepth) +
              " levels)",
          "functions are inlined at every call; call '" + fn.name +
              "' from a shallower function, or merge functions that only call the next");
    return fail();
  }
  if (nesting_ > kMaxInlinedNesting) {
    error(e.loc,
          "function calls nested too deeply: " + std::to_string(nesting_) +
              " statements and expressions enclose this call once its callers are inlined "
              "(more than " +
              std::to_string(kMaxInlinedNesting) + ")",
          "functions are inlined at every call; call '" + fn.name +
              "' outside the deep blocks and expressions, or split the work into flatter "
              "functions");
    return fail();
  }
  if (++inlinedCalls_ > kMaxInlinedCallsPerKernel) {
    if (inlinedCalls_ == kMaxInlinedCallsPerKernel + 1)
      error(e.loc,
            "kernel inlines more than " + std::to_string(kMaxInlinedCallsPerKernel) +
                " function calls",
            "functions are always inlined; call them from fewer places (or in a loop)");
    return fail();
  }
  if (!e.namedArgs.empty()) {
    error(e.namedArgs[0].loc, "function '" + fn.name + "' takes no named arguments",
          "pass the arguments by position");
    return fail();
  }
  if (e.args.size() != fn.paramTypes.size()) {
    error(e.loc,
          "function '" + fn.name + "' takes " + std::to_string(fn.paramTypes.size()) +
              " argument(s), found " + std::to_string(e.args.size()),
          "its parameters are declared at line " + std::to_string(fn.loc.line));
    diags_.note(fn.loc, "'" + fn.name + "' is defined here");
    return fail();
  }
  auto inl = std::make_unique<InlinedCall>();
  inl->fn = &fn;
  bool ok = true;
  // Type parameters: explicit (`f<f16>(...)`) or each from the first
  // argument whose declared type names it (an untyped literal binds none).
  std::vector<std::optional<ScalarKind>> binding(fn.typeParams.size());
  std::vector<std::optional<Type>> inferred(e.args.size());
  auto paramOf = [&](const std::string &name) {
    for (size_t p = 0; p < fn.typeParams.size(); ++p)
      if (fn.typeParams[p].name == name)
        return (int)p;
    return -1;
  };
  if (!e.typeArgs.empty()) {
    if (e.typeArgs.size() != fn.typeParams.size()) {
      error(e.typeArgs[0].loc,
            "function '" + fn.name + "' takes " + std::to_string(fn.typeParams.size()) +
                " type argument(s), found " + std::to_string(e.typeArgs.size()),
            fn.typeParams.empty() ? "call it without `<...>`"
                                  : "give one type per type parameter, in order, or none to "
                                    "infer them from the arguments");
      diags_.note(fn.loc, "'" + fn.name + "' is defined here");
      return fail();
    }
    for (size_t p = 0; p < binding.size(); ++p)
      binding[p] = e.typeArgs[p].type.scalar;
  } else if (!fn.typeParams.empty()) {
    std::vector<size_t> boundBy(binding.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      int p = paramOf(fn.paramTypes[i].typeParam);
      if (p < 0)
        continue;
      Type got = infer(e.args[i]);
      inferred[i] = got;
      if (got.isInvalid()) {
        ok = false;
        continue;
      }
      if (got.isUntyped())
        continue;
      if (!binding[p]) {
        binding[p] = got.scalar;
        boundBy[p] = i;
      } else if (*binding[p] != got.scalar) {
        error(e.args[i]->loc,
              "argument " + std::to_string(i + 1) + " ('" + fn.paramNames[i] + "') of '" +
                  fn.name + "' makes " + fn.typeParams[p].name + " = " + scalarName(got.scalar) +
                  ", but argument " + std::to_string(boundBy[p] + 1) + " made it " +
                  scalarName(*binding[p]),
              "convert one argument with `as`, or give the type: `" + fn.name + "<" +
                  scalarName(*binding[p]) + ">(...)`");
        ok = false;
      }
    }
    for (size_t p = 0; ok && p < binding.size(); ++p)
      if (!binding[p]) {
        error(e.loc,
              "cannot infer type parameter '" + fn.typeParams[p].name + "' of '" + fn.name +
                  "' from the arguments",
              "give it explicitly: `" + fn.name + "<f32>(...)` (an untyped literal has no type "
              "of its own; a type parameter no parameter uses is never inferred)");
        diags_.note(fn.typeParams[p].loc, "'" + fn.typeParams[p].name + "' is declared here");
        ok = false;
      }
    if (!ok) {
      for (size_t i = 0; i < e.args.size(); ++i)
        if (!inferred[i])
          resolveOnly(e.args[i]);
      return Type::invalid();
    }
  }
  std::vector<int64_t> shapes; // fn.shapeParams' values, from the arguments' types
  if (!bindShapeParams(fn, e, inferred, shapes)) {
    for (size_t i = 0; i < e.args.size(); ++i)
      if (!inferred[i])
        resolveOnly(e.args[i]);
    return Type::invalid();
  }
  // A declared type with its type and shape parameters replaced by the
  // bound type and extents.
  auto bound = [&](const TypeSyntax &ts) {
    Type t = ts.type;
    if (int p = paramOf(ts.typeParam); p >= 0 && binding[p])
      t.scalar = *binding[p];
    for (const TypeSyntax::NamedExtent &n : ts.namedExtents)
      for (size_t p = 0; p < fn.shapeParams.size(); ++p)
        if (fn.shapeParams[p].name == n.name)
          setTypeExtent(t, n.dim, shapes[p]);
    return t;
  };
  // The signature was parsed once with the type parameters unbound: a
  // declared type made of a bound one must be a type that exists (the rules
  // the parser and prepareModule apply to written types).
  auto exists = [&](const TypeSyntax &ts, const std::string &what) {
    // A result's shape made of the arguments' (`-> per_row<f32>[N]` with N
    // a column count) must be one the type has.
    if (!ts.namedExtents.empty() && ts.type.isDistributed() &&
        !checkDistributedShape(e.loc, bound(ts))) {
      diags_.note(ts.loc, "the shape of " + what + " of '" + fn.name + "' is declared here");
      return false;
    }
    int p = paramOf(ts.typeParam);
    if (p < 0)
      return true;
    Type t = bound(ts);
    std::string why;
    if ((t.isPointer() || t.kind == Type::ArrayView || t.kind == Type::LocalArray) &&
        t.scalar == ScalarKind::I1)
      why = "pointers and arrays of i1 are not supported";
    else if (t.isVector() && !vectorShapeOk(t.scalar, t.lanes))
      why = "no vector of " + std::to_string(t.lanes) + " " + scalarName(t.scalar) +
            " elements (a vector holds 4, 8, 16 or 32 bytes)";
    else if (t.kind == Type::Fragment && t.scalar != ScalarKind::F32 &&
             t.scalar != ScalarKind::F16 && t.scalar != ScalarKind::BF16 &&
             t.scalar != ScalarKind::I1 && !isFp8Kind(t.scalar))
      why = std::string("no fragment of ") + scalarName(t.scalar) + " elements";
    if (why.empty())
      return true;
    error(e.loc,
          fn.typeParams[p].name + " = " + scalarName(*binding[p]) + " makes " + what + " of '" +
              fn.name + "' a type that does not exist: " + why,
          "call it with another type (a vector holds 4, 8, 16 or 32 bytes; fragments hold f32, f16, "
          "bf16 or fp8, masks i1; i1 is stored as i8)");
    diags_.note(ts.loc, "declared here");
    return false;
  };
  for (size_t i = 0; i < fn.paramTypes.size(); ++i)
    if (!exists(fn.paramTypes[i], "parameter '" + fn.paramNames[i] + "'"))
      ok = false;
  if (fn.result && !exists(*fn.result, "the result"))
    ok = false;
  for (size_t r = 0; r < fn.results.size(); ++r)
    if (!exists(fn.results[r], "result " + std::to_string(r + 1)))
      ok = false;
  if (!ok) {
    for (size_t i = 0; i < e.args.size(); ++i)
      if (!inferred[i])
        resolveOnly(e.args[i]);
    return Type::invalid();
  }
  std::string typeArgText;
  for (size_t p = 0; p < shapes.size(); ++p) { // the body reads M, N as constants
    typeArgText += std::string(p ? ", " : "") + fn.shapeParams[p].name + " = " +
                   std::to_string(shapes[p]);
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::Const;
    d->name = fn.shapeParams[p].name;
    d->loc = fn.shapeParams[p].loc;
    d->type = Type::i32();
    d->constInt = shapes[p];
    inl->typeDecls.push_back(std::move(d));
  }
  for (size_t p = 0; p < binding.size(); ++p) {
    typeArgText += std::string(typeArgText.empty() ? "" : ", ") + fn.typeParams[p].name + " = " +
                   scalarName(*binding[p]);
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::TypeParam;
    d->name = fn.typeParams[p].name;
    d->loc = fn.typeParams[p].loc;
    d->type = Type::invalid();
    d->typeValue = *binding[p];
    inl->typeDecls.push_back(std::move(d));
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type want = bound(fn.paramTypes[i]);
    std::string what =
        "argument " + std::to_string(i + 1) + " ('" + fn.paramNames[i] + "') of '" + fn.name + "'";
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::Let;
    d->name = fn.paramNames[i];
    fnParams_[d.get()] = &fn;
    d->loc = fn.paramLocs[i];
    d->type = want;
    // Values (vectors, fragments, per_row and per_col values too) are
    // passed by value: their types compare with extents and element type.
    bool value = want.isPassedByValue();
    if (value && inferred[i]) {
      // Inferred while binding the type parameters: checked as checkValue would.
      Type t = *inferred[i];
      if (std::optional<bool> converted = arrayAsPointer(*e.args[i], t, want, what)) {
        ok = ok && *converted;
      } else if (t.isUntyped() ? !adapt(e.args[i], want) : t != want) {
        if (!t.isUntyped())
          error(e.args[i]->loc, what + " has type " + t.str() + ", expected " + want.str(),
                want.isScalar() ? nonScalarHint(t, "convert explicitly with `as`")
                                : "convert explicitly with `as`");
        ok = false;
      }
    } else if (value) {
      if (checkValue(e.args[i], &want, what).isInvalid())
        ok = false;
    } else {
      Type got = inferred[i] ? *inferred[i] : infer(e.args[i]);
      if (got.isUntyped())
        got = finalize(e.args[i]);
      bool match = false;
      if (want.kind == Type::ArrayView)
        match = (got.kind == Type::SharedArray || got.kind == Type::ArrayView) &&
                got.scalar == want.scalar && got.space == want.space;
      else if (want.kind == Type::LocalArray)
        match = got.kind == Type::LocalArray && got.scalar == want.scalar &&
                got.staticLength == want.staticLength;
      if (!got.isInvalid() && !match) {
        std::string wanted = want.kind == Type::ArrayView
                                 ? std::string("view<") + scalarName(want.scalar) + ", " +
                                       spaceName(want.space) + ">"
                                 : want.str();
        error(e.args[i]->loc, what + " has type " + got.str() + ", expected " + wanted,
              want.kind == Type::ArrayView
                  ? "pass a shared array, `h.local` or `remote(a, r)` of that element type"
                  : "pass a local array of that element type and length");
        ok = false;
      }
      if (got.isInvalid())
        ok = false;
      // A view indexes plain elements: a TMA tile (a ring's stage tiles
      // included) or an n-D array is reached only by its own name, as for
      // `let` and remote() (SemaTma.cpp).
      if (match && want.kind == Type::ArrayView && !checkPlainArrayUse(*e.args[i], what.c_str()))
        ok = false;
      if (match && want.kind == Type::ArrayView) {
        d->type.lengthType = got.lengthType;
        d->type.staticLength = got.staticLength;
      }
    }
    if (want.isScalar()) // the guard checks see the argument through the name
      boundValues_[d.get()] = e.args[i].get();
    inl->params.push_back(std::move(d));
  }
  if (!ok)
    return Type::invalid();
  TemplateNames names;
  for (size_t p = 0; p < binding.size(); ++p)
    names.types.push_back({fn.typeParams[p].name, binding[p]});
  for (const TemplateParam &p : fn.shapeParams)
    names.values.push_back(p.name);
  // What the body reports is this call's copy of the function (closeCopy
  // below): the copies' shared errors are shown once.
  size_t before = diags_.diagnostics().size();
  Diagnostic callNote{Diagnostic::Note, e.loc,
                      "in the call of '" + fn.name + "' here" +
                          (typeArgText.empty() ? std::string() : " with " + typeArgText) +
                          " (functions are checked where they are inlined)",
                      "",
                      {}};
  std::optional<Block> body = Parser::parseFunctionBody(fn.bodyTokens, diags_, names);
  if (!body) {
    diags_.closeCopy(before, callNote, fnCopiesSeen_[&fn]);
    return Type::invalid();
  }
  inl->body = std::move(*body);
  inl->result = fn.result ? bound(*fn.result) : Type::voidTy();
  for (const TypeSyntax &r : fn.results)
    inl->results.push_back(bound(r));

  // The body sees its parameters and the file-level constants only.
  auto outerScopes = std::move(scopes_);
  scopes_.clear();
  Block *outerBlock = curBlock_;
  inlineStack_.push_back({&fn, &e, inl->result, inl->results});
  pushScope();
  for (auto &t : inl->typeDecls)
    declare(*t);
  for (size_t i = 0; i < inl->params.size(); ++i) { // a duplicate: reported at the definition
    bool duplicate = false;
    for (size_t j = 0; j < i; ++j)
      duplicate = duplicate || inl->params[j]->name == inl->params[i]->name;
    if (!duplicate)
      declare(*inl->params[i]);
  }
  pushScope();
  checkBlock(inl->body, /*kernelTopLevel=*/false);
  inlineStack_.pop_back();
  while (!scopes_.empty()) // the body's scopes close here (their unread shadows)
    popScope();
  scopes_ = std::move(outerScopes);
  curBlock_ = outerBlock;
  if (fn.returnsValues() && !alwaysReturns(inl->body))
    error(fn.loc,
          "function '" + fn.name + "' may reach the end of its body without returning a value (" +
              (fn.result ? inl->result.str() : valuesText(inl->results)) + ")",
          "end every path with `return EXPR` (a loop is not assumed to run)");
  diags_.closeCopy(before, callNote, fnCopiesSeen_[&fn]);
  e.inlined = std::move(inl);
  return e.inlined->result;
}

} // namespace tile::frontend
