//===- KernelInfo.cpp - kernel info: types, layout rule, argument kinds ---===//
//
// The dynamic shared-memory rule is evaluated on the host exactly as the
// kernel evaluates it on the device (compiler/conversion/KernelToLLVM.cpp,
// SharedAllocLowering; compiler/mlirgen/MLIRGenArith.cpp for the operators):
// a different answer would launch with too little shared memory and let the
// kernel read and write past its window.
//===----------------------------------------------------------------------===//
#include "tile/kernel_info.h"
#include "tile/target.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace tile {

namespace {
struct ScalarName {
  ScalarType type;
  const char *name;
  unsigned bits;
};
constexpr ScalarName kScalars[] = {
    {ScalarType::I1, "i1", 1},      {ScalarType::I8, "i8", 8},    {ScalarType::I16, "i16", 16},
    {ScalarType::I32, "i32", 32},   {ScalarType::I64, "i64", 64}, {ScalarType::F16, "f16", 16},
    {ScalarType::BF16, "bf16", 16}, {ScalarType::F32, "f32", 32}, {ScalarType::U8, "u8", 8},
    {ScalarType::U16, "u16", 16},   {ScalarType::U32, "u32", 32}, {ScalarType::U64, "u64", 64},
    {ScalarType::F64, "f64", 64},   {ScalarType::E4M3, "e4m3", 8}, {ScalarType::E5M2, "e5m2", 8},
};
struct OpName {
  SizeExpr::Op op;
  const char *name;
};
constexpr OpName kOps[] = {
    {SizeExpr::Op::Literal, "literal"}, {SizeExpr::Op::Param, "param"},
    {SizeExpr::Op::Add, "add"},         {SizeExpr::Op::Sub, "sub"},
    {SizeExpr::Op::Mul, "mul"},         {SizeExpr::Op::Div, "div"},
    {SizeExpr::Op::Rem, "rem"},         {SizeExpr::Op::Shl, "shl"},
    {SizeExpr::Op::Shr, "shr"},         {SizeExpr::Op::And, "and"},
    {SizeExpr::Op::Or, "or"},           {SizeExpr::Op::Xor, "xor"},
    {SizeExpr::Op::Eq, "eq"},           {SizeExpr::Op::Ne, "ne"},
    {SizeExpr::Op::Lt, "lt"},           {SizeExpr::Op::Le, "le"},
    {SizeExpr::Op::Gt, "gt"},           {SizeExpr::Op::Ge, "ge"},
    {SizeExpr::Op::LogicalAnd, "land"}, {SizeExpr::Op::LogicalOr, "lor"},
    {SizeExpr::Op::Neg, "neg"},         {SizeExpr::Op::Not, "not"},
    {SizeExpr::Op::BitNot, "bitnot"},   {SizeExpr::Op::Cast, "cast"},
};
} // namespace

const char *scalarTypeName(ScalarType t) {
  for (const ScalarName &s : kScalars)
    if (s.type == t)
      return s.name;
  return "?";
}
std::optional<ScalarType> scalarTypeFromName(const std::string &name) {
  for (const ScalarName &s : kScalars)
    if (name == s.name)
      return s.type;
  return std::nullopt;
}
unsigned scalarBits(ScalarType t) {
  for (const ScalarName &s : kScalars)
    if (s.type == t)
      return s.bits;
  return 0;
}
size_t scalarBytes(ScalarType t) { return t == ScalarType::I1 ? 1 : scalarBits(t) / 8; }
bool isFloatType(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16 || t == ScalarType::F32 ||
         t == ScalarType::F64 || isFp8Type(t);
}
bool isUnsignedType(ScalarType t) {
  return t == ScalarType::U8 || t == ScalarType::U16 || t == ScalarType::U32 ||
         t == ScalarType::U64;
}
const char *sizeOpName(SizeExpr::Op op) {
  for (const OpName &o : kOps)
    if (o.op == op)
      return o.name;
  return "?";
}
std::optional<SizeExpr::Op> sizeOpFromName(const std::string &name) {
  for (const OpName &o : kOps)
    if (name == o.name)
      return o.op;
  return std::nullopt;
}

namespace {
struct PeerKindName {
  HiddenPeerInfo::Kind kind;
  const char *name;
};
constexpr PeerKindName kPeerKinds[] = {
    {HiddenPeerInfo::Kind::PeerPointers, "peerPointers"},
    {HiddenPeerInfo::Kind::PeerMaps, "peerMaps"},
    {HiddenPeerInfo::Kind::SemaphorePeers, "semaphorePeers"},
    {HiddenPeerInfo::Kind::SemaphoreEpoch, "semaphoreEpoch"},
    {HiddenPeerInfo::Kind::SemaphoreCount, "semaphoreCount"},
    {HiddenPeerInfo::Kind::DeviceRank, "deviceRank"},
    {HiddenPeerInfo::Kind::DeviceCount, "deviceCount"},
};
} // namespace

const char *hiddenPeerKindName(HiddenPeerInfo::Kind k) {
  for (const PeerKindName &p : kPeerKinds)
    if (p.kind == k)
      return p.name;
  return "?";
}
std::optional<HiddenPeerInfo::Kind> hiddenPeerKindFromName(const std::string &name) {
  for (const PeerKindName &p : kPeerKinds)
    if (name == p.name)
      return p.kind;
  return std::nullopt;
}

std::string KernelParamInfo::typeName() const {
  if (semaphore)
    return "semaphore[" +
           (semaphore->count.literal ? std::to_string(*semaphore->count.literal)
                                     : semaphore->count.name) +
           "]";
  if (tensor) {
    // The tensor's own element: `scalar` should equal it, but one source of truth.
    std::string s = std::string(tensor->symmetric ? "symmetric tensor<" : "tensor<") +
                    scalarTypeName(tensor->element) + ">[";
    for (size_t i = 0; i < tensor->extents.size(); ++i) {
      const TensorParamInfo::Extent &e = tensor->extents[i];
      s += (i ? ", " : "") + (e.literal ? std::to_string(*e.literal) : e.name);
    }
    return s + "]";
  }
  return isPointer ? std::string("ptr<") + scalarTypeName(scalar) + ", global>"
                   : scalarTypeName(scalar);
}

SizeExpr SizeExpr::literal(ScalarType type, int64_t value) {
  SizeExpr e;
  e.op = Op::Literal;
  e.type = type;
  e.value = value;
  e.fvalue = static_cast<double>(value);
  return e;
}
SizeExpr SizeExpr::paramRef(ScalarType type, int index) {
  SizeExpr e;
  e.op = Op::Param;
  e.type = type;
  e.param = index;
  return e;
}
SizeExpr SizeExpr::unary(Op op, ScalarType type, SizeExpr operand) {
  SizeExpr e;
  e.op = op;
  e.type = type;
  e.operands.push_back(std::move(operand));
  return e;
}
SizeExpr SizeExpr::binary(Op op, ScalarType type, SizeExpr lhs, SizeExpr rhs) {
  SizeExpr e;
  e.op = op;
  e.type = type;
  e.operands.push_back(std::move(lhs));
  e.operands.push_back(std::move(rhs));
  return e;
}

const KernelInfo *ModuleInfo::find(const std::string &kernel) const {
  for (const KernelInfo &k : kernels)
    if (k.name == kernel)
      return &k;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

namespace {

/// An integer is kept sign-extended from its width (an i1 true is -1, as a
/// 1-bit two's complement number); a float as the double of its exact value.
struct Value {
  int64_t i = 0;
  double f = 0;
};

int64_t wrap(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return static_cast<int64_t>(v);
  uint64_t mask = (uint64_t(1) << bits) - 1, sign = uint64_t(1) << (bits - 1);
  v &= mask;
  return static_cast<int64_t>((v ^ sign) - sign);
}
uint64_t unsignedBits(int64_t v, unsigned bits) {
  return bits >= 64 ? static_cast<uint64_t>(v)
                    : static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1);
}

// Float results are rounded with roundToFloat (kernel_info.h), as the device
// converts. Rounding from a double is exact for the results the rule
// computes: + - * / of two values of a narrower format (53 >= 2p + 2 bits)
// and round-to-odd conversions (roundToOdd below); f64 results are the
// double's own.

/// An integer as a double rounded to odd: exact below 2^53, else the low bit
/// records what was cut, so one more rounding to a narrower format is correct.
double roundToOdd(int64_t v) {
  uint64_t mag = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  double d;
  if (mag < (uint64_t(1) << 53)) {
    d = static_cast<double>(mag);
  } else {
    int shift = 0;
    while ((mag >> shift) >= (uint64_t(1) << 53))
      ++shift;
    uint64_t top = mag >> shift;
    if (mag & ((uint64_t(1) << shift) - 1))
      top |= 1;
    d = std::ldexp(static_cast<double>(top), shift);
  }
  return v < 0 ? -d : d;
}

class Evaluator {
public:
  Evaluator(const KernelInfo &kernel, void *const *args) : kernel_(kernel), args_(args) {}

  Value eval(const SizeExpr &e) {
    const unsigned bits = scalarBits(e.type);
    const bool isFloat = isFloatType(e.type);
    auto operand = [&](size_t i) -> const SizeExpr & {
      if (i >= e.operands.size())
        throw std::invalid_argument(std::string("malformed size expression: '") + sizeOpName(e.op) +
                                    "' lacks an operand");
      return e.operands[i];
    };
    Value r;
    switch (e.op) {
    case SizeExpr::Op::Literal:
      if (isFloat)
        r.f = roundToFloat(e.type, e.fvalue);
      else
        r.i = wrap(static_cast<uint64_t>(e.value), bits);
      return r;
    case SizeExpr::Op::Param:
      return param(e);
    case SizeExpr::Op::Cast:
      return cast(eval(operand(0)), operand(0).type, e.type);
    case SizeExpr::Op::Neg:
    case SizeExpr::Op::Not:
    case SizeExpr::Op::BitNot: {
      Value v = eval(operand(0));
      if (isFloat)
        r.f = -v.f;
      else if (e.op == SizeExpr::Op::Neg)
        r.i = wrap(uint64_t(0) - static_cast<uint64_t>(v.i), bits);
      else
        r.i = wrap(~static_cast<uint64_t>(v.i), bits);
      return r;
    }
    default:
      break;
    }
    const SizeExpr &lhsExpr = operand(0);
    Value a = eval(lhsExpr);
    if (e.op == SizeExpr::Op::LogicalAnd || e.op == SizeExpr::Op::LogicalOr) {
      // The right operand is evaluated only when needed; it has no effects
      // here, so only the result matters.
      bool left = a.i != 0;
      bool value = e.op == SizeExpr::Op::LogicalAnd ? left && eval(operand(1)).i != 0
                                                    : left || eval(operand(1)).i != 0;
      r.i = value ? -1 : 0;
      return r;
    }
    Value b = eval(operand(1));
    const bool floatOperands = isFloatType(lhsExpr.type);
    const unsigned opBits = scalarBits(lhsExpr.type);
    switch (e.op) {
    case SizeExpr::Op::Eq:
    case SizeExpr::Op::Ne:
    case SizeExpr::Op::Lt:
    case SizeExpr::Op::Le:
    case SizeExpr::Op::Gt:
    case SizeExpr::Op::Ge:
      r.i = compare(e.op, a, b, floatOperands) ? -1 : 0;
      return r;
    default:
      break;
    }
    if (isFloat) {
      double v = 0;
      switch (e.op) {
      case SizeExpr::Op::Add:
        v = a.f + b.f;
        break;
      case SizeExpr::Op::Sub:
        v = a.f - b.f;
        break;
      case SizeExpr::Op::Mul:
        v = a.f * b.f;
        break;
      case SizeExpr::Op::Div:
        v = a.f / b.f;
        break;
      default:
        throw std::invalid_argument(std::string("malformed size expression: '") + sizeOpName(e.op) +
                                    "' on " + scalarTypeName(e.type));
      }
      r.f = roundToFloat(e.type, v);
      return r;
    }
    const uint64_t ua = static_cast<uint64_t>(a.i), ub = static_cast<uint64_t>(b.i);
    const int64_t minValue = wrap(uint64_t(1) << (opBits - 1), opBits);
    switch (e.op) {
    case SizeExpr::Op::Add:
      r.i = wrap(ua + ub, bits);
      break;
    case SizeExpr::Op::Sub:
      r.i = wrap(ua - ub, bits);
      break;
    case SizeExpr::Op::Mul:
      r.i = wrap(ua * ub, bits);
      break;
    case SizeExpr::Op::And:
      r.i = wrap(ua & ub, bits);
      break;
    case SizeExpr::Op::Or:
      r.i = wrap(ua | ub, bits);
      break;
    case SizeExpr::Op::Xor:
      r.i = wrap(ua ^ ub, bits);
      break;
    case SizeExpr::Op::Div: // x / 0 = -1, MIN / -1 = MIN
      r.i = b.i == 0 ? -1 : (a.i == minValue && b.i == -1) ? minValue : wrap(a.i / b.i, bits);
      break;
    case SizeExpr::Op::Rem: // x % 0 = x, MIN % -1 = 0
      r.i = b.i == 0 ? a.i : b.i == -1 ? 0 : a.i % b.i;
      break;
    case SizeExpr::Op::Shl: { // the amount read unsigned; >= width gives 0
      uint64_t n = unsignedBits(b.i, opBits);
      r.i = n >= opBits ? 0 : wrap(ua << n, bits);
      break;
    }
    case SizeExpr::Op::Shr: { // >= width gives the sign fill
      uint64_t n = unsignedBits(b.i, opBits);
      r.i = n >= opBits ? (a.i < 0 ? -1 : 0) : (a.i >> n);
      break;
    }
    default:
      throw std::invalid_argument(std::string("malformed size expression: '") + sizeOpName(e.op) +
                                  "' has no integer meaning");
    }
    return r;
  }

private:
  static bool compare(SizeExpr::Op op, Value a, Value b, bool isFloat) {
    if (isFloat) { // ordered, except != (true for NaN), as the kernel compares
      switch (op) {
      case SizeExpr::Op::Eq:
        return a.f == b.f;
      case SizeExpr::Op::Ne:
        return a.f != b.f;
      case SizeExpr::Op::Lt:
        return a.f < b.f;
      case SizeExpr::Op::Le:
        return a.f <= b.f;
      case SizeExpr::Op::Gt:
        return a.f > b.f;
      default:
        return a.f >= b.f;
      }
    }
    switch (op) { // signed
    case SizeExpr::Op::Eq:
      return a.i == b.i;
    case SizeExpr::Op::Ne:
      return a.i != b.i;
    case SizeExpr::Op::Lt:
      return a.i < b.i;
    case SizeExpr::Op::Le:
      return a.i <= b.i;
    case SizeExpr::Op::Gt:
      return a.i > b.i;
    default:
      return a.i >= b.i;
    }
  }

  Value param(const SizeExpr &e) {
    if (e.param < 0 || static_cast<size_t>(e.param) >= kernel_.params.size())
      throw std::invalid_argument("malformed size expression: parameter " +
                                  std::to_string(e.param) + " does not exist");
    const KernelParamInfo &p = kernel_.params[static_cast<size_t>(e.param)];
    if (p.isPointer || p.scalar != e.type)
      throw std::invalid_argument("malformed size expression: parameter " +
                                  std::to_string(e.param) + " ('" + p.name + "') is " +
                                  p.typeName() + ", not " + scalarTypeName(e.type));
    const void *at = args_[e.param];
    Value v;
    unsigned char bytes[8] = {};
    std::memcpy(bytes, at, scalarBytes(p.scalar));
    uint64_t raw = 0;
    for (size_t k = 0; k < scalarBytes(p.scalar); ++k) // little endian, as the device reads it
      raw |= uint64_t(bytes[k]) << (8 * k);
    switch (p.scalar) {
    case ScalarType::I1:
      v.i = wrap(raw & 1, 1);
      break; // .u8 parameter, low bit
    default:
      if (isFloatType(p.scalar)) { // converted in a size (`d as i32`, `(q as f32) as i32`)
        v.f = floatValue(p.scalar, raw);
        break;
      }
      v.i = wrap(raw, scalarBits(p.scalar));
      break;
    }
    return v;
  }

  static Value cast(Value v, ScalarType from, ScalarType to) {
    Value r;
    const unsigned toBits = scalarBits(to);
    if (!isFloatType(from) && !isFloatType(to)) {
      // Sign-extends or truncates; i1 zero-extends (true is 1).
      int64_t value = from == ScalarType::I1 ? (v.i & 1) : v.i;
      r.i = wrap(static_cast<uint64_t>(value), toBits);
    } else if (!isFloatType(from)) {
      // One rounding, as cvt.rn.fN.s64: exact into a double below 2^53, and
      // past it the double rounded to odd rounds correctly once more; an f64
      // is the nearest double itself.
      r.f = to == ScalarType::F64 ? static_cast<double>(v.i) : roundToFloat(to, roundToOdd(v.i));
    } else if (isFloatType(to)) {
      r.f = roundToFloat(to, v.f);
    } else {
      // Toward zero, saturating to the range, NaN -> 0 (cvt.rzi saturates).
      double lo = -std::ldexp(1.0, toBits - 1), hi = std::ldexp(1.0, toBits - 1);
      if (std::isnan(v.f))
        r.i = 0;
      else if (v.f <= lo)
        r.i = wrap(uint64_t(1) << (toBits - 1), toBits);
      else if (v.f >= hi)
        r.i = wrap((uint64_t(1) << (toBits - 1)) - 1, toBits);
      else
        r.i = wrap(static_cast<uint64_t>(static_cast<int64_t>(std::trunc(v.f))), toBits);
    }
    return r;
  }

  const KernelInfo &kernel_;
  void *const *args_;
};

} // namespace

size_t KernelInfo::dynamicSharedBytes(void *const *args, uint64_t clusterSize) const {
  if (dynamicShared.empty())
    return 0;
  if (clusterSize == 0)
    clusterSize = 1;
  Evaluator evaluator(*this, args);
  const uint64_t align = dynamicSharedAlignment ? dynamicSharedAlignment : 1;
  uint64_t offset = 0, end = 0;
  for (const DynamicSharedArray &a : dynamicShared) {
    if (isFloatType(a.count.type) || a.count.type == ScalarType::I1)
      throw std::invalid_argument("kernel '" + name + "': dynamic shared array '" + a.name +
                                  "' has a count of type " + scalarTypeName(a.count.type));
    const unsigned bits = scalarBits(a.count.type);
    int64_t count = evaluator.eval(a.count).i;
    if (a.distributed) {
      // ceil(count / cluster size) in the count's type: a wrapping add and an
      // unsigned division, as the kernel computes it.
      uint64_t sum = unsignedBits(wrap(static_cast<uint64_t>(count) + clusterSize - 1, bits), bits);
      count = wrap(sum / clusterSize, bits);
    }
    if (count < 0)
      throw std::invalid_argument("kernel '" + name + "': dynamic shared array '" + a.name +
                                  "' has " + std::to_string(count) +
                                  " elements per CTA for these arguments");
    const uint64_t elements = static_cast<uint64_t>(count);
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (a.elementSize && elements > (limit - offset) / a.elementSize)
      throw std::invalid_argument("kernel '" + name + "': dynamic shared array '" + a.name +
                                  "' of " + std::to_string(elements) + " " +
                                  scalarTypeName(a.element) +
                                  " per CTA does not fit 64-bit byte offsets");
    const uint64_t bytes = elements * a.elementSize;
    end = offset + bytes;
    offset = (end + align - 1) / align * align;
  }
  if (end > std::numeric_limits<size_t>::max())
    throw std::invalid_argument("kernel '" + name + "': dynamic shared memory does not fit size_t");
  return static_cast<size_t>(end);
}

void KernelInfo::checkMBarrierCounts(void *const *args) const {
  if (mbarrierCounts.empty())
    return;
  Evaluator evaluator(*this, args);
  for (const MBarrierCount &m : mbarrierCounts) {
    // mbarrier.init reads the count as the kernel computed it: an i32.
    const int64_t count = evaluator.eval(m.count).i;
    if (count < 1 || count > target::kMaxMBarrierArrivals)
      throw std::invalid_argument(
          "kernel '" + name + "': mbarrier '" + m.name + "' would complete a phase with " +
          std::to_string(count) + " arrivals for these arguments, but an mbarrier's count is 1 to " +
          std::to_string(target::kMaxMBarrierArrivals) +
          " (PTX mbarrier.init: another count leaves its phases undefined)");
  }
}

//===----------------------------------------------------------------------===//
// Argument kinds
//===----------------------------------------------------------------------===//

namespace {

std::string describe(ArgDesc::Kind kind, size_t size) {
  std::string bytes = std::to_string(size) + "-byte ";
  switch (kind) {
  case ArgDesc::Kind::Integer:
    return "a " + bytes + "integer";
  case ArgDesc::Kind::Float:
    return "a " + bytes + "float";
  case ArgDesc::Kind::DeviceBuffer:
    return "a DeviceBuffer";
  case ArgDesc::Kind::Tensor:
    return "a tile::Tensor";
  case ArgDesc::Kind::Other:
    break;
  }
  return "a " + bytes + "value";
}

std::string describe(const ArgDesc &a) {
  if (a.kind == ArgDesc::Kind::Tensor && a.elementKind == ArgDesc::Kind::Tensor)
    return "a tile::Semaphores"; // tile/distributed.h's mark (ArgTraits<Semaphores>)
  if (a.kind != ArgDesc::Kind::DeviceBuffer)
    return describe(a.kind, a.size);
  std::string element = describe(a.elementKind, a.elementSize).substr(2);
  return "a DeviceBuffer of " + element + "s";
}

/// Whether a value of `kind` and `size` bytes holds a `t`.
bool holds(ArgDesc::Kind kind, size_t size, ScalarType t) {
  if (size != scalarBytes(t))
    return false;
  switch (kind) {
  case ArgDesc::Kind::Other:
    return true;             // a struct: only its size is known
  case ArgDesc::Kind::Float: // float -> f32, double -> f64 (the size is checked above)
    return t == ScalarType::F32 || t == ScalarType::F64;
  case ArgDesc::Kind::Integer: // f16/bf16/fp8 have no C++ type: their bits pass as integers
    return !isFloatType(t) || (t != ScalarType::F32 && t != ScalarType::F64);
  case ArgDesc::Kind::DeviceBuffer:
  case ArgDesc::Kind::Tensor:
    return false;
  }
  return false;
}

} // namespace

size_t declaredParamCount(const KernelInfo &kernel) {
  size_t n = 0;
  for (const KernelParamInfo &p : kernel.params)
    n += p.isHidden() ? 0 : 1;
  return n;
}

std::string checkArgumentKinds(const KernelInfo &kernel, const ArgDesc *args, size_t count) {
  const auto k = [&] { return "kernel '" + kernel.name + "': "; }; // for a refusal only
  auto plural = [](size_t n, const char *word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  auto label = [&](size_t i) {
    const KernelParamInfo &p = kernel.params[i];
    return "parameter " + std::to_string(i) + " ('" + p.name + "', " + p.typeName() + ")";
  };
  // Hidden parameters (tensor extents) come last and are the runtime's to fill.
  const size_t declared = declaredParamCount(kernel);
  if (count != declared) {
    std::string s = k() + plural(count, "argument") + " given but the kernel takes " +
                    plural(declared, "parameter");
    if (count < declared)
      return s + "; " + label(count) + " has no argument";
    return s + "; argument " + std::to_string(declared) + " has no parameter";
  }
  for (size_t i = 0; i < count; ++i) {
    const KernelParamInfo &p = kernel.params[i];
    const ArgDesc &a = args[i];
    if (p.semaphore) {
      // A tile::Semaphores travels as a tile::Tensor of its counters that
      // carries the array (tile/distributed.h); the binder checks which it is.
      if (a.kind == ArgDesc::Kind::Tensor)
        continue;
      return k() + "argument " + std::to_string(i) + " is " + describe(a) + " but " + label(i) +
             " (pass a tile::Semaphores of the same communicator as the kernel's symmetric "
             "tensors)";
    }
    if (p.tensor || a.kind == ArgDesc::Kind::Tensor) {
      if (p.tensor && a.kind == ArgDesc::Kind::Tensor)
        continue; // element, rank and extents are checked when the map is encoded
      return k() + "argument " + std::to_string(i) + " is " + describe(a) + " but " + label(i) +
             (p.tensor ? " (pass a tile::Tensor: the runtime encodes its tensor map from the "
                         "kernel info's box and swizzle)"
              : a.elementKind == ArgDesc::Kind::Tensor
                  ? " (a tile::Semaphores goes to a semaphore[S] parameter only)"
                  : " (a tile::Tensor goes to a tensor<T>[...] parameter only)");
    }
    bool ok;
    if (p.isPointer) {
      ok = a.kind == ArgDesc::Kind::DeviceBuffer
               ? holds(a.elementKind == ArgDesc::Kind::DeviceBuffer ? ArgDesc::Kind::Other
                                                                    : a.elementKind,
                       a.elementSize, p.scalar)
               : (a.kind == ArgDesc::Kind::Integer || a.kind == ArgDesc::Kind::Other) &&
                     a.size == p.size; // a raw CUdeviceptr
    } else {
      ok = holds(a.kind, a.size, p.scalar);
    }
    if (ok)
      continue;
    std::string hint;
    if (p.isPointer)
      hint = std::string("pass a DeviceBuffer<") +
             (p.scalar == ScalarType::F32 ? "float"
              : p.scalar == ScalarType::F64
                  ? "double"
                  : "an integer type of " + std::to_string(scalarBytes(p.scalar)) + " bytes") +
             "> or a CUdeviceptr";
    else if (p.scalar == ScalarType::F32)
      hint = "pass a float";
    else if (p.scalar == ScalarType::F64)
      hint = "pass a double";
    else if (isFloatType(p.scalar)) // f16, bf16, e4m3, e5m2: tile::floatBits makes the bits
      hint = "pass the " + std::to_string(scalarBits(p.scalar)) + "-bit pattern as a uint" +
             std::to_string(scalarBits(p.scalar)) + "_t (tile::floatBits)";
    else
      hint = "pass an integer of " + plural(p.size, "byte");
    return k() + "argument " + std::to_string(i) + " is " + describe(a) + " but " + label(i) + " (" +
           hint + ")";
  }
  return {};
}

} // namespace tile
