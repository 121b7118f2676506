// tile/kernel_info.h without a driver: the JSON round trip, the dynamic
// shared-memory rule evaluated as the kernel evaluates it, argument kinds.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tile/kernel_info.h"
#include "tile/kernel_info_schema.h"

using tile::DynamicSharedArray;
using tile::KernelInfo;
using tile::ScalarType;
using tile::SizeExpr;
using Op = tile::SizeExpr::Op;

namespace {

tile::KernelParamInfo param(const char *name, ScalarType t, bool pointer = false) {
  tile::KernelParamInfo p;
  p.name = name;
  p.scalar = t;
  p.isPointer = pointer;
  p.size = pointer ? 8 : tile::scalarBytes(t);
  p.align = p.size;
  return p;
}

DynamicSharedArray array(const char *name, ScalarType elem, bool distributed, SizeExpr count) {
  DynamicSharedArray a;
  a.name = name;
  a.element = elem;
  a.elementSize = tile::scalarBytes(elem);
  a.distributed = distributed;
  a.count = std::move(count);
  return a;
}

// histogram.tile: (bins, input: ptr<i32>, n: i64, nbins: i32), dshared<i32>[nbins].
KernelInfo histogram() {
  KernelInfo k;
  k.name = "histogram";
  k.params = {param("bins", ScalarType::I32, true), param("input", ScalarType::I32, true),
              param("n", ScalarType::I64), param("nbins", ScalarType::I32)};
  k.cluster = KernelInfo::Cluster::Fixed;
  k.clusterDims = {2, 1, 1};
  k.threads = std::array<unsigned, 3>{1024, 1, 1};
  k.dynamicShared.push_back(
      array("hist", ScalarType::I32, true, SizeExpr::paramRef(ScalarType::I32, 3)));
  return k;
}

// One i32 parameter `n`, one shared array whose count is `count`.
size_t bytesFor(SizeExpr count, int32_t n, ScalarType elem = ScalarType::I32) {
  KernelInfo k;
  k.name = "k";
  k.params = {param("n", ScalarType::I32)};
  k.dynamicShared.push_back(array("a", elem, false, std::move(count)));
  void *args[] = {&n};
  return k.dynamicSharedBytes(args, 1);
}

SizeExpr n32() { return SizeExpr::paramRef(ScalarType::I32, 0); }
SizeExpr lit(int64_t v, ScalarType t = ScalarType::I32) { return SizeExpr::literal(t, v); }

} // namespace

TEST_CASE("kernel info: JSON round trip", "[kernelinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(histogram());
  KernelInfo two;
  two.name = "two";
  two.params = {param("f", ScalarType::F32), param("b", ScalarType::I1),
                param("q", ScalarType::BF16, true)};
  two.params[2].addressAlign = 4;
  two.cluster = KernelInfo::Cluster::Launch;
  two.maxThreads = 512u;
  two.minBlocks = 2u;
  two.staticSharedBytes = 48;
  SizeExpr count =
      SizeExpr::binary(Op::Add, ScalarType::I64, SizeExpr::literal(ScalarType::I64, INT64_MIN),
                       SizeExpr::unary(Op::Cast, ScalarType::I64,
                                       SizeExpr::unary(Op::Cast, ScalarType::I32,
                                                       SizeExpr::paramRef(ScalarType::F32, 0))));
  two.dynamicShared.push_back(array("x\"y", ScalarType::F16, false, count));
  SizeExpr half = SizeExpr::literal(ScalarType::F32, 0);
  half.fvalue = 0.1;
  two.dynamicShared.push_back(
      array("z", ScalarType::I8, true, SizeExpr::unary(Op::Cast, ScalarType::I32, half)));
  m.kernels.push_back(two);

  const std::string json = tile::toJson(m);
  tile::ModuleInfo back = tile::moduleInfoFromJson(json);
  CHECK(tile::toJson(back) == json);
  REQUIRE(back.kernels.size() == 2);
  CHECK(back.arch == "sm_90a");
  const KernelInfo &h = back.kernels[0];
  CHECK(h.params[1].typeName() == "ptr<i32, global>");
  CHECK(h.cluster == KernelInfo::Cluster::Fixed);
  CHECK(h.clusterDims == std::array<unsigned, 3>{2, 1, 1});
  CHECK(h.threads == std::array<unsigned, 3>{1024, 1, 1});
  const KernelInfo &t = back.kernels[1];
  CHECK(t.params[2].typeName() == "ptr<bf16, global>");
  CHECK(t.params[2].addressAlign == 4);
  CHECK(t.params[0].addressAlign == 1);
  CHECK(!t.threads);
  CHECK(t.maxThreads == 512u);
  CHECK(t.minBlocks == 2u);
  CHECK(!h.maxThreads);
  CHECK(!h.minBlocks);
  CHECK(t.dynamicShared[0].name == "x\"y");
  CHECK(t.dynamicShared[0].count.operands[0].value == INT64_MIN); // exact 64-bit literal
  CHECK(t.dynamicShared[1].count.operands[0].fvalue == 0.1);
  CHECK(back.find("two") == &back.kernels[1]);
  CHECK(back.find("three") == nullptr);
  CHECK(back.kernels[0].sourceName.empty());

  // An instance of a kernel with compile-time parameters.
  KernelInfo inst = two;
  inst.sourceName = "two";
  inst.templateArgs = {{"BM", 128}, {"NEG", INT64_MIN}};
  inst.name = tile::mangledKernelName("two", inst.templateArgs);
  CHECK(inst.name == "two$BM128$NEGn9223372036854775808");
  m.kernels.push_back(inst);
  const std::string json2 = tile::toJson(m);
  CHECK(json2.find("\"templateArgs\": [{\"name\": \"BM\", \"value\": 128}") != std::string::npos);
  tile::ModuleInfo back2 = tile::moduleInfoFromJson(json2);
  CHECK(tile::toJson(back2) == json2);
  REQUIRE(back2.kernels.size() == 3);
  CHECK(back2.kernels[2].sourceName == "two");
  CHECK(back2.kernels[2].templateArgs == inst.templateArgs);
  CHECK(back2.kernels[2].typeArgs.empty());

  // An instance of a kernel with type parameters: typeArgs, and the types
  // first in the mangled name.
  KernelInfo typed = two;
  typed.sourceName = "two";
  typed.templateArgs = {{"BN", 256}};
  typed.typeArgs = {{"T", "bf16"}, {"U", "f32"}};
  typed.name = tile::mangledKernelName("two", typed.templateArgs, typed.typeArgs);
  CHECK(typed.name == "two$Tbf16$Uf32$BN256");
  m.kernels.push_back(typed);
  const std::string json3 = tile::toJson(m);
  CHECK(json3.find("\"typeArgs\": [{\"name\": \"T\", \"type\": \"bf16\"}, "
                   "{\"name\": \"U\", \"type\": \"f32\"}]") != std::string::npos);
  tile::ModuleInfo back3 = tile::moduleInfoFromJson(json3);
  CHECK(tile::toJson(back3) == json3);
  CHECK(back3.kernels[3].typeArgs == typed.typeArgs);
  // A type argument must name a scalar type.
  std::string bad = json3;
  bad.replace(bad.find("\"type\": \"bf16\""), 14, "\"type\": \"b17\"");
  CHECK_THROWS_WITH(tile::moduleInfoFromJson(bad), Catch::Contains("typeArgs[0].type") &&
                                                       Catch::Contains("unknown type 'b17'"));
}

TEST_CASE("kernel info: malformed JSON names the path", "[kernelinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(histogram());
  std::string json = tile::toJson(m);
  auto error = [](const std::string &text) {
    try {
      tile::moduleInfoFromJson(text);
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string bad = json;
  bad.replace(bad.find("\"i64\""), 5, "\"u7\"");
  CHECK(error(bad) == "kernel info: kernels[0].params[2].type: unknown type 'u7'");
  bad = json;
  bad.replace(bad.find("\"param\": 3"), 10, "\"param\": 4");
  CHECK(error(bad) ==
        "kernel info: kernels[0].dynamicShared.arrays[0].count.param: 4 is out of range (0 to 3)");
  bad = json;
  bad.replace(bad.find("\"version\": 1"), 12, "\"version\": 2");
  CHECK_THAT(error(bad), Catch::Contains("version 2 is not understood"));
  bad = json;
  bad.replace(bad.find("\"minBlocks\": null"), 17, "\"minBlocks\": 33");
  CHECK_THAT(error(bad), Catch::Contains("kernels[0].minBlocks"));
  CHECK_THAT(error(json.substr(0, json.size() / 2)), Catch::Contains("kernel info JSON, line"));
  // A pointer's address alignment: a power of two up to 16, pointers only.
  const std::string ptr = "\"type\": \"ptr<i32, global>\", \"size\": 8, \"align\": 8";
  const std::string i64 = "\"type\": \"i64\", \"size\": 8, \"align\": 8";
  REQUIRE(json.find(ptr) != std::string::npos);
  REQUIRE(json.find(i64) != std::string::npos);
  bad = json;
  bad.replace(bad.find(ptr), ptr.size(), ptr + ", \"addressAlign\": 12");
  CHECK(error(bad) == "kernel info: kernels[0].params[0].addressAlign: must be a power of two");
  bad = json;
  bad.replace(bad.find(ptr), ptr.size(), ptr + ", \"addressAlign\": 32");
  CHECK_THAT(error(bad), Catch::Contains("kernels[0].params[0].addressAlign"));
  bad = json;
  bad.replace(bad.find(i64), i64.size(), i64 + ", \"addressAlign\": 8");
  CHECK(error(bad) == "kernel info: kernels[0].params[2].addressAlign: only a pointer parameter "
                      "has an address alignment");
}

TEST_CASE("kernel info: every object is read against its schema table", "[kernelinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(histogram());
  const std::string json = tile::toJson(m);
  auto error = [](const std::string &text) {
    try {
      tile::moduleInfoFromJson(text);
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string s = json;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  // An unknown field (a misspelt one, or one of a newer writer) is refused, by name.
  CHECK(error(replaced("\"size\": 8", "\"sise\": 8, \"size\": 8")) ==
        "kernel info: kernels[0].params[0].sise: unknown field of a parameter");
  CHECK(error(replaced("\"staticSharedBytes\"", "\"dynamicSharedBytes\": 0, \"staticSharedBytes\"")) ==
        "kernel info: kernels[0].dynamicSharedBytes: unknown field of a kernel");
  CHECK(error(replaced("\"op\": \"param\"", "\"op\": \"param\", \"fvalue\": 1")) ==
        "kernel info: kernels[0].dynamicShared.arrays[0].count.fvalue: unknown field of a size-rule "
        "node");
  CHECK(error(replaced("\"format\"", "\"comment\": \"x\", \"format\"")) ==
        "kernel info: (top).comment: unknown field of the module");
  // A value of the wrong JSON type names the field and the type its table gives.
  CHECK(error(replaced("\"distributed\": true", "\"distributed\": 1")) ==
        "kernel info: kernels[0].dynamicShared.arrays[0].distributed: expected true or false");
  CHECK(error(replaced("\"threads\": [1024, 1, 1]", "\"threads\": \"1024\"")) ==
        "kernel info: kernels[0].threads: expected 3 dimensions or null");
  // A parameter's type is one of the names the writer gives, not taken apart.
  CHECK(error(replaced("\"ptr<i32, global>\"", "\"ptr<i32, global>  \"")) ==
        "kernel info: kernels[0].params[0].type: unknown type 'ptr<i32, global>  '");
  CHECK(error(replaced("\"ptr<i32, global>\"", "\"ptr<ptr<i32, global>, global>\"")) ==
        "kernel info: kernels[0].params[0].type: unknown type 'ptr<ptr<i32, global>, global>'");
  CHECK(error(json) == "no error");
}

TEST_CASE("kernel info: dshared is ceil(count / cluster) per CTA", "[kernelinfo]") {
  KernelInfo k = histogram();
  uint64_t bins = 0, input = 0;
  int64_t n = 0;
  int32_t nbins = 1001;
  void *args[] = {&bins, &input, &n, &nbins};
  CHECK(k.dynamicSharedBytes(args, 2) == 501 * 4); // the end of the last array: not rounded
  CHECK(k.dynamicSharedBytes(args, 16) == 63 * 4);
  CHECK(k.dynamicSharedBytes(args, 1) == 1001 * 4);
  nbins = 24000;
  CHECK(k.dynamicSharedBytes(args, 8) == 3000 * 4);
  // In the count's type, as the kernel divides: a wrapping add, an unsigned division.
  nbins = INT32_MAX;
  CHECK(k.dynamicSharedBytes(args, 2) == size_t(1073741824) * 4);
}

TEST_CASE("kernel info: arrays in declaration order, each 16-byte aligned", "[kernelinfo]") {
  KernelInfo k;
  k.name = "k";
  k.params = {param("n", ScalarType::I32), param("m", ScalarType::I64)};
  k.dynamicShared.push_back(
      array("a", ScalarType::I8, false, SizeExpr::paramRef(ScalarType::I32, 0)));
  k.dynamicShared.push_back(
      array("b", ScalarType::F16, false, SizeExpr::paramRef(ScalarType::I64, 1)));
  k.dynamicShared.push_back(array("c", ScalarType::I64, false, lit(3)));
  int32_t n = 5;
  int64_t m = 7;
  void *args[] = {&n, &m};
  // a: [0, 5) -> b at 16: [16, 30) -> c at 32: [32, 56).
  CHECK(k.dynamicSharedBytes(args, 1) == 56);
  n = 16;
  CHECK(k.dynamicSharedBytes(args, 1) == 16 + 16 + 24);
  k.dynamicShared.pop_back();
  CHECK(k.dynamicSharedBytes(args, 1) == 16 + 14);
}

TEST_CASE("kernel info: the rule uses the language's operator semantics", "[kernelinfo]") {
  auto bin = [](Op op, SizeExpr a, SizeExpr b) {
    return SizeExpr::binary(op, ScalarType::I32, std::move(a), std::move(b));
  };
  CHECK_THROWS_WITH(
      bytesFor(bin(Op::Div, lit(100), n32()), 0), // 100 / 0 = -1
      "kernel 'k': dynamic shared array 'a' has -1 elements per CTA for these arguments");
  CHECK(bytesFor(bin(Op::Div, lit(100), n32()), 7) == 14 * 4);
  CHECK(bytesFor(bin(Op::Rem, lit(100), n32()), 0) == 400); // x % 0 = x
  CHECK(bytesFor(bin(Op::Shl, lit(1), n32()), 40) == 0);    // amount >= 32: 0
  CHECK(bytesFor(bin(Op::Shl, lit(1), n32()), 4) == 64);
  CHECK(bytesFor(bin(Op::Shr, lit(1024), n32()), -1) == 0);       // -1 read unsigned: sign fill 0
  CHECK(bytesFor(bin(Op::Mul, n32(), lit(4)), 0x40000001) == 16); // wraps in i32: 4
  CHECK(bytesFor(SizeExpr::unary(Op::Cast, ScalarType::I32,
                                 SizeExpr::unary(Op::Cast, ScalarType::I8, n32())),
                 300) == 44 * 4); // 300 as i8 = 44
}

TEST_CASE("kernel info: float casts saturate toward zero, NaN is 0", "[kernelinfo]") {
  KernelInfo k;
  k.name = "k";
  k.params = {param("f", ScalarType::F32)};
  k.dynamicShared.push_back(
      array("a", ScalarType::I8, false,
            SizeExpr::unary(Op::Cast, ScalarType::I32, SizeExpr::paramRef(ScalarType::F32, 0))));
  float f = 9.99f;
  void *args[] = {&f};
  CHECK(k.dynamicSharedBytes(args, 1) == 9);
  f = 1e20f;
  CHECK(k.dynamicSharedBytes(args, 1) == size_t(INT32_MAX));
  f = std::numeric_limits<float>::quiet_NaN();
  CHECK(k.dynamicSharedBytes(args, 1) == 0);
}

TEST_CASE("kernel info: a negative size is an error naming the array", "[kernelinfo]") {
  KernelInfo k = histogram();
  k.cluster = KernelInfo::Cluster::None;
  k.dynamicShared[0].distributed = false;
  uint64_t p = 0;
  int64_t n = 0;
  int32_t nbins = -3;
  void *args[] = {&p, &p, &n, &nbins};
  try {
    k.dynamicSharedBytes(args, 1);
    FAIL("no error");
  } catch (const std::invalid_argument &e) {
    CHECK(std::string(e.what()) == "kernel 'histogram': dynamic shared array 'hist' has -3 "
                                   "elements per CTA for these arguments");
  }
}

TEST_CASE("kernel info: an mbarrier count from the arguments is 1 .. 2^20 - 1", "[kernelinfo]") {
  // `mbarrier(n * 2)`: evaluated as the kernel evaluates it (an i32 that
  // wraps), refused outside mbarrier.init's range, each named.
  KernelInfo k;
  k.name = "k";
  k.params = {param("n", ScalarType::I32)};
  k.mbarrierCounts.push_back({"ok", lit(1)});
  k.mbarrierCounts.push_back(
      {"full", SizeExpr::binary(Op::Mul, ScalarType::I32, n32(), lit(2))});
  int32_t n = 0;
  void *args[] = {&n};
  auto message = [&](int32_t value) {
    n = value;
    try {
      k.checkMBarrierCounts(args);
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message(0) == "kernel 'k': mbarrier 'full' would complete a phase with 0 arrivals for "
                      "these arguments, but an mbarrier's count is 1 to 1048575 (PTX "
                      "mbarrier.init: another count leaves its phases undefined)");
  CHECK_THAT(message(-3), Catch::Contains("mbarrier 'full' would complete a phase with -6 "));
  CHECK_THAT(message(524288), Catch::Contains("with 1048576 arrivals"));
  CHECK_THAT(message(0x40000000), Catch::Contains("with -2147483648 arrivals")); // wraps
  CHECK(message(1) == "");
  CHECK(message(524287) == ""); // 2^20 - 2
  k.mbarrierCounts.clear();
  CHECK(message(0) == ""); // nothing to check
}

TEST_CASE("kernel info: argument kinds against the parameters", "[kernelinfo]") {
  KernelInfo k = histogram();
  using K = tile::ArgDesc::Kind;
  tile::ArgDesc buffer{K::DeviceBuffer, 8, K::Integer, 4}, floats{K::DeviceBuffer, 8, K::Float, 4};
  tile::ArgDesc i64{K::Integer, 8}, i32{K::Integer, 4}, f32{K::Float, 4}, raw{K::Integer, 8};
  tile::ArgDesc good[] = {buffer, raw, i64, i32};
  CHECK(tile::checkArgumentKinds(k, good, 4).empty());
  tile::ArgDesc wrongElement[] = {buffer, floats, i64, i32};
  CHECK(
      tile::checkArgumentKinds(k, wrongElement, 4) ==
      "kernel 'histogram': argument 1 is a DeviceBuffer of 4-byte floats but parameter 1 ('input', "
      "ptr<i32, global>) (pass a DeviceBuffer<an integer type of 4 bytes> or a CUdeviceptr)");
  tile::ArgDesc floatForInt[] = {buffer, buffer, i64, f32};
  CHECK_THAT(tile::checkArgumentKinds(k, floatForInt, 4),
             Catch::Contains("argument 3 is a 4-byte float but parameter 3 ('nbins', i32)"));
  tile::ArgDesc bufferForInt[] = {buffer, buffer, buffer, i32};
  CHECK_THAT(tile::checkArgumentKinds(k, bufferForInt, 4),
             Catch::Contains("parameter 2 ('n', i64)"));
  CHECK_THAT(tile::checkArgumentKinds(k, good, 3),
             Catch::Contains("parameter 3 ('nbins', i32) has no argument"));
}

TEST_CASE("kernel info: u8..u64 and f64: names, JSON, argument kinds", "[kernelinfo]") {
  for (auto [t, name, bits] :
       {std::tuple{ScalarType::U8, "u8", 8u}, std::tuple{ScalarType::U16, "u16", 16u},
        std::tuple{ScalarType::U32, "u32", 32u}, std::tuple{ScalarType::U64, "u64", 64u},
        std::tuple{ScalarType::F64, "f64", 64u}}) {
    INFO(name);
    CHECK(std::string(tile::scalarTypeName(t)) == name);
    CHECK(tile::scalarTypeFromName(name) == t);
    CHECK(tile::scalarBits(t) == bits);
    CHECK(tile::isFloatType(t) == (t == ScalarType::F64));
    CHECK(tile::isUnsignedType(t) == (t != ScalarType::F64));
  }
  KernelInfo k;
  k.name = "uk";
  k.params = {param("p", ScalarType::U32, true), param("d", ScalarType::F64, true),
              param("x", ScalarType::U64), param("y", ScalarType::F64), param("b", ScalarType::U8)};
  tile::ModuleInfo m;
  m.kernels.push_back(k);
  tile::ModuleInfo back = tile::moduleInfoFromJson(tile::toJson(m));
  REQUIRE(back.kernels.size() == 1);
  REQUIRE(back.kernels[0].params.size() == 5);
  CHECK(back.kernels[0].params[0].typeName() == "ptr<u32, global>");
  CHECK(back.kernels[0].params[1].typeName() == "ptr<f64, global>");
  CHECK(back.kernels[0].params[2].scalar == ScalarType::U64);
  CHECK(back.kernels[0].params[3].scalar == ScalarType::F64);

  using K = tile::ArgDesc::Kind;
  tile::ArgDesc u32s{K::DeviceBuffer, 8, K::Integer, 4}, doubles{K::DeviceBuffer, 8, K::Float, 8};
  tile::ArgDesc u64{K::Integer, 8}, dbl{K::Float, 8}, byte{K::Integer, 1};
  tile::ArgDesc good[] = {u32s, doubles, u64, dbl, byte};
  CHECK(tile::checkArgumentKinds(k, good, 5).empty());
  tile::ArgDesc floatForDouble[] = {u32s, doubles, u64, {K::Float, 4}, byte};
  CHECK_THAT(tile::checkArgumentKinds(k, floatForDouble, 5),
             Catch::Contains("argument 3 is a 4-byte float but parameter 3 ('y', f64) (pass a "
                             "double)"));
  tile::ArgDesc floatsForDoubles[] = {u32s, {K::DeviceBuffer, 8, K::Float, 4}, u64, dbl, byte};
  CHECK_THAT(tile::checkArgumentKinds(k, floatsForDoubles, 5),
             Catch::Contains("(pass a DeviceBuffer<double> or a CUdeviceptr)"));
  tile::ArgDesc doubleForU64[] = {u32s, doubles, dbl, dbl, byte};
  CHECK_THAT(tile::checkArgumentKinds(k, doubleForU64, 5),
             Catch::Contains("argument 2 is a 8-byte float but parameter 2 ('x', u64)"));
}

TEST_CASE("kernel info: the writer writes every field of the schema tables", "[kernelinfo]") {
  namespace schema = tile::schema;
  // The writer names fields through schema::has at compile time: a name or
  // a type the tables do not give is not a field.
  static_assert(schema::has(schema::kKernel, "staticSharedBytes", schema::Kind::Integer));
  static_assert(!schema::has(schema::kKernel, "staticSharedBytes", schema::Kind::String));
  static_assert(!schema::has(schema::kKernel, "dynamicSharedBytes", schema::Kind::Integer));
  // A module with every optional field set: each table's fields all appear,
  // and the module reads back to the same text.
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.ptxHash = "0123456789abcdef";
  KernelInfo k = histogram();
  k.sourceName = "histogram";
  k.templateArgs = {{"BM", 128}};
  k.typeArgs = {{"T", "bf16"}};
  k.name = tile::mangledKernelName("histogram", k.templateArgs, k.typeArgs);
  tile::KernelParamInfo t = param("t", ScalarType::BF16);
  tile::TensorParamInfo tensor;
  tensor.element = ScalarType::BF16;
  tile::TensorParamInfo::Extent literal, named;
  literal.literal = 64;
  named.name = "M";
  named.hiddenParam = 6;
  tensor.extents = {literal, named};
  tensor.box = {64, 64};
  tensor.symmetric = true;
  t.tensor = tensor;
  t.size = 128; // a CUtensorMap
  t.align = 64;
  tile::KernelParamInfo sem = param("s", ScalarType::U64);
  sem.semaphore = tile::SemaphoreParamInfo{literal};
  tile::KernelParamInfo hidden = param("M", ScalarType::I32);
  hidden.hidden = tile::HiddenExtentInfo{4, 1};
  tile::KernelParamInfo peer = param("peers", ScalarType::U64);
  peer.peer = tile::HiddenPeerInfo{tile::HiddenPeerInfo::Kind::PeerPointers, 4};
  k.params[1].addressAlign = 16;
  k.params.insert(k.params.end(), {t, sem, hidden, peer});
  k.maxThreads = 1024u;
  k.minBlocks = 1u;
  k.spinsOnPeers = true;
  k.exitSemaphore = 5;
  SizeExpr half = SizeExpr::literal(ScalarType::F32, 0);
  half.fvalue = 0.5;
  k.dynamicShared.push_back(
      array("y", ScalarType::F32, false,
            SizeExpr::binary(Op::Add, ScalarType::I32, n32(),
                             SizeExpr::unary(Op::Cast, ScalarType::I32, half))));
  k.mbarrierCounts.push_back({"full", SizeExpr::paramRef(ScalarType::I32, 3)});
  m.kernels.push_back(k);
  const std::string json = tile::toJson(m);
  for (const schema::Object *object : schema::kAllObjects)
    for (size_t i = 0; i < object->count; ++i) {
      INFO(object->what << ": " << object->fields[i].name);
      CHECK(json.find("\"" + std::string(object->fields[i].name) + "\": ") != std::string::npos);
    }
  tile::ModuleInfo back = tile::moduleInfoFromJson(json);
  CHECK(tile::toJson(back) == json);
  REQUIRE(back.kernels.size() == 1);
  const KernelInfo &b = back.kernels[0];
  CHECK(b.typeArgs == k.typeArgs);
  CHECK(b.params[4].tensor->symmetric);
  CHECK(b.params[5].semaphore->count.literal == 64);
  CHECK(b.params[6].hidden->dim == 1);
  CHECK(b.params[7].peer->param == 4);
  CHECK(b.spinsOnPeers);
  CHECK(b.exitSemaphore == 5);
  REQUIRE(b.mbarrierCounts.size() == 1);
  CHECK(b.mbarrierCounts[0].name == "full");
}
