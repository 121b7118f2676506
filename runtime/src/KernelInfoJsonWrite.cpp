//===- KernelInfoJsonWrite.cpp - kernel info written as JSON ---------------===//
//
// The writer of the kernel-info JSON (tilec --emit=info): one object per
// table of tile/kernel_info_schema.h, with exactly its fields, which
// KernelInfoJson.cpp reads back (docs/runtime.md, "The kernel-info file").
//===----------------------------------------------------------------------===//
#include "tile/kernel_info.h"
#include "tile/kernel_info_schema.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tile {
//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// `"NAME": ` of a field the schema table defines with this JSON type;
/// F(object, name, kind) checks it at compile time (schema::has), so the
/// table stays the one place that names the fields and their types.
template <bool InSchema> std::string fieldKey(const char *name) {
  static_assert(InSchema, "a kernel-info field tile/kernel_info_schema.h does not define");
  return std::string("\"") + name + "\": ";
}
#define F(object, name, kind) fieldKey<schema::has(schema::object, name, schema::Kind::kind)>(name)

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string dims(const std::array<unsigned, 3> &d) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         "]";
}

std::string number(double v) {
  if (std::isnan(v))
    return "\"nan\"";
  if (std::isinf(v))
    return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void writeExpr(const SizeExpr &e, std::string &out) {
  out += "{" + F(kExpr, "op", String) + quote(sizeOpName(e.op)) + ", " + F(kExpr, "type", String) +
         quote(scalarTypeName(e.type));
  if (e.op == SizeExpr::Op::Literal)
    out += ", " + F(kExpr, "value", Number) +
           (isFloatType(e.type) ? number(e.fvalue) : std::to_string(e.value));
  if (e.op == SizeExpr::Op::Param)
    out += ", " + F(kExpr, "param", Integer) + std::to_string(e.param);
  if (!e.operands.empty()) {
    out += ", " + F(kExpr, "operands", Array) + "[";
    for (size_t i = 0; i < e.operands.size(); ++i) {
      if (i)
        out += ", ";
      writeExpr(e.operands[i], out);
    }
    out += "]";
  }
  out += "}";
}

const char *clusterName(KernelInfo::Cluster c) {
  switch (c) {
  case KernelInfo::Cluster::None:
    return "none";
  case KernelInfo::Cluster::Fixed:
    return "fixed";
  case KernelInfo::Cluster::Launch:
    return "launch";
  }
  return "none";
}

// {"element": "bf16", "extents": [{"name": "M", "hidden": 3}, {"literal": 64}],
//  "box": [64, 64], "swizzle": 128, "l2Promotion": 128, "oobZeroFill": true}
std::string extentJson(const TensorParamInfo::Extent &e) {
  if (e.literal)
    return "{" + F(kExtent, "literal", Integer) + std::to_string(*e.literal) + "}";
  return "{" + F(kExtent, "name", String) + quote(e.name) + ", " + F(kExtent, "hidden", Integer) +
         std::to_string(e.hiddenParam) + "}";
}

std::string tensorJson(const TensorParamInfo &t) {
  std::string o = "{" + F(kTensor, "element", String) + quote(scalarTypeName(t.element)) + ", " +
                  F(kTensor, "extents", Array) + "[";
  for (size_t i = 0; i < t.extents.size(); ++i)
    o += (i ? ", " : "") + extentJson(t.extents[i]);
  o += "], " + F(kTensor, "box", Array) + "[";
  for (size_t i = 0; i < t.box.size(); ++i)
    o += (i ? ", " : "") + std::to_string(t.box[i]);
  return o + "], " + F(kTensor, "swizzle", Integer) + std::to_string(static_cast<int>(t.swizzle)) +
         ", " + F(kTensor, "l2Promotion", Integer) +
         std::to_string(static_cast<int>(t.l2Promotion)) + ", " + F(kTensor, "oobZeroFill", Bool) +
         (t.oobZeroFill ? "true" : "false") +
         (t.symmetric ? ", " + F(kTensor, "symmetric", Bool) + "true}" : std::string("}"));
}

} // namespace

std::string ptxFingerprint(const std::string &ptx) {
  uint64_t h = 0xcbf29ce484222325ull; // FNV-1a 64, as tile::fnv1a64 (tile/cache.h)
  for (unsigned char c : ptx) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string toJson(const ModuleInfo &info) {
  std::string o = "{\n  " + F(kModule, "format", String) + "\"tilec-kernel-info\",\n  " +
                  F(kModule, "version", Integer) + "1,\n";
  o += "  " + F(kModule, "arch", String) + quote(info.arch) + ",\n";
  if (!info.ptxHash.empty())
    o += "  " + F(kModule, "ptxHash", String) + quote(info.ptxHash) + ",\n";
  o += "  " + F(kModule, "kernels", Array) + "[";
  for (size_t k = 0; k < info.kernels.size(); ++k) {
    const KernelInfo &ki = info.kernels[k];
    o += k ? ",\n    {\n" : "\n    {\n";
    o += "      " + F(kKernel, "name", String) + quote(ki.name) + ",\n";
    if (!ki.sourceName.empty()) { // an instance of a template kernel
      o += "      " + F(kKernel, "sourceName", String) + quote(ki.sourceName) + ",\n      " +
           F(kKernel, "templateArgs", Array) + "[";
      for (size_t i = 0; i < ki.templateArgs.size(); ++i)
        o += std::string(i ? ", " : "") + "{" + F(kTemplateArg, "name", String) +
             quote(ki.templateArgs[i].first) + ", " + F(kTemplateArg, "value", Integer) +
             std::to_string(ki.templateArgs[i].second) + "}";
      o += "],\n";
      if (!ki.typeArgs.empty()) {
        o += "      " + F(kKernel, "typeArgs", Array) + "[";
        for (size_t i = 0; i < ki.typeArgs.size(); ++i)
          o += std::string(i ? ", " : "") + "{" + F(kTypeArg, "name", String) +
               quote(ki.typeArgs[i].first) + ", " + F(kTypeArg, "type", String) +
               quote(ki.typeArgs[i].second) + "}";
        o += "],\n";
      }
    }
    o += "      " + F(kKernel, "params", Array) + "[";
    for (size_t i = 0; i < ki.params.size(); ++i) {
      const KernelParamInfo &p = ki.params[i];
      o += std::string(i ? "," : "") + "\n        {" + F(kParam, "name", String) + quote(p.name) +
           ", " + F(kParam, "type", String) + quote(p.typeName()) + ", " +
           F(kParam, "size", Integer) + std::to_string(p.size) + ", " +
           F(kParam, "align", Integer) + std::to_string(p.align);
      if (p.isPointer && p.addressAlign > 1)
        o += ", " + F(kParam, "addressAlign", Integer) + std::to_string(p.addressAlign);
      if (p.tensor)
        o += ",\n         " + F(kParam, "tensor", Object) + tensorJson(*p.tensor);
      if (p.hidden)
        o += ", " + F(kParam, "hidden", Object) + "{" + F(kHidden, "tensor", Integer) +
             std::to_string(p.hidden->tensorParam) + ", " + F(kHidden, "dim", Integer) +
             std::to_string(p.hidden->dim) + "}";
      if (p.semaphore)
        o += ", " + F(kParam, "semaphore", Object) + "{" + F(kSemaphore, "count", Object) +
             extentJson(p.semaphore->count) + "}";
      if (p.peer)
        o += ", " + F(kParam, "peer", Object) + "{" + F(kPeer, "kind", String) +
             quote(hiddenPeerKindName(p.peer->kind)) + ", " + F(kPeer, "param", Integer) +
             std::to_string(p.peer->param) + "}";
      o += "}";
    }
    o += ki.params.empty() ? "],\n" : "\n      ],\n";
    o += "      " + F(kKernel, "cluster", Object) + "{" + F(kCluster, "kind", String) +
         quote(clusterName(ki.cluster));
    if (ki.cluster == KernelInfo::Cluster::Fixed)
      o += ", " + F(kCluster, "dims", Dims) + dims(ki.clusterDims);
    o += "},\n      " + F(kKernel, "threads", Dims) +
         (ki.threads ? dims(*ki.threads) : std::string("null")) + ",\n      " +
         F(kKernel, "maxThreads", Integer) +
         (ki.maxThreads ? std::to_string(*ki.maxThreads) : std::string("null")) + ",\n      " +
         F(kKernel, "minBlocks", Integer) +
         (ki.minBlocks ? std::to_string(*ki.minBlocks) : std::string("null")) + ",\n      " +
         F(kKernel, "staticSharedBytes", Integer) + std::to_string(ki.staticSharedBytes);
    // Multi-GPU fields only when set, so single-GPU kernels' info is unchanged.
    if (ki.spinsOnPeers)
      o += ",\n      " + F(kKernel, "spinsOnPeers", Bool) + "true";
    if (ki.exitSemaphore >= 0)
      o += ",\n      " + F(kKernel, "exitSemaphore", Integer) + std::to_string(ki.exitSemaphore);
    o += ",\n      " + F(kKernel, "dynamicShared", Object) + "{" +
         F(kDynamicShared, "alignment", Integer) + std::to_string(ki.dynamicSharedAlignment) +
         ", " + F(kDynamicShared, "arrays", Array) + "[";
    for (size_t i = 0; i < ki.dynamicShared.size(); ++i) {
      const DynamicSharedArray &a = ki.dynamicShared[i];
      o += std::string(i ? "," : "") + "\n        {" + F(kSharedArray, "name", String) +
           quote(a.name) + ", " + F(kSharedArray, "element", String) +
           quote(scalarTypeName(a.element)) + ", " + F(kSharedArray, "elementSize", Integer) +
           std::to_string(a.elementSize) + ", " + F(kSharedArray, "distributed", Bool) +
           (a.distributed ? "true" : "false") + ",\n         " + F(kSharedArray, "count", Object);
      writeExpr(a.count, o);
      o += "}";
    }
    o += ki.dynamicShared.empty() ? "]}" : "\n      ]}";
    // Only when some mbarrier's count comes from the arguments, so other
    // kernels' info is unchanged.
    if (!ki.mbarrierCounts.empty()) {
      o += ",\n      " + F(kKernel, "mbarrierCounts", Array) + "[";
      for (size_t i = 0; i < ki.mbarrierCounts.size(); ++i) {
        const MBarrierCount &m = ki.mbarrierCounts[i];
        o += std::string(i ? "," : "") + "\n        {" + F(kMBarrierCount, "name", String) +
             quote(m.name) + ", " + F(kMBarrierCount, "count", Object);
        writeExpr(m.count, o);
        o += "}";
      }
      o += "\n      ]";
    }
    o += "\n    }";
  }
  o += info.kernels.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return o;
}

#undef F

} // namespace tile
