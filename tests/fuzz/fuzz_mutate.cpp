//===- fuzz_mutate.cpp - deterministic mutations of .tile sources ----------===//
#include "fuzz_mutate.h"

#include <algorithm>
#include <cctype>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace tile::fuzz {
namespace {

template <size_t N> const char *pick(const char *const (&pool)[N], Rng &r) {
  return pool[r.below(N)];
}

// Anything the lexer knows, plus bytes it must reject.
const char *const kTokens[] = {"kernel",
                               "let",
                               "var",
                               "for",
                               "in",
                               "if",
                               "else",
                               "while",
                               "return",
                               "true",
                               "false",
                               "as",
                               "shared",
                               "dshared",
                               "ptr",
                               "<",
                               ">",
                               "(",
                               ")",
                               "{",
                               "}",
                               "[",
                               "]",
                               ",",
                               ":",
                               ";",
                               ".",
                               "..",
                               "+",
                               "-",
                               "*",
                               "/",
                               "%",
                               "<<",
                               ">>",
                               "&&",
                               "||",
                               "!",
                               "~",
                               "==",
                               "=",
                               "+=",
                               "<<=",
                               "i1",
                               "i8",
                               "i32",
                               "i64",
                               "f16",
                               "bf16",
                               "f32",
                               "global",
                               "cluster",
                               "dynamic",
                               "threads",
                               "step",
                               "block_range",
                               "grid_range",
                               "thread_id",
                               "cluster_rank",
                               "cluster_size",
                               "remote",
                               "load",
                               "store",
                               "atomic_add",
                               "atomic_cas",
                               "len",
                               "min",
                               "clamp",
                               "sync_threads",
                               "cluster_sync",
                               "mbarrier",
                               "arrive",
                               "arrive_expect_tx",
                               "expect_tx",
                               "wait",
                               "store_async",
                               "fence",
                               "fence_proxy_async",
                               "fence_mbarrier_init",
                               "cluster_arrive",
                               "cluster_wait",
                               "{1, 2}",
                               "order",
                               "scope",
                               "relaxed",
                               "acquire",
                               "release",
                               "acq_rel",
                               "sc",
                               "cta",
                               "gpu",
                               "sys",
                               "local",
                               "local_base",
                               "0",
                               "1",
                               "2",
                               "255",
                               "0x7fffffff",
                               "18446744073709551615",
                               "1.5",
                               "65504.0",
                               "1e39",
                               "x",
                               "y",
                               "n",
                               "h",
                               "a",
                               "\n",
                               " ",
                               "/*",
                               "*/",
                               "//",
                               "\t",
                               "\xff",
                               "@",
                               // Unsigned, f64, `?:`, loop exits, bit ops
                               "u8",
                               "u16",
                               "u32",
                               "u64",
                               "f64",
                               "?",
                               "break",
                               "continue",
                               "bitcast",
                               "bitcast<u32>",
                               "popc",
                               "clz",
                               "ctz",
                               "brev",
                               "bfind"};

const char *const kTypes[] = {"i1",  "i8", "i16", "i32", "i64", "f16", "bf16",
                              "f32", "u8", "u16", "u32", "u64", "f64"};
const char *const kSpaces[] = {"global", "shared", "cluster"};
const char *const kOrders[] = {"relaxed", "acquire", "release", "acq_rel", "sc"};
const char *const kScopes[] = {"cta", "cluster", "gpu", "sys"};
// Boundary values of every element type, sizes around powers of two, the
// shared-memory and thread limits.
const char *const kNumbers[] = {"0",
                                "1",
                                "2",
                                "3",
                                "4",
                                "7",
                                "8",
                                "16",
                                "31",
                                "32",
                                "33",
                                "63",
                                "64",
                                "100",
                                "127",
                                "128",
                                "255",
                                "256",
                                "1023",
                                "1024",
                                "1025",
                                "4096",
                                "32767",
                                "32768",
                                "65535",
                                "65536",
                                "49152",
                                "232448",
                                "2147483647",
                                "2147483648",
                                "-2147483648",
                                "4294967295",
                                "4294967296",
                                "9223372036854775807",
                                "-9223372036854775808",
                                "18446744073709551616",
                                "0x7fffffff",
                                "0xffffffff",
                                "0x8000000000000000",
                                "-1",
                                "-0",
                                "0.0",
                                "-0.0",
                                "0.5",
                                "1.5",
                                "65504.0",
                                "65520.0",
                                "3.4028235e38",
                                "1e39",
                                "1e-45",
                                "1e-400",
                                "340282366920938463463374607431768211456.0"};
const char *const kBinaryOps[] = {"+", "-",  "*",  "/",  "%",  "<<", ">>", "&", "|",
                                  "^", "&&", "||", "==", "!=", "<",  "<=", ">", ">="};
const char *const kAssignOps[] = {
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
const char *const kBuiltins[] = {"thread_id",
                                 "block_dim",
                                 "block_id",
                                 "grid_dim",
                                 "cluster_rank",
                                 "cluster_size",
                                 "cluster_id",
                                 "cluster_dim",
                                 "block_in_cluster",
                                 "num_clusters",
                                 "lane_id",
                                 "warp_id",
                                 "min",
                                 "max",
                                 "clamp",
                                 "len",
                                 "sync_threads",
                                 "cluster_sync",
                                 "remote",
                                 "load",
                                 "store",
                                 "atomic_add",
                                 "atomic_min",
                                 "atomic_max",
                                 "atomic_exch",
                                 "atomic_and",
                                 "atomic_or",
                                 "atomic_xor",
                                 "atomic_cas",
                                 "arrive",
                                 "arrive_expect_tx",
                                 "expect_tx",
                                 "wait",
                                 "store_async",
                                 "fence",
                                 "fence_proxy_async",
                                 "fence_mbarrier_init",
                                 "cluster_arrive",
                                 "cluster_wait",
                                 "popc",
                                 "clz",
                                 "ctz",
                                 "brev",
                                 "bfind"};
// Whole statements that are valid in most kernels (or nearly so), to grow
// programs the checker accepts; zz/ww are fresh names.
const char *const kStatements[] = {
    "sync_threads()",
    "cluster_sync()",
    "cluster_arrive()",
    "cluster_wait()",
    "cluster_arrive(order = relaxed)",
    "fence(order = acq_rel, scope = cluster)",
    "fence(order = sc, scope = sys)",
    "fence_proxy_async()",
    "fence_mbarrier_init()",
    "return",
    "let zz = thread_id(0)",
    "var zz = 0",
    "let zz = cluster_rank() + 1",
    "let zz = shared<i32>[32]",
    "let zz = shared<f16>[7]",
    "let zz = shared<i8>[3]",
    "let zz = dshared<i32>[64]",
    "let zz = mbarrier(1)",
    "let zz = mbarrier[2](32)",
    "let zz = shared<i64>[4]\n zz[thread_id(0) % 4] = 1\n sync_threads()",
    "let zz = shared<i32>[8]\n let ww = remote(zz, cluster_rank() ^ 1)\n ww[0] = 3",
    "let zz = mbarrier(1)\n arrive(zz)\n wait(zz)",
    ("let zz = mbarrier(1)\n let ww = shared<i32>[4]\n arrive_expect_tx(zz, 16)\n "
     "store_async(remote(ww, 0)[0], {1, 2, 3, 4}, remote(zz, 0))\n wait(zz)"),
    "for zz in 0 .. 4 { sync_threads() }",
    "for zz in 0 .. 10 step 3 { }",
    "if thread_id(0) == 0 { return }",
    "while false { }",
    "let zz = 1 as i64 << 63",
    "let zz = -2147483648 / -1",
    "let zz = 1.0 / 0.0",
    "let zz = (1 as f16) * 65504.0",
    "let zz = 7 % 0",
    "let zz = 1 << 40",
    "let zz = 1 as i8 >> 9",
    // Unsigned and f64 operators, `?:`, loop exits, bit operations
    "let zz = 0xffffffff as u32 / (thread_id(0) as u32)",
    "let zz = (thread_id(0) as u64) % 0",
    "let zz = (lane_id() as u16) >> 20",
    "let zz = -1.5 as u8",
    "let zz = (1e300 as f64) as u32",
    "let zz = (thread_id(0) as f64) * 0.1 - 1e-300",
    "let zz = (3.5 as f64) as f16",
    "let zz = thread_id(0) > 3 ? thread_id(0) / 0 : 7",
    "let zz = min(lane_id() as u32, 4000000000)",
    "let zz = bitcast<f32>(popc(thread_id(0)) + clz(-1))",
    "let zz = bfind(0 as u64) + (brev(thread_id(0) as u32) >> 31)",
    "for zz in 0 .. 8 { if zz == thread_id(0) { break } sync_threads() }",
    "for zz in 0 as u32 .. 9 { if zz % 2 == 0 { continue } }",
    "var zz = 0\n while true { zz += 1\n if zz > 3 { break } }"};
// Statement wrappers: the guarded lines run under a condition or in a loop,
// which changes what the sync passes must prove.
const char *const kWrapOpen[] = {"if thread_id(0) == 0 {", "if cluster_rank() != 0 {",
                                 "for zz in 0 .. 3 {",     "while false {",
                                 "if true {} else {",      "for zz in block_range(32) {"};

// Names that PTX or the NVPTX backend give a meaning to (predefined
// identifiers, generated parameter and local names, libdevice/CUDA
// functions): a kernel or parameter named so must still give valid PTX.
const char *const kOddNames[] = {"_",
                                 "__",
                                 "_0",
                                 "WARP_SZ",
                                 "k_param_0",
                                 "__local_depot0",
                                 "main",
                                 "vprintf",
                                 "malloc",
                                 "__nv_sinf",
                                 "abs",
                                 "texmode_unified",
                                 "param",
                                 "reg",
                                 "entry",
                                 "func",
                                 "tid",
                                 "ntid",
                                 "a$b",
                                 "__tile_dynamic_smem",
                                 "__tile_smem_k_0",
                                 "__tile_smem_ops_0"};

enum class Kind { Space, Ident, Number, Punct, Comment };
struct Token {
  std::string text;
  Kind kind;
};

bool isIdentStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

std::vector<Token> tokenize(const std::string &s) {
  static const char *const multi[] = {"<<=", ">>=", "<<", ">>", "==", "!=", "<=", ">=", "&&", "||",
                                      "..",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^="};
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    Kind kind = Kind::Punct;
    char c = s[i];
    if (std::isspace((unsigned char)c)) {
      while (j < s.size() && std::isspace((unsigned char)s[j]))
        ++j;
      kind = Kind::Space;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      j = s.find('\n', i);
      j = j == std::string::npos ? s.size() : j;
      kind = Kind::Comment;
    } else if (isIdentStart(c)) {
      while (j < s.size() && isIdentChar(s[j]))
        ++j;
      kind = Kind::Ident;
    } else if (std::isdigit((unsigned char)c)) {
      // 1.5e-3: a '.' is part of the number unless it starts '..'.
      while (j < s.size() &&
             (isIdentChar(s[j]) || (s[j] == '.' && (j + 1 >= s.size() || s[j + 1] != '.')) ||
              ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      kind = Kind::Number;
    } else {
      for (const char *m : multi)
        if (s.compare(i, std::char_traits<char>::length(m), m) == 0) {
          j = i + std::char_traits<char>::length(m);
          break;
        }
    }
    out.push_back({s.substr(i, j - i), kind});
    i = j;
  }
  return out;
}

std::string join(const std::vector<Token> &tokens) {
  std::string s;
  for (const Token &t : tokens)
    s += t.text;
  return s;
}

bool inPool(const std::string &text, const char *const *pool, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (text == pool[i])
      return true;
  return false;
}
#define IN_POOL(text, pool) inPool(text, pool, sizeof(pool) / sizeof(*pool))

/// A token of the same category as `t`: a type for a type, an order for an
/// order, a boundary number for a number, a name used elsewhere in the
/// program for a name.
std::string sameKind(const Token &t, const std::vector<Token> &tokens, Rng &r) {
  if (t.kind == Kind::Number)
    return pick(kNumbers, r);
  if (t.kind == Kind::Ident) {
    if (IN_POOL(t.text, kTypes))
      return pick(kTypes, r);
    if (IN_POOL(t.text, kSpaces))
      return pick(kSpaces, r);
    if (IN_POOL(t.text, kOrders))
      return pick(kOrders, r);
    if (IN_POOL(t.text, kScopes))
      return pick(kScopes, r);
    if (IN_POOL(t.text, kBuiltins) && r.below(2))
      return pick(kBuiltins, r);
    if (r.below(8) == 0)
      return pick(kOddNames, r);
    for (int tries = 0; tries < 8; ++tries) {
      const Token &o = tokens[r.below(tokens.size())];
      if (o.kind == Kind::Ident)
        return o.text;
    }
    return t.text;
  }
  if (t.kind == Kind::Punct) {
    if (IN_POOL(t.text, kAssignOps))
      return pick(kAssignOps, r);
    if (IN_POOL(t.text, kBinaryOps))
      return pick(kBinaryOps, r);
  }
  return t.text;
}

std::vector<std::string> splitLines(const std::string &s) {
  std::vector<std::string> lines;
  std::stringstream in(s);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

std::string joinLines(const std::vector<std::string> &lines) {
  std::string s;
  for (const std::string &l : lines)
    s += l + "\n";
  return s;
}

/// Indices of the non-space, non-comment tokens.
std::vector<size_t> solid(const std::vector<Token> &tokens) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].kind != Kind::Space && tokens[i].kind != Kind::Comment)
      idx.push_back(i);
  return idx;
}
} // namespace

void mutateBytes(std::string &s, const std::vector<std::string> &others, Rng &r) {
  switch (r.below(8)) {
  case 0: // flip a bit
    if (!s.empty())
      s[r.below(s.size())] ^= char(1u << r.below(8));
    break;
  case 1: // truncate
    s.resize(r.below(s.size() + 1));
    break;
  case 2: { // splice with another seed
    if (others.empty())
      break;
    const std::string &o = others[r.below(others.size())];
    size_t a = r.below(s.size() + 1), b = r.below(o.size() + 1);
    s = s.substr(0, a) + o.substr(b);
    break;
  }
  case 3: // delete a range
    s.erase(r.below(s.size() + 1), r.below(16));
    break;
  case 4: { // duplicate a range
    size_t a = r.below(s.size() + 1);
    s.insert(a, s.substr(a, r.below(32)));
    break;
  }
  case 5: // insert a token
    s.insert(r.below(s.size() + 1), std::string(" ") + pick(kTokens, r) + " ");
    break;
  case 6: // replace a byte with a random one
    if (!s.empty())
      s[r.below(s.size())] = char(r.next());
    break;
  default: { // move a range
    size_t a = r.below(s.size() + 1), b = r.below(s.size() + 1);
    if (a > b)
      std::swap(a, b);
    std::string mid = s.substr(a, b - a);
    s.erase(a, b - a);
    s.insert(r.below(s.size() + 1), mid);
    break;
  }
  }
}

void mutateTokens(std::string &s, const std::vector<std::string> &others, Rng &r) {
  std::vector<Token> tokens = tokenize(s);
  std::vector<size_t> idx = solid(tokens);
  unsigned op = unsigned(r.below(11));
  if (idx.empty() && op < 4)
    op = 5;
  switch (op) {
  case 0:
  case 1: // a token for another of its kind (the most productive edit)
    for (int n = 1 + int(r.below(3)); n > 0; --n) {
      Token &t = tokens[idx[r.below(idx.size())]];
      t.text = sameKind(t, tokens, r);
    }
    s = join(tokens);
    return;
  case 2: { // delete 1-3 tokens
    size_t a = r.below(idx.size()), n = 1 + r.below(3);
    for (size_t k = a; k < std::min(idx.size(), a + n); ++k)
      tokens[idx[k]].text.clear();
    s = join(tokens);
    return;
  }
  case 3: { // any token, anywhere between tokens
    size_t a = idx[r.below(idx.size())];
    tokens[a].text = (r.below(2) ? std::string(pick(kTokens, r)) + " " : "") + tokens[a].text +
                     (r.below(2) ? "" : std::string(" ") + pick(kTokens, r));
    s = join(tokens);
    return;
  }
  default:
    break;
  }
  std::vector<std::string> lines = splitLines(s);
  size_t at = r.below(lines.size() + 1);
  switch (op) {
  case 4: // delete a line
    if (!lines.empty())
      lines.erase(lines.begin() + long(r.below(lines.size())));
    break;
  case 5: // a statement that is valid in most kernels
    lines.insert(lines.begin() + long(at), pick(kStatements, r));
    break;
  case 6: // duplicate or move a line
    if (!lines.empty()) {
      size_t from = r.below(lines.size());
      std::string line = lines[from];
      if (r.below(2))
        lines.erase(lines.begin() + long(from));
      lines.insert(lines.begin() + long(r.below(lines.size() + 1)), line);
    }
    break;
  case 7: { // a line from another seed (cross-over at statement granularity)
    if (others.empty())
      break;
    std::vector<std::string> other = splitLines(others[r.below(others.size())]);
    if (!other.empty())
      lines.insert(lines.begin() + long(at), other[r.below(other.size())]);
    break;
  }
  case 8: { // wrap a run of lines in an if/for/while
    if (lines.empty())
      break;
    size_t a = r.below(lines.size()), n = 1 + r.below(4);
    size_t b = std::min(lines.size(), a + n);
    lines.insert(lines.begin() + long(b), "}");
    lines.insert(lines.begin() + long(a), pick(kWrapOpen, r));
    break;
  }
  case 9: { // a compile option (pipeline_fuzz.cpp reads flags from the text)
    static const char *const flags[] = {"// -O0",           "// -O1",         "// --no-auto-sync",
                                        "// --debug-hangs", "// --cluster=4", "// --cluster=1,2,1",
                                        "// --cluster=16",  "// --cluster=0", "// --cluster=2,2,2",
                                        "// --cluster=3"};
    if (r.below(2)) {
      lines.insert(lines.begin(), pick(flags, r));
      break;
    }
    [[fallthrough]];
  }
  default: { // change a kernel attribute or parameter type
    for (std::string &l : lines) {
      if (l.rfind("kernel", 0) != 0)
        continue;
      static const char *const attrs[] = {
          " cluster(2)",    " cluster(4)",       " cluster(dynamic)", " cluster(1, 2)",
          " cluster(8)",    " cluster(16)",      " threads(32)",      " threads(1024)",
          " threads(1025)", " threads(8, 8, 8)", " cluster(0)"};
      size_t brace = l.rfind('{');
      if (brace != std::string::npos)
        l.insert(brace, std::string(pick(attrs, r)) + " ");
      break;
    }
    break;
  }
  }
  s = joinLines(lines);
}

std::string mutate(const std::vector<std::string> &pool, const std::vector<std::string> &partners,
                   Rng &r) {
  std::string s = pool[r.below(pool.size())];
  // One edit keeps most mutants valid (they reach the backend); several
  // explore further from the seeds.
  int rounds = r.below(3) ? 1 : 2 + int(r.below(3));
  for (; rounds > 0; --rounds) {
    if (r.below(4) == 0)
      mutateBytes(s, partners, r);
    else
      mutateTokens(s, partners, r);
  }
  return s;
}

std::string tokenSoup(Rng &r) {
  std::string s = "kernel k(a: i32, p: ptr<i32, global>) cluster(2) {\n";
  for (size_t n = 1 + r.below(60); n > 0; --n) {
    s += pick(kTokens, r);
    s += ' ';
  }
  if (r.below(2))
    s += "\n}\n";
  return s;
}

void collectSeeds(const std::string &path, std::vector<std::string> &seeds) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path.c_str());
    if (!d)
      return;
    std::vector<std::string> names;
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..")
        names.push_back(n);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string &n : names) {
      std::string p = path + "/" + n;
      struct stat cs;
      if (stat(p.c_str(), &cs) == 0 &&
          (S_ISDIR(cs.st_mode) || (n.size() > 5 && n.substr(n.size() - 5) == ".tile")))
        collectSeeds(p, seeds);
    }
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  seeds.push_back(ss.str());
}

std::vector<std::string> builtinSeeds() {
  return {
      "kernel k(p: ptr<i32, global>, n: i32) cluster(2) threads(128) {\n"
      "  let h = dshared<i32>[n]\n  for i in grid_range(n) { atomic_add(h[i % n], 1) }\n"
      "  for i in block_range(h.local) { p[h.local_base + i] = h.local[i] }\n}\n",
      "kernel k(a: ptr<f32, global>) { var x = 0.0\n"
      "  for i in 0 .. 10 step 2 { if i < 5 { x += a[i] } else if i == 7 { x -= 1 } else { return "
      "} }\n"
      "  while x > 1.0 { x = x / 2.0 }\n  store(a[0], x, order = release, scope = sys) }\n",
      // Every operator on every type (operator semantics, poison).
      "kernel ops(p: ptr<i32, global>, q: ptr<i64, global>, f: ptr<f32, global>, h: ptr<f16, "
      "global>,\n"
      "           b: ptr<bf16, global>, c: ptr<i8, global>, s: ptr<i16, global>) {\n"
      "  let i = thread_id(0)\n  let x = p[i]\n  let y = q[i]\n"
      "  p[i] = x / (x | 1) + x % 3 - (x << 5) + (x >> 31) ^ ~x & 7\n"
      "  q[i] = y * y - (y >> 63) + min(y, 5 as i64) + (x as i64)\n"
      "  f[i] = f[i] / 3.0 + (h[i] as f32) - (b[i] as f32) + max(f[i], -0.0)\n"
      "  h[i] = h[i] * (2.0 as f16)\n  b[i] = (f[i] as bf16) + b[i]\n"
      "  c[i] = c[i] + (x as i8) >> 2\n  s[i] = s[i] * -1 % 7\n"
      "  if x > 0 && y < 0 || !(x == 2) { p[0] = clamp(x, -1, 1) }\n}\n",
      // mbarriers, store_async, remote views.
      "kernel mb(out: ptr<i32, global>) cluster(2) threads(64) {\n"
      "  let buf = shared<i32>[4]\n  let bar = mbarrier(1)\n"
      "  if thread_id(0) == 0 { arrive_expect_tx(bar, 16) }\n  cluster_sync()\n"
      "  if thread_id(0) == 0 {\n"
      "    store_async(remote(buf, cluster_rank() ^ 1)[0], {1, 2, 3, 4}, remote(bar, "
      "cluster_rank() ^ 1))\n"
      "  }\n  wait(bar)\n  out[thread_id(0)] = buf[thread_id(0) % 4]\n  cluster_sync()\n}\n",
      // Unsigned and f64 on every operator, `?:`, break/continue, bit ops.
      "kernel uf(u: ptr<u32, global>, w: ptr<u64, global>, d: ptr<f64, global>, b: ptr<u8, "
      "global>,\n"
      "          x: u32, y: f64) {\n"
      "  let i = thread_id(0)\n  let a = u[i]\n  let v = w[i]\n"
      "  u[i] = a / x + a % 3 - (a << 5) + (a >> x) ^ ~a & 7\n"
      "  w[i] = v * v - (v >> 63) + max(v, 5) + (a as u64) + (i < 4 ? v / 2 : v)\n"
      "  d[i] = d[i] / 3.0 + (a as f64) - (v as f64) + min(y, -0.0) + (d[i] as f32 as f64)\n"
      "  b[i] = (d[i] as u8) + (a as u8) >> 2\n"
      "  u[0] = popc(a) as u32 + clz(v) as u32 + bfind(a) + brev(a) + bitcast<u32>(y as f32)\n"
      "  atomic_min(u[1], a)\n  atomic_add(d[1], y)\n"
      "  for k in 0 .. a { if u[k] == 0 { break } if u[k] > x { continue } u[k] = x }\n"
      "}\n",
  };
}

} // namespace tile::fuzz
