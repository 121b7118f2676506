//===- Types.h - types of the tile language ---------------------*- C++ -*-===//
//
// One small value type describes every type the checker assigns: scalars,
// pointers with an address space, shared arrays, array views and distributed
// (cluster-wide) arrays. UntypedInt/UntypedFloat exist only while checking a
// literal-only subexpression; none survive checkModule().
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_TYPES_H
#define TILEC_FRONTEND_TYPES_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilec/Target/TargetFacts.h"

namespace tile::frontend {

// U8..U64, F64, E4M3 and E5M2 come last: other branches append too.
// E4M3 / E5M2 are the 8-bit floats of PTX (.e4m3: no infinity, max 448;
// .e5m2: IEEE-like, max 57344). They are storage and mma operand types:
// PTX has no fp8 arithmetic, only cvt to and from f16x2 / f32 pairs.
enum class ScalarKind { I1, I8, I16, I32, I64, F16, BF16, F32, U8, U16, U32, U64, F64, E4M3, E5M2 };
/// Local: a thread's own `local<T>[N]` array (registers or local memory);
/// never the space of a pointer type.
enum class AddressSpace { Global, Shared, Cluster, Local };

const char *scalarName(ScalarKind k);
const char *spaceName(AddressSpace s);
std::optional<ScalarKind> scalarFromName(const std::string &name);
std::optional<AddressSpace> spaceFromName(const std::string &name);
bool isIntegerKind(ScalarKind k);  // i1..i64, u8..u64
bool isFloatKind(ScalarKind k);    // f16, bf16, f32, f64, e4m3, e5m2
bool isFp8Kind(ScalarKind k);      // e4m3, e5m2
bool isUnsignedKind(ScalarKind k); // u8..u64 (i1 is neither signed nor unsigned)
unsigned bitWidth(ScalarKind k);   // i1 -> 1
unsigned byteSize(ScalarKind k);   // i1 -> 1 (stored as a byte)
/// Whether vec<k, n> exists: 2, 4, 8 or 16 elements of 4, 8 or 16 bytes in all, no i1.
bool vectorShapeOk(ScalarKind k, int64_t n);
/// The vectors of element type k, written out (the hint of a shape that does not exist).
std::string vectorShapeHint(ScalarKind k);

// Float literals (FloatLiterals.cpp): exact round-to-nearest-even into
// f16/bf16/f32 through a round-to-odd double.
/// The unsigned decimal `text` as a round-to-odd double; `overflow` when it
/// exceeds the double range.
double parseFloatRoundToOdd(const std::string &text, bool &overflow);
/// The unsigned decimal `text` rounded once, to nearest-even, to a double:
/// an f64 literal's value (a round-to-odd double is no f64 rounding).
double parseFloatNearest(const std::string &text);
/// An integer literal's magnitude as a round-to-odd double.
double roundToOddFromUnsigned(uint64_t v);
/// The value of float kind `kind` nearest to the round-to-odd `value`
/// (ties to even), or nullopt when that rounding overflows.
std::optional<double> roundToFloatKind(double roundToOdd, ScalarKind kind);
/// The largest finite value of float kind `kind` (65504 for f16).
double largestFinite(ScalarKind kind);

struct Type {
  enum Kind {
    Invalid,       // an error was already reported for this expression
    Void,          // statements-only builtins (sync_threads(), store(...))
    UntypedInt,    // transient: integer literal awaiting adaptation
    UntypedFloat,  // transient: float literal awaiting adaptation
    Scalar,        // `scalar`
    Pointer,       // ptr<scalar, space>
    SharedArray,   // shared<scalar>[N] in this CTA (space == Shared)
    ArrayView,     // h.local (space Shared) or remote(a, r) (space Cluster)
    DistArray,     // dshared<scalar>[N] spread over the cluster (space Cluster)
    MBarrier,      // one mbarrier object: space Shared (this CTA's) or Cluster
                   // (remote(b, r)); scalar = I64 (the object is a .b64)
    MBarrierArray, // mbarrier[N]: staticLength = N, space Shared, scalar = I64;
                   // not an mbarrier itself (index it)
    Tensor,        // tensor<scalar>[E0, ...] kernel parameter (a TMA tensor map):
                   // dims = extents (-1 for a named one); only `A[c...]` as a
                   // copy_async/prefetch_tensor operand uses it
    // Vectors and cache policies:
    Vector,      // vec<scalar, lanes>: lanes 2, 4, 8 or 16, 4/8/16 bytes; f16x2 = vec<f16, 2>
    CachePolicy, // the opaque L2 policy of cache_policy(...) (a .b64 register)
    LocalArray,  // local<scalar>[N]: staticLength = N, space Local
    // frag<scalar>[M, N], one warpgroup's wgmma accumulator:
    // dims = {M, N}; each thread holds fragmentElements() of them in the PTX
    // wgmma D layout (tile::target::wgmmaFragmentCoord).
    Fragment,
    // semaphore[S] kernel parameter (the u64 base of this rank's
    // counters; staticLength = S when a literal); only `sem[i]` in signal/wait.
    Semaphore,
    // per_row<scalar>[M] / per_col<scalar>[N]: one value per row (column) of
    // an M-row (N-column) fragment, held as the fragment layout repeats it
    // (two per thread per 64 rows; N/4 per thread). dims = {M} / {N}.
    // Fragments, per_row and per_col values are the distributed values; a
    // scalar of I1 makes a mask (from a comparison, read by select).
    PerRow,
    PerCol,
  };
  Kind kind = Invalid;
  ScalarKind scalar = ScalarKind::I32;       // Scalar: itself; others: element type
  AddressSpace space = AddressSpace::Global; // Pointer / arrays: where elements live
  ScalarKind lengthType = ScalarKind::I32;   // arrays: type of len(), local_base
  std::optional<int64_t> staticLength;       // arrays: length when a compile-time constant
  /// n-D shared arrays (rank >= 2): the extents, outermost first (row major;
  /// staticLength is their product); tensors: the extents, -1 when named.
  /// Empty for 1-D arrays. Not part of the type identity.
  std::vector<int64_t> dims;
  int lanes = 0;                             // Vector: element count

  static Type invalid() { return {}; }
  static Type voidTy() {
    Type t;
    t.kind = Void;
    return t;
  }
  static Type semaphore(std::optional<int64_t> count) {
    Type t;
    t.kind = Semaphore;
    t.scalar = ScalarKind::U64;
    t.staticLength = count;
    return t;
  }
  static Type untypedInt() {
    Type t;
    t.kind = UntypedInt;
    return t;
  }
  static Type untypedFloat() {
    Type t;
    t.kind = UntypedFloat;
    return t;
  }
  static Type scalarTy(ScalarKind k) {
    Type t;
    t.kind = Scalar;
    t.scalar = k;
    return t;
  }
  static Type i1() { return scalarTy(ScalarKind::I1); }
  static Type i32() { return scalarTy(ScalarKind::I32); }
  static Type pointer(ScalarKind elem, AddressSpace space) {
    Type t;
    t.kind = Pointer;
    t.scalar = elem;
    t.space = space;
    return t;
  }
  static Type array(Kind kind, ScalarKind elem, AddressSpace space, ScalarKind lenTy,
                    std::optional<int64_t> len) {
    Type t;
    t.kind = kind;
    t.scalar = elem;
    t.space = space;
    t.lengthType = lenTy;
    t.staticLength = len;
    return t;
  }

  bool isInvalid() const { return kind == Invalid; }
  bool isUntyped() const { return kind == UntypedInt || kind == UntypedFloat; }
  bool isScalar() const { return kind == Scalar; }
  bool isScalar(ScalarKind k) const { return kind == Scalar && scalar == k; }
  bool isInteger() const { return kind == Scalar && isIntegerKind(scalar); }
  bool isFloat() const { return kind == Scalar && isFloatKind(scalar); }
  /// u8..u64: `/ % < <= > >= >> min max` and widening casts are unsigned.
  bool isUnsigned() const { return kind == Scalar && isUnsignedKind(scalar); }
  bool isBool() const { return isScalar(ScalarKind::I1); }
  bool isPointer() const { return kind == Pointer; }
  /// Shared array, array view or distributed array: indexable, has len().
  bool isArray() const { return kind == SharedArray || kind == ArrayView || kind == DistArray; }
  /// One mbarrier (not an mbarrier array).
  bool isMBarrier() const { return kind == MBarrier; }
  static Type mbarrier(AddressSpace space) {
    Type t;
    t.kind = MBarrier;
    t.scalar = ScalarKind::I64;
    t.space = space;
    return t;
  }
  static Type mbarrierArray(int64_t n) {
    Type t;
    t.kind = MBarrierArray;
    t.scalar = ScalarKind::I64;
    t.space = AddressSpace::Shared;
    t.staticLength = n;
    return t;
  }
  static Type tensor(ScalarKind elem, std::vector<int64_t> extents) {
    Type t;
    t.kind = Tensor;
    t.scalar = elem;
    t.dims = std::move(extents);
    return t;
  }
  bool isTensor() const { return kind == Tensor; }
  /// Rank of an array (1 unless n-D) or tensor.
  size_t rank() const { return dims.empty() ? 1 : dims.size(); }
  static Type vector(ScalarKind elem, int lanes) {
    Type t;
    t.kind = Vector;
    t.scalar = elem;
    t.lanes = lanes;
    return t;
  }
  static Type cachePolicy() {
    Type t;
    t.kind = CachePolicy;
    return t;
  }
  bool isVector() const { return kind == Vector; }
  /// frag<elem>[m, n] (MLIR !tile.frag<MxNxT>, class mlir::tile::FragType).
  static Type fragment(ScalarKind elem, int64_t m, int64_t n) {
    Type t;
    t.kind = Fragment;
    t.scalar = elem;
    t.dims = {m, n};
    return t;
  }
  bool isFragment() const { return kind == Fragment; }
  static Type perRow(ScalarKind elem, int64_t m) {
    Type t;
    t.kind = PerRow;
    t.scalar = elem;
    t.dims = {m};
    return t;
  }
  static Type perCol(ScalarKind elem, int64_t n) {
    Type t;
    t.kind = PerCol;
    t.scalar = elem;
    t.dims = {n};
    return t;
  }
  /// A fragment, per_row or per_col value (element-wise operators broadcast
  /// between them: SemaFragment.cpp).
  bool isDistributed() const { return kind == Fragment || kind == PerRow || kind == PerCol; }
  /// A value a function takes and returns by value (bound, not viewed).
  bool isPassedByValue() const {
    return isScalar() || isPointer() || isVector() || isDistributed();
  }
  /// A distributed value of i1 elements (a comparison's result).
  bool isMask() const { return isDistributed() && scalar == ScalarKind::I1; }
  /// The same kind and extents with elements of type k.
  Type withScalar(ScalarKind k) const {
    Type t = *this;
    t.scalar = k;
    return t;
  }
  /// Elements each of the warpgroup's 128 threads holds (M * N / 128).
  int64_t fragmentElements() const {
    return ::tile::target::wgmmaFragmentElements(dims[0], dims[1]);
  }
  /// f16x2 / bf16x2: the packed types with add/sub/mul/fma/min/max.f16x2.
  bool isPacked() const {
    return kind == Vector && lanes == 2 &&
           (scalar == ScalarKind::F16 || scalar == ScalarKind::BF16);
  }
  /// Bytes a vector occupies (lanes * element size).
  int64_t vectorBytes() const { return (int64_t)lanes * byteSize(scalar); }
  /// Indexable with e[i]: pointers and arrays.
  bool isIndexable() const { return isPointer() || isArray() || kind == LocalArray; }

  /// Structural equality; array lengths are not part of the type identity.
  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }

  /// Source-like spelling: i32, ptr<f32, global>, shared<i32>[256],
  /// view<i32, cluster>, dshared<i32>[?], {integer literal}, mbarrier (this
  /// CTA's), mbarrier<cluster> (a remote one), mbarrier[4], vec<f32, 4>,
  /// f16x2, bf16x2, cache_policy.
  std::string str() const;
};

} // namespace tile::frontend

#endif
