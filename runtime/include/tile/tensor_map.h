//===- tensor_map.h - TMA tensor maps and tensor arguments ------*- C++ -*-===//
//
// A TMA copy (cp.async.bulk.tensor) reads its global side through a 128-byte
// CUtensorMap: the tensor's address, extents and strides, the box one copy
// moves and the shared-memory swizzle it lands in. tile::TensorMap encodes one
// with cuTensorMapEncodeTiled after checking every rule the driver documents
// (docs/runtime.md, "Tensor maps"), so a violation is an exception naming the
// rule and the values instead of CUDA_ERROR_INVALID_VALUE from the driver.
//
// tile::Tensor is what a host program passes for a kernel's `tensor<T>[...]`
// parameter: Kernel::launch encodes its map from the kernel info's box and
// swizzle (caching encodings) and fills the hidden extent parameters.
//
// Every list here is outermost first, as the language writes extents and
// indices; the driver's order (innermost first) stays inside TensorMap.cpp.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tile/kernel_info.h"
#include "tile/target.h"

namespace tile {

template <class T> class DeviceBuffer;
class Tensor;

namespace detail {
struct PeerBinding;     // runtime/src/PeerBinding.h
struct AllocationToken; // tile/runtime.h
/// `t` carrying `binding` (SymmetricBuffer::symmetricTensor, tile::Semaphores).
Tensor withPeerBinding(Tensor t, std::shared_ptr<const PeerBinding> binding);
} // namespace detail

/// The element types a tensor map can move (CUtensorMapDataType). TMA copies
/// bits: i8/u8 and the fp8 types are encoded as UINT8, i16/u16 as UINT16.
/// Names follow the language and PTX (`e4m3`, `e5m2` as PTX spells fp8).
enum class TensorElement : uint8_t {
  U8,
  I8,
  U16,
  I16,
  U32,
  I32,
  U64,
  I64,
  F16,
  BF16,
  F32,
  F64,
  E4M3,
  E5M2
};
const char *tensorElementName(TensorElement e); // "bf16"
std::optional<TensorElement> tensorElementFromName(const std::string &name);
size_t tensorElementBytes(TensorElement e);
bool isFloatTensorElement(TensorElement e); // f16, bf16, f32, f64, e4m3, e5m2
/// The element a kernel's `tensor<T>` moves, from the language's scalar type
/// (by name, so every scalar type the language gains maps once its name is
/// here); nullopt for a type TMA cannot move (i1).
std::optional<TensorElement> tensorElementOf(ScalarType t);

/// One extent or stride as a host program writes it. Any integer type
/// converts implicitly, so `{n, 64}` with a size_t n is no narrowing error;
/// the value is checked where it is used (negative or too large values are
/// rule violations, not wrap-arounds).
struct TensorIndex {
  int64_t value = 0;
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  constexpr TensorIndex(I v) // NOLINT(google-explicit-constructor)
      : value(std::is_unsigned<I>::value &&
                      static_cast<unsigned long long>(v) >
                          static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())
                  ? std::numeric_limits<int64_t>::max()
                  : static_cast<int64_t>(v)) {}
};
using TensorShape = std::vector<TensorIndex>;

/// Everything that goes into one encoding (and so the key of the launch
/// cache). Lists are outermost first; strides and element strides have one
/// entry per dimension (the innermost stride must be 1: TMA reads the inner
/// dimension contiguously) or are empty (row-major contiguous / all 1).
struct TensorMapDesc {
  TensorElement element = TensorElement::F16;
  CUdeviceptr address = 0;
  std::vector<int64_t> extents;        // elements per dimension
  std::vector<int64_t> strides;        // in elements; empty = row-major contiguous
  std::vector<int64_t> box;            // elements one copy moves per dimension
  std::vector<int64_t> elementStrides; // traversal step per dimension; empty = all 1
  TmaSwizzle swizzle = TmaSwizzle::None;
  TmaL2Promotion l2Promotion = TmaL2Promotion::B128;
  /// Out-of-bounds elements read as zero; false requests NaN (float types only).
  bool oobZeroFill = true;

  /// The strides in elements, row-major contiguous when `strides` is empty.
  std::vector<int64_t> effectiveStrides() const;
  bool operator==(const TensorMapDesc &o) const;
  bool operator<(const TensorMapDesc &o) const; // a strict order over every field
};

/// The first rule `desc` breaks, as a sentence naming the rule and the values
/// ("box dimension 1 is 300 elements; TMA boxes have 1 to 256 elements per
/// dimension"), or "" when cuTensorMapEncodeTiled's documented rules all hold.
std::string checkTensorMap(const TensorMapDesc &desc);
/// "tensor map <bf16>[4096, 4096] strides [4096, 1] box [64, 128] swizzle 128B at 0x7f..."
std::string describeTensorMap(const TensorMapDesc &desc);

/// An encoded CUtensorMap: 128 bytes, at least 64-byte aligned (the driver's
/// and the kernel parameter's alignment; cuda.h declares CUtensorMap
/// alignas(128)). Trivially copyable: a kernel loaded without kernel info
/// takes it by value for a `.param .align 64 .b8 [128]` parameter.
class TensorMap {
public:
  TensorMap() = default; // all zero bytes (no map)
  /// Checks every rule (checkTensorMap) and encodes through
  /// cuTensorMapEncodeTiled. Throws tile::Error: CUDA_ERROR_INVALID_VALUE
  /// with call "TensorMap::encode" naming the broken rule, or the driver's
  /// error naming cuTensorMapEncodeTiled (and `kernel` when given).
  static TensorMap encode(const TensorMapDesc &desc, const std::string &kernel = {});
  const CUtensorMap &raw() const { return map_; }
  const void *data() const { return &map_; }
  static constexpr size_t size() { return sizeof(CUtensorMap); }

private:
  CUtensorMap map_{};
};
static_assert(sizeof(TensorMap) == target::kTensorMapBytes, "a CUtensorMap is 128 bytes");
static_assert(alignof(TensorMap) >= target::kTensorMapAlign,
              "cuTensorMapEncodeTiled needs a 64-byte aligned map");

/// A host tensor argument: a device address, the element type, the extents
/// (outermost first) and optional strides in elements (default: row-major
/// contiguous). Pass it to Kernel::launch for a `tensor<T>[...]` parameter.
class Tensor {
public:
  Tensor(CUdeviceptr address, TensorElement element, TensorShape extents, TensorShape strides = {});
  /// The element type from T (float -> f32, double -> f64, int32_t -> i32,
  /// ...). An unsigned 8- or 16-bit T holds bits only: DeviceBuffer<uint16_t>
  /// matches f16, bf16, i16 and u16 kernels, DeviceBuffer<uint8_t> matches
  /// i8, u8, e4m3 and e5m2. The tensor must lie inside the buffer (checked at
  /// launch).
  template <class T>
  Tensor(const DeviceBuffer<T> &buffer, TensorShape extents, TensorShape strides = {})
      : Tensor(buffer.ptr(), elementFor<T>(), std::move(extents), std::move(strides)) {
    bitsOnly_ = std::is_unsigned<T>::value && sizeof(T) <= 2;
    capacityBytes_ = buffer.bytes();
    owner_ = buffer.token();
    hasOwner_ = buffer.ptr() != 0;
  }
  /// A tensor views its buffer (it does not own it): one over a temporary
  /// buffer would outlive it at once, so that does not compile.
  template <class T>
  Tensor(const DeviceBuffer<T> &&buffer, TensorShape extents, TensorShape strides = {}) = delete;
  template <class T>
  Tensor(const DeviceBuffer<T> &&buffer, TensorElement element, TensorShape extents,
         TensorShape strides = {}) = delete;
  /// An explicit element type (f16/bf16/fp8 data in a DeviceBuffer<uint16_t>
  /// or <uint8_t>); its size must be sizeof(T).
  template <class T>
  Tensor(const DeviceBuffer<T> &buffer, TensorElement element, TensorShape extents,
         TensorShape strides = {})
      : Tensor(buffer.ptr(), element, std::move(extents), std::move(strides)) {
    capacityBytes_ = buffer.bytes();
    bufferElementBytes_ = sizeof(T);
    owner_ = buffer.token();
    hasOwner_ = buffer.ptr() != 0;
  }

  CUdeviceptr address() const { return address_; }
  TensorElement element() const { return element_; }
  size_t rank() const { return extents_.size(); }
  const std::vector<int64_t> &extents() const { return extents_; }
  const std::vector<int64_t> &strides() const { return strides_; } // as given ({} = contiguous)
  /// The buffer's size, when built from a DeviceBuffer.
  std::optional<size_t> capacityBytes() const { return capacityBytes_; }
  /// Built from a DeviceBuffer that has since been freed (a launch refuses it).
  bool bufferFreed() const { return hasOwner_ && owner_.expired(); }
  /// The element was deduced from an unsigned 8/16-bit C++ type: only its
  /// size is known.
  bool bitsOnly() const { return bitsOnly_; }
  /// Whether this tensor's data can be read as elements of type `e`.
  bool holds(TensorElement e) const;
  /// "" when the tensor is well formed (rank, extents, strides, the buffer
  /// holds it, an explicit element has the buffer's element size); else why not.
  std::string check() const;
  /// "tensor<f32>[128, 64] at 0x..." (", symmetric, rank 1 of 2" for a
  /// symmetric tensor; "semaphore[8] ..." for a tile::Semaphores argument)
  std::string describe() const;
  /// The symmetric allocation (SymmetricBuffer::symmetricTensor) or semaphore
  /// array (tile::Semaphores) this tensor is this rank's part of: what a
  /// `symmetric tensor` or `semaphore[S]` parameter needs besides the address
  /// (tile/distributed.h). Null for a plain tensor.
  const std::shared_ptr<const detail::PeerBinding> &peerBinding() const { return peers_; }

  /// The tensor element a host type T stands for (f32, i16, u8, ...).
  template <class T> static constexpr TensorElement elementFor() {
    static_assert(std::is_arithmetic<T>::value && !std::is_same<T, bool>::value,
                  "tile::Tensor(DeviceBuffer<T>, ...): T must be an integer or floating type; "
                  "pass the element type explicitly for other types");
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "tile::Tensor: no tensor element has this size");
    if (std::is_floating_point<T>::value)
      return sizeof(T) == 4 ? TensorElement::F32 : TensorElement::F64;
    if (std::is_signed<T>::value)
      return sizeof(T) == 1   ? TensorElement::I8
             : sizeof(T) == 2 ? TensorElement::I16
             : sizeof(T) == 4 ? TensorElement::I32
                              : TensorElement::I64;
    return sizeof(T) == 1   ? TensorElement::U8
           : sizeof(T) == 2 ? TensorElement::U16
           : sizeof(T) == 4 ? TensorElement::U32
                            : TensorElement::U64;
  }

private:
  CUdeviceptr address_ = 0;
  TensorElement element_ = TensorElement::F16;
  std::vector<int64_t> extents_, strides_;
  bool bitsOnly_ = false;
  std::optional<size_t> capacityBytes_;
  size_t bufferElementBytes_ = 0; // an explicit element's buffer element size
  std::weak_ptr<const detail::AllocationToken> owner_; // the DeviceBuffer's memory
  bool hasOwner_ = false;
  std::shared_ptr<const detail::PeerBinding> peers_;
  friend Tensor detail::withPeerBinding(Tensor, std::shared_ptr<const detail::PeerBinding>);
};

namespace detail {
/// The map of `desc`, encoded once per distinct desc (a bounded cache shared
/// by every kernel: launches with the same tensor and box reuse it).
TensorMap cachedTensorMap(const TensorMapDesc &desc, const std::string &kernel);
/// Number of cuTensorMapEncodeTiled calls the cache made (for tests).
size_t tensorMapEncodeCount();
void clearTensorMapCache();
} // namespace detail

} // namespace tile
