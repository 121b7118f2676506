//===- MLIRGenEpilogue.cpp - fragment math, conversions, stores, role TMA stores ===//
//
// The checked epilogue expressions (SemaEpilogue.cpp) become the
// TileEpilogueOps.td ops; every op that depends on which elements a thread
// holds gets the thread's index in the block (its warpgroup position is
// index % 128: roles start on warpgroup boundaries). A TMA store that a whole
// role reaches (`copy_async(C[...], out)` after the role wrote `out`) is the
// role's barrier, then the store by one elected thread of its first warp
// (commit, wait until read), then the barrier again so the tile may be
// rewritten; tile-insert-fences puts fence.proxy.async before the first
// barrier, where every writer runs it.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

/// Why the compiler issued op (listed by `tilec --explain-sync`).
static void explain(Operation *op, const Twine &why) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSyncAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), why.str()));
}

/// The integer `v` folds to: in a copy of an unrolled loop the loop variable
/// is a constant, and MLIRGen builds arithmetic over it unfolded (Sema
/// checked that the expression is a constant in every copy).
static std::optional<int64_t> foldedInt(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value o : op->getOperands()) {
    std::optional<int64_t> x = foldedInt(o);
    if (!x || !isa<IntegerType>(o.getType()))
      return std::nullopt;
    operands.push_back(IntegerAttr::get(o.getType(), *x));
  }
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  if (auto folded = dyn_cast<Value>(results[0]))
    return folded == v ? std::nullopt : foldedInt(folded);
  if (auto a = dyn_cast_if_present<IntegerAttr>(dyn_cast<Attribute>(results[0])))
    return a.getValue().getSExtValue();
  return std::nullopt;
}

FragType MLIRGenImpl::epilogueFragType(const fe::Type &t) {
  return FragType::get(builder.getContext(), t.dims[0], t.dims[1], scalarType(t.scalar));
}

Type MLIRGenImpl::distType(const fe::Type &t) {
  if (t.isFragment())
    return epilogueFragType(t);
  if (t.kind == fe::Type::PerRow)
    return PerRowType::get(builder.getContext(), t.dims[0], scalarType(t.scalar));
  return PerColType::get(builder.getContext(), t.dims[0], scalarType(t.scalar));
}

Value MLIRGenImpl::bindValue(Location l, Value v, const fe::Type &want) {
  if (!want.isDistributed() || isa<FragType, PerRowType, PerColType>(v.getType()))
    return v;
  return FragSplatOp::create(builder, l, distType(want), v);
}

Value MLIRGenImpl::genFragmentBinary(const fe::BinaryExpr &e) {
  Location l = loc(e.loc);
  Value lhs = genExpr(*e.lhs);
  Value rhs = genExpr(*e.rhs);
  if (fe::isComparison(e.op)) {
    FragCmpPredicate pred = FragCmpPredicate::eq;
    switch (e.op) {
    case fe::BinaryOp::Ne:
      pred = FragCmpPredicate::ne;
      break;
    case fe::BinaryOp::Lt:
      pred = FragCmpPredicate::lt;
      break;
    case fe::BinaryOp::Le:
      pred = FragCmpPredicate::le;
      break;
    case fe::BinaryOp::Gt:
      pred = FragCmpPredicate::gt;
      break;
    case fe::BinaryOp::Ge:
      pred = FragCmpPredicate::ge;
      break;
    default: // Eq
      break;
    }
    return FragCmpOp::create(builder, l, distType(e.type), lhs, rhs, pred);
  }
  FragArithKind kind = FragArithKind::add;
  switch (e.op) {
  case fe::BinaryOp::Sub:
    kind = FragArithKind::sub;
    break;
  case fe::BinaryOp::Mul:
    kind = FragArithKind::mul;
    break;
  case fe::BinaryOp::Div:
    kind = FragArithKind::div;
    break;
  case fe::BinaryOp::Rem: // % << >> & | ^: i32 elements (Sema)
    kind = FragArithKind::rem;
    break;
  case fe::BinaryOp::Shl:
    kind = FragArithKind::shl;
    break;
  case fe::BinaryOp::Shr:
    kind = FragArithKind::shr;
    break;
  case fe::BinaryOp::BitAnd:
    kind = FragArithKind::and_;
    break;
  case fe::BinaryOp::BitOr:
    kind = FragArithKind::or_;
    break;
  case fe::BinaryOp::BitXor:
    kind = FragArithKind::xor_;
    break;
  default: // Add
    break;
  }
  // `/` is never contracted; float + - * follow --fmad like the scalar
  // operators (integers have nothing to contract).
  bool contract = kind != FragArithKind::div && e.type.scalar != fe::ScalarKind::I32 &&
                  contractFlags() == arith::FastMathFlags::contract;
  return FragArithOp::create(builder, l, distType(e.type), lhs, rhs, kind, contract);
}

Value MLIRGenImpl::genFragmentNeg(const fe::UnaryExpr &e) {
  Value v = genExpr(*e.operand);
  return FragNegOp::create(builder, loc(e.loc), v.getType(), v);
}

Value MLIRGenImpl::genFragmentCast(const fe::CastExpr &e, Value v) {
  Type to = distType(e.type);
  if (v.getType() == to)
    return v;
  return FragConvertOp::create(builder, loc(e.loc), to, v);
}

bool MLIRGenImpl::isEpilogueCall(const fe::CallExpr &e) {
  using BI = fe::Builtin;
  if (e.builtin == BI::Store)
    return !e.args[0]->is<fe::IndexExpr>(); // store(tile or pointer, fragment)
  return e.type.isDistributed() &&
         (e.builtin == BI::Min || e.builtin == BI::Max || e.builtin == BI::Fma ||
          e.builtin == BI::FragRow || e.builtin == BI::FragCol || e.builtin == BI::LoadPerCol ||
          e.builtin == BI::LoadPerRow || e.builtin == BI::LoadFrag ||
          e.builtin == BI::Cols || e.builtin == BI::RowMax || e.builtin == BI::RowSum ||
          e.builtin == BI::Select || fe::isFragmentMathBuiltin(e.builtin));
}

Value MLIRGenImpl::genEpilogueCall(const fe::CallExpr &e) {
  if (e.builtin == fe::Builtin::Store) {
    genFragmentStore(e);
    return nullptr;
  }
  return genFragmentCall(e);
}

Value MLIRGenImpl::genLimit(const fe::CallExpr &e, const char *name) {
  for (const fe::NamedArg &na : e.namedArgs)
    if (na.name == name)
      return genExpr(*na.expr);
  return nullptr;
}

Value MLIRGenImpl::genFragmentCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  using BI = fe::Builtin;
  Type type = distType(e.type);
  auto math = [&](FragMathFn fn) -> Value {
    auto op = FragMathOp::create(builder, l, type, genExpr(*e.args[0]), fn);
    if (e.approx)
      op.setApprox(true);
    return op;
  };
  switch (e.builtin) {
  case BI::RowMax:
  case BI::RowSum:
    return FragReduceOp::create(builder, l, type, genExpr(*e.args[0]),
                                e.builtin == BI::RowMax ? FragReduceKind::max
                                                        : FragReduceKind::sum);
  case BI::Select: {
    Value c = genExpr(*e.args[0]), a = genExpr(*e.args[1]), b = genExpr(*e.args[2]);
    return FragSelectOp::create(builder, l, type, c, a, b);
  }
  case BI::Exp2:
    return math(FragMathFn::exp2);
  case BI::Exp:
    return math(FragMathFn::exp);
  case BI::Log2:
    return math(FragMathFn::log2);
  case BI::Log:
    return math(FragMathFn::log);
  case BI::Abs:
    return math(FragMathFn::abs);
  case BI::Sqrt:
    return math(FragMathFn::sqrt);
  case BI::Rsqrt:
    return math(FragMathFn::rsqrt);
  case BI::Sin:
    return math(FragMathFn::sin);
  case BI::Cos:
    return math(FragMathFn::cos);
  case BI::Tanh:
    return math(FragMathFn::tanh);
  case BI::Erf:
    return math(FragMathFn::erf);
  case BI::Log1p:
    return math(FragMathFn::log1p);
  case BI::Expm1:
    return math(FragMathFn::expm1);
  case BI::Log10:
    return math(FragMathFn::log10);
  case BI::Exp10:
    return math(FragMathFn::exp10);
  case BI::Cbrt:
    return math(FragMathFn::cbrt);
  case BI::Atan:
    return math(FragMathFn::atan);
  case BI::Asin:
    return math(FragMathFn::asin);
  case BI::Acos:
    return math(FragMathFn::acos);
  case BI::Sinh:
    return math(FragMathFn::sinh);
  case BI::Cosh:
    return math(FragMathFn::cosh);
  case BI::Erfc:
    return math(FragMathFn::erfc);
  default:
    break;
  }
  Value thread = linearThread(l).first;
  switch (e.builtin) {
  case BI::FragRow:
  case BI::FragCol:
    return FragCoordOp::create(builder, l, type, thread, e.builtin == BI::FragRow ? 0 : 1);
  case BI::Cols: {
    int64_t first = e.firstColumn;
    if (first < 0) // j differs between the copies of an unrolled loop: this copy's
      first = foldedInt(genExpr(*e.args[1])).value_or(0) * e.type.dims[1];
    return FragColsOp::create(builder, l, cast<FragType>(type), genExpr(*e.args[0]),
                              builder.getI64IntegerAttr(first));
  }
  case BI::LoadPerCol: { // through a pointer or a 1-D shared array (Sema)
    Value ptr = e.args[0]->type.isPointer() ? genExpr(*e.args[0]) : genView(*e.args[0]).ptr;
    return LoadPerColOp::create(builder, l, cast<PerColType>(type), ptr, thread,
                                genLimit(e, "cols"));
  }
  case BI::LoadPerRow: {
    Value ptr = e.args[0]->type.isPointer() ? genExpr(*e.args[0]) : genView(*e.args[0]).ptr;
    return LoadPerRowOp::create(builder, l, cast<PerRowType>(type), ptr, thread,
                                genLimit(e, "rows"));
  }
  case BI::LoadFrag: {
    if (Value tileLoad = genFragmentTileLoad(e, cast<FragType>(type), thread))
      return tileLoad;
    // through a pointer, row_stride present (Sema)
    const fe::ExprAST *stride = nullptr;
    for (const fe::NamedArg &na : e.namedArgs)
      if (na.name == "row_stride")
        stride = na.expr.get();
    Value ld = castInt(l, genExpr(*stride), builder.getI64Type(), stride->type.isUnsigned());
    const fe::ExprAST &src = *e.args[0]; // a pointer, or a 1-D shared array
    Value ptr = src.type.isPointer() ? genExpr(src) : genView(src).ptr;
    Value rows = genLimit(e, "rows");
    Value cols = genLimit(e, "cols");
    return FragLoadOp::create(builder, l, cast<FragType>(type), ptr, ld, thread, rows, cols);
  }
  case BI::Fma: {
    Value a = genExpr(*e.args[0]), b = genExpr(*e.args[1]), c = genExpr(*e.args[2]);
    return FragFmaOp::create(builder, l, type, a, b, c);
  }
  default: { // Min, Max, Pow, Atan2, Hypot, Fmod
    Value a = genExpr(*e.args[0]), b = genExpr(*e.args[1]);
    FragArithKind kind = e.builtin == BI::Min     ? FragArithKind::min
                         : e.builtin == BI::Max   ? FragArithKind::max
                         : e.builtin == BI::Atan2 ? FragArithKind::atan2
                         : e.builtin == BI::Hypot ? FragArithKind::hypot
                         : e.builtin == BI::Fmod  ? FragArithKind::fmod
                                                  : FragArithKind::pow;
    return FragArithOp::create(builder, l, type, a, b, kind, /*contract=*/false);
  }
  }
}

/// The first row of `rows(t, i, n)` (i * n) and t, or row 0 of a tile.
std::pair<const fe::SharedArrayStmt *, Value> MLIRGenImpl::fragmentTileRows(const fe::ExprAST &e) {
  Location l = loc(e.loc);
  const fe::ExprAST *tileRef = &e;
  Value row0 = intConst(l, builder.getI32Type(), 0);
  if (auto *rows = e.as<fe::CallExpr>(); rows && rows->builtin == fe::Builtin::Rows) {
    tileRef = rows->args[0].get();
    Value i =
        castInt(l, genExpr(*rows->args[1]), builder.getI32Type(), rows->args[1]->type.isUnsigned());
    Value n = castInt(l, genExpr(*rows->args[2]), builder.getI32Type());
    row0 = arith::MulIOp::create(builder, l, i, n);
  }
  return {tileRef->as<fe::VarRefExpr>()->decl->array, row0};
}

/// load_frag(t, f) / load_frag(rows(t, i, n), f) (Sema: a 2-D shared tile),
/// else null: a load through a pointer.
Value MLIRGenImpl::genFragmentTileLoad(const fe::CallExpr &e, FragType type, Value thread) {
  const fe::ExprAST &src = *e.args[0];
  auto *rows = src.as<fe::CallExpr>();
  bool tileForm = (rows && rows->builtin == fe::Builtin::Rows) ||
                  (src.type.kind == fe::Type::SharedArray && src.type.dims.size() == 2);
  if (!tileForm)
    return nullptr;
  auto [tile, row0] = fragmentTileRows(src);
  return FragLoadTileOp::create(builder, loc(e.loc), type, arrays[tile].base, row0, thread,
                                tileLayout(*tile));
}

void MLIRGenImpl::genFragmentStore(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  Value value = genExpr(*e.args[1]);
  Value thread = linearThread(l).first;
  const fe::ExprAST &dst = *e.args[0];
  Value rowsLimit = genLimit(e, "rows"); // Sema: a store through memory
  Value colsLimit = genLimit(e, "cols"); // Sema: a fragment through memory
  if (e.args[1]->type.kind == fe::Type::PerRow) {
    // The 4 threads of a quad hold the same rows: the first lane of each
    // quad stores them, once per row.
    Value ptr = dst.type.isPointer() ? genExpr(dst) : genView(dst).ptr; // or a shared array
    Type i32 = builder.getI32Type();
    Value lane = arith::RemUIOp::create(builder, l, thread, intConst(l, i32, 4));
    Value first = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, lane,
                                        intConst(l, i32, 0));
    auto ifOp = scf::IfOp::create(builder, l, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    StorePerRowOp::create(builder, l, value, ptr, thread, rowsLimit);
    return;
  }
  const fe::ExprAST *stride = nullptr; // Sema: present on a store through a pointer
  for (const fe::NamedArg &na : e.namedArgs)
    if (na.name == "row_stride")
      stride = na.expr.get();
  if (stride) { // a pointer, or a 1-D shared array: its first element
    Value ptr = dst.type.isPointer() ? genExpr(dst) : genView(dst).ptr;
    Value ld = castInt(l, genExpr(*stride), builder.getI64Type(), stride->type.isUnsigned());
    FragStoreOp::create(builder, l, value, ptr, ld, thread, rowsLimit, colsLimit);
    return;
  }
  // A tile or rows(t, i, n) of one: the first row written is i * n.
  auto [tile, row0] = fragmentTileRows(dst);
  FragStoreTileOp::create(builder, l, value, arrays[tile].base, row0, thread, tileLayout(*tile));
}

void MLIRGenImpl::genRoleTmaStore(const fe::CallExpr &e, Value map, ValueRange coords, Value tile,
                                  TileLayoutAttr layout) {
  Location l = loc(e.loc);
  const fe::RoleAST &role = *e.role;
  // Every writer of the tile is a thread of the role: its barrier orders
  // their writes (and their fence.proxy.async) before the elected copy. It
  // publishes shared memory only, like the barrier after the copy: a TMA store
  // issued before it (the previous column half of an epilogue) need not have
  // completed its global writes there, only its read of the tile
  // (tile-place-bulk-waits); a synchronisation the program writes, a release
  // or the kernel's end still waits for them. So a role storing its epilogue
  // in slices into a slow destination (a peer over NVLink) is not held at
  // every slice for the previous one's remote writes.
  auto before =
      NamedBarrierOp::create(builder, l, role.barrierId, role.threads(), /*aligned=*/false);
  explain(before, "bar.sync of role '" + role.name +
                      "': its threads' writes of the tile before the TMA store one thread issues");
  markSharedOnlySync(before);
  genInElectedThread(l, [&] {
    TmaStoreOp::create(builder, l, map, coords, tile, layout);
    explain(BulkCommitOp::create(builder, l),
            "cp.async.bulk.commit_group: closes the bulk group of this TMA store");
    explain(BulkWaitOp::create(builder, l, /*pending=*/0, /*read=*/true),
            "cp.async.bulk.wait_group.read 0: the tile may be rewritten once it has been read");
  });
  // The role's threads may write the tile again only after the copy read it.
  auto after =
      NamedBarrierOp::create(builder, l, role.barrierId, role.threads(), /*aligned=*/false);
  explain(after, "bar.sync of role '" + role.name +
                     "': its threads rewrite the tile only after the TMA store read it");
  markSharedOnlySync(after);
}
