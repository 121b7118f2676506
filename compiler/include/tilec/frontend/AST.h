//===- AST.h - abstract syntax tree of the tile language --------*- C++ -*-===//
//
// Toy-tutorial style: expression (ExprAST.h) and statement class hierarchies
// with a kind() discriminator, `classof` (so llvm::isa/dyn_cast work too) and
// the dependency free helpers `node->as<T>()` (T* or nullptr) and
// `node->is<T>()`. This file: statements, kernels, functions and the module.
//
// The parser fills in syntax and locations; checkModule() (Sema.h) fills in the
// fields marked [sema]: every expression's type, the declaration every name
// refers to, resolved builtins/orders/scopes/members, loop kinds and shared
// memory sizes. A consumer (MLIRGen) never re-derives any of them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include "tilec/frontend/ExprAST.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tile::frontend {

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class StmtAST;
using StmtPtr = std::unique_ptr<StmtAST>;
using Block = std::vector<StmtPtr>;

class StmtAST {
public:
  enum Kind {
    Let,
    SharedArray,
    Assign,
    For,
    If,
    While,
    ExprStmt,
    Return,
    MBarrier,
    Break,
    Continue,
    Warpgroups,
    Ring,       // rings
    Produce,
    Consume,
    // Constants and register arrays (SemaAbstr.cpp)
    Const,
    LocalArray,
  };
  StmtAST(Kind kind, Location loc) : loc(std::move(loc)), kind_(kind) {}
  virtual ~StmtAST() = default;
  Kind kind() const { return kind_; }
  template <class T> T *as() { return T::classof(this) ? static_cast<T *>(this) : nullptr; }
  template <class T> const T *as() const {
    return T::classof(this) ? static_cast<const T *>(this) : nullptr;
  }
  template <class T> bool is() const { return T::classof(this); }
  Location loc; // of the leading keyword / first token
  int depth = 1;

private:
  Kind kind_;
};

/// `let x [: T] = e` (decl->kind Let) or `var x [: T] = e` (decl->kind Var).
/// decl->type == init->type after Sema.
class LetStmt : public StmtAST {
public:
  LetStmt(Location loc, std::unique_ptr<Decl> decl, std::optional<TypeSyntax> annot, ExprPtr init)
      : StmtAST(Let, std::move(loc)), decl(std::move(decl)), annotation(std::move(annot)),
        init(std::move(init)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Let; }
  std::unique_ptr<Decl> decl;
  std::optional<TypeSyntax> annotation;
  ExprPtr init;
  /// `let (a, b, c) = f(...)` (or `var (...)`): one name per value of a
  /// function that returns several (`_` names none); decl is then a holder
  /// no name refers to, and init the call. Also what `(x, y[i]) = f(...)`
  /// becomes: such a let of hidden names, then one assignment per target.
  std::vector<std::unique_ptr<Decl>> tupleDecls;
  bool isTuple() const { return !tupleDecls.empty(); }
};

/// `let a = shared<T>[N]` or `let h = dshared<T>[N]` (kernel top level only).
class SharedArrayStmt : public StmtAST {
public:
  SharedArrayStmt(Location loc, std::unique_ptr<Decl> decl, bool distributed, TypeSyntax elem,
                  ExprPtr count)
      : StmtAST(SharedArray, std::move(loc)), decl(std::move(decl)), distributed(distributed),
        elem(std::move(elem)), count(std::move(count)) {}
  static bool classof(const StmtAST *s) { return s->kind() == SharedArray; }
  std::unique_ptr<Decl> decl; // kind SharedArray or DSharedArray
  bool distributed;           // dshared
  TypeSyntax elem;            // element scalar type
  ExprPtr count;              // N: literals and scalar integer kernel params only
  // [sema]
  std::optional<int64_t> constantCount; // N when it folds to a constant
  /// Elements of this array in each CTA: N (shared) or ceil(N / cluster size)
  /// (dshared) when compile-time known.
  std::optional<int64_t> staticPerBlock;
  bool isStatic = false;   // lives in static shared memory (size known at compile time)
  int64_t staticBytes = 0; // isStatic: staticPerBlock * sizeof(elem)
  int dynamicIndex = -1;   // !isStatic: position among the kernel's dynamic arrays
  /// `shared<T>[D0, D1, ...]`: the dimensions after the first (constants).
  std::vector<ExprPtr> moreDims;
  /// [sema] n-D arrays: every dimension (outermost first); empty for 1-D.
  std::vector<int64_t> dims;
  /// [sema] a TMA tile (some copy_async moves it): its swizzle (bytes 0, 32,
  /// 64, 128), the panel width in elements (the inner extent, or 128 bytes
  /// of it for a 128B-swizzled tile wider than 128 bytes) and the alignment
  /// of its first byte (1024 swizzled, 128 plain; 16 otherwise).
  bool isTmaTile = false;
  int swizzleBytes = 0;
  int64_t panelElems = 0;
  int64_t alignBytes = 16;
};

/// `let b = mbarrier(COUNT)` (arraySize nullopt) or `let s = mbarrier[N](COUNT)`
/// (kernel top level only). decl->type is MBarrier (space Shared) or
/// MBarrierArray (staticLength N). Each declaration takes 8 * (N or 1) bytes
/// of static shared memory at a 16-byte aligned offset (counted in
/// KernelAST::staticSharedBytes in declaration order with the static arrays).
/// The compiler initialises every mbarrier with `count` (arrivals per phase).
class MBarrierStmt : public StmtAST {
public:
  MBarrierStmt(Location loc, std::unique_ptr<Decl> decl, ExprPtr count,
               std::optional<int64_t> arraySize)
      : StmtAST(MBarrier, std::move(loc)), decl(std::move(decl)), count(std::move(count)),
        arraySize(arraySize) {}
  static bool classof(const StmtAST *s) { return s->kind() == MBarrier; }
  std::unique_ptr<Decl> decl;       // kind MBarrier
  ExprPtr count;                    // i32, built like shared-array counts
  std::optional<int64_t> arraySize; // N of mbarrier[N] (1..64); nullopt = single
  /// N as written when it is not a literal (a `const`, a template kernel's
  /// value parameter): [sema] folds it into arraySize.
  ExprPtr arraySizeExpr;
  Location arraySizeLoc; // where N starts
  // [sema]
  std::optional<int64_t> constantCount; // count when it folds to a constant (1 .. 2^20-1)
  int index = -1;                       // position among the kernel's mbarrier declarations
};

/// `const NAME [: T] = e` in a kernel body (a file-level one lives in
/// ModuleAST::consts). e is a constant expression of scalar type; the value
/// goes into decl (Decl::constInt / constFloat). Uses of the name become
/// literals of that value during checking.
class ConstStmt : public StmtAST {
public:
  ConstStmt(Location loc, std::unique_ptr<Decl> decl, std::optional<TypeSyntax> annot, ExprPtr init)
      : StmtAST(Const, std::move(loc)), decl(std::move(decl)), annotation(std::move(annot)),
        init(std::move(init)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Const; }
  std::unique_ptr<Decl> decl; // kind Const
  std::optional<TypeSyntax> annotation;
  ExprPtr init;
};

/// `let r = local<T>[N]`: N elements private to the thread, zero-initialised,
/// in registers when every index is a compile-time constant after unrolling.
class LocalArrayStmt : public StmtAST {
public:
  LocalArrayStmt(Location loc, std::unique_ptr<Decl> decl, TypeSyntax elem, ExprPtr count)
      : StmtAST(LocalArray, std::move(loc)), decl(std::move(decl)), elem(std::move(elem)),
        count(std::move(count)) {}
  static bool classof(const StmtAST *s) { return s->kind() == LocalArray; }
  std::unique_ptr<Decl> decl; // kind LocalArray
  TypeSyntax elem;
  ExprPtr count;
  int64_t length = 0; // [sema] N
};

/// One tile of a ring: `a: shared<bf16>[128, 64]`.
struct RingMember {
  std::string name;
  Location loc;
  TypeSyntax elem;
  std::vector<ExprPtr> dims; // as written (constants)
  /// [sema] one stage's tile: a TMA tile named `RING.NAME` (its layout and
  /// alignment as copy_async tiles get); `s.NAME` in produce/consume.
  std::unique_ptr<SharedArrayStmt> stage;
  int64_t strideElems = 0; // [sema] elements from one stage's tile to the next
};

/// `let r = pipeline[S] { a: shared<T>[...], ... }` (kernel top level): S
/// stages of the member tiles plus S full and S empty mbarriers, owned by
/// the compiler (docs/reference/tma-and-rings.md "Rings").
class RingStmt : public StmtAST {
public:
  RingStmt(Location loc, std::unique_ptr<Decl> decl) : StmtAST(Ring, std::move(loc)), decl(std::move(decl)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Ring; }
  std::unique_ptr<Decl> decl; // kind Ring
  int64_t stages = 0;          // a literal at parse time, else [sema] stagesExpr folded
  Location stagesLoc;
  ExprPtr stagesExpr;          // S as written when it is not a literal (a constant expression)
  std::vector<RingMember> members;
  // [sema]
  int64_t txBytes = -1;         // bytes landing in this CTA per stage (from the produce blocks)
  int multicastAxis = -1;       // the axis its copies multicast along (0..2, 3 = all), -1 none
  int64_t groupSize = 1;        // CTAs writing into each of this CTA's slots
  int consumerWarps = 0;        // releasing warps of the consuming role (one arrival each per CTA)
  /// Some consume reads its slots other than through mma operands.
  bool consumedGenerically = false;
  /// Every consume reads its slots through mma only, in a role: one warp per
  /// consumer warpgroup releases (consumerWarps counts those warps).
  bool releasedPerWarpgroup = false;
  /// Some consume forwards its slot with a TMA store (copy_async
  /// of a stage tile to global memory): the issuing thread waits for the
  /// store's read before its warp's bar.warp.sync, which precedes the release.
  bool storedByTma = false;
  /// ... by a thread outside the first warp of a consumer warpgroup: every
  /// warp releases (not one per warpgroup).
  bool storedOutsideLeaderWarp = false;
  const RoleAST *producer = nullptr, *consumer = nullptr;
  const StmtAST *firstProduce = nullptr, *firstConsume = nullptr;
};

/// `produce r as s { ... }` / `consume r as s { ... }`.
class RingAccessStmt : public StmtAST {
public:
  RingAccessStmt(Kind kind, Location loc, std::string ringName, Location ringLoc,
                 std::unique_ptr<Decl> stage)
      : StmtAST(kind, std::move(loc)), ringName(std::move(ringName)), ringLoc(std::move(ringLoc)),
        stage(std::move(stage)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Produce || s->kind() == Consume; }
  bool isProduce() const { return kind() == Produce; }
  std::string ringName;
  Location ringLoc;
  std::unique_ptr<Decl> stage; // kind RingStage (`as s`)
  Block body;
  RingStmt *ring = nullptr; // [sema]
  const RoleAST *role = nullptr; // [sema] the role it runs in (none without roles)
  /// `consume r as s inflight(n)`: up to n wgmma groups stay in
  /// flight after the block, and the stage's release is delayed by n blocks.
  int64_t inflight = 0;
  Location inflightLoc;               // the `inflight` keyword, when written
  ExprPtr inflightExpr;               // n as written (a constant expression)
  bool issuesMma = false;             // [sema] an mma in the body
  bool mmaReadsRegisterA = false;     // [sema] one of them with A in registers
  bool readsStageGenerically = false; // [sema] the body names a stage tile outside mma operands
  /// Every read of the slot is a wgmma read, complete once wgmma.wait_group
  /// retired its group (before the release).
  bool slotReadOnlyByMma() const { return issuesMma && !readsStageGenerically; }
  const StmtAST *drainLoop = nullptr; // [sema] the innermost loop around it (drained after it)
  /// [sema] A consume nested in a consume of another ring: the enclosing
  /// one (its mmas count as the enclosing block's too, which waits for the
  /// groups this block leaves in flight: docs/reference/mma.md).
  RingAccessStmt *enclosing = nullptr;
  bool enclosesConsume = false; // [sema] a consume block is nested in this one
  bool mmaInBody = false;       // [sema] an mma in the body outside nested consume blocks
  /// `consume r as s anchor(MODE[, COND])`: where the block's closing
  /// wgmma.wait_group 0 goes (MODE none, reduce or last, as tilec
  /// --mma-wait-anchor), when the compile-time condition COND holds.
  Location anchorLoc;
  std::string anchorName;
  ExprPtr anchorCond;
  int anchorMode = -1; // [sema] 0 none, 1 reduce, 2 last; -1: the command line's
};

enum class AssignOp { Assign, Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr };
const char *assignOpSpelling(AssignOp op);
/// The binary op of a compound assignment (Assign has none).
std::optional<BinaryOp> assignBinaryOp(AssignOp op);

/// `target = value` or `target op= value`; target is a VarRefExpr to a `var`
/// or an IndexExpr (use == Store). value->type == target->type.
class AssignStmt : public StmtAST {
public:
  AssignStmt(Location loc, AssignOp op, ExprPtr target, ExprPtr value)
      : StmtAST(Assign, std::move(loc)), op(op), target(std::move(target)),
        value(std::move(value)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Assign; }
  AssignOp op; // loc is the operator's location
  ExprPtr target, value;
};

enum class ForKind { Range, BlockRange, GridRange };
const char *forKindName(ForKind k);

/// Range:      for i in start .. end [step s]   (i = start; i < end; i += s)
/// BlockRange: for i in block_range(end)        (start = linear thread id in block,
///                                               step = threads per block)
/// GridRange:  for i in grid_range(end)         (start = global linear thread id,
///                                               step = total threads in the grid)
/// For block/grid ranges over an array, Sema replaces `end` by a synthesized
/// `len(array)` CallExpr and sets boundIsArray. loopVar->type == end->type.
class ForStmt : public StmtAST {
public:
  ForStmt(Location loc, ForKind kind, std::unique_ptr<Decl> var)
      : StmtAST(For, std::move(loc)), forKind(kind), loopVar(std::move(var)) {}
  static bool classof(const StmtAST *s) { return s->kind() == For; }
  ForKind forKind;
  std::unique_ptr<Decl> loopVar; // kind LoopVar, immutable in the body
  ExprPtr start;                 // Range only
  ExprPtr end;
  ExprPtr step;              // Range only, may be null (= 1)
  bool boundIsArray = false; // [sema]
  Block body;
  bool hasBreak = false;    // [sema] a `break` leaves this loop
  bool hasContinue = false; // [sema] a `continue` targets this loop
  /// `unroll` (full: unrollFull) or `unroll(F)` (unrollFactor) after the
  /// bounds; Range loops only (docs/reference/statements.md "Register arrays and unrolling").
  bool unrollFull = false;
  ExprPtr unrollFactor;
  Location unrollLoc;
  // [sema] the values of the loop variable (full unrolling), and F.
  std::vector<int64_t> unrolledValues;
  int64_t unrollFactorValue = 0;
  /// [sema] A full unroll whose bounds read the variables of enclosing
  /// unrolled loops (a triangular `for j in 0 .. i unroll`): those loops'
  /// variables, and this loop's values for each combination of theirs (in
  /// the order of unrollDeps); unrolledValues is then every value any
  /// combination visits.
  std::vector<const Decl *> unrollDeps;
  std::map<std::vector<int64_t>, std::vector<int64_t>> unrolledByOuter;
  /// The values of the loop variable in the copy of the enclosing unrolled
  /// loops whose variables have `outer` (one per unrollDeps entry).
  const std::vector<int64_t> &unrolledValuesFor(const std::vector<int64_t> &outer) const {
    static const std::vector<int64_t> kNone;
    if (unrollDeps.empty())
      return unrolledValues;
    auto it = unrolledByOuter.find(outer);
    return it == unrolledByOuter.end() ? kNone : it->second;
  }
};

/// `if c {..} else {..}`; `else if` is an elseBody holding one IfStmt.
class IfStmt : public StmtAST {
public:
  IfStmt(Location loc, ExprPtr cond) : StmtAST(If, std::move(loc)), cond(std::move(cond)) {}
  static bool classof(const StmtAST *s) { return s->kind() == If; }
  ExprPtr cond; // i1
  Block thenBody, elseBody;
  bool hasElse = false;
  /// `turn { ... }` inside a role of several warpgroups: parsed as an `if
  /// true` without else (every analysis sees a block every thread of the
  /// role runs), whose body the role's warpgroups run one at a time in rank
  /// order, each pass handing the turn to the next warpgroup
  /// (docs/reference/roles.md "Turns"). [sema] turnRole: the role.
  bool isTurn = false;
  const struct RoleAST *turnRole = nullptr;
  /// `if const COND { ... } else { ... }`: COND is a compile-time constant;
  /// only the branch it selects is checked and emitted. [sema] the taken
  /// branch becomes thenBody, the condition `true`, and the other branch is
  /// dropped (docs/reference/kernels.md "Type parameters").
  bool isConst = false;
  bool constFailed = false; // [sema] its condition is no constant (an error)
};

class WhileStmt : public StmtAST {
public:
  WhileStmt(Location loc, ExprPtr cond) : StmtAST(While, std::move(loc)), cond(std::move(cond)) {}
  static bool classof(const StmtAST *s) { return s->kind() == While; }
  ExprPtr cond; // i1
  Block body;
  bool hasBreak = false;    // [sema] a `break` leaves this loop
  bool hasContinue = false; // [sema] a `continue` targets this loop
};

/// An expression evaluated for its effect; a top-level CallExpr gets
/// resultUnused = true.
class ExprStmtAST : public StmtAST {
public:
  ExprStmtAST(Location loc, ExprPtr expr)
      : StmtAST(ExprStmt, std::move(loc)), expr(std::move(expr)) {}
  static bool classof(const StmtAST *s) { return s->kind() == ExprStmt; }
  ExprPtr expr;
};

class ReturnStmt : public StmtAST {
public:
  explicit ReturnStmt(Location loc) : StmtAST(Return, std::move(loc)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Return; }
  ExprPtr value; // `return e` in a function with a result; null otherwise
  /// `return (a, b, ...)` in a function with several results (value null).
  std::vector<ExprPtr> values;
};

/// One role of a `warpgroups` block: `NAME(warpgroups = n, regs = r) { ... }`.
struct RoleAST {
  std::string name;
  Location loc;               // of the name
  std::vector<NamedArg> args; // as written: warpgroups = n, regs = r
  Block body;
  // [sema]
  int firstWarpgroup = 0;  // warpgroups [first, first + numWarpgroups) of the CTA
  int numWarpgroups = 1;
  std::optional<int> regs; // setmaxnreg count; nullopt keeps the entry count
  int barrierId = 0;       // named barrier of sync_threads() in the role (1..15)
  /// [sema] the first of the role's numWarpgroups named barriers of its
  /// `turn` blocks (barrier firstTurnBarrier + r is warpgroup r's turn);
  /// 0 when the role has no turn.
  int firstTurnBarrier = 0;
  // [sema, set by checkRings through RingStmt::producer] its body only fills
  // rings: it runs in its first warp.
  mutable bool onlyProduces = false;
  int threads() const { return numWarpgroups * 128; }
};

/// `warpgroups { ROLE ... }` (kernel top level, last statement): each role
/// runs its body in its own warpgroups, in the order written (warpgroup 0
/// runs the first role). See docs/reference/roles.md "Warp roles".
class WarpgroupsStmt : public StmtAST {
public:
  explicit WarpgroupsStmt(Location loc) : StmtAST(Warpgroups, std::move(loc)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Warpgroups; }
  std::vector<std::unique_ptr<RoleAST>> roles;
};

/// `break` / `continue`: leave / go to the next iteration of the innermost
/// `for` or `while`. [sema] `loop` is that loop (a ForStmt or WhileStmt).
class BreakStmt : public StmtAST {
public:
  explicit BreakStmt(Location loc) : StmtAST(Break, std::move(loc)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Break; }
  StmtAST *loop = nullptr;
};
class ContinueStmt : public StmtAST {
public:
  explicit ContinueStmt(Location loc) : StmtAST(Continue, std::move(loc)) {}
  static bool classof(const StmtAST *s) { return s->kind() == Continue; }
  StmtAST *loop = nullptr;
};

//===----------------------------------------------------------------------===//
// Kernels and modules
//===----------------------------------------------------------------------===//

/// A dimension of cluster(...)/threads(...) written as a constant
/// expression (`threads(BM * BN / 64)`) rather than a literal: Sema gives its
/// value (file-level constants and compile-time kernel parameters only).
struct DimName {
  ExprPtr expr; // null when the dimension is a literal
};

struct ClusterAttr {
  enum Kind { None, Static, Dynamic } kind = None;
  std::array<int, 3> dims{1, 1, 1}; // Static only
  std::array<DimName, 3> names;     // Static only
  Location loc;
  bool overridden = false; // [sema] replaced by CheckOptions::clusterOverride
};

struct ThreadsAttr {
  bool present = false;
  std::array<int, 3> dims{1, 1, 1};
  std::array<DimName, 3> names;
  Location loc;
};

/// One extent of a `tensor<T>[E0, ...]` parameter: a literal or a name.
struct TensorExtentSyntax {
  std::string name;               // "" for a literal
  std::optional<int64_t> literal;
  Location loc;
  Decl *hidden = nullptr;         // [sema] the i32 hidden parameter of a name
};

/// A `tensor<T>[...]` kernel parameter.
struct TensorParamSyntax {
  int param = -1; // index into KernelAST::params
  ScalarKind elem = ScalarKind::F16;
  std::vector<TensorExtentSyntax> extents;
  // [sema] what every copy through it agrees on (KernelInfo box/swizzle).
  std::vector<int64_t> box;   // outermost first; empty when never copied
  int swizzleBytes = 0;
  const ExprAST *firstCopy = nullptr; // the copy that fixed box/swizzle
  /// `symmetric tensor<T>[...]`: every rank's part is addressable.
  bool symmetric = false;
  bool peerCopies = false; // [sema] copy_async through peer(A, d): needs A$peer_maps
  bool peerElements = false; // [sema] A[i, j] / peer(A, d)[i, j]: needs A$peers
};

/// A `semaphore[S]` kernel parameter: S counters in symmetric
/// memory; S a literal or a name (an i32 the runtime fills).
struct SemaphoreParamSyntax {
  int param = -1; // index into KernelAST::params
  std::string countName; // "" for a literal
  std::optional<int64_t> countLiteral;
  Location countLoc;
  Decl *countDecl = nullptr; // [sema] the hidden i32 of a named count
};

/// [sema] A hidden multi-GPU parameter (tile::HiddenPeerInfo), after the
/// hidden extents: A$peers, A$peer_maps, sem$peers, sem$epoch, sem$count,
/// $rank, $world.
struct PeerParam {
  std::unique_ptr<Decl> decl; // kind Param, i32 or u64
  int kind = 0;               // tile::HiddenPeerInfo::Kind
  int param = -1;             // the symmetric tensor / semaphore parameter, -1 for rank/world
};

/// max_threads(N) (.maxntid N: an upper bound on the block, which caps the
/// registers per thread) and min_blocks(N) (.minnctapersm N).
struct LaunchBoundsAttr {
  std::optional<int> maxThreads;
  Location maxThreadsLoc;
  std::optional<int> minBlocks;
  Location minBlocksLoc;
  // A bound written as a constant expression (`min_blocks(NB)`) rather than
  // a literal: Sema gives its value (as DimName does for threads(...)).
  DimName maxThreadsName, minBlocksName;
};

/// `NAME: T` in `kernel k<NAME: T, ...>(...)`: a compile-time parameter, a
/// value (T an integer or i1 scalar) or, with `NAME: type`, a type parameter
/// (also of `fn f<NAME: type>`).
struct TemplateParam {
  std::string name;
  Location loc;
  TypeSyntax type; // an integer or i1 scalar; unused for a type parameter
  bool isType = false;
};

/// The type parameters of a template in scope while parsing it: a name and,
/// in an instance, the type it stands for (nullopt in the template's first
/// parse, which checks the syntax only). Value parameters are listed too, so
/// that the parser can say that one is not a type.
struct TemplateNames {
  std::vector<std::pair<std::string, std::optional<ScalarKind>>> types;
  std::vector<std::string> values;
};

struct KernelAST {
  std::string name;
  Location loc;                              // of the name
  std::vector<TemplateParam> templateParams; // `kernel k<BM: i32, ...>`
  std::vector<Token> tokens; // templates: the definition's tokens, parsed again per instance
  /// An instance of a template (Sema): the source name and the arguments, in
  /// template-parameter order; `name` is the mangled PTX name.
  std::string sourceName;
  std::vector<std::pair<std::string, int64_t>> templateArgs;
  /// The type arguments, in type-parameter order (`kernel k<T: type>`).
  std::vector<std::pair<std::string, ScalarKind>> templateTypeArgs;
  /// Where each argument came from, for the note on a diagnostic in the
  /// instance ("-D T=i32", "-D 'k<i32, 64>'").
  std::string instanceOrigin;
  std::vector<std::unique_ptr<Decl>> templateDecls; // kind Const / TypeParam, one per argument
  std::vector<std::unique_ptr<Decl>> params; // kind Param, types from the signature
  std::vector<TypeSyntax> paramTypes;        // as written, parallel to params
  ClusterAttr cluster;
  ThreadsAttr threads; // the exact block shape (.reqntid)
  LaunchBoundsAttr bounds;
  Block body;
  // [sema]
  std::vector<SharedArrayStmt *> sharedArrays; // in declaration order
  std::vector<MBarrierStmt *> mbarriers;       // in declaration order (index = position)
  int64_t staticSharedBytes = 0;    // sum over static arrays and mbarriers, each 16-byte aligned
  int numDecls = 0;                 // Decl ids are 0..numDecls-1
  WarpgroupsStmt *warpgroups = nullptr; // [sema] the kernel's warp roles, if any
  bool usesClusterFeatures = false; // dshared, remote, cluster_sync, cluster-space access,
                                    // store_async, cluster_arrive/cluster_wait
  /// The tensor parameters, in parameter order (the parser fills the syntax).
  std::vector<TensorParamSyntax> tensorParams;
  /// [sema] one i32 parameter per distinct extent name, after the declared
  /// parameters (paramIndex = params.size() + position); the runtime fills them.
  std::vector<std::unique_ptr<Decl>> hiddenParams;
  /// [sema] tensor parameter (index into params) and dim each hidden one reads.
  std::vector<std::pair<int, unsigned>> hiddenSources;
  /// [sema] TMA stores are issued (bulk groups to drain before exit).
  bool usesTmaStore = false;
  /// [sema] the kernel's rings (`pipeline`), in declaration order.
  std::vector<RingStmt *> rings;
  // Multi-GPU parameters (SemaPeer.cpp).
  std::vector<SemaphoreParamSyntax> semaphoreParams; // in parameter order (parser)
  /// [sema] after hiddenParams: paramIndex = params.size() + hiddenParams.size() + position.
  std::vector<PeerParam> peerParams;
  bool waitsOnSemaphore = false; // [sema] KernelInfo::spinsOnPeers
  bool usesMma = false;          // [sema] some mma (wgmma) in the kernel
  /// [sema] the hidden parameter of (kind, param), null when the kernel has none.
  const Decl *peerParam(int kind, int param) const {
    for (const PeerParam &p : peerParams)
      if (p.kind == kind && p.param == param)
        return p.decl.get();
    return nullptr;
  }
};

/// `fn NAME(PARAM: TYPE, ...) [-> TYPE] { ... }` at file level. The body is
/// parsed again at every call (Parser::parseFunctionBody) and checked there:
/// calls are always inlined.
struct FnAST {
  std::string name;
  Location loc; // of the name
  std::vector<std::string> paramNames;
  std::vector<Location> paramLocs;
  std::vector<TypeSyntax> paramTypes;
  std::optional<TypeSyntax> result;
  /// `-> (T1, T2, ...)`: several results (two or more; result is then empty).
  std::vector<TypeSyntax> results;
  bool returnsValues() const { return result || !results.empty(); }
  std::vector<Token> bodyTokens; // '{' ... '}' then Eof
  /// `fn f<T: type, ...>`: type parameters, bound at each call from the
  /// explicit `f<f16>(...)` or from the arguments' types.
  std::vector<TemplateParam> typeParams;
  /// `fn f<M: i32, N: i32>(x: frag<f32>[M, N])`: shape parameters, each an
  /// extent of a parameter's type, bound at each call from the argument's
  /// type (their names stay in the signature's TypeSyntax::namedExtents).
  std::vector<TemplateParam> shapeParams;
};

/// [sema] One inlined call: the parameters (Let-like decls bound to the
/// arguments, in order), the body parsed for this call, the result type.
struct InlinedCall {
  const FnAST *fn = nullptr;
  std::vector<std::unique_ptr<Decl>> params;
  Block body;
  Type result = Type::voidTy();
  std::vector<Type> results; // a function with several results: each (result is void)
  std::vector<std::unique_ptr<Decl>> typeDecls; // TypeParam, one per type parameter
};

struct ModuleAST {
  std::string file;
  std::vector<std::unique_ptr<FnAST>> functions;
  std::vector<std::unique_ptr<KernelAST>> kernels;
  /// File-level `const` declarations, in source order (visible in every
  /// kernel of the file).
  std::vector<std::unique_ptr<ConstStmt>> consts;
};

/// Calls `f` on each expression a statement of `b` holds (a `let`'s or an
/// assignment's sides, a condition, loop bounds, a returned value, an
/// expression statement), nested blocks, roles and ring accesses included;
/// with forEachOperand a walker reaches every expression of a body.
void forEachExprIn(const Block &b, const std::function<void(const ExprAST &)> &f);
/// Every statement of b at every depth (the bodies of loops, ifs, roles and
/// ring accesses), each before the statements it holds.
void forEachStmtIn(const Block &b, const std::function<void(const StmtAST &)> &f);

} // namespace tile::frontend

#endif
