//===- SemaVector.cpp - vec<T, N>, f16x2/bf16x2, vector loads and stores ---===//
//
// A vector is a value of N scalars (N = 2, 4, 8, 16 or 32; N * sizeof(T) = 4, 8,
// 16 or 32 bytes: what one ld/st.vN moves, or two of 16 bytes). It is built by `{a, b, ...}` or
// `pack(a, b, ...)`, read by `v[k]` (constant k) or `.x .y .z .w`, loaded by
// `load(p[i], vector = N)` and stored by `store(p[i], v)`. Float vectors take
// `+ - *`, unary `-`, min/max and element-wise `as` between float vectors of
// the same length; on f16x2/bf16x2 these are the packed PTX instructions
// (add.rn.f16x2, cvt.rn.f16x2.f32, ...).
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

bool Sema::checkVectorShape(const Location &loc, ScalarKind k, int64_t n) {
  if (vectorShapeOk(k, n))
    return true;
  error(loc,
        "no vector of " + std::to_string(n) + " " + scalarName(k) + " element" +
            (n == 1 ? "" : "s") + " (" + std::to_string(n * byteSize(k)) + " bytes)",
        vectorShapeHint(k));
  return false;
}

Type Sema::checkVectorElements(std::vector<ExprPtr> &elems, const Location &loc,
                               const Type *expected, const std::string &what) {
  int64_t n = (int64_t)elems.size();
  if (expected && expected->isVector() && expected->lanes != n) {
    error(loc,
          what + " has " + std::to_string(n) + " elements, expected " +
              std::to_string(expected->lanes) + " for " + expected->str(),
          "write one value per element");
    for (ExprPtr &x : elems)
      resolveOnly(x);
    return Type::invalid();
  }
  // The element type: the expected vector's, else the first typed element's
  // (literals adapt to it), else the literal defaults i32 / f32.
  Type elem = Type::invalid();
  if (expected && expected->isVector())
    elem = Type::scalarTy(expected->scalar);
  std::vector<Type> types;
  bool bad = false;
  for (ExprPtr &x : elems) {
    types.push_back(infer(x));
    if (types.back().isInvalid())
      bad = true;
  }
  if (elem.isInvalid()) {
    Type lit = Type::untypedInt();
    for (const Type &t : types) {
      if (!t.isUntyped() && !t.isInvalid()) {
        elem = t;
        break;
      }
      if (t.kind == Type::UntypedFloat)
        lit = t;
    }
    if (elem.isInvalid())
      elem = Type::scalarTy(lit.kind == Type::UntypedFloat ? ScalarKind::F32 : ScalarKind::I32);
  }
  for (size_t i = 0; i < elems.size(); ++i) {
    ExprPtr &x = elems[i];
    if (types[i].isInvalid())
      continue;
    if (types[i].isUntyped()) {
      if (!adapt(x, elem))
        bad = true;
    } else if (types[i] != elem) {
      error(x->loc,
            "element " + std::to_string(i + 1) + " of " + what + " has type " + types[i].str() +
                ", expected " + elem.str(),
            "all elements of a vector have one scalar type; convert with `as`");
      bad = true;
    }
  }
  if (bad)
    return Type::invalid();
  if (!elem.isScalar()) {
    error(loc, "a vector holds scalars, not " + elem.str(),
          "a vector has 2, 4, 8, 16 or 32 scalar elements of 4, 8, 16 or 32 bytes in all "
          "(vec<f32, 4>, vec<i32, 2>, f16x2, vec<f16, 8>, vec<u8, 16>, vec<f32, 8>)");
    return Type::invalid();
  }
  if (!checkVectorShape(loc, elem.scalar, n))
    return Type::invalid();
  return Type::vector(elem.scalar, (int)n);
}

bool isLiteralVector(const ExprAST &e) {
  auto *v = e.as<VectorExpr>();
  if (!v)
    return false;
  for (const ExprPtr &x : v->elems) {
    const ExprAST *y = x.get();
    if (auto *u = y->as<UnaryExpr>(); u && u->op == UnaryOp::Neg)
      y = u->operand.get();
    if (!y->is<IntLiteralExpr>() && !y->is<FloatLiteralExpr>())
      return false;
  }
  return true;
}

Type Sema::checkVectorLiteral(VectorExpr &v, const Type *expected) {
  Type t = checkVectorElements(v.elems, v.loc, expected, "the vector literal");
  v.type = t;
  return t;
}

Type Sema::checkPack(CallExpr &e) {
  if (!checkNoNamedArgs(e))
    return Type::invalid();
  if (e.args.size() < 2) {
    error(e.loc, "'pack' takes 2, 4, 8, 16 or 32 scalars, got " + std::to_string(e.args.size()),
          "pack(a, b) makes an f16x2 from two f16 (or any vec<T, 2>)");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
  return checkVectorElements(e.args, e.loc, nullptr, "pack()");
}

Type Sema::inferVectorLane(IndexExpr &e, const Type &base, const Type &idx) {
  if (e.use == IndexUse::Store && !checkVectorElementTarget(e))
    return Type::invalid();
  if (e.use != IndexUse::Load && e.use != IndexUse::Store) {
    error(e.loc, "an element of a vector is a value, not a memory location",
          "load and store take `p[i]` on a pointer or an array");
    return Type::invalid();
  }
  if (idx.isInvalid())
    return Type::invalid();
  if (!idx.isInteger() || idx.isBool()) {
    error(e.index->loc, "index must be an integer, found " + idx.str(),
          "index a vector with a constant: v[0] .. v[" + std::to_string(base.lanes - 1) + "]");
    return Type::invalid();
  }
  // A constant in every copy of the enclosing unrolled loops (`for j in 0 ..
  // 4 unroll { v[j] }`) is a constant: MLIRGen emits each copy's own.
  if (!checkConstantOps(*e.index)) // a constant operand's error (`v[1 / 0]`), reported once
    return Type::invalid();
  bool overflow = false;
  std::optional<std::vector<int64_t>> ks = foldEveryCopy(*e.index, overflow);
  if (!ks || overflow) {
    error(e.index->loc, "the index of a vector element must be a constant",
          "vector elements live in separate registers; write v[0] .. v[" +
              std::to_string(base.lanes - 1) + "], or index with the variable of an unrolled "
              "loop (`for j in 0 .. " + std::to_string(base.lanes) + " unroll`)");
    return Type::invalid();
  }
  for (int64_t k : *ks)
    if (k < 0 || k >= base.lanes) {
      error(e.index->loc, "index " + std::to_string(k) + " is out of bounds for " + base.str(),
            "valid indices are 0 .. " + std::to_string(base.lanes - 1));
      return Type::invalid();
    }
  e.space = AddressSpace::Global; // unused: not a memory access
  return Type::scalarTy(base.scalar);
}

/// `v[k] = x` (and `v[k] op= x`): an element of a `var` vector is
/// replaced (llvm.insertelement on the value, MLIRGenVector.cpp); the index
/// is a constant as for a read, so the vector stays in registers.
bool Sema::checkVectorElementTarget(IndexExpr &e) {
  auto *v = e.base->as<VarRefExpr>();
  const Decl *d = v ? v->decl : nullptr;
  if (d && d->kind == DeclKind::Var) {
    noteRoleVarUse(d, v->loc, /*write=*/true);
    return true;
  }
  if (!d) {
    error(e.loc, "an element of a vector value cannot be assigned",
          "copy the vector into a `var` and assign its element: `var w = ...; w[0] = x`");
    return false;
  }
  auto [what, hint] = whyNotAssignable(*d, /*element=*/true);
  error(v->loc, "cannot assign to an element of '" + v->name + "': it is " + what, hint);
  return false;
}

/// `v.x = ...` (the parser made it `v[0] = ...`): a lane of a vector, as
/// `.x` reads one; on anything else `p.x` must not become the store `p[0]`.
bool Sema::checkLaneTarget(IndexExpr &e, const Type &base) {
  int lane = (int)e.index->as<IntLiteralExpr>()->value;
  if (base.isVector() && lane < base.lanes)
    return true;
  if (base.isVector())
    error(e.index->loc, base.str() + " has no element '." + e.laneName + "'",
          "it has " + std::to_string(base.lanes) + " elements: .x .y" +
              std::string(base.lanes > 2 ? " .z .w" : ""));
  else
    error(e.index->loc, "cannot assign to '." + e.laneName + "' of " + base.str(),
          "`.x .y .z .w` name the first four elements of a vector; assign an element of "
          "memory with `p[i] = ...`");
  resolveOnly(e.index);
  return false;
}

Type Sema::inferVectorMember(MemberExpr &e, const Type &base) {
  static const char *names[] = {"x", "y", "z", "w"};
  for (int i = 0; i < 4; ++i) {
    if (e.name != names[i])
      continue;
    if (i >= base.lanes) {
      error(e.loc, base.str() + " has no element '." + e.name + "'",
            "it has " + std::to_string(base.lanes) + " elements: .x .y" +
                std::string(base.lanes > 2 ? " .z .w" : ""));
      return Type::invalid();
    }
    e.member = MemberKind::VectorLane;
    e.lane = i;
    return Type::scalarTy(base.scalar);
  }
  error(e.loc, "unknown member '" + e.name + "' of " + base.str(),
        "vector elements are .x .y .z .w (the first four) or v[k] with a constant k");
  return Type::invalid();
}

Type Sema::checkVectorBinary(BinaryExpr &e, const Type &lt, const Type &rt) {
  std::string sp = binaryOpSpelling(e.op);
  Type l = lt.isUntyped() ? finalize(e.lhs) : lt;
  Type r = rt.isUntyped() ? finalize(e.rhs) : rt;
  if (l.isInvalid() || r.isInvalid())
    return Type::invalid();
  const Type &v = l.isVector() ? l : r;
  if (l != r) {
    error(e.loc, "mismatched operand types " + l.str() + " and " + r.str() + " for '" + sp + "'",
          l.isVector() && r.isVector()
              ? "both operands must be the same vector type; convert with `as`"
              : "there is no broadcast: build a vector of " + std::to_string(v.lanes) +
                    " elements, e.g. `v " + sp + " {" + [&] {
                      std::string xs;
                      for (int i = 0; i < v.lanes; ++i)
                        xs += i ? ", s" : "s";
                      return xs;
                    }() + "}`");
    return Type::invalid();
  }
  if (!checkNotFp8(e.loc, v, sp))
    return Type::invalid();
  bool arith = e.op == BinaryOp::Add || e.op == BinaryOp::Sub || e.op == BinaryOp::Mul;
  if (!arith || !isFloatKind(v.scalar)) {
    error(e.loc, "'" + sp + "' cannot be applied to " + v.str(),
          isFloatKind(v.scalar)
              ? "float vectors take + - * (element-wise), min, max and `as`; read elements "
                "with v[k] for anything else"
              : "integer vectors only move data; read elements with v[k] to compute");
    return Type::invalid();
  }
  return v;
}

Type Sema::checkVectorCast(CastExpr &e, const Type &from, const Type &to) {
  if (from.isVector() && to.isVector() && from.lanes == to.lanes && isFloatKind(from.scalar) &&
      isFloatKind(to.scalar))
    return checkFp8Cast(e.loc, from.scalar, to.scalar) ? to : Type::invalid();
  // A cast that keeps every bit: to the vector's own type, or between integer
  // vectors of one element width (i32 <-> u32, as the scalar cast of one
  // width keeps the bits).
  if (from.isVector() && to.isVector() && from.lanes == to.lanes &&
      (from == to || (!isFloatKind(from.scalar) && !isFloatKind(to.scalar) &&
                      byteSize(from.scalar) == byteSize(to.scalar))))
    return to;
  error(e.loc, "cannot cast " + from.str() + " to " + to.str(),
        "vectors convert element-wise between float vectors of the same length (f16x2 as "
        "vec<f32, 2>), and between integer vectors of one element width (vec<i32, 4> as "
        "vec<u32, 4>); build other vectors from their elements");
  return Type::invalid();
}

/// `{1, 2} as vec<u64, 2>`, `{0.1, 0.2} as f16x2`: a vector of literals
/// takes the target's elements, as a literal takes a scalar target (one
/// rounding; an integer literal keeps its bit pattern, `{200, 1, 2, 3} as
/// vec<i8, 4>`); to an fp8 target its elements are f32, converted (fp8 has
/// no literals: `1.5 as e4m3` converts an f32). Float literals cast to an
/// integer vector are left to the cast (refused). Returns the literal
/// vector's type, or nullopt when the cast is not of that form.
std::optional<Type> Sema::checkLiteralVectorCast(CastExpr &e, const Type &to) {
  auto *vec = e.operand->as<VectorExpr>();
  if (!vec || !to.isVector() || !isLiteralVector(*vec))
    return std::nullopt;
  auto literal = [](ExprPtr &x) {
    ExprAST *y = x.get();
    if (auto *u = y->as<UnaryExpr>())
      y = u->operand.get();
    return y;
  };
  bool floatLiteral = false;
  for (ExprPtr &x : vec->elems)
    floatLiteral |= literal(x)->is<FloatLiteralExpr>();
  // An f32 vector of an fp8 one's length exists up to 8 elements.
  if ((floatLiteral && !isFloatKind(to.scalar)) || (isFp8Kind(to.scalar) && to.lanes > 8))
    return std::nullopt;
  for (ExprPtr &x : vec->elems)
    if (auto *l = literal(x)->as<IntLiteralExpr>())
      l->castOperand = true;
  Type elems = isFp8Kind(to.scalar) ? Type::vector(ScalarKind::F32, to.lanes) : to;
  bool wasCast = adaptingCastOperand_;
  adaptingCastOperand_ = true;
  Type t = checkVectorLiteral(*vec, &elems);
  adaptingCastOperand_ = wasCast;
  return t;
}

/// What only the source shows of a vector access: the base it may not be
/// (a symmetric tensor, a dshared array) and a constant index past a sized
/// array's end. Its alignment is tile-check-address-alignment's, on the
/// folded offsets from the origin.
bool Sema::checkVectorPlacement(IndexExpr &loc, int64_t n) {
  const Type &base = loc.base->type;
  // A symmetric tensor element (SemaPeer.cpp) is bounds-checked alone: a
  // vector could run past the row's extent, unchecked.
  if (base.isTensor()) {
    error(loc.loc, "a vector access to a symmetric tensor element is not supported",
          "access the elements one by one, or move a box with copy_async");
    return false;
  }
  // Consecutive elements of a dshared array may belong to two CTAs (owner =
  // index / per_block): one ld/st.vN cannot reach both.
  if (base.kind == Type::DistArray) {
    error(loc.loc, "a vector access to a dshared array may span two CTAs",
          "use this CTA's part `h.local[i]` or a peer's `remote(h.local, r)[i]`");
    return false;
  }
  bool overflow = false;
  // t[i, j, ...] of an n-D array: the row-major linear index decides (a
  // vector at t[1, 0] of shared<f32>[8, 8] starts at element 8).
  std::optional<int64_t> i = foldConstant(*loc.index, overflow);
  if (!loc.moreIndices.empty() && base.dims.size() == loc.moreIndices.size() + 1) {
    for (size_t k = 0; i && k < loc.moreIndices.size(); ++k) {
      std::optional<int64_t> next = foldConstant(*loc.moreIndices[k], overflow);
      i = next ? std::optional<int64_t>(*i * base.dims[k + 1] + *next) : std::nullopt;
    }
  }
  if (i && !overflow && base.staticLength && *i >= 0 && *i + n > *base.staticLength) {
    error(loc.index->loc,
          "a vector of " + std::to_string(n) + " at index " + std::to_string(*i) +
              " goes past the end of " + base.str(),
          "the last vector of " + std::to_string(n) + " starts at index " +
              std::to_string(*base.staticLength - n));
    return false;
  }
  return true;
}

Type Sema::checkVectorLoad(CallExpr &e, IndexExpr &loc, const Type &elem) {
  int n = e.hints.vector;
  Location where = e.loc;
  for (const NamedArg &na : e.namedArgs)
    if (na.name == "vector")
      where = na.valueLoc;
  if (!checkVectorShape(where, elem.scalar, n) || !checkVectorPlacement(loc, n))
    return Type::invalid();
  return Type::vector(elem.scalar, n);
}

bool Sema::checkStoreValue(CallExpr &e, IndexExpr *loc, const Type &elem) {
  ExprPtr &value = e.args[1];
  std::string hint = "convert the value with `as " + std::string(scalarName(elem.scalar)) + "`";
  if (auto *vec = value->as<VectorExpr>()) {
    Type want = Type::vector(elem.scalar, (int)vec->elems.size());
    Type t = checkVectorLiteral(*vec, &want);
    if (t.isInvalid())
      return false;
    e.hints.vector = t.lanes;
    return checkVectorPlacement(*loc, t.lanes);
  }
  Type t = infer(value);
  if (t.isInvalid())
    return false;
  if (t.isVector()) {
    if (t.scalar != elem.scalar) {
      error(value->loc,
            "value of store has type " + t.str() + ", expected elements of type " + elem.str(),
            "a vector store writes elements of the location's type; convert with `as`");
      return false;
    }
    e.hints.vector = t.lanes;
    return checkVectorPlacement(*loc, t.lanes);
  }
  if (t.isUntyped())
    return adapt(value, elem);
  if (t != elem) {
    error(value->loc, "value of store has type " + t.str() + ", expected " + elem.str(),
          nonScalarHint(t, hint));
    return false;
  }
  return true;
}

/// `x.name`: a vector's lane (inferVectorMember) or a dshared array's
/// `.local` / `.local_base`; anything else has no members.
Type Sema::inferMember(MemberExpr &e) {
  Type base = infer(e.base);
  if (base.isInvalid())
    return base;
  if (base.isVector())
    return inferVectorMember(e, base);
  auto *idCall = e.base->as<CallExpr>();
  if (idCall && isIdBuiltin(idCall->builtin) && e.name.size() == 1 && e.name[0] >= 'x' &&
      e.name[0] <= 'z') {
    // CUDA's threadIdx.x: in tile the axis is the id builtin's argument.
    std::string axis = std::to_string(e.name[0] - 'x');
    error(e.loc, "'" + idCall->callee + "()' is an i32 with no member '" + e.name + "'",
          "CUDA's ." + e.name + " is the axis argument: write `" + idCall->callee + "(" + axis +
              ")`");
    return Type::invalid();
  }
  if (base.kind != Type::DistArray) {
    error(e.loc, "a value of type " + base.str() + " has no member '" + e.name + "'",
          elementAccessHint(base, "`.local` and `.local_base` apply to dshared arrays"));
    return Type::invalid();
  }
  if (e.name == "local") {
    e.member = MemberKind::Local;
    return Type::array(Type::ArrayView, base.scalar, AddressSpace::Shared, base.lengthType,
                       std::nullopt);
  }
  if (e.name == "local_base") {
    e.member = MemberKind::LocalBase;
    return Type::scalarTy(base.lengthType);
  }
  error(e.loc, "unknown member '" + e.name + "' of a dshared array",
        "dshared arrays have `.local` and `.local_base`");
  return Type::invalid();
}

} // namespace tile::frontend
