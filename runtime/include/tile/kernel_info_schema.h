//===- kernel_info_schema.h - the fields of the kernel-info JSON -*- C++ -*-===//
//
// One table per JSON object of `tilec --emit=info` (tile::toJson writes it,
// naming each field through `has`; tile::moduleInfoFromJson reads it): every
// field, the JSON type of its value and whether it must be present. The
// reader checks each object against its table before it reads a value, so an
// unknown field, a missing one or a value of the wrong type is refused with a
// message naming the field; what a value may hold beyond its type (ranges,
// names, agreement between fields) the reader checks as it reads it.
// docs/runtime.md, "The kernel-info file", documents the same tables. Plain
// C++17 without dependencies: the compiler and the runtime include it.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

namespace tile::schema {

/// The JSON type of a field's value. `Dims` is an array of three positive
/// integers; `Number` an integer, a decimal or one of the strings "nan",
/// "inf", "-inf" (a float literal of a size rule).
enum class Kind { String, Integer, Number, Bool, Array, Object, Dims };

struct Field {
  const char *name;
  Kind kind;
  bool required;
  bool nullable; // `null` is accepted (and means absent)
};

/// A table: the fields of one object.
struct Object {
  const char *what; // for messages: "a kernel"
  const Field *fields;
  size_t count;
  template <size_t N>
  constexpr Object(const char *what, const Field (&f)[N]) : what(what), fields(f), count(N) {}
  const Field *find(const char *name) const;
};

inline constexpr Field kModuleFields[] = {
    {"format", Kind::String, true, false},   // "tilec-kernel-info"
    {"version", Kind::Integer, true, false}, // 1
    {"arch", Kind::String, true, false},     // "sm_90a"
    {"ptxHash", Kind::String, false, false}, // ptxFingerprint of the PTX beside it
    {"kernels", Kind::Array, true, false},   // of kKernelFields
};

inline constexpr Field kKernelFields[] = {
    {"name", Kind::String, true, false},           // the PTX entry
    {"sourceName", Kind::String, false, false},    // a template instance's kernel
    {"templateArgs", Kind::Array, false, false},   // of kTemplateArgFields
    {"typeArgs", Kind::Array, false, false},       // of kTypeArgFields
    {"params", Kind::Array, true, false},          // of kParamFields, in PTX order
    {"cluster", Kind::Object, true, false},        // kClusterFields
    {"threads", Kind::Dims, true, true},           // .reqntid
    {"maxThreads", Kind::Integer, false, true},    // .maxntid
    {"minBlocks", Kind::Integer, false, true},     // .minnctapersm
    {"staticSharedBytes", Kind::Integer, true, false},
    {"spinsOnPeers", Kind::Bool, false, false},    // waits on a semaphore
    {"exitSemaphore", Kind::Integer, false, false}, // parameter index
    {"dynamicShared", Kind::Object, true, false},  // kDynamicSharedFields
    {"mbarrierCounts", Kind::Array, false, false}, // of kMBarrierCountFields
};

inline constexpr Field kTemplateArgFields[] = {
    {"name", Kind::String, true, false},
    {"value", Kind::Integer, true, false},
};

inline constexpr Field kTypeArgFields[] = {
    {"name", Kind::String, true, false},
    {"type", Kind::String, true, false}, // scalarTypeName()
};

inline constexpr Field kParamFields[] = {
    {"name", Kind::String, true, false},
    {"type", Kind::String, true, false}, // KernelParamInfo::typeName()
    {"size", Kind::Integer, true, false},
    {"align", Kind::Integer, true, false},
    {"addressAlign", Kind::Integer, false, false}, // a global pointer's
    {"tensor", Kind::Object, false, true},    // kTensorFields
    {"hidden", Kind::Object, false, true},    // kHiddenFields
    {"semaphore", Kind::Object, false, true}, // kSemaphoreFields
    {"peer", Kind::Object, false, true},      // kPeerFields
};

inline constexpr Field kTensorFields[] = {
    {"element", Kind::String, true, false},
    {"extents", Kind::Array, true, false}, // of kExtentFields, outermost first
    {"box", Kind::Array, true, false},     // integers; [] when nothing is copied
    {"swizzle", Kind::Integer, true, false},
    {"l2Promotion", Kind::Integer, true, false},
    {"oobZeroFill", Kind::Bool, true, false},
    {"symmetric", Kind::Bool, false, true},
};

/// A tensor extent or a semaphore count: a literal, or a name with the
/// hidden parameter that carries its value.
inline constexpr Field kExtentFields[] = {
    {"literal", Kind::Integer, false, true},
    {"name", Kind::String, false, false},
    {"hidden", Kind::Integer, false, false},
};

inline constexpr Field kHiddenFields[] = {
    {"tensor", Kind::Integer, true, false},
    {"dim", Kind::Integer, true, false},
};

inline constexpr Field kSemaphoreFields[] = {
    {"count", Kind::Object, true, false}, // kExtentFields
};

inline constexpr Field kPeerFields[] = {
    {"kind", Kind::String, true, false}, // hiddenPeerKindName()
    {"param", Kind::Integer, true, false},
};

inline constexpr Field kClusterFields[] = {
    {"kind", Kind::String, true, false}, // "none", "fixed", "launch"
    {"dims", Kind::Dims, false, false},  // with "fixed"
};

inline constexpr Field kDynamicSharedFields[] = {
    {"alignment", Kind::Integer, true, false},
    {"arrays", Kind::Array, true, false}, // of kSharedArrayFields, in window order
};

inline constexpr Field kSharedArrayFields[] = {
    {"name", Kind::String, true, false},
    {"element", Kind::String, true, false},
    {"elementSize", Kind::Integer, true, false},
    {"distributed", Kind::Bool, true, false},
    {"count", Kind::Object, true, false}, // kExprFields
};

/// An mbarrier whose arrival count is built from kernel parameters.
inline constexpr Field kMBarrierCountFields[] = {
    {"name", Kind::String, true, false},
    {"count", Kind::Object, true, false}, // kExprFields, of type i32
};

/// A node of a size rule (SizeExpr).
inline constexpr Field kExprFields[] = {
    {"op", Kind::String, true, false},   // sizeOpName()
    {"type", Kind::String, true, false}, // scalarTypeName()
    {"value", Kind::Number, false, false},
    {"param", Kind::Integer, false, false},
    {"operands", Kind::Array, false, false}, // of kExprFields
};

inline constexpr Object kModule{"the module", kModuleFields};
inline constexpr Object kKernel{"a kernel", kKernelFields};
inline constexpr Object kTemplateArg{"a template argument", kTemplateArgFields};
inline constexpr Object kTypeArg{"a type argument", kTypeArgFields};
inline constexpr Object kParam{"a parameter", kParamFields};
inline constexpr Object kTensor{"a tensor parameter", kTensorFields};
inline constexpr Object kExtent{"an extent", kExtentFields};
inline constexpr Object kHidden{"a hidden extent", kHiddenFields};
inline constexpr Object kSemaphore{"a semaphore parameter", kSemaphoreFields};
inline constexpr Object kPeer{"a peer parameter", kPeerFields};
inline constexpr Object kCluster{"a cluster", kClusterFields};
inline constexpr Object kDynamicShared{"the dynamic shared memory", kDynamicSharedFields};
inline constexpr Object kSharedArray{"a dynamic shared array", kSharedArrayFields};
inline constexpr Object kMBarrierCount{"an mbarrier count", kMBarrierCountFields};
inline constexpr Object kExpr{"a size-rule node", kExprFields};

/// Every table, for whoever walks them all (the writer's coverage test).
inline constexpr const Object *kAllObjects[] = {
    &kModule, &kKernel, &kTemplateArg, &kTypeArg, &kPeer,          &kHidden,      &kSemaphore,
    &kParam,  &kTensor, &kExtent,      &kCluster, &kDynamicShared, &kSharedArray, &kExpr,
    &kMBarrierCount,
};

/// `object` has a field `name` whose value is of JSON type `kind`: the
/// writer checks each field it writes with it at compile time, so that it
/// cannot write a name or a type this header does not define.
constexpr bool has(const Object &object, const char *name, Kind kind) {
  for (size_t i = 0; i < object.count; ++i) {
    const char *a = object.fields[i].name, *b = name;
    while (*a && *a == *b)
      ++a, ++b;
    if (*a == *b)
      return object.fields[i].kind == kind;
  }
  return false;
}

inline const Field *Object::find(const char *name) const {
  for (size_t i = 0; i < count; ++i) {
    const char *a = fields[i].name, *b = name;
    while (*a && *a == *b)
      ++a, ++b;
    if (*a == *b)
      return &fields[i];
  }
  return nullptr;
}

} // namespace tile::schema
