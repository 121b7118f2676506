//===- cache.h - the on-disk cubin cache ------------------------*- C++ -*-===//
// A pure file layer, testable without a GPU.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tile {

// FNV-1a, 64 bit.
uint64_t fnv1a64(const void *data, size_t size, uint64_t seed = 0xcbf29ce484222325ull);
inline uint64_t fnv1a64(const std::string &s) { return fnv1a64(s.data(), s.size()); }

// Cache key of a PTX module JIT-compiled for `arch` by driver `driverVersion` at
// `jitOptLevel`: "<16 hex digits of fnv1a64(ptx)>-<arch>-d<driverVersion>-O<jitOptLevel>".
// Only [0-9a-zA-Z_.-] appear in it, so it is a file name.
std::string cubinCacheKey(const std::string &ptx, const std::string &arch, int driverVersion,
                          int jitOptLevel = 4);

// Resolves the cache folder: `configured` if not empty, else $TILEC_CACHE_DIR,
// else $XDG_CACHE_HOME/tilec, else $HOME/.cache/tilec; "" when none can be formed.
std::string resolveCacheDir(const std::string &configured = {});
// False when TILEC_NO_CACHE is set to anything but "" or "0", or useCache is false.
bool cacheEnabled(bool useCache);

// The cubin cache: cacheDir/<key>.cubin. Each file holds a small header (magic,
// format version, payload size, fnv1a64 of the payload) and the cubin, so a torn or
// corrupt entry is detected and treated as a miss (and removed).
class CubinCache {
public:
  explicit CubinCache(std::string dir) : dir_(std::move(dir)) {}
  const std::string &dir() const { return dir_; }
  std::string pathFor(const std::string &key) const;
  // The cubin, or nullopt on a miss or a corrupt/unreadable entry (a corrupt one is removed).
  std::optional<std::string> load(const std::string &key) const;
  // Writes atomically (temporary file in the same folder + rename); creates the folder.
  // Returns false (never throws) when the entry cannot be written.
  bool store(const std::string &key, const std::string &cubin) const;
  // Removes an entry (e.g. one the driver refused to load). Never throws.
  void remove(const std::string &key) const;

  // The on-disk encoding, exposed for tests.
  static std::string encode(const std::string &cubin);
  static std::optional<std::string> decode(const std::string &file);

private:
  std::string dir_;
};

// The cache policy of Module::fromPtx, factored out so it is testable without a GPU.
// With a cache (dir not ""): on a hit, calls load(cubin); if that throws (a cubin the
// driver refuses), the entry is removed and we fall through. On a miss/corrupt entry:
// cubin = build(), load(cubin), then store it. Without a cache: build() + load().
// Exceptions from build() and from loading a fresh build propagate.
struct CachedBuild {
  std::string image;
  bool fromCache = false;
  std::string path; // cache file read or written, "" when none
};
CachedBuild buildWithCache(const CubinCache &cache, const std::string &key,
                           const std::function<std::string()> &build,
                           const std::function<void(const std::string &)> &load);

} // namespace tile
