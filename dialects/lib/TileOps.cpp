//===- TileOps.cpp - verifiers and custom syntax of tile ops ---------------===//
#include "tilec/Target/CacheRules.h"
#include "tile/Dialect/HostContract.h"
#include "tile/Dialect/TileDialect.h"

#include "tilec/Target/ClusterGeometry.h"
#include "tilec/Target/TargetFacts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

std::optional<std::array<int64_t, 3>> KernelOp::getStaticClusterShape() {
  if (getClusterDynamic())
    return std::nullopt;
  std::array<int64_t, 3> shape = {1, 1, 1};
  if (auto dims = getClusterDims())
    for (auto [i, d] : llvm::enumerate(*dims))
      if (i < 3)
        shape[i] = d;
  return shape;
}

std::optional<int64_t> KernelOp::getStaticClusterSize() {
  if (auto shape = getStaticClusterShape())
    return ::tile::cluster::ctaCount(*shape);
  return std::nullopt;
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("kernels return nothing");
  // Each size is bounded before it is multiplied, so the product of three
  // 32-bit sizes cannot overflow into a small number.
  auto checkDims = [&](std::optional<ArrayRef<int32_t>> dims, StringRef what, int64_t limit,
                       ArrayRef<int64_t> perDimLimit) -> LogicalResult {
    if (!dims)
      return success();
    if (dims->empty() || dims->size() > 3)
      return emitOpError() << what << " needs 1 to 3 dimensions";
    int64_t total = 1;
    for (auto [i, d] : llvm::enumerate(*dims)) {
      if (d < 1)
        return emitOpError() << what << " dimensions must be positive";
      if (d > perDimLimit[i])
        return emitOpError() << what << " dimension " << i << " of " << d
                             << " exceeds the limit of " << perDimLimit[i];
      total *= d;
    }
    if (total > limit)
      return emitOpError() << what << " of " << total << " exceeds the limit of " << limit;
    return success();
  };
  // PTX ISA 11.4 (.reqnctapercluster, .maxntid) and the CUDA limits of sm_90
  // (tile/target.h): CTAs per cluster, threads per CTA, block dimensions.
  constexpr int64_t clusterMax = ::tile::target::kMaxClusterSize;
  constexpr int64_t threadsMax = ::tile::target::kMaxThreadsPerBlock;
  constexpr const int *blockMax = ::tile::target::kMaxBlockDims;
  if (failed(checkDims(getClusterDims(), "cluster", clusterMax,
                       {clusterMax, clusterMax, clusterMax})) ||
      failed(checkDims(getMaxThreads(), "threads", threadsMax,
                       {blockMax[0], blockMax[1], blockMax[2]})) ||
      failed(checkDims(getReqThreads(), "required threads", threadsMax,
                       {blockMax[0], blockMax[1], blockMax[2]})))
    return failure();
  // PTX ISA 11.4.3: .reqntid cannot be combined with .maxntid; .minnctapersm
  // (11.4.4) is a number of CTAs an SM can hold.
  if (getMaxThreads() && getReqThreads())
    return emitOpError("max_threads and req_threads exclude each other");
  if (auto blocks = getMinBlocks();
      blocks && (*blocks < 1 || *blocks > ::tile::target::kMaxBlocksPerSM))
    return emitOpError() << "min_blocks of " << *blocks << " is outside 1.."
                         << ::tile::target::kMaxBlocksPerSM;
  if (getClusterDims() && getClusterDynamic())
    return emitOpError("cluster shape cannot be both static and dynamic");
  // Parameters are what the kernel lowering passes in .param space: scalars
  // and global pointers.
  for (auto [i, type] : llvm::enumerate(getFunctionType().getInputs())) {
    auto ptr = dyn_cast<PtrType>(type);
    bool scalar = type.isInteger(1) || type.isInteger(8) || type.isInteger(16) ||
                  type.isInteger(32) || type.isInteger(64) || type.isF16() || type.isBF16() ||
                  type.isF32() || type.isF64() || isa<Float8E4M3FNType, Float8E5M2Type>(type);
    if (!scalar && !(ptr && ptr.getSpace() == AddressSpace::global) && !isa<TensorMapType>(type))
      return emitOpError() << "parameter " << i << " has type " << type
                           << "; kernel parameters are scalars, global pointers or tensor maps";
  }
  if (getBody().empty())
    return emitOpError("needs a body");
  // The host contract (HostContract.h) the kernel info is read from.
  std::string error;
  if (failed(verifyKernelContract(*this, error)))
    return emitOpError() << error;
  return success();
}

//===----------------------------------------------------------------------===//
// Memory ops
//===----------------------------------------------------------------------===//

LogicalResult SharedAllocOp::verify() {
  if (bool(getCount()) == bool(getStaticCount()))
    return emitOpError("needs exactly one of a static count or a dynamic count operand");
  // A scalar: PtrType's verifier allows pointer elements only in local memory.
  Type element = cast<PtrType>(getType()).getElementType();
  // Counts are multiplied by the element width and summed into offsets by
  // the lowering and the passes: a count must be positive and fit in the
  // shared memory of one CTA, so no product or shift can overflow.
  int64_t maxCount = ::tile::target::kMaxSharedBytesPerBlock / scalarByteWidth(element);
  std::optional<int64_t> count = getStaticCount();
  APInt constant;
  // A count with a host contract is built from kernel parameters: folding
  // may make it a constant (`n * 0`), and the runtime checks its value
  // before each launch (KernelInfo::dynamicSharedBytes).
  const bool hostChecked = (*this)->hasAttr(attr::kSharedArray);
  if (!count && !hostChecked && matchPattern(getCount(), m_ConstantInt(&constant)) &&
      constant.getSignificantBits() <= 64)
    count = constant.getSExtValue();
  else if (!count && !hostChecked && matchPattern(getCount(), m_ConstantInt(&constant)))
    return emitOpError("count does not fit in 64 bits");
  if (count && (*count < 1 || *count > maxCount))
    return emitOpError() << "count " << *count << " is outside 1.." << maxCount << " (at most "
                         << ::tile::target::kMaxSharedBytesPerBlock
                         << " bytes of shared memory per CTA)";
  // Dynamic arrays are placed at offsets computed from the earlier arrays'
  // counts, which must dominate: keep allocations in the kernel's entry block.
  auto kernel = dyn_cast<KernelOp>((*this)->getParentOp());
  if (!kernel || (*this)->getBlock() != &kernel.getBody().front())
    return emitOpError("must be in the entry block of a tile.kernel");
  // A dynamic array's host contract: what the runtime sizes the window by.
  if (Attribute a = (*this)->getDiscardableAttr(attr::kSharedArray)) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    if (!dict || getStaticCount())
      return emitOpError() << "'" << attr::kSharedArray
                           << "' must be a dictionary on a dynamic allocation";
    std::string error;
    if (!decodeSharedArray(dict, error))
      return emitOpError() << error;
  }
  return success();
}

LogicalResult MapaOp::verify() {
  auto src = cast<PtrType>(getSource().getType());
  auto dst = cast<PtrType>(getResult().getType());
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element type must be preserved");
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel && !kernel.hasCluster())
    return emitOpError("needs a kernel launched in clusters");
  return success();
}

static LogicalResult verifyElement(Operation *op, PtrType ptrType, Type valueType) {
  // A vector moves N consecutive elements with one ld/st.vN: 4, 8 or 16 bytes
  // (PTX ISA 9.7.9.8: .v2/.v4 of at most 128 bits on sm_90; .v8 of 32-bit
  // data needs sm_100), or 32 bytes as two 16-byte ones.
  if (auto vec = dyn_cast<VectorType>(valueType); vec && ptrType.getElementType() != vec) {
    int64_t bytes = vec.getNumElements() * scalarByteWidth(vec.getElementType());
    if (bytes != 4 && bytes != 8 && bytes != 16 && bytes != 32)
      return op->emitOpError() << "a vector access moves 4, 8, 16 or 32 bytes, not " << bytes;
    if (ptrType.getElementType() != vec.getElementType())
      return op->emitOpError() << "vector element type " << vec.getElementType()
                               << " does not match the pointee type " << ptrType.getElementType();
    return success();
  }
  if (ptrType.getElementType() != valueType)
    return op->emitOpError() << "value type " << valueType << " does not match the pointee type "
                             << ptrType.getElementType();
  // Pointers are values of `var`s only; no PTX ld/st of a pointer reaches memory.
  if (isa<PtrType>(valueType) && ptrType.getSpace() != AddressSpace::local)
    return op->emitOpError("pointer values live only in thread-local memory");
  return success();
}

/// ld/st with .relaxed/.acquire/.release take .b8/.b16/.b32/.b64 (PTX ISA
/// 9.7.9.8, 9.7.9.9; an 8-bit access uses a 16-bit register); i1 has no
/// memory form.
static LogicalResult verifyOrderedWidth(Operation *op, Type valueType, MemoryOrder order) {
  if (order != MemoryOrder::weak && valueType.isInteger(1))
    return op->emitOpError("accesses with a memory order need 8-, 16-, 32- or 64-bit values");
  return success();
}

static ::tile::cache::Space cacheSpace(AddressSpace s) {
  switch (s) {
  case AddressSpace::global:
    return ::tile::cache::Space::Global;
  case AddressSpace::shared:
    return ::tile::cache::Space::Shared;
  case AddressSpace::cluster:
    return ::tile::cache::Space::Cluster;
  case AddressSpace::local:
    break;
  }
  return ::tile::cache::Space::Local;
}

/// The rules of tilec/Target/CacheRules.h on an op's hint attributes (the
/// dialect enums list the same cases in the same order, after None).
static LogicalResult verifyCacheHints(Operation *op, bool isLoad, AddressSpace space,
                                      MemoryOrder order, std::optional<CacheOp> cacheOp,
                                      std::optional<EvictionPriority> evict,
                                      std::optional<uint32_t> prefetch, bool policy) {
  ::tile::cache::Access a;
  a.isLoad = isLoad;
  a.space = cacheSpace(space);
  a.ordered = order != MemoryOrder::weak;
  if (cacheOp)
    a.op = static_cast<::tile::cache::Op>(static_cast<int>(*cacheOp) + 1);
  if (evict)
    a.evict = static_cast<::tile::cache::Evict>(static_cast<int>(*evict) + 1);
  a.prefetch = prefetch ? static_cast<int>(*prefetch) : 0;
  a.policy = policy;
  if (auto v = ::tile::cache::check(a))
    return op->emitOpError(v->message);
  return success();
}

LogicalResult LoadOp::verify() {
  auto ptrType = cast<PtrType>(getPtr().getType());
  if (failed(verifyElement(*this, ptrType, getType())))
    return failure();
  MemoryOrder order = getOrder();
  if (failed(verifyOrderedWidth(*this, getType(), order)))
    return failure();
  if (order == MemoryOrder::release || order == MemoryOrder::acq_rel)
    return emitOpError("a load cannot have release semantics");
  if (order != MemoryOrder::weak && ptrType.getSpace() == AddressSpace::local)
    return emitOpError("thread-local memory takes no memory order");
  return verifyCacheHints(*this, /*isLoad=*/true, ptrType.getSpace(), order, getCache(), getEvict(),
                          getPrefetch(), static_cast<bool>(getPolicy()));
}

/// A weak load reads `ptr` and nothing else, so an unused one may go and two
/// with no write between them may merge (LLVM treats ld the same way). A
/// relaxed or acquire load synchronises with other threads: like LLVM's
/// atomic loads, it also reads and writes unknown memory, so canonicalize
/// and CSE keep it and nothing moves across it.
void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       SideEffects::DefaultResource::get());
  if (getOrder() == MemoryOrder::weak)
    return;
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

LogicalResult StoreOp::verify() {
  auto ptrType = cast<PtrType>(getPtr().getType());
  if (failed(verifyElement(*this, ptrType, getValue().getType())))
    return failure();
  MemoryOrder order = getOrder();
  if (failed(verifyOrderedWidth(*this, getValue().getType(), order)))
    return failure();
  if (order == MemoryOrder::acquire || order == MemoryOrder::acq_rel)
    return emitOpError("a store cannot have acquire semantics");
  if (order != MemoryOrder::weak && ptrType.getSpace() == AddressSpace::local)
    return emitOpError("thread-local memory takes no memory order");
  return verifyCacheHints(*this, /*isLoad=*/false, ptrType.getSpace(), order, getCache(),
                          getEvict(), std::nullopt, static_cast<bool>(getPolicy()));
}

LogicalResult CreatePolicyOp::verify() {
  if (getPrimary() == EvictionPriority::no_allocate)
    return emitOpError("an L2 policy takes evict_normal, evict_first, evict_last or "
                       "evict_unchanged");
  float f = getFraction().convertToFloat();
  if (!(f > 0.0f && f <= 1.0f))
    return emitOpError("fraction must be in (0, 1]");
  return success();
}

static LogicalResult verifyAtomic(Operation *op, PtrType ptrType, Type valueType,
                                  MemoryOrder order) {
  if (failed(verifyElement(op, ptrType, valueType)))
    return failure();
  if (ptrType.getSpace() == AddressSpace::local)
    return op->emitOpError("atomics need global, shared or cluster memory");
  if (order == MemoryOrder::weak)
    return op->emitOpError("atomics are at least relaxed");
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(
          verifyAtomic(*this, cast<PtrType>(getPtr().getType()), getValue().getType(), getOrder())))
    return failure();
  if (isa<FloatType>(getValue().getType()) && getKind() != AtomicKind::add &&
      getKind() != AtomicKind::exch)
    return emitOpError("floating-point atomics support only add and exch");
  if (getValue().getType().getIntOrFloatBitWidth() == 16 && getKind() != AtomicKind::add)
    return emitOpError("f16 and bf16 atomics support only add");
  return success();
}

LogicalResult AtomicCASOp::verify() {
  return verifyAtomic(*this, cast<PtrType>(getPtr().getType()), getValue().getType(), getOrder());
}

//===----------------------------------------------------------------------===//
// Cluster synchronisation
//===----------------------------------------------------------------------===//

static LogicalResult verifyInClusterKernel(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && !kernel.hasCluster())
    return op->emitOpError("needs a kernel launched in clusters (add cluster(...))");
  return success();
}

LogicalResult mlir::tile::verifyBarrierReduction(Operation *op, Value pred,
                                     std::optional<BarrierReduction> reduction, Value result) {
  if (!pred && !reduction && !result)
    return success();
  if (!pred || !reduction || !result)
    return op->emitOpError("a barrier reduction needs its predicate, its reduction and its "
                           "result together");
  bool count = *reduction == BarrierReduction::popc;
  if (result.getType() != IntegerType::get(op->getContext(), count ? 32 : 1))
    return op->emitOpError("the ") << stringifyBarrierReduction(*reduction)
                                   << " reduction gives " << (count ? "an i32" : "an i1");
  return success();
}

LogicalResult BarrierOp::verify() {
  return verifyBarrierReduction(*this, getPred(), getReduction(), getResult());
}

LogicalResult ClusterSyncOp::verify() { return verifyInClusterKernel(*this); }
LogicalResult ClusterArriveOp::verify() {
  if (getOrder() && *getOrder() != MemoryOrder::relaxed && *getOrder() != MemoryOrder::release)
    return emitOpError("a cluster arrive is relaxed or release");
  return verifyInClusterKernel(*this);
}
LogicalResult ClusterWaitOp::verify() { return verifyInClusterKernel(*this); }

//===----------------------------------------------------------------------===//
// mbarriers, st.async, fences
//===----------------------------------------------------------------------===//

static LogicalResult verifyMBarrier(Operation *op, Value mbar) {
  auto type = cast<PtrType>(mbar.getType());
  if (!type.getElementType().isInteger(64))
    return op->emitOpError("an mbarrier is a 64-bit object (!tile.ptr<i64, ...>)");
  if (type.getSpace() == AddressSpace::cluster)
    return verifyInClusterKernel(op);
  return success();
}

/// mbarrier operations take .cta or .cluster scope only (PTX ISA 9.7.13.15).
static LogicalResult verifyMBarrierScope(Operation *op, std::optional<MemoryScope> scope) {
  if (scope && *scope != MemoryScope::cta && *scope != MemoryScope::cluster)
    return op->emitOpError("mbarrier operations take scope cta or cluster");
  return success();
}

/// A constant operand outside [min, max]: mbarrier counts are 20-bit fields
/// (PTX ISA 9.7.13.15.1: arrival count 1 .. 2^20 - 1; tx-count 0 .. 2^20 - 1).
static LogicalResult verifyConstantRange(Operation *op, Value value, StringRef what, int64_t min,
                                         int64_t max) {
  APInt constant;
  if (!value || !matchPattern(value, m_ConstantInt(&constant)))
    return success();
  if (constant.getSignificantBits() > 64 || constant.getSExtValue() < min ||
      constant.getSExtValue() > max)
    return op->emitOpError() << what << " " << llvm::toString(constant, 10, /*Signed=*/true)
                             << " is outside " << min << ".." << max;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyMBarrier(*this, getMbar())))
    return failure();
  // The host contract of a count built from kernel parameters.
  if (Attribute a = (*this)->getDiscardableAttr(attr::kMBarrierCount)) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    if (!dict)
      return emitOpError() << "'" << attr::kMBarrierCount << "' must be a dictionary";
    std::string error;
    if (!decodeMBarrierCount(dict, error))
      return emitOpError() << error;
    // Built from kernel parameters: folding may make it a constant
    // (`n * 0`), and the runtime checks its value before each launch.
    return success();
  }
  return verifyConstantRange(*this, getCount(), "arrival count", 1,
                             ::tile::target::kMaxMBarrierArrivals);
}

LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyMBarrier(*this, getMbar())) || failed(verifyMBarrierScope(*this, getScope())))
    return failure();
  if (auto order = getOrder();
      order && *order != MemoryOrder::relaxed && *order != MemoryOrder::release)
    return emitOpError("an arrive is relaxed or release");
  return verifyConstantRange(*this, getTxCount(), "transaction count", 0,
                             ::tile::target::kMaxMBarrierTxBytes);
}

LogicalResult MBarrierExpectTxOp::verify() {
  if (failed(verifyMBarrier(*this, getMbar())) || failed(verifyMBarrierScope(*this, getScope())))
    return failure();
  return verifyConstantRange(*this, getTxCount(), "transaction count", 0,
                             ::tile::target::kMaxMBarrierTxBytes);
}

LogicalResult MBarrierWaitOp::verify() {
  if (failed(verifyMBarrier(*this, getMbar())) || failed(verifyMBarrierScope(*this, getScope())))
    return failure();
  if (auto order = getOrder();
      order && *order != MemoryOrder::relaxed && *order != MemoryOrder::acquire)
    return emitOpError("a wait is relaxed or acquire");
  return verifyConstantRange(*this, getParity(), "parity", 0, 1);
}

LogicalResult MBarrierTryWaitOp::verify() {
  if (failed(verifyMBarrier(*this, getMbar())) || failed(verifyMBarrierScope(*this, getScope())))
    return failure();
  if (auto order = getOrder();
      order && *order != MemoryOrder::relaxed && *order != MemoryOrder::acquire)
    return emitOpError("a wait is relaxed or acquire");
  return verifyConstantRange(*this, getParity(), "parity", 0, 1);
}

int64_t StoreAsyncOp::getByteCount() {
  if (getValues().empty())
    return 0;
  return static_cast<int64_t>(getValues().size()) * scalarByteWidth(getValues().front().getType());
}

LogicalResult StoreAsyncOp::verify() {
  if (failed(verifyMBarrier(*this, getMbar())))
    return failure();
  auto values = getValues();
  size_t n = values.size();
  if (n != 1 && n != 2 && n != 4)
    return emitOpError("st.async stores 1, 2 or 4 values (.v2/.v4)");
  Type type = values.front().getType();
  for (Value v : values)
    if (v.getType() != type)
      return emitOpError("all values must have one type");
  if (cast<PtrType>(getDst().getType()).getElementType() != type)
    return emitOpError("value type must match the destination element type");
  if (n == 4 && scalarByteWidth(type) != 4)
    return emitOpError("st.async.v4 takes 32-bit values");
  return success();
}

LogicalResult FenceOp::verify() {
  if (getOrder() && *getOrder() != MemoryOrder::acq_rel && *getOrder() != MemoryOrder::sc)
    return emitOpError("a fence is acq_rel or sc");
  return success();
}

/// The report is a printf format filled with i32 arguments: one %d, %i, %u
/// or %x per argument, and nothing else that would make vprintf read an
/// argument that is not there or of another type. An i64 argument (a
/// semaphore counter) takes %lld, %llu or %llx.
LogicalResult HangTrapOp::verify() {
  StringRef message = getMessage();
  size_t conversions = 0;
  for (size_t i = 0; i < message.size(); ++i) {
    if (message[i] != '%')
      continue;
    if (i + 1 < message.size() && message[i + 1] == '%') {
      ++i;
      continue;
    }
    bool wide = message.substr(i + 1).starts_with("ll");
    size_t c = i + (wide ? 3 : 1);
    if (c >= message.size() || !StringRef(wide ? "dux" : "diux").contains(message[c]))
      return emitOpError("the message may use only %d, %i, %u, %x and %% (one i32 each)");
    if (conversions < getArgs().size() && getArgs()[conversions].getType().isInteger(64) != wide)
      return emitOpError() << "conversion " << conversions << " does not match its argument's type "
                           << "(%ll* for an i64, else i32)";
    ++conversions;
    i = c;
  }
  if (conversions != getArgs().size())
    return emitOpError() << "the message has " << conversions << " conversions but "
                         << getArgs().size() << " arguments";
  return success();
}
