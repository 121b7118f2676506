//===- HostContract.cpp - the kernel info carried by tile.kernel -----------===//
// The attribute vocabulary is the kernel-info JSON's (tile/kernel_info_schema.h):
// the same field names, scalar type names ("u32") and operator names ("add").
//===----------------------------------------------------------------------===//
#include "tile/Dialect/HostContract.h"
#include "tile/target.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tile;
using ::tile::DynamicSharedArray;
using ::tile::KernelParamInfo;
using ::tile::ScalarType;
using ::tile::SizeExpr;

namespace {

/// Builds one dictionary, field by field.
struct Fields {
  Builder b;
  SmallVector<NamedAttribute> attrs;
  explicit Fields(MLIRContext *ctx) : b(ctx) {}
  Fields &add(StringRef name, Attribute value) {
    attrs.push_back(b.getNamedAttr(name, value));
    return *this;
  }
  Fields &str(StringRef name, StringRef value) { return add(name, b.getStringAttr(value)); }
  Fields &i64(StringRef name, int64_t value) { return add(name, b.getI64IntegerAttr(value)); }
  Fields &flag(StringRef name, bool on) { return on ? add(name, b.getUnitAttr()) : *this; }
  DictionaryAttr get() { return b.getDictionaryAttr(attrs); }
};

/// Reads one dictionary; the first failure records "FIELD: WHY" (FIELD the
/// dotted path from the attribute) and makes every later read fail.
struct Reader {
  DictionaryAttr dict;
  std::string path;
  std::string &error;
  Reader(DictionaryAttr dict, std::string path, std::string &error)
      : dict(dict), path(std::move(path)), error(error) {}
  bool ok() const { return error.empty(); }
  void fail(StringRef field, const Twine &why) {
    if (ok())
      error = (Twine(path) + "." + field + ": " + why).str();
  }
  template <typename A> A get(StringRef field, bool required, StringRef expected) {
    if (!ok())
      return {};
    Attribute a = dict.get(field);
    if (!a) {
      if (required)
        fail(field, "missing");
      return {};
    }
    auto typed = dyn_cast<A>(a);
    if (!typed)
      fail(field, "must be " + expected);
    return typed;
  }
  std::optional<std::string> str(StringRef field, bool required = true) {
    if (auto s = get<StringAttr>(field, required, "a string"))
      return s.getValue().str();
    return std::nullopt;
  }
  std::optional<int64_t> i64(StringRef field, bool required = true) {
    if (auto i = get<IntegerAttr>(field, required, "an integer"))
      return i.getInt();
    return std::nullopt;
  }
  bool flag(StringRef field) { return static_cast<bool>(get<UnitAttr>(field, false, "a unit")); }
  DictionaryAttr dictionary(StringRef field, bool required = true) {
    return get<DictionaryAttr>(field, required, "a dictionary");
  }
  ArrayAttr array(StringRef field, bool required = true) {
    return get<ArrayAttr>(field, required, "an array");
  }
  std::optional<ScalarType> scalar(StringRef field) {
    std::optional<std::string> name = str(field);
    if (!name)
      return std::nullopt;
    std::optional<ScalarType> t = ::tile::scalarTypeFromName(*name);
    if (!t)
      fail(field, "'" + *name + "' is not a scalar type");
    return t;
  }
  /// Every field of the dictionary is one of `known`.
  void only(ArrayRef<StringRef> known) {
    for (NamedAttribute a : dict)
      if (ok() && !llvm::is_contained(known, a.getName().getValue()))
        fail(a.getName().getValue(), "not a field of this attribute");
  }
};

DictionaryAttr encodeExtent(MLIRContext *ctx, const ::tile::TensorParamInfo::Extent &e) {
  Fields f(ctx);
  if (e.literal)
    f.i64("literal", *e.literal);
  else
    f.str("name", e.name);
  if (e.hiddenParam >= 0)
    f.i64("hidden", e.hiddenParam);
  return f.get();
}

std::optional<::tile::TensorParamInfo::Extent> decodeExtent(DictionaryAttr attr,
                                                            const std::string &path,
                                                            std::string &error) {
  Reader r(attr, path, error);
  r.only({"literal", "name", "hidden"});
  ::tile::TensorParamInfo::Extent e;
  e.literal = r.i64("literal", false);
  if (!e.literal)
    e.name = r.str("name").value_or("");
  e.hiddenParam = static_cast<int>(r.i64("hidden", false).value_or(-1));
  if (!r.ok())
    return std::nullopt;
  return e;
}

DictionaryAttr encodeExpr(MLIRContext *ctx, const SizeExpr &e) {
  Fields f(ctx);
  f.str("op", ::tile::sizeOpName(e.op)).str("type", ::tile::scalarTypeName(e.type));
  if (e.op == SizeExpr::Op::Literal) {
    f.i64("value", e.value);
    f.add("fvalue", f.b.getF64FloatAttr(e.fvalue));
  }
  if (e.op == SizeExpr::Op::Param)
    f.i64("param", e.param);
  if (!e.operands.empty()) {
    SmallVector<Attribute> operands;
    for (const SizeExpr &o : e.operands)
      operands.push_back(encodeExpr(ctx, o));
    f.add("operands", f.b.getArrayAttr(operands));
  }
  return f.get();
}

std::optional<SizeExpr> decodeExpr(DictionaryAttr attr, const std::string &path,
                                   std::string &error) {
  Reader r(attr, path, error);
  r.only({"op", "type", "value", "fvalue", "param", "operands"});
  SizeExpr e;
  if (std::optional<std::string> op = r.str("op")) {
    if (auto known = ::tile::sizeOpFromName(*op))
      e.op = *known;
    else
      r.fail("op", "'" + *op + "' is not an operator");
  }
  e.type = r.scalar("type").value_or(ScalarType::I32);
  if (e.op == SizeExpr::Op::Literal) {
    e.value = r.i64("value").value_or(0);
    if (auto f = r.get<FloatAttr>("fvalue", true, "a float"))
      e.fvalue = f.getValueAsDouble();
  }
  if (e.op == SizeExpr::Op::Param)
    e.param = static_cast<int>(r.i64("param").value_or(-1));
  if (ArrayAttr operands = r.array("operands", false))
    for (auto [i, o] : llvm::enumerate(operands)) {
      auto d = dyn_cast<DictionaryAttr>(o);
      if (!d) {
        r.fail("operands", "must hold dictionaries");
        break;
      }
      std::optional<SizeExpr> operand =
          decodeExpr(d, path + ".operands[" + std::to_string(i) + "]", error);
      if (!operand)
        return std::nullopt;
      e.operands.push_back(std::move(*operand));
    }
  if (!r.ok())
    return std::nullopt;
  return e;
}

} // namespace

DictionaryAttr mlir::tile::encodeParam(MLIRContext *ctx, const KernelParamInfo &p) {
  Fields f(ctx);
  f.str("name", p.name).str("type", ::tile::scalarTypeName(p.scalar)).flag("pointer", p.isPointer);
  if (p.tensor) {
    Fields t(ctx);
    t.str("element", ::tile::scalarTypeName(p.tensor->element));
    SmallVector<Attribute> extents;
    for (const auto &e : p.tensor->extents)
      extents.push_back(encodeExtent(ctx, e));
    t.add("extents", t.b.getArrayAttr(extents));
    SmallVector<int64_t> box(p.tensor->box.begin(), p.tensor->box.end());
    t.add("box", t.b.getDenseI64ArrayAttr(box));
    t.i64("swizzle", static_cast<int64_t>(p.tensor->swizzle)).flag("symmetric", p.tensor->symmetric);
    f.add("tensor", t.get());
  }
  if (p.semaphore)
    f.add("semaphore", Fields(ctx).add("count", encodeExtent(ctx, p.semaphore->count)).get());
  if (p.hidden)
    f.add("hidden", Fields(ctx).i64("tensor", p.hidden->tensorParam).i64("dim", p.hidden->dim).get());
  if (p.peer)
    f.add("peer", Fields(ctx)
                      .str("kind", ::tile::hiddenPeerKindName(p.peer->kind))
                      .i64("param", p.peer->param)
                      .get());
  return f.get();
}

std::optional<KernelParamInfo> mlir::tile::decodeParam(DictionaryAttr attr, Type argType,
                                                       std::string &error) {
  const std::string path = attr::kParam.str();
  Reader r(attr, path, error);
  r.only({"name", "type", "pointer", "tensor", "semaphore", "hidden", "peer"});
  KernelParamInfo p;
  p.name = r.str("name").value_or("");
  p.scalar = r.scalar("type").value_or(ScalarType::I32);
  p.isPointer = r.flag("pointer");
  if (DictionaryAttr t = r.dictionary("tensor", false)) {
    Reader tr(t, path + ".tensor", error);
    tr.only({"element", "extents", "box", "swizzle", "symmetric"});
    ::tile::TensorParamInfo info;
    info.element = tr.scalar("element").value_or(ScalarType::F16);
    if (ArrayAttr extents = tr.array("extents"))
      for (auto [i, e] : llvm::enumerate(extents)) {
        auto d = dyn_cast<DictionaryAttr>(e);
        if (!d) {
          tr.fail("extents", "must hold dictionaries");
          break;
        }
        auto extent = decodeExtent(d, path + ".tensor.extents[" + std::to_string(i) + "]", error);
        if (!extent)
          return std::nullopt;
        info.extents.push_back(std::move(*extent));
      }
    if (auto box = tr.get<DenseI64ArrayAttr>("box", true, "an i64 array"))
      for (int64_t b : box.asArrayRef())
        info.box.push_back(static_cast<unsigned>(b));
    int64_t swizzle = tr.i64("swizzle").value_or(0);
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
      tr.fail("swizzle", "must be 0, 32, 64 or 128");
    info.swizzle = static_cast<::tile::TmaSwizzle>(swizzle);
    info.symmetric = tr.flag("symmetric");
    p.tensor = std::move(info);
  }
  if (DictionaryAttr s = r.dictionary("semaphore", false)) {
    Reader sr(s, path + ".semaphore", error);
    sr.only({"count"});
    if (DictionaryAttr count = sr.dictionary("count")) {
      auto extent = decodeExtent(count, path + ".semaphore.count", error);
      if (!extent)
        return std::nullopt;
      p.semaphore = ::tile::SemaphoreParamInfo{std::move(*extent)};
    }
  }
  if (DictionaryAttr h = r.dictionary("hidden", false)) {
    Reader hr(h, path + ".hidden", error);
    hr.only({"tensor", "dim"});
    p.hidden = ::tile::HiddenExtentInfo{static_cast<int>(hr.i64("tensor").value_or(-1)),
                                        static_cast<unsigned>(hr.i64("dim").value_or(0))};
  }
  if (DictionaryAttr peer = r.dictionary("peer", false)) {
    Reader pr(peer, path + ".peer", error);
    pr.only({"kind", "param"});
    ::tile::HiddenPeerInfo info;
    if (std::optional<std::string> kind = pr.str("kind")) {
      if (auto k = ::tile::hiddenPeerKindFromName(*kind))
        info.kind = *k;
      else
        pr.fail("kind", "'" + *kind + "' is not a hidden peer parameter");
    }
    info.param = static_cast<int>(pr.i64("param").value_or(-1));
    p.peer = info;
  }
  if (!error.empty())
    return std::nullopt;
  // The PTX parameter is the argument: a CUtensorMap (.align 64 .b8 [128]),
  // a 64-bit address, or the scalar (i1 as a byte: PTX has no 1-bit
  // parameters).
  if (isa<TensorMapType>(argType)) {
    p.size = ::tile::target::kTensorMapBytes;
    p.align = ::tile::target::kTensorMapAlign;
  } else if (isa<PtrType>(argType)) {
    p.size = p.align = 8;
  } else if (argType.isIntOrFloat()) {
    p.size = p.align = static_cast<size_t>(scalarByteWidth(argType));
  } else {
    error = path + ": an argument of type that is not a kernel parameter";
    return std::nullopt;
  }
  const bool tensorType = isa<TensorMapType>(argType), pointerType = isa<PtrType>(argType);
  if (tensorType != p.tensor.has_value() || pointerType != p.isPointer ||
      (!tensorType && !pointerType && p.size != ::tile::scalarBytes(p.scalar))) {
    error = path + ": parameter '" + p.name + "' of type " + ::tile::scalarTypeName(p.scalar) +
            " does not match its argument type";
    return std::nullopt;
  }
  return p;
}

/// The `count` rule of a contract dictionary read by `r`, after its other
/// fields; nullopt with `error` set when any field is not well formed.
static std::optional<SizeExpr> countRule(Reader &r, const std::string &path,
                                         std::string &error) {
  std::optional<SizeExpr> rule;
  if (DictionaryAttr count = r.dictionary("count"))
    rule = decodeExpr(count, path + ".count", error);
  if (!rule || !r.ok())
    return std::nullopt;
  return rule;
}

DictionaryAttr mlir::tile::encodeSharedArray(MLIRContext *ctx, const DynamicSharedArray &a) {
  return Fields(ctx)
      .str("name", a.name)
      .str("element", ::tile::scalarTypeName(a.element))
      .flag("distributed", a.distributed)
      .add("count", encodeExpr(ctx, a.count))
      .get();
}

std::optional<DynamicSharedArray> mlir::tile::decodeSharedArray(DictionaryAttr attr,
                                                                std::string &error) {
  const std::string path = attr::kSharedArray.str();
  Reader r(attr, path, error);
  r.only({"name", "element", "distributed", "count"});
  DynamicSharedArray a;
  a.name = r.str("name").value_or("");
  a.element = r.scalar("element").value_or(ScalarType::I32);
  a.elementSize = ::tile::scalarBytes(a.element);
  a.distributed = r.flag("distributed");
  std::optional<SizeExpr> count = countRule(r, path, error);
  if (!count)
    return std::nullopt;
  a.count = std::move(*count);
  return a;
}

DictionaryAttr mlir::tile::encodeMBarrierCount(MLIRContext *ctx,
                                               const ::tile::MBarrierCount &m) {
  return Fields(ctx).str("name", m.name).add("count", encodeExpr(ctx, m.count)).get();
}

std::optional<::tile::MBarrierCount> mlir::tile::decodeMBarrierCount(DictionaryAttr attr,
                                                                     std::string &error) {
  const std::string path = attr::kMBarrierCount.str();
  Reader r(attr, path, error);
  r.only({"name", "count"});
  ::tile::MBarrierCount m;
  m.name = r.str("name").value_or("");
  std::optional<SizeExpr> count = countRule(r, path, error);
  if (!count)
    return std::nullopt;
  m.count = std::move(*count);
  if (m.count.type != ScalarType::I32) {
    error = path + ".count: an mbarrier count is an i32 rule";
    return std::nullopt;
  }
  return m;
}

DictionaryAttr mlir::tile::encodeInstance(MLIRContext *ctx, const std::string &sourceName,
                                          const ::tile::TemplateArgs &args,
                                          const ::tile::TypeArgs &types) {
  Fields f(ctx);
  SmallVector<Attribute> list;
  for (const auto &[name, value] : args) // in parameter order, which a dictionary would lose
    list.push_back(f.b.getArrayAttr({f.b.getStringAttr(name), f.b.getI64IntegerAttr(value)}));
  f.str("source", sourceName).add("args", f.b.getArrayAttr(list));
  if (!types.empty()) {
    SmallVector<Attribute> typeList;
    for (const auto &[name, type] : types)
      typeList.push_back(f.b.getArrayAttr({f.b.getStringAttr(name), f.b.getStringAttr(type)}));
    f.add("types", f.b.getArrayAttr(typeList));
  }
  return f.get();
}

bool mlir::tile::decodeInstance(DictionaryAttr attr, std::string &sourceName,
                                ::tile::TemplateArgs &args, ::tile::TypeArgs &types,
                                std::string &error) {
  Reader r(attr, attr::kInstance.str(), error);
  r.only({"source", "args", "types"});
  if (ArrayAttr list = r.array("types", /*required=*/false))
    for (Attribute a : list) {
      auto pair = dyn_cast<ArrayAttr>(a);
      StringAttr name = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0]) : nullptr;
      StringAttr type = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[1]) : nullptr;
      if (!name || !type || !::tile::scalarTypeFromName(type.getValue().str())) {
        r.fail("types", "must hold [name, scalar type name] pairs");
        break;
      }
      types.emplace_back(name.getValue().str(), type.getValue().str());
    }
  sourceName = r.str("source").value_or("");
  if (ArrayAttr list = r.array("args"))
    for (Attribute a : list) {
      auto pair = dyn_cast<ArrayAttr>(a);
      StringAttr name = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0]) : nullptr;
      IntegerAttr value = pair && pair.size() == 2 ? dyn_cast<IntegerAttr>(pair[1]) : nullptr;
      if (!name || !value) {
        r.fail("args", "must hold [name, integer] pairs");
        break;
      }
      args.emplace_back(name.getValue().str(), value.getInt());
    }
  return r.ok();
}

int64_t mlir::tile::staticSharedBytes(KernelOp kernel) {
  int64_t bytes = 0;
  kernel.walk([&](SharedAllocOp alloc) {
    std::optional<int64_t> count = alloc.getStaticCount();
    if (!count)
      return;
    int64_t align = alloc.getAlignment().value_or(16);
    int64_t size = *count * scalarByteWidth(cast<PtrType>(alloc.getType()).getElementType());
    bytes = (bytes + align - 1) / align * align + size;
  });
  return bytes;
}

LogicalResult mlir::tile::verifyKernelContract(KernelOp kernel, std::string &error) {
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    for (NamedAttribute a : function_interface_impl::getArgAttrs(kernel, i)) {
      StringRef name = a.getName().getValue();
      if (!name.starts_with("tile."))
        continue;
      auto dict = dyn_cast<DictionaryAttr>(a.getValue());
      if (name != attr::kParam)
        error = "'" + name.str() + "' is not an argument attribute of the tile dialect";
      else if (!dict)
        error = name.str() + " must be a dictionary";
      else
        decodeParam(dict, type, error);
      if (!error.empty()) {
        error = "argument " + std::to_string(i) + ": " + error;
        return failure();
      }
    }
  }
  for (NamedAttribute a : kernel->getDiscardableAttrs()) {
    StringRef name = a.getName().getValue();
    if (!name.starts_with("tile."))
      continue;
    if (name == attr::kInstance) {
      auto dict = dyn_cast<DictionaryAttr>(a.getValue());
      std::string source;
      ::tile::TemplateArgs args;
      ::tile::TypeArgs types;
      if (!dict)
        error = name.str() + " must be a dictionary";
      else
        decodeInstance(dict, source, args, types, error);
    } else if (name == attr::kSpinsOnPeers) {
      if (!isa<UnitAttr>(a.getValue()))
        error = name.str() + " must be a unit attribute";
    } else {
      error = "'" + name.str() + "' is not an attribute of a tile.kernel";
    }
    if (!error.empty())
      return failure();
  }
  return success();
}

std::optional<::tile::KernelInfo> mlir::tile::kernelInfo(KernelOp kernel, std::string &error) {
  ::tile::KernelInfo info;
  info.name = kernel.getSymName().str();
  if (auto instance = kernel->getAttrOfType<DictionaryAttr>(attr::kInstance))
    if (!decodeInstance(instance, info.sourceName, info.templateArgs, info.typeArgs, error))
      return std::nullopt;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto dict = kernel.getArgAttrOfType<DictionaryAttr>(i, attr::kParam);
    if (!dict) {
      error = "argument " + std::to_string(i) + " has no " + attr::kParam.str();
      return std::nullopt;
    }
    std::optional<KernelParamInfo> p = decodeParam(dict, type, error);
    if (!p)
      return std::nullopt;
    if (p->semaphore && info.exitSemaphore < 0) // the exit protocol counts on the first
      info.exitSemaphore = static_cast<int>(i);
    info.params.push_back(std::move(*p));
  }
  info.spinsOnPeers = kernel->hasAttrOfType<UnitAttr>(attr::kSpinsOnPeers);
  if (auto dims = kernel.getClusterDims()) {
    info.cluster = ::tile::KernelInfo::Cluster::Fixed;
    for (auto [i, d] : llvm::enumerate(*dims))
      info.clusterDims[i] = static_cast<unsigned>(d);
  } else if (kernel.getClusterDynamic()) {
    info.cluster = ::tile::KernelInfo::Cluster::Launch;
  }
  if (auto threads = kernel.getReqThreads()) {
    std::array<unsigned, 3> t{1, 1, 1};
    for (auto [i, d] : llvm::enumerate(*threads))
      t[i] = static_cast<unsigned>(d);
    info.threads = t;
  }
  if (auto maxThreads = kernel.getMaxThreads())
    info.maxThreads = static_cast<unsigned>((*maxThreads)[0]);
  if (auto minBlocks = kernel.getMinBlocks())
    info.minBlocks = static_cast<unsigned>(*minBlocks);
  info.staticSharedBytes = static_cast<size_t>(staticSharedBytes(kernel));
  kernel.walk([&](SharedAllocOp alloc) {
    if (alloc.getStaticCount() || !error.empty())
      return;
    auto dict = alloc->getAttrOfType<DictionaryAttr>(attr::kSharedArray);
    if (!dict) {
      error = "a dynamic tile.shared_alloc has no " + attr::kSharedArray.str();
      return;
    }
    if (std::optional<DynamicSharedArray> a = decodeSharedArray(dict, error))
      info.dynamicShared.push_back(std::move(*a));
  });
  llvm::SmallPtrSet<Attribute, 4> counted; // each init of an mbarrier array has the rule
  kernel.walk([&](MBarrierInitOp init) {
    auto dict = init->getAttrOfType<DictionaryAttr>(attr::kMBarrierCount);
    if (!dict || !error.empty() || !counted.insert(dict).second)
      return;
    if (std::optional<::tile::MBarrierCount> m = decodeMBarrierCount(dict, error))
      info.mbarrierCounts.push_back(std::move(*m));
  });
  if (!error.empty())
    return std::nullopt;
  return info;
}
