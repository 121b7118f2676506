//===- Cache.cpp - the on-disk cubin cache --------------------------------===//
#include "tile/cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace fs = std::filesystem;

namespace tile {
namespace {

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'U', 'B', 'N'};
constexpr uint32_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  uint64_t size;
  uint64_t hash;
};
static_assert(sizeof(Header) == 32, "cache header layout");

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string sanitize(const std::string &s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '_' || c == '.' || c == '-';
    out += ok ? c : '_';
  }
  return out;
}

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

} // namespace

uint64_t fnv1a64(const void *data, size_t size, uint64_t seed) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string cubinCacheKey(const std::string &ptx, const std::string &arch, int driverVersion,
                          int jitOptLevel) {
  return hex64(fnv1a64(ptx)) + "-" + sanitize(arch) + "-d" + std::to_string(driverVersion) + "-O" +
         std::to_string(jitOptLevel);
}

std::string resolveCacheDir(const std::string &configured) {
  if (!configured.empty())
    return configured;
  if (const char *d = env("TILEC_CACHE_DIR"))
    return d;
  if (const char *x = env("XDG_CACHE_HOME"))
    return (fs::path(x) / "tilec").string();
  if (const char *h = env("HOME"))
    return (fs::path(h) / ".cache" / "tilec").string();
  return {};
}

bool cacheEnabled(bool useCache) {
  if (!useCache)
    return false;
  const char *v = std::getenv("TILEC_NO_CACHE");
  return !(v && *v && std::strcmp(v, "0") != 0);
}

std::string CubinCache::pathFor(const std::string &key) const {
  return (fs::path(dir_) / (key + ".cubin")).string();
}

std::string CubinCache::encode(const std::string &cubin) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kFormatVersion;
  h.size = cubin.size();
  h.hash = fnv1a64(cubin);
  std::string out(reinterpret_cast<const char *>(&h), sizeof h);
  out += cubin;
  return out;
}

std::optional<std::string> CubinCache::decode(const std::string &file) {
  Header h;
  if (file.size() < sizeof h)
    return std::nullopt;
  std::memcpy(&h, file.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != kFormatVersion ||
      h.size != file.size() - sizeof h || h.size == 0)
    return std::nullopt;
  std::string payload = file.substr(sizeof h);
  if (fnv1a64(payload) != h.hash)
    return std::nullopt;
  return payload;
}

std::optional<std::string> CubinCache::load(const std::string &key) const {
  if (dir_.empty())
    return std::nullopt;
  std::string path = pathFor(key);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  std::optional<std::string> cubin = decode(ss.str());
  if (!cubin)
    remove(key); // corrupt or torn: drop it, the caller re-JITs and rewrites it
  return cubin;
}

bool CubinCache::store(const std::string &key, const std::string &cubin) const {
  if (dir_.empty())
    return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec && !fs::is_directory(dir_))
    return false;
  static std::atomic<unsigned> counter{0};
  std::string final = pathFor(key);
  std::string tmp = final + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return false;
    std::string bytes = encode(cubin);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, final, ec); // atomic replace on POSIX
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

void CubinCache::remove(const std::string &key) const {
  if (dir_.empty())
    return;
  std::error_code ec;
  fs::remove(pathFor(key), ec);
}

CachedBuild buildWithCache(const CubinCache &cache, const std::string &key,
                           const std::function<std::string()> &build,
                           const std::function<void(const std::string &)> &load) {
  CachedBuild r;
  const bool enabled = !cache.dir().empty();
  if (enabled) {
    if (std::optional<std::string> hit = cache.load(key)) {
      try {
        load(*hit);
        r.image = std::move(*hit);
        r.fromCache = true;
        r.path = cache.pathFor(key);
        return r;
      } catch (...) {
        cache.remove(key); // stale or corrupt in a way the checksum cannot see: rebuild
      }
    }
  }
  r.image = build();
  load(r.image);
  if (enabled && cache.store(key, r.image))
    r.path = cache.pathFor(key);
  return r;
}

} // namespace tile
