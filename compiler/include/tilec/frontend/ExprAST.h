//===- ExprAST.h - names, builtins and expressions of the tile AST -*- C++ -*-===//
//
// The first half of the syntax tree (AST.h has statements, kernels and the
// module and includes this): what a name can refer to (Decl), type syntax,
// the operators, the builtins by name, memory orders and scopes, and the
// expression classes. Same conventions as AST.h: a kind() discriminator,
// `classof`, `as<T>()` / `is<T>()`, and [sema] fields filled by checkModule().
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_EXPRAST_H
#define TILEC_FRONTEND_EXPRAST_H

#include "tilec/Target/CacheRules.h"
#include "tilec/frontend/Diagnostics.h"
#include "tilec/frontend/Token.h"
#include "tilec/frontend/Types.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tile::frontend {

class SharedArrayStmt;
class MBarrierStmt;
struct RoleAST;
class RingStmt;
class LocalArrayStmt;

/// Syntax of a type annotation as written (`i32`, `ptr<f32, global>`).
struct TypeSyntax {
  Location loc;
  Type type; // Scalar or Pointer
  /// The type parameter (`T` of `kernel k<T: type>` / `fn f<T: type>`) that
  /// names this type's scalar (its element type), "" when written directly.
  /// In a template's first parse the parameter is unbound and `type` holds a
  /// stand-in scalar; every instance is parsed again with it bound.
  std::string typeParam;
  /// The extents written as names (`frag<f32>[64, BN]`, `per_row<f32>[BM]`,
  /// `vec<f32, L>`, `local<f32>[N]`): each a `const` or a compile-time value
  /// parameter, whose value Sema puts into `type` (resolveTypeExtents).
  /// `dim` is the fragment dimension; 0 for the other types' one extent.
  struct NamedExtent {
    unsigned dim;
    std::string name;
    Location loc;
  };
  std::vector<NamedExtent> namedExtents;
};

//===----------------------------------------------------------------------===//
// Declarations: everything a name can refer to.
//===----------------------------------------------------------------------===//

enum class DeclKind {
  Param,
  Let,
  Var,
  LoopVar,
  SharedArray,
  DSharedArray,
  MBarrier,
  // Compile-time constants and register arrays.
  Const,      // `const N = e`, a kernel's compile-time parameter
  LocalArray, // `let r = local<T>[N]`
  // A ring and the stage bound by `produce/consume r as s`.
  Ring,
  RingStage,
  // A type parameter (`T` of `kernel k<T: type>` / `fn f<T: type>`), bound in
  // an instance: declared so that its use as a value is explained.
  TypeParam,
};
const char *declKindName(DeclKind k);

struct Decl {
  DeclKind kind;
  std::string name;
  Location loc;
  Type type;                        // [sema] for Param: from the signature
  int id = -1;                      // unique within its kernel, in declaration order
  int paramIndex = -1;              // Param: position in the signature
  SharedArrayStmt *array = nullptr; // SharedArray / DSharedArray: its declaration
  MBarrierStmt *mbarrier = nullptr; // MBarrier: its declaration
  RingStmt *ring = nullptr;         // Ring, RingStage (`as s`) and ring stage tiles: the ring
  LocalArrayStmt *local = nullptr;  // LocalArray: its declaration
  /// Const: the value (integers sign-extended from the type's width, i1 0/1;
  /// floats rounded to the type). `type` is UntypedInt for an integer
  /// constant declared without a type, which adapts to its use like a literal.
  bool constIsFloat = false;
  int64_t constInt = 0;
  double constFloat = 0;
  ScalarKind typeValue = ScalarKind::I32; // TypeParam: the bound type
  bool isMutable() const { return kind == DeclKind::Var; }
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr,
};
const char *unaryOpSpelling(UnaryOp op);
const char *binaryOpSpelling(BinaryOp op);
bool isComparison(BinaryOp op);
/// `<<` and `>>`: their amount may have another integer type than the value.
bool isShift(BinaryOp op);

enum class Builtin {
  Unknown,
  ThreadId,
  BlockDim,
  BlockId,
  GridDim,
  ClusterRank,
  ClusterSize,
  ClusterId,
  ClusterDim,
  BlockInCluster,
  NumClusters,
  LaneId,
  WarpId,
  Min,
  Max,
  Clamp,
  Len,
  SyncThreads,
  // barrier.red: the CTA barrier (a role's inside a role) that also reduces
  // every thread's predicate; the result is the same in every thread.
  SyncThreadsCount, // i32: how many predicates are true
  SyncThreadsAnd,   // i1: all true
  SyncThreadsOr,    // i1: any true
  ClusterSync,
  Remote,
  Load,
  Store,
  AtomicAdd,
  AtomicMin,
  AtomicMax,
  AtomicExch,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicCas,
  // mbarriers, st.async, fences and split cluster barriers (all void).
  Arrive,
  ArriveExpectTx,
  ExpectTx,
  Wait,
  StoreAsync,
  Fence,
  FenceProxyAsync,
  FenceMBarrierInit,
  ClusterArrive,
  ClusterWait,
  Nanosleep, // nanosleep(ns): the thread sleeps about ns nanoseconds (a spin-wait's backoff)
  StaticAssert, // static_assert(COND): COND a compile-time constant, an error where false
  // Warp roles (SemaRoles.cpp).
  WarpgroupRank, // i32: index of the warpgroup within its role
  RoleThreadId,  // i32: index of the thread within its role
  RoleThreads,   // i32: threads of the role
  ElectOne,      // i1: elect.sync, true in one lane of the converged warp
  // Bit reinterpretation and bit counting.
  Bitcast, // bitcast<T>(x): CallExpr::typeArg is T
  Popc,
  Clz,
  Ctz,
  Brev,
  Bfind,
  MulHi, // mul_hi(a, b): the high half of the double-width product
  // TMA bulk tensor copies (SemaTma.cpp).
  CopyAsync,
  PrefetchTensor,
  Dim, // dim(t, d): extent d of an n-D shared array (a constant)
  // Warp-level operations (SemaWarp.cpp, docs/reference/warp-and-math.md "Warp-level operations").
  ShflUp,
  ShflDown,
  ShflXor,
  ShflIdx,
  VoteAny,
  VoteAll,
  VoteBallot,
  ReduxAdd,
  ReduxMin,
  ReduxMax,
  ReduxAnd,
  ReduxOr,
  ReduxXor,
  MatchAny,
  MatchAll,
  SyncWarp,
  LaneMaskLt,
  LaneMaskLe,
  LaneMaskEq,
  LaneMaskGe,
  LaneMaskGt,
  // Math (SemaMath.cpp, docs/reference/warp-and-math.md "Math functions").
  Fma,
  Abs,
  Sqrt,
  Rsqrt,
  Exp,
  Exp2,
  Log,
  Log2,
  Sin,
  Cos,
  Tanh,
  Erf,
  Pow, // pow(x, y): libdevice __nv_powf, IEEE pow's special cases
  // C's other single-precision functions: libdevice __nv_*f, no fast form.
  Log1p,
  Expm1,
  Log10,
  Exp10,
  Cbrt,
  Atan,
  Asin,
  Acos,
  Sinh,
  Cosh,
  Erfc,
  Atan2, // atan2(y, x)
  Hypot, // hypot(x, y)
  Fmod,  // fmod(x, y): C's fmodf, exact
  Floor,
  Ceil,
  Round,
  Rint, // rint(x): to nearest, ties to even (cvt.rni)
  Trunc,
  Copysign,
  // L2 policies and packed vectors.
  CachePolicy,
  Pack,
  // Fragments and wgmma.
  Zeros, // zeros<T>[M, N]: CallExpr::typeArg is T, args M and N
  Mma,   // mma(a, b, acc)
  Rows,  // rows(t, i, n): an operand view (of mma, store)
  Trans, // trans(t): an operand view read transposed
  // Epilogue on fragments (SemaEpilogue.cpp).
  FragRow,    // frag_row(f): the row indices of f (a per_row<i32>)
  FragCol,    // frag_col(f): the column indices of f (a per_col<i32>)
  LoadPerCol, // load_per_col(p, f): column c is p[c] (a per_col)
  LoadPerRow, // load_per_row(p, f): row r is p[r] (a per_row)
  LoadFrag,   // load_frag(p, f, row_stride = ld): element [r, c] is p[r * ld + c]
  Cols,       // cols(f, j, w): columns j*w .. j*w+w-1 of fragment f
  RowMax,     // row_max(f): a per_row (SemaFragment.cpp)
  RowSum,     // row_sum(f)
  Select,     // select(m, a, b): element-wise choice by a mask
  // Multi-GPU (SemaPeer.cpp): set by Sema from the callee's name
  // (not in the builtin name list: `wait` with a semaphore is SemWait).
  DeviceRank,  // device_rank()
  DeviceCount, // device_count()
  Peer,        // peer(A, d) / peer(sem[i], d): only as an operand of the calls below
  Signal,      // signal(sem[i], n) / signal(peer(sem[i], d), n)
  SemWait,     // wait(sem[i], v)
};
/// Rows, Trans: views of a shared tile that only mma (and store) take.
bool isTileViewBuiltin(Builtin b);
/// The math builtins that also work element-wise on fragments, per_row and
/// per_col values (tile.frag_math, tile.frag_arith): exp2 exp log2 log sqrt
/// rsqrt sin cos tanh abs and the libdevice-only functions below. Sema's check
/// and MLIRGen's dispatch both ask this one list.
bool isFragmentMathBuiltin(Builtin b);
/// The math functions that are only libdevice's accurate __nv_*f (no PTX
/// instruction, no fast form): erf, pow, log1p, expm1, log10, exp10, cbrt,
/// atan, asin, acos, sinh, cosh, erfc, atan2, hypot, fmod.
bool isLibdeviceOnlyMath(Builtin b);
const char *builtinName(Builtin b);
/// The builtin's call form as docs/reference/builtins.md writes it (an
/// arity error's hint), e.g. `arrive(B[, order =, scope =])`.
const char *builtinSignature(Builtin b);
Builtin builtinFromName(const std::string &name);
/// A compile-time query of a type (`size_of(T)`, `is_float(T)`, `is_int(T)`):
/// replaced by a literal during name resolution, not a builtin call.
bool isTypeQueryName(const std::string &name);
/// A keyword of another language that users try (break, fn, elif, const,
/// switch, null, ...): what tile has instead.
struct ForeignWord {
  std::string message, hint;
};
std::optional<ForeignWord> foreignWord(const std::string &word);
/// The same at file level, where a kernel, `fn` or `const` is expected: also
/// CUDA's declaration words (`__global__`, `__device__`, `template`, `struct`).
std::optional<ForeignWord> foreignFileWord(const std::string &word);
/// Every builtin's name, comma-separated, from the one table of builtins.
std::string builtinNameList();
/// The builtin whose name is nearest to `name` (a likely typo), or "".
std::string closestBuiltin(const std::string &name);
bool isAtomic(Builtin b);        // AtomicAdd..AtomicCas
bool isMemoryBuiltin(Builtin b); // Load, Store, atomics: args[0] is a location
/// The id builtins that take an axis (thread_id, block_dim, ..., num_clusters).
bool isIdBuiltin(Builtin b);
/// Arrive, ArriveExpectTx, ExpectTx, Wait: args[0] is an mbarrier expression.
bool isMBarrierBuiltin(Builtin b);
/// ShflUp .. LaneMaskGt: the warp-level operations.
bool isWarpBuiltin(Builtin b);
/// The warp operations that need converged lanes of their mask (all but lanemask_*).
bool isWarpCollective(Builtin b);
/// Fma .. Copysign: the math functions.
bool isMathBuiltin(Builtin b);

/// Memory order of an access. Weak = plain (non-atomic) ld/st.
enum class MemOrder { Weak, Relaxed, Acquire, Release, AcqRel, Sc };
enum class MemScope { Cta, Cluster, Gpu, Sys };
const char *orderName(MemOrder o);
const char *scopeName(MemScope s);

/// How Sema uses an indexing expression `base[i]`.
enum class IndexUse {
  Load,    // a plain (weak) load of the element: an rvalue
  Store,   // target of `base[i] = v` / `base[i] op= v` (compound also loads)
  Address, // first argument of load/store/atomic_*: only its address is used
};

enum class MemberKind { Unknown, Local, LocalBase, VectorLane };

class ExprAST {
public:
  enum Kind {
    IntLiteral,
    FloatLiteral,
    BoolLiteral,
    VarRef,
    Unary,
    Binary,
    Cast,
    Index,
    Member,
    Call,
    Vector,
    Select, // `c ? a : b`
  };
  ExprAST(Kind kind, Location loc) : loc(std::move(loc)), kind_(kind) {}
  virtual ~ExprAST() = default;
  Kind kind() const { return kind_; }
  template <class T> T *as() { return T::classof(this) ? static_cast<T *>(this) : nullptr; }
  template <class T> const T *as() const {
    return T::classof(this) ? static_cast<const T *>(this) : nullptr;
  }
  template <class T> bool is() const { return T::classof(this); }

  Location loc;  // operator for unary/binary/cast/index/member; name for calls
  Type type;     // [sema] never Untyped after checking
  int depth = 1; // nesting depth (bounded by the parser)
  /// [sema] a literal that stands for a use of this `const` (Sema's name
  /// resolution put it in place of the name); `type` is the constant's.
  const Decl *constant = nullptr;

private:
  Kind kind_;
};
using ExprPtr = std::unique_ptr<ExprAST>;

/// Integer literal. After Sema its type is an integer scalar, or a float scalar
/// when it adapted to a float operand (then `value` converts exactly).
class IntLiteralExpr : public ExprAST {
public:
  IntLiteralExpr(Location loc, int64_t v) : ExprAST(IntLiteral, std::move(loc)), value(v) {}
  static bool classof(const ExprAST *e) { return e->kind() == IntLiteral; }
  /// [sema] the value as an element of `type`: sign-extended from the type's
  /// width (0xffffffff as i32 reads -1). The parser folds a leading '-' in.
  int64_t value;
  uint64_t magnitude = 0; // as written, without the sign
  bool negated = false;   // written with a leading '-'
  /// Written in hex or binary (`0xff`, `0b1010`): in a signed type it may be
  /// a bit pattern (`let x: i8 = 0xff` is -1); a decimal one must be a value
  /// of the type (`let x: i8 = 200` is an error).
  bool bitPattern = false;
  /// [sema] the operand of `as` itself (`200 as i8`): an explicit
  /// conversion, so a decimal literal may wrap like a hex one (-56).
  bool castOperand = false;
  std::string query;      // [sema] the type query it stands for (`size_of(T)`)
};

class FloatLiteralExpr : public ExprAST {
public:
  FloatLiteralExpr(Location loc, double v, double nearest)
      : ExprAST(FloatLiteral, std::move(loc)), value(v), nearest(nearest) {}
  FloatLiteralExpr(Location loc, double v) : FloatLiteralExpr(std::move(loc), v, v) {}
  static bool classof(const ExprAST *e) { return e->kind() == FloatLiteral; }
  /// Before Sema: the literal as a round-to-odd double; after: its value in `type`.
  double value;
  /// The nearest double to the spelling (f64 takes this: `value` is rounded
  /// to odd, which is exact only for the narrower formats).
  double nearest;
};

class BoolLiteralExpr : public ExprAST {
public:
  BoolLiteralExpr(Location loc, bool v) : ExprAST(BoolLiteral, std::move(loc)), value(v) {}
  static bool classof(const ExprAST *e) { return e->kind() == BoolLiteral; }
  bool value;
};

class VarRefExpr : public ExprAST {
public:
  VarRefExpr(Location loc, std::string name)
      : ExprAST(VarRef, std::move(loc)), name(std::move(name)) {}
  static bool classof(const ExprAST *e) { return e->kind() == VarRef; }
  std::string name;
  Decl *decl = nullptr; // [sema]
  /// [sema] written `s.NAME` on a ring stage s: `decl` is the stage's tile
  /// (Sema's name resolution put this reference in place of the member).
  bool ringStageTile = false;
  bool typeAsValueReported = false; // [sema] names a type parameter: said once
  bool unknownReported = false;     // [sema] names nothing declared: said once
};

class UnaryExpr : public ExprAST {
public:
  UnaryExpr(Location loc, UnaryOp op, ExprPtr operand)
      : ExprAST(Unary, std::move(loc)), op(op), operand(std::move(operand)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Unary; }
  UnaryOp op;
  ExprPtr operand;
};

/// Binary operation. Operands have equal types except for pointer arithmetic
/// `p + i` (lhs Pointer, rhs any integer; result the pointer type).
/// Comparisons yield i1.
class BinaryExpr : public ExprAST {
public:
  BinaryExpr(Location loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : ExprAST(Binary, std::move(loc)), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Binary; }
  BinaryOp op;
  ExprPtr lhs, rhs;
};

/// `operand as T`: int<->int (sign-extend/truncate), int<->float (signed),
/// float<->float (f16/bf16 <-> f32), i1 -> integer (zero-extend). Identity
/// casts are allowed.
class CastExpr : public ExprAST {
public:
  CastExpr(Location loc, ExprPtr operand, TypeSyntax target)
      : ExprAST(Cast, std::move(loc)), operand(std::move(operand)), target(std::move(target)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Cast; }
  ExprPtr operand;
  TypeSyntax target;
};

/// `base[index]`. base is a Pointer, SharedArray, ArrayView or DistArray
/// (see base->type); the element is this expression's type.
/// Also `slots[i]` on an mbarrier array (base->type MBarrierArray): type
/// MBarrier, space Shared, use Address.
class IndexExpr : public ExprAST {
public:
  IndexExpr(Location loc, ExprPtr base, ExprPtr index)
      : ExprAST(Index, std::move(loc)), base(std::move(base)), index(std::move(index)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Index; }
  ExprPtr base, index;
  /// `t[i, j, ...]`: the indices after the first (n-D shared arrays, and the
  /// box origin `A[c0, c1]` of a tensor parameter). Empty for `base[i]`.
  std::vector<ExprPtr> moreIndices;
  IndexUse use = IndexUse::Load;             // [sema]
  AddressSpace space = AddressSpace::Global; // [sema] where the element lives
                                             // (DistArray elements: Cluster)
  /// "x" .. "w" when written `v.x = ...` (an assignment target the parser
  /// made `v[0]`): Sema requires a vector base.
  std::string laneName;
};

/// `base.name`: `h.local` (ArrayView, space Shared) and `h.local_base`
/// (scalar of h's length type) on a distributed array h.
class MemberExpr : public ExprAST {
public:
  MemberExpr(Location loc, ExprPtr base, std::string name)
      : ExprAST(Member, std::move(loc)), base(std::move(base)), name(std::move(name)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Member; }
  ExprPtr base;
  std::string name;
  MemberKind member = MemberKind::Unknown; // [sema]
  int lane = 0;                            // [sema] VectorLane: .x .y .z .w = 0..3
};

/// `{a, b}` / `{a, b, c, d}`. As the VALUE of store_async: [sema] every
/// element has the element type of the store_async destination, and so has
/// this expression's `type` (a Scalar); the vector width is elems.size() (1, 2
/// or 4 for 32-bit, 1 or 2 for 64-bit). Anywhere else it builds a vec<T, N>
/// value: `type` is that Vector type (SemaVector.cpp).
class VectorExpr : public ExprAST {
public:
  VectorExpr(Location loc, std::vector<ExprPtr> elems)
      : ExprAST(Vector, std::move(loc)), elems(std::move(elems)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Vector; }
  std::vector<ExprPtr> elems; // loc is the '{'
};

/// `name = value` after a call's positional arguments. The value is an
/// expression; when it is a bare identifier (relaxed, cta, x, ...) `value`
/// holds its spelling, else `value` is empty and builtins that take
/// expressions (widths, masks, counts) read `expr`.
struct NamedArg {
  std::string name;
  Location loc;      // of the name
  std::string value; // the identifier, or "" when the value is not a bare name
  Location valueLoc;
  ExprPtr expr; // the value as an expression (a VarRefExpr for a bare name)
};

/// Cache hints and vector width of load/store (SemaCache.cpp); the named
/// arguments stay in CallExpr::namedArgs, these are their checked values.
struct MemoryHints {
  cache::Op cache = cache::Op::None;
  cache::Evict evict = cache::Evict::None;
  int prefetch = 0;   // bytes: 0 (none), 64, 128, 256
  int policyArg = -1; // index into namedArgs of `policy = P`
  int vector = 0;     // load(..., vector = N): N; store: the value's lanes; 0 = scalar
  bool any() const {
    return cache != cache::Op::None || evict != cache::Evict::None || prefetch || policyArg >= 0;
  }
};

/// A builtin call. [sema] resolves `builtin`; `axis` for the id builtins;
/// `order`/`scope` for memory builtins (defaults applied; scope from the
/// address space when not given: shared->cta, cluster->cluster, global->gpu);
/// `resultUnused` for calls that are whole expression statements (an atomic
/// whose result is unused may lower to PTX `red`).
/// For memory builtins args[0] is an IndexExpr with use == Address.
///
/// mbarrier builtins (args[0] is an mbarrier expression: a VarRef to a single
/// mbarrier, `slots[i]`, or a remote() call of type mbarrier<cluster>):
/// `space` is the mbarrier's space (Shared, or Cluster for a remote one).
/// `orderGiven`/`scopeGiven` say whether the user wrote `order =`/`scope =`.
/// For arrive, arrive_expect_tx, expect_tx, wait, fence and cluster_arrive the
/// frontend records only that: `order`/`scope` hold a value only when given,
/// and an open one is decided on the IR by tile-sync-semantics (the one owner
/// of those decisions, docs/passes.md). Fixed semantics:
///   cluster_arrive:           scope Cluster (never given)
///   cluster_wait:             Acquire; Cluster        fence_mbarrier_init: Release; Cluster
///   fence_proxy_async:        Weak; Cta               store_async: Weak; Cluster
/// store_async(DST, VALUE, B): args[0] an IndexExpr (use Address, space
/// Cluster), args[1] a scalar or a VectorExpr, args[2] the remote mbarrier;
/// `space` = Cluster; `asyncBytes` = bytes delivered (element size * width).
class CallExpr : public ExprAST {
public:
  CallExpr(Location loc, std::string callee, std::vector<ExprPtr> args, std::vector<NamedArg> named)
      : ExprAST(Call, std::move(loc)), callee(std::move(callee)), args(std::move(args)),
        namedArgs(std::move(named)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Call; }
  std::string callee;
  std::vector<ExprPtr> args;
  std::vector<NamedArg> namedArgs;
  Builtin builtin = Builtin::Unknown;        // [sema]
  int axis = 0;                              // [sema] 0..2 for the id builtins
  MemOrder order = MemOrder::Weak;           // [sema] memory builtins: never Weak
  MemScope scope = MemScope::Gpu;            // [sema] memory builtins
  AddressSpace space = AddressSpace::Global; // [sema] memory builtins: args[0]'s space
  bool resultUnused = false;                 // [sema]
  bool orderGiven = false;                   // [sema] `order =` was written
  bool scopeGiven = false;                   // [sema] `scope =` was written
  int64_t asyncBytes = 0;                    // [sema] store_async: bytes it delivers
  int64_t firstColumn = 0;                   // [sema] cols(f, j, w): j * w
  const RoleAST *role = nullptr; // [sema] the role the call is in (sync_threads, role ids)
  /// `bitcast<T>(x)`: T as written (the only builtin with a type argument).
  std::optional<TypeSyntax> typeArg;
  /// `f<T1, ...>(args)`: the explicit type arguments of a call of a function
  /// with type parameters (empty: inferred from the arguments).
  std::vector<TypeSyntax> typeArgs;
  bool approx = false; // [sema] math: the fast approximate form (`approx = true`, --fast-math)
  /// [sema] copy_async / prefetch_tensor (SemaTma.cpp).
  struct Tma {
    bool isStore = false;            // copy_async(A[c...], TILE)
    int tensorParam = -1;            // the tensor parameter's index
    SharedArrayStmt *tile = nullptr; // the shared tile (none for prefetch_tensor)
    int multicastAxis = -1;          // multicast = x|y|z (0..2), 3 = all; -1 none
    int64_t bytes = 0;               // bytes landing in this CTA's tile per copy (expect_tx)
    int64_t extent = 0;              // dim(t, d): the extent
    /// A TMA store a whole role reaches (not under a single-thread
    /// condition): role barrier, one elected thread, barrier.
    bool roleCollective = false;
    /// copy_async through peer(A, d): d; null for this rank's part.
    const ExprAST *peerDevice = nullptr;
  } tma;
  /// [sema] signal / wait on a semaphore (SemaPeer.cpp).
  struct Semaphore {
    int param = -1;                  // the semaphore parameter's index
    const ExprAST *index = nullptr;  // sem[i]: i (i32)
    const ExprAST *device = nullptr; // signal(peer(sem[i], d), n): d; null = own
    const ExprAST *value = nullptr;  // n (signal) or v (wait)
  } sem;
  /// [sema] mma(a, b, acc) (SemaMma.cpp): each operand's tile and view.
  struct MmaOperand {
    bool inRegisters = false;          // a: a 16-bit fragment (the .rs form), no tile
    SharedArrayStmt *tile = nullptr;   // the 2-D shared tile (a ring stage's tile too)
    const ExprAST *rowBlock = nullptr; // rows(t, i, n): i (the view starts at row i * n)
    int64_t viewRows = 0;              // rows of the view (n, or the tile's rows)
    const ExprAST *colBlock = nullptr; // cols(t, j, n): j (the view starts at column j * n)
    int64_t viewCols = 0;              // columns of the view (n, or the tile's columns)
    bool transposed = false;           // trans(...): the tile read transposed
  };
  struct Mma {
    MmaOperand a, b;
    int64_t k = 0;          // the K extent of the product
    int64_t instrK = 0;     // wgmma's K per instruction (16; 32 for fp8 operands)
    bool inConsume = false; // inside a consume block (placement: MLIRGenMma.cpp)
    bool waitAfter = false; // in a consume, its registers are touched before the block ends
    bool waitForA = false;  // ... because its A, a fragment variable, is assigned there
  } mma;
  MemoryHints hints;                               // [sema] load/store cache hints, vectors
  cache::Evict policyPrimary = cache::Evict::None; // [sema] cache_policy(P, ...)
  double policyFraction = 1.0;                     // [sema] cache_policy(..., fraction = f)
  /// [sema] a call of a user function (`fn`): its body, checked at this call
  /// site; builtin stays Unknown.
  std::unique_ptr<struct InlinedCall> inlined;
};

/// `cond ? a : b`. [sema] cond is i1, a and b have this
/// expression's type (a scalar or a pointer). Only the chosen side is
/// evaluated: `lazy` when a side could trap or has an effect (a load, a
/// division, an atomic), then it lowers to scf.if; else to arith.select.
class SelectExpr : public ExprAST {
public:
  SelectExpr(Location loc, ExprPtr cond, ExprPtr a, ExprPtr b)
      : ExprAST(Select, std::move(loc)), cond(std::move(cond)), trueValue(std::move(a)),
        falseValue(std::move(b)) {}
  static bool classof(const ExprAST *e) { return e->kind() == Select; }
  ExprPtr cond, trueValue, falseValue; // loc is the '?'
  bool lazy = false;                   // [sema]
};

/// Calls `f` on each direct operand of `e` in source order: call arguments
/// and named-argument values, index bases and indices, vector elements, the
/// three parts of `?:`. A walker that recurses through this sees every
/// sub-expression, however deeply a construct is nested in another.
void forEachOperand(const ExprAST &e, const std::function<void(const ExprAST &)> &f);

} // namespace tile::frontend

#endif
