//===- fuzz_replay.cpp - deterministic fuzzing without libFuzzer -----------===//
//
// Runs LLVMFuzzerTestOneInput over every seed file given on the command line
// (files or directories of *.tile), then over a few thousand deterministic
// mutations of them: byte flips, truncations, splices, duplicated ranges,
// token soup and deep nesting. Runs in seconds so it can be a plain ctest;
// the libFuzzer binary (TILEC_ENABLE_FUZZ=ON, clang) explores further.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {
struct Rng { // xorshift64*: deterministic across platforms
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

const char *kTokens[] = {
    "kernel", "let", "var", "for", "in", "if", "else", "while", "return", "true", "false", "as",
    "shared", "dshared", "ptr", "<", ">", "(", ")", "{", "}", "[", "]", ",", ":", ";", ".", "..",
    "+", "-", "*", "/", "%", "<<", ">>", "&&", "||", "!", "~", "==", "=", "+=", "<<=", "i1", "i8",
    "i32", "i64", "f16", "bf16", "f32", "global", "cluster", "dynamic", "threads", "step",
    "block_range", "grid_range", "thread_id", "cluster_rank", "cluster_size", "remote", "load",
    "store", "atomic_add", "atomic_cas", "len", "min", "clamp", "sync_threads", "cluster_sync",
    "mbarrier", "arrive", "arrive_expect_tx", "expect_tx", "wait", "store_async", "fence",
    "fence_proxy_async", "fence_mbarrier_init", "cluster_arrive", "cluster_wait", "{1, 2}",
    "order", "scope", "relaxed", "acquire", "release", "acq_rel", "sc", "cta", "gpu", "sys",
    "local", "local_base", "0", "1", "2", "255", "0x7fffffff", "18446744073709551615", "1.5",
    "65504.0", "1e39", "x", "y", "n", "h", "a", "\n", " ", "/*", "*/", "//", "\t", "\xff", "@"};

void run(const std::string &s) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

std::string mutate(const std::vector<std::string> &seeds, Rng &r) {
  std::string s = seeds[r.below(seeds.size())];
  int rounds = 1 + (int)r.below(4);
  for (int i = 0; i < rounds; ++i) {
    switch (r.below(8)) {
    case 0: // flip a byte
      if (!s.empty()) s[r.below(s.size())] ^= char(1u << r.below(8));
      break;
    case 1: // truncate
      s.resize(r.below(s.size() + 1));
      break;
    case 2: { // splice with another seed
      const std::string &o = seeds[r.below(seeds.size())];
      size_t a = r.below(s.size() + 1), b = r.below(o.size() + 1);
      s = s.substr(0, a) + o.substr(b);
      break;
    }
    case 3: { // delete a range
      size_t a = r.below(s.size() + 1), n = r.below(16);
      s.erase(a, n);
      break;
    }
    case 4: { // duplicate a range
      size_t a = r.below(s.size() + 1), n = r.below(32);
      s.insert(a, s.substr(a, n));
      break;
    }
    case 5: { // insert a token
      size_t a = r.below(s.size() + 1);
      s.insert(a, std::string(" ") + kTokens[r.below(sizeof(kTokens) / sizeof(*kTokens))] + " ");
      break;
    }
    case 6: { // replace a byte with a random one
      if (!s.empty()) s[r.below(s.size())] = char(r.next());
      break;
    }
    default: { // swap two ranges of lines
      size_t a = r.below(s.size() + 1), b = r.below(s.size() + 1);
      if (a > b) std::swap(a, b);
      std::string mid = s.substr(a, b - a);
      s.erase(a, b - a);
      s.insert(r.below(s.size() + 1), mid);
      break;
    }
    }
  }
  return s;
}

std::string tokenSoup(Rng &r) {
  std::string s = "kernel k(a: i32, p: ptr<i32, global>) cluster(2) {\n";
  size_t n = 1 + r.below(60);
  for (size_t i = 0; i < n; ++i) {
    s += kTokens[r.below(sizeof(kTokens) / sizeof(*kTokens))];
    s += ' ';
  }
  if (r.below(2)) s += "\n}\n";
  return s;
}

void collect(const std::string &path, std::vector<std::string> &seeds) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path.c_str());
    if (!d) return;
    std::vector<std::string> names;
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      names.push_back(n);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string &n : names) {
      std::string p = path + "/" + n;
      struct stat cs;
      if (stat(p.c_str(), &cs) == 0 && (S_ISDIR(cs.st_mode) || (n.size() > 5 && n.substr(n.size() - 5) == ".tile")))
        collect(p, seeds);
    }
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  seeds.push_back(ss.str());
}
} // namespace

int main(int argc, char **argv) {
  int iterations = 4000;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--iterations=", 0) == 0)
      iterations = std::atoi(a.c_str() + 13);
    else
      collect(a, seeds);
  }
  size_t fileSeeds = seeds.size();
  // Built-in seeds so the driver is useful even without files.
  seeds.push_back("kernel k(p: ptr<i32, global>, n: i32) cluster(2) threads(128) {\n"
                  "  let h = dshared<i32>[n]\n  for i in grid_range(n) { atomic_add(h[i % n], 1) }\n"
                  "  for i in block_range(h.local) { p[h.local_base + i] = h.local[i] }\n}\n");
  seeds.push_back("kernel k(a: ptr<f32, global>) { var x = 0.0\n"
                  "  for i in 0 .. 10 step 2 { if i < 5 { x += a[i] } else if i == 7 { x -= 1 } else { return } }\n"
                  "  while x > 1.0 { x = x / 2.0 }\n  store(a[0], x, order = release, scope = sys) }\n");
  auto start = std::chrono::steady_clock::now();
  for (const std::string &s : seeds)
    run(s);
  Rng r{0x9e3779b97f4a7c15ull};
  for (int i = 0; i < iterations; ++i)
    run(i % 5 == 4 ? tokenSoup(r) : mutate(seeds, r));
  // Pathological shapes.
  run(std::string(200000, '('));
  run("kernel k() { let x = " + std::string(200000, '-') + "1 }");
  run("kernel k() { let x = " + std::string(200000, '[') + " }");
  std::string deep = "kernel k() {";
  for (int i = 0; i < 20000; ++i) deep += "while true {";
  run(deep);
  std::string chain = "kernel k() { let x = 1";
  for (int i = 0; i < 50000; ++i) chain += " * 1";
  run(chain + " }");
  std::string errs = "kernel k() {";
  for (int i = 0; i < 5000; ++i) errs += " let a = b\n";
  run(errs + "}");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz replay: %zu seed files, %zu seeds, %d mutations, no crash (%.2fs)\n", fileSeeds,
              seeds.size(), iterations, secs);
  return 0;
}
