#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tile/runtime.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "tilec-rt-test-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Sets an environment variable for one scope and restores it.
struct EnvVar {
  std::string name;
  bool had;
  std::string old;
  EnvVar(const char *n, const char *value) : name(n) {
    const char *o = getenv(n);
    had = o != nullptr;
    if (had)
      old = o;
    if (value)
      setenv(n, value, 1);
    else
      unsetenv(n);
  }
  ~EnvVar() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void writeFile(const fs::path &p, const std::string &s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

const std::string kPtx =
    ".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k() { ret; }\n";
const std::string kCubin = std::string("\x7f"
                                       "ELF",
                                       4) +
                           std::string("fake cubin \0 with nul", 21);

} // namespace

TEST_CASE("fnv1a64 matches the reference values", "[cache]") {
  CHECK(tile::fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(tile::fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(tile::fnv1a64("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("cache key: stable, and changes with PTX, arch, driver and opt level", "[cache]") {
  std::string k = tile::cubinCacheKey(kPtx, "sm_90a", 13000, 4);
  CHECK(k == tile::cubinCacheKey(kPtx, "sm_90a", 13000, 4));
  CHECK(k == tile::cubinCacheKey(std::string(kPtx), std::string("sm_90a"), 13000)); // default O4
  CHECK(k.size() == 16 + std::string("-sm_90a-d13000-O4").size());
  CHECK_THAT(k, Catch::EndsWith("-sm_90a-d13000-O4"));
  CHECK(k != tile::cubinCacheKey(kPtx + " ", "sm_90a", 13000, 4));
  CHECK(k != tile::cubinCacheKey(kPtx, "sm_100a", 13000, 4));
  CHECK(k != tile::cubinCacheKey(kPtx, "sm_90", 13000, 4));
  CHECK(k != tile::cubinCacheKey(kPtx, "sm_90a", 13010, 4));
  CHECK(k != tile::cubinCacheKey(kPtx, "sm_90a", 13000, 3));
  // Only file-name-safe characters.
  std::string odd = tile::cubinCacheKey(kPtx, "sm/90 a", 1, 0);
  CHECK(odd.find('/') == std::string::npos);
  CHECK(odd.find(' ') == std::string::npos);
}

TEST_CASE("cache directory resolution and TILEC_NO_CACHE", "[cache]") {
  EnvVar a("TILEC_CACHE_DIR", nullptr), b("XDG_CACHE_HOME", nullptr), c("HOME", "/home/u");
  CHECK(tile::resolveCacheDir("/explicit") == "/explicit");
  CHECK(tile::resolveCacheDir() == "/home/u/.cache/tilec");
  {
    EnvVar x("XDG_CACHE_HOME", "/xdg");
    CHECK(tile::resolveCacheDir() == "/xdg/tilec");
    EnvVar t("TILEC_CACHE_DIR", "/tc");
    CHECK(tile::resolveCacheDir() == "/tc");
    CHECK(tile::resolveCacheDir("/explicit") == "/explicit");
  }
  {
    EnvVar h("HOME", nullptr);
    CHECK(tile::resolveCacheDir().empty());
  }
  {
    EnvVar n("TILEC_NO_CACHE", nullptr);
    CHECK(tile::cacheEnabled(true));
    CHECK_FALSE(tile::cacheEnabled(false));
  }
  {
    EnvVar n("TILEC_NO_CACHE", "1");
    CHECK_FALSE(tile::cacheEnabled(true));
  }
  {
    EnvVar n("TILEC_NO_CACHE", "0");
    CHECK(tile::cacheEnabled(true));
  }
}

TEST_CASE("cache encoding round-trips and rejects damage", "[cache]") {
  std::string file = tile::CubinCache::encode(kCubin);
  CHECK(file.size() == kCubin.size() + 32);
  REQUIRE(tile::CubinCache::decode(file));
  CHECK(*tile::CubinCache::decode(file) == kCubin);

  CHECK_FALSE(tile::CubinCache::decode(""));
  CHECK_FALSE(tile::CubinCache::decode(file.substr(0, 20)));              // torn header
  CHECK_FALSE(tile::CubinCache::decode(file.substr(0, file.size() - 1))); // torn payload
  CHECK_FALSE(tile::CubinCache::decode(file + "x"));                      // trailing junk
  std::string flipped = file;
  flipped[40] ^= 0x01;
  CHECK_FALSE(tile::CubinCache::decode(flipped)); // checksum
  std::string magic = file;
  magic[0] = 'X';
  CHECK_FALSE(tile::CubinCache::decode(magic));
  CHECK_FALSE(tile::CubinCache::decode(kCubin)); // a raw cubin is not a cache file
  CHECK_FALSE(tile::CubinCache::decode(tile::CubinCache::encode(""))); // empty payload
}

TEST_CASE("cache store/load in a directory (created on demand), atomically", "[cache]") {
  TempDir tmp;
  tile::CubinCache cache((tmp.path / "sub" / "dir").string());
  std::string key = tile::cubinCacheKey(kPtx, "sm_90a", 13000);
  CHECK(cache.pathFor(key) == (tmp.path / "sub" / "dir" / (key + ".cubin")).string());
  CHECK_FALSE(cache.load(key)); // miss, no directory yet
  REQUIRE(cache.store(key, kCubin));
  REQUIRE(fs::exists(cache.pathFor(key)));
  REQUIRE(cache.load(key));
  CHECK(*cache.load(key) == kCubin);
  // No temporary files are left behind.
  int files = 0;
  for (auto &e : fs::directory_iterator(cache.dir())) {
    ++files;
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
  }
  CHECK(files == 1);
  // Overwrite replaces.
  REQUIRE(cache.store(key, kCubin + "v2"));
  CHECK(*cache.load(key) == kCubin + "v2");
  cache.remove(key);
  CHECK_FALSE(fs::exists(cache.pathFor(key)));
  cache.remove(key); // removing a missing entry is fine
}

TEST_CASE("a corrupt cache entry is a miss and is removed", "[cache]") {
  TempDir tmp;
  tile::CubinCache cache(tmp.path.string());
  std::string key = "0123456789abcdef-sm_90a-d13000-O4";
  REQUIRE(cache.store(key, kCubin));
  std::string good = readFile(cache.pathFor(key));
  writeFile(cache.pathFor(key), good.substr(0, good.size() / 2)); // torn write
  CHECK_FALSE(cache.load(key));
  CHECK_FALSE(fs::exists(cache.pathFor(key)));
  writeFile(cache.pathFor(key), "garbage");
  CHECK_FALSE(cache.load(key));
  CHECK_FALSE(fs::exists(cache.pathFor(key)));
}

TEST_CASE("store fails cleanly when the directory cannot be created", "[cache]") {
  TempDir tmp;
  writeFile(tmp.path / "file", "x");
  tile::CubinCache cache((tmp.path / "file" / "sub").string());
  CHECK_FALSE(cache.store("k", kCubin));
  CHECK_FALSE(cache.load("k"));
  tile::CubinCache none("");
  CHECK_FALSE(none.store("k", kCubin));
  CHECK_FALSE(none.load("k"));
}

TEST_CASE("buildWithCache: miss builds and stores, hit loads without building", "[cache]") {
  TempDir tmp;
  tile::CubinCache cache(tmp.path.string());
  int builds = 0;
  std::string loaded;
  auto build = [&] {
    ++builds;
    return kCubin;
  };
  auto load = [&](const std::string &img) { loaded = img; };

  tile::CachedBuild r1 = tile::buildWithCache(cache, "key", build, load);
  CHECK(builds == 1);
  CHECK_FALSE(r1.fromCache);
  CHECK(r1.image == kCubin);
  CHECK(loaded == kCubin);
  CHECK(r1.path == cache.pathFor("key"));

  loaded.clear();
  tile::CachedBuild r2 = tile::buildWithCache(cache, "key", build, load);
  CHECK(builds == 1);
  CHECK(r2.fromCache);
  CHECK(r2.image == kCubin);
  CHECK(loaded == kCubin);
}

TEST_CASE("buildWithCache: corrupt or driver-refused entries fall back to building", "[cache]") {
  TempDir tmp;
  tile::CubinCache cache(tmp.path.string());
  int builds = 0;
  auto build = [&] {
    ++builds;
    return kCubin;
  };
  auto load = [&](const std::string &img) {
    if (img.rfind("bad", 0) == 0)
      throw std::runtime_error("driver refuses");
  };

  writeFile(cache.pathFor("key"), "not a cache file");
  tile::CachedBuild r1 = tile::buildWithCache(cache, "key", build, load);
  CHECK(builds == 1);
  CHECK_FALSE(r1.fromCache);
  CHECK(*cache.load("key") == kCubin); // rewritten

  // A well-formed entry whose cubin the driver refuses.
  REQUIRE(cache.store("key", "bad cubin"));
  tile::CachedBuild r2 = tile::buildWithCache(cache, "key", build, load);
  CHECK(builds == 2);
  CHECK_FALSE(r2.fromCache);
  CHECK(r2.image == kCubin);
  CHECK(*cache.load("key") == kCubin);
}

TEST_CASE("buildWithCache without a cache directory, and build errors propagate", "[cache]") {
  tile::CubinCache none("");
  int builds = 0;
  auto build = [&] {
    ++builds;
    return kCubin;
  };
  auto load = [](const std::string &) {};
  tile::CachedBuild r = tile::buildWithCache(none, "key", build, load);
  tile::buildWithCache(none, "key", build, load);
  CHECK(builds == 2);
  CHECK_FALSE(r.fromCache);
  CHECK(r.path.empty());

  TempDir tmp;
  tile::CubinCache cache(tmp.path.string());
  auto failing = []() -> std::string {
    throw tile::Error("cuLinkAddData", CUDA_ERROR_INVALID_PTX, {}, "JIT error log:\nptxas fatal");
  };
  CHECK_THROWS_WITH(tile::buildWithCache(cache, "key", failing, load),
                    Catch::Contains("CUDA_ERROR_INVALID_PTX") && Catch::Contains("ptxas fatal"));
  CHECK_FALSE(fs::exists(cache.pathFor("key"))); // nothing stored for a failed build
}
