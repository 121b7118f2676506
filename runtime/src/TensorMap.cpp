//===- TensorMap.cpp - tensor-map rules, encoding and the encode cache ----===//
//
// Every rule cuTensorMapEncodeTiled documents for the tiled, non-interleaved
// maps tilec uses is checked here before the driver sees the map: the driver
// answers a violation with a bare CUDA_ERROR_INVALID_VALUE, and a map it does
// accept but that means something else (an ignored inner element stride)
// would silently change what a copy moves. The numbers live in tile/target.h.
//===----------------------------------------------------------------------===//
#include "tile/tensor_map.h"

#include <array>
#include <cstdio>
#include <list>
#include <map>
#include <mutex>
#include <tuple>

#include "Driver.h"
#include "PeerBinding.h"
#include "tile/error.h"

namespace tile {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace {
struct ElementInfo {
  TensorElement element;
  const char *name;
  size_t bytes;
  bool isFloat;
  CUtensorMapDataType driverType; // TMA moves bits: fp8 and i8 as UINT8, i16 as UINT16
};
constexpr ElementInfo kElements[] = {
    {TensorElement::U8, "u8", 1, false, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {TensorElement::I8, "i8", 1, false, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {TensorElement::U16, "u16", 2, false, CU_TENSOR_MAP_DATA_TYPE_UINT16},
    {TensorElement::I16, "i16", 2, false, CU_TENSOR_MAP_DATA_TYPE_UINT16},
    {TensorElement::U32, "u32", 4, false, CU_TENSOR_MAP_DATA_TYPE_UINT32},
    {TensorElement::I32, "i32", 4, false, CU_TENSOR_MAP_DATA_TYPE_INT32},
    {TensorElement::U64, "u64", 8, false, CU_TENSOR_MAP_DATA_TYPE_UINT64},
    {TensorElement::I64, "i64", 8, false, CU_TENSOR_MAP_DATA_TYPE_INT64},
    {TensorElement::F16, "f16", 2, true, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
    {TensorElement::BF16, "bf16", 2, true, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
    {TensorElement::F32, "f32", 4, true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
    {TensorElement::F64, "f64", 8, true, CU_TENSOR_MAP_DATA_TYPE_FLOAT64},
    {TensorElement::E4M3, "e4m3", 1, true, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {TensorElement::E5M2, "e5m2", 1, true, CU_TENSOR_MAP_DATA_TYPE_UINT8},
};
const ElementInfo &elementInfo(TensorElement e) {
  for (const ElementInfo &i : kElements)
    if (i.element == e)
      return i;
  return kElements[0]; // unreachable for a valid enumerator
}
} // namespace

const char *tensorElementName(TensorElement e) { return elementInfo(e).name; }
std::optional<TensorElement> tensorElementFromName(const std::string &name) {
  for (const ElementInfo &i : kElements)
    if (name == i.name)
      return i.element;
  return std::nullopt;
}
size_t tensorElementBytes(TensorElement e) { return elementInfo(e).bytes; }
bool isFloatTensorElement(TensorElement e) { return elementInfo(e).isFloat; }
std::optional<TensorElement> tensorElementOf(ScalarType t) {
  // Matched by name once per type (the launch path asks per tensor argument).
  constexpr size_t kTypes = static_cast<size_t>(ScalarType::E5M2) + 1;
  static const std::array<std::optional<TensorElement>, kTypes> byType = [] {
    std::array<std::optional<TensorElement>, kTypes> a{};
    for (size_t i = 0; i < kTypes; ++i)
      a[i] = tensorElementFromName(scalarTypeName(static_cast<ScalarType>(i)));
    return a;
  }();
  const size_t i = static_cast<size_t>(t);
  return i < kTypes ? byType[i] : std::nullopt;
}

//===----------------------------------------------------------------------===//
// The rules
//===----------------------------------------------------------------------===//

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string list(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + str(v[i]);
  return s + "]";
}

const char *swizzleName(TmaSwizzle s) {
  switch (s) {
  case TmaSwizzle::None:
    return "none";
  case TmaSwizzle::B32:
    return "32B";
  case TmaSwizzle::B64:
    return "64B";
  case TmaSwizzle::B128:
    return "128B";
  }
  return "invalid";
}

bool validSwizzle(TmaSwizzle s) {
  return s == TmaSwizzle::None || s == TmaSwizzle::B32 || s == TmaSwizzle::B64 ||
         s == TmaSwizzle::B128;
}
bool validPromotion(TmaL2Promotion p) {
  return p == TmaL2Promotion::None || p == TmaL2Promotion::B64 || p == TmaL2Promotion::B128 ||
         p == TmaL2Promotion::B256;
}

} // namespace

std::vector<int64_t> TensorMapDesc::effectiveStrides() const {
  if (!strides.empty())
    return strides;
  std::vector<int64_t> s(extents.size(), 1);
  for (size_t d = extents.size(); d-- > 1;) {
    // Saturates instead of wrapping: a product past 2^40 bytes breaks a rule anyway.
    const int64_t inner = s[d], extent = extents[d] > 0 ? extents[d] : 0;
    s[d - 1] = extent && inner > INT64_MAX / extent ? INT64_MAX : inner * extent;
  }
  return s;
}

namespace {
auto tie(const TensorMapDesc &d) {
  return std::tie(d.element, d.address, d.extents, d.strides, d.box, d.elementStrides, d.swizzle,
                  d.l2Promotion, d.oobZeroFill);
}
} // namespace
bool TensorMapDesc::operator==(const TensorMapDesc &o) const { return tie(*this) == tie(o); }
bool TensorMapDesc::operator<(const TensorMapDesc &o) const { return tie(*this) < tie(o); }

std::string checkTensorMap(const TensorMapDesc &d) {
  namespace t = target;
  const int64_t rank = static_cast<int64_t>(d.extents.size());
  const int64_t bytes = static_cast<int64_t>(tensorElementBytes(d.element));
  const std::string elem = tensorElementName(d.element);
  if (rank < 1 || rank > t::kTmaMaxRank)
    return "rank " + str(rank) + " is outside 1.." + str(t::kTmaMaxRank) +
           " (a tensor map has 1 to 5 dimensions)";
  if (static_cast<int64_t>(d.box.size()) != rank)
    return "the box has " + str(d.box.size()) + " dimensions but the tensor has " + str(rank) +
           " (one box extent per tensor dimension)";
  if (!d.strides.empty() && static_cast<int64_t>(d.strides.size()) != rank)
    return str(d.strides.size()) + " strides given for a tensor of rank " + str(rank) +
           " (one stride per dimension, in elements, or none for row-major contiguous)";
  if (!d.elementStrides.empty() && static_cast<int64_t>(d.elementStrides.size()) != rank)
    return str(d.elementStrides.size()) + " element strides given for a tensor of rank " +
           str(rank) + " (one per dimension, or none for all 1)";
  if (d.address == 0)
    return "the global address is null";
  if (d.address % t::kTmaGlobalAlign != 0)
    return "global address " + detail::hexAddress(d.address) + " is not " +
           str(t::kTmaGlobalAlign) +
           "-byte aligned (TMA needs the tensor's start aligned to 16 bytes)";
  for (int64_t i = 0; i < rank; ++i)
    if (d.extents[i] < 1 || d.extents[i] > t::kTmaMaxExtent)
      return "extent " + str(i) + " is " + str(d.extents[i]) +
             " elements; a tensor map's extents are 1 to 2^32";
  const std::vector<int64_t> strides = d.effectiveStrides();
  if (strides[rank - 1] != 1)
    return "the innermost stride is " + str(strides[rank - 1]) +
           " elements; TMA reads the innermost dimension contiguously (stride 1)";
  for (int64_t i = 0; i + 1 < rank; ++i) {
    const int64_t s = strides[i];
    if (s < 1)
      return "stride " + str(i) + " is " + str(s) + " elements; strides are positive";
    if (s >= t::kTmaStrideLimit / bytes)
      return "stride " + str(i) + " is " + str(s) + " elements (" + elem +
             "), not below 2^40 bytes (the largest stride a tensor map holds)";
    if (s * bytes % t::kTmaStrideMultiple != 0)
      return "stride " + str(i) + " is " + str(s) + " elements = " + str(s * bytes) +
             " bytes, not a multiple of " + str(t::kTmaStrideMultiple) +
             " bytes (every stride but the innermost must be)";
  }
  for (int64_t i = 0; i < rank; ++i)
    if (d.box[i] < 1 || d.box[i] > t::kTmaMaxBoxDim)
      return "box dimension " + str(i) + " is " + str(d.box[i]) +
             " elements; TMA boxes have 1 to 256 elements per dimension";
  const int64_t innerBytes = d.box[rank - 1] * bytes;
  if (innerBytes % t::kTmaBoxInnerBytesMultiple != 0)
    return "the box's inner dimension is " + str(d.box[rank - 1]) + " x " + elem + " = " +
           str(innerBytes) + " bytes, not a multiple of " + str(t::kTmaBoxInnerBytesMultiple) +
           " bytes";
  if (!validSwizzle(d.swizzle))
    return "swizzle " + str(static_cast<int>(d.swizzle)) + " is not one of none, 32B, 64B, 128B";
  if (d.swizzle != TmaSwizzle::None && innerBytes > static_cast<int64_t>(d.swizzle))
    return "the box's inner dimension is " + str(innerBytes) + " bytes, wider than the " +
           swizzleName(d.swizzle) + " swizzle span of " + str(static_cast<int>(d.swizzle)) +
           " bytes (split the box or use a wider swizzle)";
  for (int64_t i = 0; i < static_cast<int64_t>(d.elementStrides.size()); ++i)
    if (d.elementStrides[i] < 1 || d.elementStrides[i] > t::kTmaMaxElementStride)
      return "element stride " + str(i) + " is " + str(d.elementStrides[i]) +
             "; element strides are 1 to 8";
  if (!d.elementStrides.empty() && d.elementStrides[rank - 1] != 1)
    return "the innermost element stride is " + str(d.elementStrides[rank - 1]) +
           "; TMA ignores it (the inner dimension is always read with step 1), so it must be 1";
  if (!validPromotion(d.l2Promotion))
    return "L2 promotion " + str(static_cast<int>(d.l2Promotion)) +
           " is not one of none, 64, 128, 256 bytes";
  if (!d.oobZeroFill && !isFloatTensorElement(d.element))
    return "NaN fill of out-of-bounds elements needs a floating-point element, not " + elem;
  return {};
}

std::string describeTensorMap(const TensorMapDesc &d) {
  std::string s = std::string("tensor map <") + tensorElementName(d.element) + ">" +
                  list(d.extents) + " strides " + list(d.effectiveStrides()) + " box " +
                  list(d.box);
  if (!d.elementStrides.empty())
    s += " element strides " + list(d.elementStrides);
  s += std::string(" swizzle ") + swizzleName(d.swizzle) + " at " + detail::hexAddress(d.address);
  return s;
}

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

namespace {

CUtensorMapSwizzle driverSwizzle(TmaSwizzle s) {
  switch (s) {
  case TmaSwizzle::None:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case TmaSwizzle::B32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case TmaSwizzle::B64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case TmaSwizzle::B128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapL2promotion driverPromotion(TmaL2Promotion p) {
  switch (p) {
  case TmaL2Promotion::None:
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case TmaL2Promotion::B64:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case TmaL2Promotion::B128:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case TmaL2Promotion::B256:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

// The checked desc, in the driver's order (innermost first, strides in bytes
// for every dimension but the innermost).
void encodeChecked(const TensorMapDesc &d, const std::string &kernel, CUtensorMap *out) {
  const size_t rank = d.extents.size();
  const uint64_t bytes = tensorElementBytes(d.element);
  const std::vector<int64_t> strides = d.effectiveStrides();
  cuuint64_t dims[target::kTmaMaxRank], byteStrides[target::kTmaMaxRank];
  cuuint32_t box[target::kTmaMaxRank], steps[target::kTmaMaxRank];
  for (size_t i = 0; i < rank; ++i) {
    const size_t outer = rank - 1 - i; // driver dimension i = our dimension rank-1-i
    dims[i] = static_cast<cuuint64_t>(d.extents[outer]);
    box[i] = static_cast<cuuint32_t>(d.box[outer]);
    steps[i] = d.elementStrides.empty() ? 1 : static_cast<cuuint32_t>(d.elementStrides[outer]);
    if (i > 0)
      byteStrides[i - 1] = static_cast<cuuint64_t>(strides[outer]) * bytes;
  }
  // A missing driver or entry point throws its own error here; a failed
  // encode names the map, since the driver's answer alone says "invalid argument".
  auto encodeTiled =
      detail::driverFn(&detail::DriverApi::cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  CUresult r = encodeTiled(out, elementInfo(d.element).driverType, static_cast<cuuint32_t>(rank),
                           reinterpret_cast<void *>(d.address), dims, byteStrides, box, steps,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, driverSwizzle(d.swizzle),
                           driverPromotion(d.l2Promotion),
                           d.oobZeroFill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
                                         : CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  if (r != CUDA_SUCCESS)
    throw Error("cuTensorMapEncodeTiled", static_cast<int>(r), kernel, describeTensorMap(d));
}

} // namespace

TensorMap TensorMap::encode(const TensorMapDesc &desc, const std::string &kernel) {
  std::string why = checkTensorMap(desc);
  if (!why.empty())
    throw Error::withMessage("TensorMap::encode", CUDA_ERROR_INVALID_VALUE, kernel,
                             (kernel.empty() ? std::string() : "kernel '" + kernel + "': ") +
                                 describeTensorMap(desc) + ": " + why);
  TensorMap m;
  encodeChecked(desc, kernel, &m.map_);
  return m;
}

//===----------------------------------------------------------------------===//
// The encode cache: a launch loop re-encoding the same maps would spend a
// driver call per tensor per launch. Keyed by the whole desc (address
// included); bounded, least recently used out first, so a program that
// allocates a new buffer per iteration does not grow it without end.
//===----------------------------------------------------------------------===//

namespace detail {
namespace {
constexpr size_t kTensorMapCacheEntries = 256;
struct TensorMapCache {
  std::mutex mu;
  std::list<std::pair<TensorMapDesc, TensorMap>> lru; // most recent first
  std::map<TensorMapDesc, std::list<std::pair<TensorMapDesc, TensorMap>>::iterator> index;
  size_t encodes = 0;
};
TensorMapCache &cache() {
  static TensorMapCache c;
  return c;
}
} // namespace

TensorMap cachedTensorMap(const TensorMapDesc &desc, const std::string &kernel) {
  TensorMapCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.index.find(desc);
  if (it != c.index.end()) {
    c.lru.splice(c.lru.begin(), c.lru, it->second);
    return it->second->second;
  }
  TensorMap m = TensorMap::encode(desc, kernel);
  ++c.encodes;
  c.lru.emplace_front(desc, m);
  c.index[desc] = c.lru.begin();
  if (c.lru.size() > kTensorMapCacheEntries) {
    c.index.erase(c.lru.back().first);
    c.lru.pop_back();
  }
  return m;
}

size_t tensorMapEncodeCount() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().encodes;
}

void clearTensorMapCache() {
  std::lock_guard<std::mutex> lock(cache().mu);
  cache().lru.clear();
  cache().index.clear();
}
} // namespace detail

//===----------------------------------------------------------------------===//
// tile::Tensor
//===----------------------------------------------------------------------===//

namespace {
std::vector<int64_t> values(const TensorShape &s) {
  std::vector<int64_t> v;
  v.reserve(s.size());
  for (const TensorIndex &i : s)
    v.push_back(i.value);
  return v;
}
bool isInteger(TensorElement e) { return !isFloatTensorElement(e); }
} // namespace

Tensor::Tensor(CUdeviceptr address, TensorElement element, TensorShape extents, TensorShape strides)
    : address_(address), element_(element), extents_(values(extents)), strides_(values(strides)) {}

bool Tensor::holds(TensorElement e) const {
  if (tensorElementBytes(e) != tensorElementBytes(element_))
    return false;
  if (bitsOnly_ || e == element_)
    return true;
  // Signedness is not a property of the bits: an i32 kernel reads a uint32_t buffer.
  return isInteger(e) && isInteger(element_);
}

std::string Tensor::check() const {
  const int64_t rank = static_cast<int64_t>(extents_.size());
  if (rank < 1 || rank > target::kTmaMaxRank)
    return "rank " + str(rank) + " is outside 1.." + str(target::kTmaMaxRank);
  if (!strides_.empty() && strides_.size() != extents_.size())
    return str(strides_.size()) + " strides given for a tensor of rank " + str(rank) +
           " (one per dimension, in elements, or none for row-major contiguous)";
  const int64_t bytes = static_cast<int64_t>(tensorElementBytes(element_));
  if (bufferElementBytes_ && bufferElementBytes_ != 1 &&
      bufferElementBytes_ != static_cast<size_t>(bytes))
    return "the element type " + std::string(tensorElementName(element_)) + " is " + str(bytes) +
           " bytes but the DeviceBuffer's elements are " + str(bufferElementBytes_) + " bytes";
  if (!capacityBytes_)
    return {};
  TensorMapDesc d;
  d.extents = extents_;
  d.strides = strides_;
  const std::vector<int64_t> s = d.effectiveStrides();
  // The last element's offset; a nonpositive extent or stride is a map rule's to report.
  unsigned __int128 last = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (extents_[i] < 1 || s[i] < 1)
      return {};
    last += static_cast<unsigned __int128>(extents_[i] - 1) * static_cast<uint64_t>(s[i]);
  }
  const unsigned __int128 end = (last + 1) * static_cast<uint64_t>(bytes);
  if (end > *capacityBytes_)
    return "the tensor spans " +
           (end > UINT64_MAX ? std::string("more than 2^64") : std::to_string(uint64_t(end))) +
           " bytes but its DeviceBuffer holds " + std::to_string(*capacityBytes_);
  return {};
}

std::string Tensor::describe() const {
  if (peers_ && peers_->kind == detail::PeerBinding::Kind::Semaphores)
    return "semaphore[" + str(peers_->semaphores->count) + "] at " + detail::hexAddress(address_) +
           " (rank " + str(peers_->rank) + " of " + str(peers_->world) + ")";
  std::string s = std::string("tensor<") + tensorElementName(element_) + ">" + list(extents_);
  if (!strides_.empty())
    s += " strides " + list(strides_);
  s += " at " + detail::hexAddress(address_);
  if (peers_)
    s += " (symmetric, rank " + str(peers_->rank) + " of " + str(peers_->world) + ")";
  return s;
}

namespace detail {
Tensor withPeerBinding(Tensor t, std::shared_ptr<const PeerBinding> binding) {
  t.peers_ = std::move(binding);
  return t;
}
} // namespace detail

} // namespace tile
