//===- kernel_info.h - what the host must know about a kernel ---*- C++ -*-===//
//
// tilec describes every kernel it compiles beside the PTX: its parameters and
// their types, the cluster shape, the thread bounds, the static shared memory
// and the rule that sizes its dynamic shared memory from the launch arguments
// (docs/reference/memory.md, "Static vs dynamic shared memory"). tile::compile returns
// it (CompileResult::kernels), `tilec --emit=info` writes it as JSON, and the
// runtime reads it (Module::fromFiles) to compute a launch's dynamic shared
// memory and cluster and to check the arguments' kinds. Plain C++17 with no
// dependency, shared by the compiler and the runtime.
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tile {

/// The scalar types of the tile language (U8..U64 and F64 come last, so the older values keep their numbers).
// E4M3 / E5M2 (fp8) come last. f16, bf16 and fp8 have no C++ type: a C++
// host passes their bits as an unsigned integer of their size
// (floatBits below makes them).
enum class ScalarType { I1, I8, I16, I32, I64, F16, BF16, F32, U8, U16, U32, U64, F64, E4M3, E5M2 };
const char *scalarTypeName(ScalarType t); // "i32"
std::optional<ScalarType> scalarTypeFromName(const std::string &name);
unsigned scalarBits(ScalarType t); // i1 -> 1
size_t scalarBytes(ScalarType t);  // i1 -> 1 (passed and stored as a byte)
bool isFloatType(ScalarType t);    // f16, bf16, f32, f64, e4m3, e5m2
bool isFp8Type(ScalarType t);      // e4m3, e5m2
bool isUnsignedType(ScalarType t); // u8..u64

/// `x` in float type `t` (f16, bf16, f32, f64, e4m3, e5m2) as the device
/// converts a wider value: round to nearest even; past the largest finite
/// f16/bf16/f32 become infinity (cvt.rn) and e4m3/e5m2 saturate to it, as
/// infinities do (cvt.rn.satfinite); a NaN becomes the canonical NaN (0x7f
/// for fp8). The result is the bits, in the low bits of the word.
uint64_t floatBits(ScalarType t, double x);
/// The value of float type `t`'s bits (e4m3 has no infinity: S.1111.111 is
/// its NaN).
double floatValue(ScalarType t, uint64_t bits);
/// `x` rounded to float type `t`: floatValue(t, floatBits(t, x)).
double roundToFloat(ScalarType t, double x);

/// TMA shared-memory swizzle (CUtensorMapSwizzle): the byte span the XOR
/// pattern repeats over; the tile's shared layout, the tensor map and (later)
/// the wgmma descriptor must agree on it.
enum class TmaSwizzle { None = 0, B32 = 32, B64 = 64, B128 = 128 };
/// L2 sector promotion of a tensor map (CUtensorMapL2promotion).
enum class TmaL2Promotion { None = 0, B64 = 64, B128 = 128, B256 = 256 };

/// A `tensor<T>[d0, d1, ...]` kernel parameter: passed as the 128-byte
/// CUtensorMap (`.param .align 64 .b8 [128]`, grid-constant), which the
/// runtime encodes at launch from the host's tile::Tensor argument and what
/// the compiler chose here (the box every copy moves, the swizzle of the
/// shared tiles it lands in). Extents are listed outermost first, as written.
struct TensorParamInfo {
  /// One declared extent: a literal (checked against the host tensor at
  /// launch) or a name, whose value the runtime passes in the hidden
  /// parameter `hiddenParam` (an index into KernelInfo::params). A name used
  /// by several tensors is one hidden parameter; the runtime checks that the
  /// tensors agree on it.
  struct Extent {
    std::string name; // "" for a literal
    std::optional<int64_t> literal;
    int hiddenParam = -1;
  };
  ScalarType element = ScalarType::F16;
  std::vector<Extent> extents; // rank = extents.size(), 1..5
  /// The TMA box, outermost first (same order as extents); empty when the
  /// kernel never copies through the map (then the runtime encodes nothing
  /// and passes zero bytes).
  std::vector<unsigned> box;
  TmaSwizzle swizzle = TmaSwizzle::None;
  TmaL2Promotion l2Promotion = TmaL2Promotion::B128;
  /// Elements outside the tensor are filled with zero (not NaN) by loads.
  bool oobZeroFill = true;
  /// `symmetric tensor<T>[...]` (docs/reference/multi-gpu.md, "Multi-GPU"): the argument
  /// is this rank's part of a symmetric allocation (dense row-major, every rank
  /// the same shape); the kernel may address every peer's part through the
  /// hidden PeerPointers / PeerMaps parameters that belong to it.
  bool symmetric = false;
};

/// A `semaphore[S]` kernel parameter: a u64 PTX parameter holding the base of
/// this rank's counters, an array of S + 2 u64 in symmetric memory (S user
/// counters, [S] the exit protocol's arrival counter, [S+1] its exit counter).
/// `count` is S: a literal, or a name whose value the runtime passes in the
/// hidden SemaphoreCount parameter `count.hiddenParam`.
struct SemaphoreParamInfo {
  TensorParamInfo::Extent count;
};

/// A parameter the compiler added for multi-GPU kernels (listed after every
/// declared parameter, like HiddenExtentInfo), filled by the runtime:
/// - PeerPointers (u64): device pointer to device_count() u64 base addresses
///   of symmetric tensor `param`'s parts, index = rank (peerTable()).
/// - PeerMaps (u64): device pointer to device_count() 128-byte CUtensorMaps,
///   64-byte aligned; entry r = the tensor map of `param` over rank r's part.
/// - SemaphorePeers (u64): device pointer to device_count() u64 bases of
///   semaphore `param`'s counters, index = rank.
/// - SemaphoreEpoch (u64): 1 for the first launch that binds semaphore
///   `param`'s object, +1 per launch.
/// - SemaphoreCount (i32): S of semaphore `param` when S is a name.
/// - DeviceRank, DeviceCount (i32): the communicator's rank and size; `param`
///   is -1.
struct HiddenPeerInfo {
  enum class Kind {
    PeerPointers,
    PeerMaps,
    SemaphorePeers,
    SemaphoreEpoch,
    SemaphoreCount,
    DeviceRank,
    DeviceCount
  } kind = Kind::DeviceRank;
  int param = -1; // index of the symmetric tensor / semaphore parameter; -1 for DeviceRank/Count
};
const char *hiddenPeerKindName(HiddenPeerInfo::Kind k); // "peerPointers"
std::optional<HiddenPeerInfo::Kind> hiddenPeerKindFromName(const std::string &name);

/// A parameter the compiler added: the runtime fills it from a tensor
/// argument's extent (an i32, as TMA coordinates are .s32).
struct HiddenExtentInfo {
  int tensorParam = -1; // index into KernelInfo::params of a tensor parameter
  unsigned dim = 0;     // which extent of it, outermost = 0
};

/// A kernel parameter: a scalar, a pointer to `scalar` elements in global
/// memory (the only pointer a kernel takes), a tensor (`tensor` set; `scalar`
/// is its element), a semaphore array (`semaphore` set; a u64 scalar), or a
/// hidden parameter the runtime fills (`hidden` set: an i32 extent; `peer`
/// set: a multi-GPU value), listed after every declared parameter.
struct KernelParamInfo {
  std::string name;
  bool isPointer = false;
  ScalarType scalar = ScalarType::I32; // the value, or the pointer's element
  size_t size = 0;                     // bytes of the PTX parameter
  size_t align = 0;
  /// A global pointer: the byte alignment its address must have for the
  /// kernel's loads and stores through it to be aligned (an `ld.v4.f32` at
  /// p[4 * i] needs 16); 1 when nothing is known. The runtime refuses a
  /// misaligned argument before the launch.
  size_t addressAlign = 1;
  std::optional<TensorParamInfo> tensor;
  std::optional<HiddenExtentInfo> hidden;
  std::optional<SemaphoreParamInfo> semaphore;
  std::optional<HiddenPeerInfo> peer;
  /// "i64", "ptr<i32, global>", "tensor<f16>[M, 64]", "symmetric tensor<f16>[M, K]",
  /// "semaphore[S]"
  std::string typeName() const;
  /// Filled by the runtime (hidden extent or peer parameter), not passed by the host.
  bool isHidden() const { return hidden.has_value() || peer.has_value(); }
};

/// An integer or float expression over the kernel's parameters, evaluated
/// exactly as the kernel evaluates it (docs/reference/operators.md, "Every operator
/// is defined on every input"): wrapping + - *, x / 0 = -1, x % 0 = x, clamped
/// shifts, saturating float-to-integer casts. Every node has the type of its
/// value.
struct SizeExpr {
  enum class Op {
    Literal,
    Param, // value / param index
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor, // binary, operands of `type`
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge, // i1 result, operands of one type
    LogicalAnd,
    LogicalOr, // i1
    Neg,
    Not,
    BitNot, // unary
    Cast,   // to `type` from the operand's type
  };
  Op op = Op::Literal;
  ScalarType type = ScalarType::I32;
  int64_t value = 0; // Literal (integers)
  double fvalue = 0; // Literal (floats)
  int param = -1;    // Param: index into KernelInfo::params
  std::vector<SizeExpr> operands;

  static SizeExpr literal(ScalarType type, int64_t value);
  static SizeExpr paramRef(ScalarType type, int index);
  static SizeExpr unary(Op op, ScalarType type, SizeExpr operand);
  static SizeExpr binary(Op op, ScalarType type, SizeExpr lhs, SizeExpr rhs);
};
const char *sizeOpName(SizeExpr::Op op); // "add"
std::optional<SizeExpr::Op> sizeOpFromName(const std::string &name);

/// One array of the dynamic shared-memory window, in declaration order.
struct DynamicSharedArray {
  std::string name;
  ScalarType element = ScalarType::I32;
  size_t elementSize = 4;
  /// dshared: the count is spread over the cluster, ceil(count / cluster size)
  /// elements per CTA (computed in the count's type, unsigned division).
  bool distributed = false;
  SizeExpr count; // elements (of the whole cluster for dshared)
};

/// An mbarrier (or each of an mbarrier array) whose arrival count is built
/// from kernel parameters (`mbarrier(n * 2)`): mbarrier.init takes 1 ..
/// target::kMaxMBarrierArrivals, so a launch whose arguments make the count
/// anything else is refused (with a constant count, the compiler checks it).
struct MBarrierCount {
  std::string name;
  SizeExpr count; // an i32 rule, as the kernel computes it
};

/// Values of a kernel's compile-time parameters (`kernel k<BM: i32>`), by
/// name: {{"BM", 128}, {"BN", 64}}.
using TemplateArgs = std::vector<std::pair<std::string, int64_t>>;

/// Types given to a kernel's type parameters (`kernel k<T: type>`), by name,
/// each as its scalar type's name (scalarTypeName): {{"T", "f16"}}.
using TypeArgs = std::vector<std::pair<std::string, std::string>>;

/// The PTX name of an instance of kernel `name` with these compile-time
/// arguments: name$P1V1$P2V2... ('$' is a PTX identifier character no tile
/// identifier has; a negative value is written n<magnitude>), the type
/// arguments first, then the values, each in parameter order:
/// k<BM: i32, BN: i32> with BM=128, BN=64 is `k$BM128$BN64`, and
/// k<T: type, BN: i32> with T=bf16, BN=256 is `k$Tbf16$BN256`. The compiler
/// and the runtime both name instances with this function.
inline std::string mangledKernelName(const std::string &name, const TemplateArgs &args,
                                     const TypeArgs &types = {}) {
  std::string out = name;
  for (const auto &[param, type] : types)
    out += "$" + param + type;
  for (const auto &[param, value] : args) {
    out += "$" + param;
    out +=
        value < 0 ? "n" + std::to_string(0 - static_cast<uint64_t>(value)) : std::to_string(value);
  }
  return out;
}

struct KernelInfo {
  std::string name; // the PTX entry (mangled for an instance of a template kernel)
  /// An instance of `kernel k<P: T, ...>`: the source name `k` and the
  /// compile-time arguments in parameter order; "" and {} otherwise.
  std::string sourceName;
  TemplateArgs templateArgs;
  /// The type arguments of the instance, in parameter order ({} when none).
  TypeArgs typeArgs;
  std::vector<KernelParamInfo> params;
  /// none: no cluster; fixed: compiled for `clusterDims` (.reqnctapercluster);
  /// launch: the launch gives the shape (.explicitcluster).
  enum class Cluster { None, Fixed, Launch } cluster = Cluster::None;
  std::array<unsigned, 3> clusterDims{1, 1, 1};
  /// threads(X, Y, Z): the exact block shape (.reqntid), when declared; a
  /// launch with another block shape is refused before it reaches the driver.
  std::optional<std::array<unsigned, 3>> threads;
  /// max_threads(N): an upper bound on the threads per block (.maxntid).
  std::optional<unsigned> maxThreads;
  /// min_blocks(N): CTAs per SM the kernel is compiled to fit (.minnctapersm).
  std::optional<unsigned> minBlocks;
  size_t staticSharedBytes = 0;
  /// Each array starts at this alignment; the window's size is the end of the
  /// last array.
  size_t dynamicSharedAlignment = 16;
  std::vector<DynamicSharedArray> dynamicShared;

  /// Bytes of dynamic shared memory a launch with these arguments and
  /// `clusterSize` CTAs per cluster needs: args[i] points at the value of
  /// parameter i (as cuLaunchKernelEx reads it). Throws std::invalid_argument
  /// when an array's size is negative or does not fit 64 bits for these
  /// arguments (the message names the array).
  size_t dynamicSharedBytes(void *const *args, uint64_t clusterSize) const;
  /// The mbarriers whose arrival counts come from the arguments, in
  /// declaration order.
  std::vector<MBarrierCount> mbarrierCounts;
  /// Throws std::invalid_argument naming the mbarrier, the count and the
  /// limit when one of `mbarrierCounts` is outside 1 ..
  /// target::kMaxMBarrierArrivals for these arguments (args as for
  /// dynamicSharedBytes).
  void checkMBarrierCounts(void *const *args) const;

  /// The kernel `wait`s on a semaphore, i.e. spins on what peers (and other
  /// CTAs) publish: every CTA of the grid must be co-resident (checked at launch).
  bool spinsOnPeers = false;
  /// Index of the semaphore parameter the exit protocol counts on (the first
  /// one), -1 when the kernel has none.
  int exitSemaphore = -1;
};

/// What one module's kernels need (one tilec output file).
struct ModuleInfo {
  std::string arch; // the target compiled for ("sm_90a")
  std::vector<KernelInfo> kernels;
  /// ptxFingerprint of the PTX this info was written with (tilec --emit=info
  /// compiles the PTX to write it); "" when unknown (info built in memory, or
  /// written before the field existed). The runtime refuses a module whose
  /// PTX has another fingerprint: info from another build would size shared
  /// memory, check arguments and block shapes against the wrong kernel.
  std::string ptxHash;
  const KernelInfo *find(const std::string &kernel) const;
};

/// The fingerprint of a PTX text that ModuleInfo::ptxHash records: FNV-1a
/// (64-bit) of the exact bytes, as 16 lowercase hex digits.
std::string ptxFingerprint(const std::string &ptx);

/// The JSON form (`tilec --emit=info`, `<name>.info.json` beside `<name>.ptx`).
std::string toJson(const ModuleInfo &info);
/// Parses toJson's form; throws std::invalid_argument naming the JSON path of
/// the first problem ("kernels[0].params[2].type: unknown type 'u7'").
ModuleInfo moduleInfoFromJson(const std::string &json);

/// How a host argument is passed, for the kind check (tile/args.h fills it).
/// Tensor: a tile::Tensor (tile/tensor_map.h), for a `tensor<T>[...]`
/// parameter; its element, rank and extents are checked when it is encoded.
struct ArgDesc {
  enum class Kind { Integer, Float, DeviceBuffer, Other, Tensor } kind = Kind::Other;
  size_t size = 0;
  /// DeviceBuffer<T>: what T is.
  Kind elementKind = Kind::Other;
  size_t elementSize = 0;
};

/// "" when `args` (count of them) fit the kernel's declared parameters (the
/// hidden ones are the runtime's to fill) in number, size and kind; else a message naming the
/// kernel, the argument and the parameter, e.g. "kernel 'h': argument 1 is a DeviceBuffer of 4-byte
/// floats but parameter 1 ('input') is ptr<i32, global>". An integer passes for a pointer of its
/// size (a raw CUdeviceptr) and for f16/bf16 bits; a struct passes for anything of its size.
/// Integers of either signedness pass for iN and uN of their size (the bits are passed as they
/// are); a float is f32, a double f64. A tensor parameter takes a tile::Tensor.
std::string checkArgumentKinds(const KernelInfo &kernel, const ArgDesc *args, size_t count);
/// The number of parameters a host program passes: those not isHidden().
size_t declaredParamCount(const KernelInfo &kernel);

} // namespace tile
