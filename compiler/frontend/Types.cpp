//===- Types.cpp - scalar kinds, address spaces and type spelling ----------===//
#include "tilec/frontend/Types.h"

namespace tile::frontend {

const char *scalarName(ScalarKind k) {
  switch (k) {
  case ScalarKind::I1:
    return "i1";
  case ScalarKind::I8:
    return "i8";
  case ScalarKind::I16:
    return "i16";
  case ScalarKind::I32:
    return "i32";
  case ScalarKind::I64:
    return "i64";
  case ScalarKind::F16:
    return "f16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::F32:
    return "f32";
  case ScalarKind::U8:
    return "u8";
  case ScalarKind::U16:
    return "u16";
  case ScalarKind::U32:
    return "u32";
  case ScalarKind::U64:
    return "u64";
  case ScalarKind::F64:
    return "f64";
  case ScalarKind::E4M3:
    return "e4m3";
  case ScalarKind::E5M2:
    return "e5m2";
  }
  return "?";
}

const char *spaceName(AddressSpace s) {
  switch (s) {
  case AddressSpace::Global:
    return "global";
  case AddressSpace::Shared:
    return "shared";
  case AddressSpace::Cluster:
    return "cluster";
  case AddressSpace::Local:
    return "local";
  }
  return "?";
}

std::optional<ScalarKind> scalarFromName(const std::string &n) {
  static const ScalarKind all[] = {
      ScalarKind::I1,  ScalarKind::I8,   ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
      ScalarKind::F16, ScalarKind::BF16, ScalarKind::F32, ScalarKind::U8,  ScalarKind::U16,
      ScalarKind::U32, ScalarKind::U64,  ScalarKind::F64, ScalarKind::E4M3, ScalarKind::E5M2};
  for (ScalarKind k : all)
    if (n == scalarName(k))
      return k;
  return std::nullopt;
}

std::optional<AddressSpace> spaceFromName(const std::string &n) {
  for (AddressSpace s : {AddressSpace::Global, AddressSpace::Shared, AddressSpace::Cluster})
    if (n == spaceName(s))
      return s;
  return std::nullopt;
}

bool isIntegerKind(ScalarKind k) {
  return k == ScalarKind::I1 || k == ScalarKind::I8 || k == ScalarKind::I16 ||
         k == ScalarKind::I32 || k == ScalarKind::I64 || isUnsignedKind(k);
}
bool isUnsignedKind(ScalarKind k) {
  return k == ScalarKind::U8 || k == ScalarKind::U16 || k == ScalarKind::U32 ||
         k == ScalarKind::U64;
}
bool isFloatKind(ScalarKind k) { return !isIntegerKind(k); }
bool isFp8Kind(ScalarKind k) { return k == ScalarKind::E4M3 || k == ScalarKind::E5M2; }

unsigned bitWidth(ScalarKind k) {
  switch (k) {
  case ScalarKind::I1:
    return 1;
  case ScalarKind::I8:
  case ScalarKind::U8:
  case ScalarKind::E4M3:
  case ScalarKind::E5M2:
    return 8;
  case ScalarKind::I16:
  case ScalarKind::U16:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return 16;
  case ScalarKind::I32:
  case ScalarKind::U32:
  case ScalarKind::F32:
    return 32;
  case ScalarKind::I64:
  case ScalarKind::U64:
  case ScalarKind::F64:
    return 64;
  }
  return 0;
}

unsigned byteSize(ScalarKind k) { return k == ScalarKind::I1 ? 1 : bitWidth(k) / 8; }

bool Type::operator==(const Type &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Scalar:
    return scalar == o.scalar;
  case Pointer:
    return scalar == o.scalar && space == o.space;
  case SharedArray:
  case ArrayView:
  case DistArray:
    return scalar == o.scalar && space == o.space && lengthType == o.lengthType;
  case MBarrier:
    return space == o.space;
  case MBarrierArray:
    return true;
  case Tensor:
    return scalar == o.scalar && dims.size() == o.dims.size();
  case Vector:
    return scalar == o.scalar && lanes == o.lanes;
  case LocalArray:
    return scalar == o.scalar && staticLength == o.staticLength;
  case Fragment:
  case PerRow:
  case PerCol:
    return scalar == o.scalar && dims == o.dims;
  default:
    return true;
  }
}

std::string Type::str() const {
  std::string e = scalarName(scalar);
  auto len = [&] { return staticLength ? std::to_string(*staticLength) : std::string("?"); };
  switch (kind) {
  case Invalid:
    return "<error>";
  case Void:
    return "void";
  case UntypedInt:
    return "an integer literal";
  case UntypedFloat:
    return "a float literal";
  case Scalar:
    return e;
  case Pointer:
    return "ptr<" + e + ", " + spaceName(space) + ">";
  case SharedArray:
    if (dims.size() > 1) {
      std::string r = "shared<" + e + ">[";
      for (size_t i = 0; i < dims.size(); ++i)
        r += (i ? ", " : "") + std::to_string(dims[i]);
      return r + "]";
    }
    return "shared<" + e + ">[" + len() + "]";
  case ArrayView:
    return "view<" + e + ", " + spaceName(space) + ">[" + len() + "]";
  case DistArray:
    return "dshared<" + e + ">[" + len() + "]";
  case MBarrier:
    return space == AddressSpace::Cluster ? "mbarrier<cluster>" : "mbarrier";
  case MBarrierArray:
    return "mbarrier[" + len() + "]";
  case Tensor: {
    std::string r = "tensor<" + e + ">[";
    for (size_t i = 0; i < dims.size(); ++i)
      r += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    return r + "]";
  }
  case Vector:
    if (isPacked())
      return e + "x2";
    return "vec<" + e + ", " + std::to_string(lanes) + ">";
  case CachePolicy:
    return "cache_policy";
  case LocalArray:
    return "local<" + e + ">[" + len() + "]";
  case Fragment:
    return "frag<" + e + ">[" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + "]";
  case Semaphore:
    return "semaphore[" + len() + "]";
  case PerRow:
    return "per_row<" + e + ">[" + std::to_string(dims[0]) + "]";
  case PerCol:
    return "per_col<" + e + ">[" + std::to_string(dims[0]) + "]";
  }
  return "?";
}

bool vectorShapeOk(ScalarKind k, int64_t n) {
  int64_t bytes = n * byteSize(k);
  // Up to 16 bytes: one ld/st.v4.b32 (.v2.b64); 32 bytes (Triton's 32 bytes
  // per thread): two of them, each 16-byte aligned (sm_90 has no 32-byte
  // ld/st: PTX ISA 9.7.9.8 gives .v8 of 32-bit data to sm_100 only).
  return k != ScalarKind::I1 && (n == 2 || n == 4 || n == 8 || n == 16 || n == 32) &&
         (bytes == 4 || bytes == 8 || bytes == 16 || bytes == 32);
}

/// The vectors of element type k, written out: what the hint of a shape
/// that does not exist offers instead (a porter's 32 bytes of i8, or 8 f64).
std::string vectorShapeHint(ScalarKind k) {
  std::string rule = "a vector has 2, 4, 8, 16 or 32 elements of 4, 8, 16 or 32 bytes in all";
  if (k == ScalarKind::I1)
    return rule + "; i1 has no vector form (use i8)";
  std::string name = scalarName(k), forms, widths;
  for (int64_t n : {2, 4, 8, 16, 32})
    if (vectorShapeOk(k, n)) {
      forms += (forms.empty() ? "" : ", ") + std::string("vec<") + name + ", " +
               std::to_string(n) + ">";
      widths += (widths.empty() ? "" : " or ") + std::to_string(n);
    }
  return rule + ": for " + name + " elements " + forms + " (a load's `vector = " + widths + "`)";
}

} // namespace tile::frontend
