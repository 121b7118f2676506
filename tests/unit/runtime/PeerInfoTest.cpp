// Multi-GPU parameters in the kernel info without a driver (SPEC10 ABI): the
// JSON round trip of symmetric tensors, semaphores and the hidden peer
// parameters, the errors naming the JSON path, and which parameters a host
// passes.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "tile/kernel_info.h"

using tile::HiddenPeerInfo;
using tile::ScalarType;

namespace {

std::string replaceOnce(std::string s, const std::string &from, const std::string &to) {
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

tile::KernelParamInfo scalarParam(const char *name, ScalarType t, size_t size) {
  tile::KernelParamInfo p;
  p.name = name;
  p.scalar = t;
  p.size = p.align = size;
  return p;
}

tile::KernelParamInfo peerParam(const char *name, HiddenPeerInfo::Kind kind, int param) {
  const bool i32 = kind == HiddenPeerInfo::Kind::SemaphoreCount ||
                   kind == HiddenPeerInfo::Kind::DeviceRank ||
                   kind == HiddenPeerInfo::Kind::DeviceCount;
  tile::KernelParamInfo p = scalarParam(name, i32 ? ScalarType::I32 : ScalarType::U64, i32 ? 4 : 8);
  p.peer = HiddenPeerInfo{kind, param};
  return p;
}

// kernel k(A: symmetric tensor<f16>[M, 64], sem: semaphore[S], t: semaphore[4])
// using peer(A, d) through TMA and element access, signal/wait on sem.
tile::KernelInfo peerKernelInfo() {
  tile::KernelInfo k;
  k.name = "k";
  tile::KernelParamInfo a;
  a.name = "A";
  a.scalar = ScalarType::F16;
  a.size = 128;
  a.align = 64;
  tile::TensorParamInfo t;
  t.element = ScalarType::F16;
  tile::TensorParamInfo::Extent m, lit;
  m.name = "M";
  m.hiddenParam = 3;
  lit.literal = 64;
  t.extents = {m, lit};
  t.box = {128, 64};
  t.swizzle = tile::TmaSwizzle::B128;
  t.symmetric = true;
  a.tensor = t;
  k.params.push_back(a);
  tile::KernelParamInfo sem = scalarParam("sem", ScalarType::U64, 8);
  sem.semaphore = tile::SemaphoreParamInfo{};
  sem.semaphore->count.name = "S";
  sem.semaphore->count.hiddenParam = 8;
  k.params.push_back(sem);
  tile::KernelParamInfo sem4 = scalarParam("t", ScalarType::U64, 8);
  sem4.semaphore = tile::SemaphoreParamInfo{};
  sem4.semaphore->count.literal = 4;
  k.params.push_back(sem4);
  tile::KernelParamInfo hm = scalarParam("M", ScalarType::I32, 4);
  hm.hidden = tile::HiddenExtentInfo{0, 0};
  k.params.push_back(hm);
  k.params.push_back(peerParam("A$peers", HiddenPeerInfo::Kind::PeerPointers, 0));
  k.params.push_back(peerParam("A$peer_maps", HiddenPeerInfo::Kind::PeerMaps, 0));
  k.params.push_back(peerParam("sem$peers", HiddenPeerInfo::Kind::SemaphorePeers, 1));
  k.params.push_back(peerParam("sem$epoch", HiddenPeerInfo::Kind::SemaphoreEpoch, 1));
  k.params.push_back(peerParam("sem$count", HiddenPeerInfo::Kind::SemaphoreCount, 1));
  k.params.push_back(peerParam("$rank", HiddenPeerInfo::Kind::DeviceRank, -1));
  k.params.push_back(peerParam("$world", HiddenPeerInfo::Kind::DeviceCount, -1));
  k.spinsOnPeers = true;
  k.exitSemaphore = 1;
  return k;
}

} // namespace

TEST_CASE("peer info: JSON round trip of symmetric tensors, semaphores and peer parameters",
          "[peerinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(peerKernelInfo());
  const std::string json = tile::toJson(m);
  CHECK_THAT(json, Catch::Contains("\"type\": \"symmetric tensor<f16>[M, 64]\""));
  CHECK_THAT(json, Catch::Contains("\"oobZeroFill\": true, \"symmetric\": true}"));
  CHECK_THAT(json, Catch::Contains("\"type\": \"semaphore[S]\", \"size\": 8, \"align\": 8, "
                                   "\"semaphore\": {\"count\": {\"name\": \"S\", \"hidden\": 8}}"));
  CHECK_THAT(json, Catch::Contains("\"semaphore\": {\"count\": {\"literal\": 4}}"));
  CHECK_THAT(json, Catch::Contains("\"peer\": {\"kind\": \"peerPointers\", \"param\": 0}"));
  CHECK_THAT(json, Catch::Contains("\"peer\": {\"kind\": \"deviceCount\", \"param\": -1}"));
  CHECK_THAT(json, Catch::Contains("\"spinsOnPeers\": true"));
  CHECK_THAT(json, Catch::Contains("\"exitSemaphore\": 1"));

  tile::ModuleInfo back = tile::moduleInfoFromJson(json);
  REQUIRE(back.kernels.size() == 1);
  const tile::KernelInfo &k = back.kernels[0];
  REQUIRE(k.params.size() == 11);
  REQUIRE(k.params[0].tensor);
  CHECK(k.params[0].tensor->symmetric);
  CHECK(k.params[0].typeName() == "symmetric tensor<f16>[M, 64]");
  REQUIRE(k.params[1].semaphore);
  CHECK(k.params[1].scalar == ScalarType::U64);
  CHECK(k.params[1].semaphore->count.name == "S");
  CHECK(k.params[1].semaphore->count.hiddenParam == 8);
  CHECK_FALSE(k.params[1].semaphore->count.literal.has_value());
  REQUIRE(k.params[2].semaphore);
  CHECK(k.params[2].semaphore->count.literal == 4);
  CHECK(k.params[2].typeName() == "semaphore[4]");
  const HiddenPeerInfo::Kind kinds[] = {
      HiddenPeerInfo::Kind::PeerPointers,   HiddenPeerInfo::Kind::PeerMaps,
      HiddenPeerInfo::Kind::SemaphorePeers, HiddenPeerInfo::Kind::SemaphoreEpoch,
      HiddenPeerInfo::Kind::SemaphoreCount, HiddenPeerInfo::Kind::DeviceRank,
      HiddenPeerInfo::Kind::DeviceCount};
  const int owners[] = {0, 0, 1, 1, 1, -1, -1};
  for (int i = 0; i < 7; ++i) {
    const tile::KernelParamInfo &p = k.params[4 + i];
    REQUIRE(p.peer);
    CHECK(p.peer->kind == kinds[i]);
    CHECK(p.peer->param == owners[i]);
    CHECK(p.isHidden());
  }
  CHECK(k.spinsOnPeers);
  CHECK(k.exitSemaphore == 1);
  CHECK(tile::declaredParamCount(k) == 3);
  CHECK(tile::toJson(back) == json);
}

TEST_CASE("peer info: a single-GPU kernel's JSON has no multi-GPU fields", "[peerinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  tile::KernelInfo k;
  k.name = "plain";
  k.params.push_back(scalarParam("n", ScalarType::I32, 4));
  m.kernels.push_back(k);
  const std::string json = tile::toJson(m);
  CHECK_THAT(json, !Catch::Contains("spinsOnPeers"));
  CHECK_THAT(json, !Catch::Contains("exitSemaphore"));
  const tile::KernelInfo back = tile::moduleInfoFromJson(json).kernels.at(0);
  CHECK_FALSE(back.spinsOnPeers);
  CHECK(back.exitSemaphore == -1);
  CHECK_FALSE(back.params[0].peer.has_value());
  CHECK_FALSE(back.params[0].semaphore.has_value());
}

TEST_CASE("peer info: malformed multi-GPU fields name the JSON path", "[peerinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(peerKernelInfo());
  const std::string json = tile::toJson(m);
  auto error = [&](const std::string &from, const std::string &to) -> std::string {
    try {
      tile::moduleInfoFromJson(replaceOnce(json, from, to));
    } catch (const std::invalid_argument &e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error("\"kind\": \"peerMaps\"", "\"kind\": \"peerTables\"") ==
        "kernel info: kernels[0].params[5].peer.kind: unknown peer parameter kind 'peerTables'");
  CHECK(error("\"kind\": \"peerPointers\", \"param\": 0", "\"kind\": \"peerPointers\", "
                                                          "\"param\": 1") ==
        "kernel info: kernels[0].params[4].peer.param: parameter 1 is not a symmetric tensor "
        "parameter");
  CHECK(error("\"kind\": \"semaphoreEpoch\", \"param\": 1",
              "\"kind\": \"semaphoreEpoch\", \"param\": 0") ==
        "kernel info: kernels[0].params[7].peer.param: parameter 0 is not a semaphore parameter");
  CHECK(
      error("\"kind\": \"deviceRank\", \"param\": -1", "\"kind\": \"deviceRank\", \"param\": 0") ==
      "kernel info: kernels[0].params[9].peer.param: a deviceRank parameter belongs to no "
      "parameter (-1)");
  CHECK(
      error("{\"name\": \"$rank\", \"type\": \"i32\"", "{\"name\": \"$rank\", \"type\": \"u64\"") ==
      "kernel info: kernels[0].params[9].type: a deviceRank parameter is an i32 of 4 bytes");
  CHECK(error("{\"name\": \"A$peers\", \"type\": \"u64\"",
              "{\"name\": \"A$peers\", \"type\": \"i64\"") ==
        "kernel info: kernels[0].params[4].type: a peerPointers parameter is a u64 of 8 bytes");
  CHECK(error("{\"name\": \"S\", \"hidden\": 8}", "{\"name\": \"S\", \"hidden\": 9}") ==
        "kernel info: kernels[0].params[1].semaphore.count.hidden: parameter 9 is not this "
        "semaphore's semaphoreCount parameter");
  CHECK(error("\"type\": \"semaphore[S]\"", "\"type\": \"semaphore[T]\"") ==
        "kernel info: kernels[0].params[1].type: 'semaphore[T]' does not match its semaphore "
        "field ('semaphore[S]')");
  CHECK(error("{\"literal\": 4}", "{\"literal\": 0}") ==
        "kernel info: kernels[0].params[2].semaphore.count.literal: 0 is out of range (1 to "
        "2147483647)");
  CHECK(error("\"exitSemaphore\": 1", "\"exitSemaphore\": 0") ==
        "kernel info: kernels[0].exitSemaphore: parameter 0 is not a semaphore parameter");
  CHECK(error("\"spinsOnPeers\": true", "\"spinsOnPeers\": 1") ==
        "kernel info: kernels[0].spinsOnPeers: expected true or false");
  CHECK(error("\"symmetric\": true", "\"symmetric\": \"yes\"") ==
        "kernel info: kernels[0].params[0].tensor.symmetric: expected true or false or null");
}

TEST_CASE("peer info: a declared parameter after a peer parameter is refused", "[peerinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  tile::KernelInfo k = peerKernelInfo();
  k.params.push_back(scalarParam("late", ScalarType::I32, 4));
  m.kernels.push_back(k);
  CHECK_THROWS_WITH(tile::moduleInfoFromJson(tile::toJson(m)),
                    "kernel info: kernels[0].params[11]: a declared parameter after a hidden one "
                    "(hidden parameters come last)");
}
