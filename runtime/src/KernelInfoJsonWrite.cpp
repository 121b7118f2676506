//===- KernelInfoJsonWrite.cpp - kernel info written as JSON ---------------===//
//
// The writer of the kernel-info JSON (tilec --emit=info): one object per
// table of tile/kernel_info_schema.h, with exactly its fields, which
// KernelInfoJson.cpp reads back (docs/runtime.md, "The kernel-info file").
//===----------------------------------------------------------------------===//
#include "tile/kernel_info.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tile {
//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

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
  out += "{\"op\": \"" + std::string(sizeOpName(e.op)) + "\", \"type\": \"" +
         scalarTypeName(e.type) + "\"";
  if (e.op == SizeExpr::Op::Literal)
    out += ", \"value\": " + (isFloatType(e.type) ? number(e.fvalue) : std::to_string(e.value));
  if (e.op == SizeExpr::Op::Param)
    out += ", \"param\": " + std::to_string(e.param);
  if (!e.operands.empty()) {
    out += ", \"operands\": [";
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
    return "{\"literal\": " + std::to_string(*e.literal) + "}";
  return "{\"name\": " + quote(e.name) + ", \"hidden\": " + std::to_string(e.hiddenParam) + "}";
}

std::string tensorJson(const TensorParamInfo &t) {
  std::string o =
      "{\"element\": \"" + std::string(scalarTypeName(t.element)) + "\", \"extents\": [";
  for (size_t i = 0; i < t.extents.size(); ++i)
    o += (i ? ", " : "") + extentJson(t.extents[i]);
  o += "], \"box\": [";
  for (size_t i = 0; i < t.box.size(); ++i)
    o += (i ? ", " : "") + std::to_string(t.box[i]);
  return o + "], \"swizzle\": " + std::to_string(static_cast<int>(t.swizzle)) +
         ", \"l2Promotion\": " + std::to_string(static_cast<int>(t.l2Promotion)) +
         ", \"oobZeroFill\": " + (t.oobZeroFill ? "true" : "false") +
         (t.symmetric ? ", \"symmetric\": true}" : "}");
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
  std::string o = "{\n  \"format\": \"tilec-kernel-info\",\n  \"version\": 1,\n";
  o += "  \"arch\": " + quote(info.arch) + ",\n";
  if (!info.ptxHash.empty())
    o += "  \"ptxHash\": " + quote(info.ptxHash) + ",\n";
  o += "  \"kernels\": [";
  for (size_t k = 0; k < info.kernels.size(); ++k) {
    const KernelInfo &ki = info.kernels[k];
    o += k ? ",\n    {\n" : "\n    {\n";
    o += "      \"name\": " + quote(ki.name) + ",\n";
    if (!ki.sourceName.empty()) { // an instance of a template kernel
      o += "      \"sourceName\": " + quote(ki.sourceName) + ",\n      \"templateArgs\": [";
      for (size_t i = 0; i < ki.templateArgs.size(); ++i)
        o += std::string(i ? ", " : "") + "{\"name\": " + quote(ki.templateArgs[i].first) +
             ", \"value\": " + std::to_string(ki.templateArgs[i].second) + "}";
      o += "],\n";
      if (!ki.typeArgs.empty()) {
        o += "      \"typeArgs\": [";
        for (size_t i = 0; i < ki.typeArgs.size(); ++i)
          o += std::string(i ? ", " : "") + "{\"name\": " + quote(ki.typeArgs[i].first) +
               ", \"type\": " + quote(ki.typeArgs[i].second) + "}";
        o += "],\n";
      }
    }
    o += "      \"params\": [";
    for (size_t i = 0; i < ki.params.size(); ++i) {
      const KernelParamInfo &p = ki.params[i];
      o += std::string(i ? "," : "") + "\n        {\"name\": " + quote(p.name) +
           ", \"type\": " + quote(p.typeName()) + ", \"size\": " + std::to_string(p.size) +
           ", \"align\": " + std::to_string(p.align);
      if (p.tensor)
        o += ",\n         \"tensor\": " + tensorJson(*p.tensor);
      if (p.hidden)
        o += ", \"hidden\": {\"tensor\": " + std::to_string(p.hidden->tensorParam) +
             ", \"dim\": " + std::to_string(p.hidden->dim) + "}";
      if (p.semaphore)
        o += ", \"semaphore\": {\"count\": " + extentJson(p.semaphore->count) + "}";
      if (p.peer)
        o += ", \"peer\": {\"kind\": \"" + std::string(hiddenPeerKindName(p.peer->kind)) +
             "\", \"param\": " + std::to_string(p.peer->param) + "}";
      o += "}";
    }
    o += ki.params.empty() ? "],\n" : "\n      ],\n";
    o += "      \"cluster\": {\"kind\": \"" + std::string(clusterName(ki.cluster)) + "\"";
    if (ki.cluster == KernelInfo::Cluster::Fixed)
      o += ", \"dims\": " + dims(ki.clusterDims);
    o +=
        "},\n      \"threads\": " + (ki.threads ? dims(*ki.threads) : std::string("null")) +
        ",\n      \"maxThreads\": " +
        (ki.maxThreads ? std::to_string(*ki.maxThreads) : std::string("null")) +
        ",\n      \"minBlocks\": " +
        (ki.minBlocks ? std::to_string(*ki.minBlocks) : std::string("null")) +
        ",\n      \"staticSharedBytes\": " + std::to_string(ki.staticSharedBytes) +
        // Multi-GPU fields only when set, so single-GPU kernels' info is unchanged.
        (ki.spinsOnPeers ? ",\n      \"spinsOnPeers\": true" : "") +
        (ki.exitSemaphore >= 0 ? ",\n      \"exitSemaphore\": " + std::to_string(ki.exitSemaphore)
                               : std::string()) +
        ",\n      \"dynamicShared\": {\"alignment\": " + std::to_string(ki.dynamicSharedAlignment) +
        ", \"arrays\": [";
    for (size_t i = 0; i < ki.dynamicShared.size(); ++i) {
      const DynamicSharedArray &a = ki.dynamicShared[i];
      o += std::string(i ? "," : "") + "\n        {\"name\": " + quote(a.name) +
           ", \"element\": \"" + scalarTypeName(a.element) +
           "\", \"elementSize\": " + std::to_string(a.elementSize) +
           ", \"distributed\": " + (a.distributed ? "true" : "false") + ",\n         \"count\": ";
      writeExpr(a.count, o);
      o += "}";
    }
    o += ki.dynamicShared.empty() ? "]}\n    }" : "\n      ]}\n    }";
  }
  o += info.kernels.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return o;
}

} // namespace tile
