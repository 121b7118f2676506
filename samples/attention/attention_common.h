// samples/attention: what the host program shares between its check and
// bench modes, plain C++17 + the tilec runtime (no nvcc):
//   - the problem (batch, query heads, K/V heads, sequence lengths, head dim,
//     causal, softmax scale) and its FLOP count;
//   - the float64 CPU reference of O = softmax(scale * Q K^T + mask) V and of
//     the log-sum-exp of each row, and the comparison of a result with it;
//   - the .tile kernel's contract (README.md, "The .tile kernel"): its PTX,
//     its instances and which one runs a problem, its arguments and its grid.
// The 16-bit float conversions and the counter-based normal random numbers
// are the GEMM sample's (samples/gemm/gemm_common.h).
#pragma once

#include "../gemm/gemm_common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

using gemm::DType;
using gemm::dtypeName;
using gemm::fromBits;

/// One attention problem. Q is [B, Hq, Sq, D], K and V are [B, Hkv, Sk, D],
/// O is [B, Hq, Sq, D], LSE is [B, Hq, Sq rounded up to 128] (f32), all
/// contiguous. Query head
/// h reads K/V head h / (Hq / Hkv) (grouped-query attention; Hkv = Hq is
/// plain multi-head attention). Causal masking is aligned bottom-right, as
/// FlashAttention does when Sq != Sk: query i sees keys j <= i + Sk - Sq.
struct Problem {
  int64_t batch = 1, heads = 1, kvHeads = 1, seqQ = 128, seqK = 128, dim = 64;
  /// Query rows per CTA of the kernel that runs it (TileKernel::blockM).
  int64_t blockM = 128;
  bool causal = false;
  double scale = 0; // 0: 1 / sqrt(dim)
  DType dtype = DType::F16;

  double softmaxScale() const { return scale > 0 ? scale : 1.0 / std::sqrt(double(dim)); }
  int64_t group() const { return heads / kvHeads; }
  /// The last key query row i sees (exclusive bound), 0 when it sees none.
  int64_t keyEnd(int64_t i) const {
    if (!causal)
      return seqK;
    return std::max<int64_t>(0, std::min<int64_t>(seqK, i + seqK - seqQ + 1));
  }
  /// Query-key pairs that are not masked (for the FLOP count).
  double pairs() const {
    double n = 0;
    for (int64_t i = 0; i < seqQ; ++i)
      n += double(keyEnd(i));
    return n * double(batch * heads);
  }
  /// Two GEMMs (Q K^T and P V) over the unmasked pairs: 4 * pairs * D.
  double flops() const { return 4.0 * pairs() * double(dim); }
  std::string str() const {
    return "B=" + std::to_string(batch) + " Hq=" + std::to_string(heads) +
           " Hkv=" + std::to_string(kvHeads) + " Sq=" + std::to_string(seqQ) +
           " Sk=" + std::to_string(seqK) + " D=" + std::to_string(dim) + (causal ? " causal" : "") +
           " " + dtypeName(dtype);
  }
  /// Why the kernel cannot take this problem ("" when it can).
  std::string invalid() const {
    if (batch < 1 || heads < 1 || kvHeads < 1 || seqQ < 1 || seqK < 1)
      return "batch, heads and sequence lengths must be positive";
    if (heads % kvHeads)
      return "Hq = " + std::to_string(heads) +
             " is not a multiple of Hkv = " + std::to_string(kvHeads);
    if (dim != 64 && dim != 128 && dim != 256)
      return "head dim " + std::to_string(dim) + " is not compiled (64, 128 or 256)";
    if (batch * heads * seqQ >= (int64_t(1) << 31) || batch * kvHeads * seqK >= (int64_t(1) << 31))
      return "more than 2^31 rows of Q or K (the kernel's row coordinates are i32)";
    return "";
  }
  size_t qElems() const { return size_t(batch * heads * seqQ * dim); }
  size_t kvElems() const { return size_t(batch * kvHeads * seqK * dim); }
  size_t rowsQ() const { return size_t(batch * heads * seqQ); }
  /// LSE's rows per head: Sq rounded up to whole CTAs of blockM rows (the
  /// kernel writes every row of its last CTA, as FlashAttention's rounded LSE).
  int64_t lseRowsPerHead() const { return (seqQ + blockM - 1) / blockM * blockM; }
  size_t lseElems() const { return size_t(batch * heads * lseRowsPerHead()); }
};

/// The float64 reference of every query row: O (rowsQ x D) and LSE (rowsQ,
/// natural log; -inf for a row that sees no key, whose O row is 0).
struct Reference {
  std::vector<double> o, lse;
};

inline Reference reference(const Problem &p, const std::vector<uint16_t> &q,
                           const std::vector<uint16_t> &k, const std::vector<uint16_t> &v) {
  const int64_t d = p.dim;
  Reference r;
  r.o.assign(p.rowsQ() * size_t(d), 0.0);
  r.lse.assign(p.rowsQ(), -std::numeric_limits<double>::infinity());
  // K and V as doubles once.
  std::vector<double> kd(k.size()), vd(v.size());
  gemm::parallelFor(int64_t(k.size()), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      kd[size_t(i)] = fromBits(p.dtype, k[size_t(i)]);
      vd[size_t(i)] = fromBits(p.dtype, v[size_t(i)]);
    }
  });
  const double scale = p.softmaxScale();
  gemm::parallelFor(int64_t(p.rowsQ()), [&](int64_t rb, int64_t re) {
    std::vector<double> qrow(static_cast<size_t>(d)), s(static_cast<size_t>(p.seqK));
    for (int64_t row = rb; row < re; ++row) {
      const int64_t i = row % p.seqQ, bh = row / p.seqQ;
      const int64_t b = bh / p.heads, h = bh % p.heads;
      const int64_t kvRow0 = (b * p.kvHeads + h / p.group()) * p.seqK;
      for (int64_t c = 0; c < d; ++c)
        qrow[size_t(c)] = fromBits(p.dtype, q[size_t(row * d + c)]);
      const int64_t end = p.keyEnd(i);
      if (end == 0)
        continue; // sees no key: O = 0, LSE = -inf
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < end; ++j) {
        const double *kj = &kd[size_t((kvRow0 + j) * d)];
        double dot = 0;
        for (int64_t c = 0; c < d; ++c)
          dot += qrow[size_t(c)] * kj[c];
        s[size_t(j)] = dot * scale;
        m = std::max(m, s[size_t(j)]);
      }
      double l = 0;
      double *o = &r.o[size_t(row * d)];
      for (int64_t j = 0; j < end; ++j) {
        const double e = std::exp(s[size_t(j)] - m);
        l += e;
        const double *vj = &vd[size_t((kvRow0 + j) * d)];
        for (int64_t c = 0; c < d; ++c)
          o[c] += e * vj[c];
      }
      for (int64_t c = 0; c < d; ++c)
        o[c] /= l;
      r.lse[size_t(row)] = m + std::log(l);
    }
  });
  return r;
}

/// The error bounds --check holds a result to. O: the relative Frobenius
/// error over all of O; P is rounded to the input type before P V (as in
/// FlashAttention), so the bound is a few units of the type's rounding
/// (2^-11 f16, 2^-8 bf16). LSE: the largest absolute error (S and the row
/// sums are f32; ex2.approx is within 2 ulp of f32).
inline double oTolerance(DType d) { return d == DType::F16 ? 3e-3 : 2e-2; }
inline constexpr double kLseTolerance = 2e-3;

struct Comparison {
  double oRelFrobenius = 0, oMaxAbs = 0, lseMaxAbs = 0;
  int64_t nonFinite = 0;       // NaN/inf in O, or a non-finite LSE where one is expected
  int64_t firstNonFinite = -1; // its row
  int64_t maskedRowsWrong = 0; // rows that see no key: O must be 0 and LSE -inf
  bool pass(DType d) const {
    return nonFinite == 0 && maskedRowsWrong == 0 && oRelFrobenius < oTolerance(d) &&
           lseMaxAbs < kLseTolerance;
  }
};

inline Comparison compare(const Problem &p, const Reference &want, const std::vector<uint16_t> &o,
                          const std::vector<float> &lse) {
  Comparison c;
  double num = 0, den = 0;
  const int64_t d = p.dim;
  for (size_t row = 0; row < p.rowsQ(); ++row) {
    const bool sees = std::isfinite(want.lse[row]);
    bool rowBad = false;
    for (int64_t col = 0; col < d; ++col) {
      const double g = fromBits(p.dtype, o[row * size_t(d) + size_t(col)]);
      const double w = want.o[row * size_t(d) + size_t(col)];
      if (!std::isfinite(g)) {
        rowBad = true;
        continue;
      }
      if (!sees && g != 0)
        ++c.maskedRowsWrong;
      num += (g - w) * (g - w);
      den += w * w;
      c.oMaxAbs = std::max(c.oMaxAbs, std::fabs(g - w));
    }
    const size_t bh = row / size_t(p.seqQ), i = row % size_t(p.seqQ);
    const double gl = lse[bh * size_t(p.lseRowsPerHead()) + i];
    if (sees) {
      if (!std::isfinite(gl))
        rowBad = true;
      else
        c.lseMaxAbs = std::max(c.lseMaxAbs, std::fabs(gl - want.lse[row]));
    } else if (!(std::isinf(gl) && gl < 0)) {
      ++c.maskedRowsWrong;
    }
    if (rowBad && c.nonFinite++ == 0)
      c.firstNonFinite = int64_t(row);
  }
  c.oRelFrobenius = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

// ---------------------------------------------------------------- the kernel's contract
inline std::string ptxName(DType d) { return std::string("attention_") + dtypeName(d) + ".ptx"; }

struct TileKernel {
  tile::Module module;
  tile::Kernel kernel;
  unsigned threads = 0;
  /// Consumer warpgroups (the instance's WGS) and query rows per CTA: 64 per
  /// consumer warpgroup, the threads past the producer's warpgroup.
  int64_t warpgroups = 0, blockM = 0;
  /// attention_persistent (a grid of at most `ctas` CTAs that take the work
  /// tiles in turn) rather than attention (one CTA per tile).
  bool persistent = false;
  int64_t ctas = 0;
  /// Keys per ring stage and CTA order of an `attention` instance (its KB and
  /// ORD; attention_persistent has its own, 0 here).
  int64_t keysPerStage = 0, order = 0;
};

/// The consumer warpgroups (WGS) the PTX has instances of for head dim `dim`
/// (samples/attention/CMakeLists.txt): 3 and 2 at D = 64, 2 at D = 128 and 256.
inline std::vector<int64_t> compiledWarpgroups(int64_t dim) {
  return dim == 64 ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{2};
}

/// The instance the host runs for a problem: its consumer warpgroups here,
/// the kernel (attention or attention_persistent) in persistentKernel and the
/// CTA order in ctaOrder below; all measured on an H200, B = 4, H = 16
/// (docs/perf/attention.md). D = 64 takes three warpgroups (192-row CTAs:
/// three softmaxes share each turn's short mmas), except causal with Sq <=
/// kCausalTwoWarpgroupsMaxSeq, where 128-row CTAs win (the causal grid's CTAs
/// are uneven, and smaller ones leave a shorter tail; at 2k the rank-by-rank
/// CTA order with three measured 8 % faster than two in the grid's order),
/// and causal with kCausalPersistentMinSeq64 <= Sq <= kCausalPersistentMaxSeq64,
/// where the persistent kernel runs two. D = 128 and 256: two (240 registers
/// each).
inline constexpr int64_t kCausalTwoWarpgroupsMaxSeq = 1024;
inline constexpr int64_t kCausalPersistentMinSeq64 = 3073, kCausalPersistentMaxSeq64 = 4096;
inline constexpr int64_t kCausalPersistentMinSeq128 = 2048, kCausalPersistentMaxSeq128 = 8192;
inline int64_t consumerWarpgroups(int64_t dim, bool causal, int64_t seqQ) {
  if (dim != 64)
    return 2;
  if (causal && seqQ >= kCausalPersistentMinSeq64 && seqQ <= kCausalPersistentMaxSeq64)
    return 2;
  return causal && seqQ <= kCausalTwoWarpgroupsMaxSeq ? 2 : 3;
}

/// Whether the host runs attention_persistent (a grid of one CTA per SM that
/// takes the work tiles in turn) rather than attention (one CTA per tile):
/// causal at D = 128 with 2048 <= Sq <= 8192 (+2-7 % measured at 2k, 4k and
/// 8k; -2 % at 1k; 16k not measured) and causal at D = 64 with 3072 < Sq <=
/// 4096 (two warpgroups: +3-5 % against the three-warpgroup kernel at 4k; 3k
/// not measured; at 8k not ahead of three). Elsewhere it measured equal or
/// slower: non-causal at D = 64 and 256, causal at D = 256 up to 4k, short
/// sequences; non-causal D = 128 came out on either side in two runs.
inline bool persistentKernel(int64_t dim, bool causal, int64_t seqQ) {
  if (!causal)
    return false;
  if (dim == 128)
    return seqQ >= kCausalPersistentMinSeq128 && seqQ <= kCausalPersistentMaxSeq128;
  if (dim == 64)
    return seqQ >= kCausalPersistentMinSeq64 && seqQ <= kCausalPersistentMaxSeq64;
  return false;
}

/// The schedule of an `attention` instance: KB keys per ring stage, and ORD,
/// the order of its CTAs (0: head by head, the heaviest causal block of each
/// head first; 1: query block rank by rank over every head, so the heaviest
/// causal blocks of the whole grid go first: README.md).
struct Schedule {
  int64_t keys = 0, order = 0;
};

/// Keys per ring stage (measured, H200): D = 256: 80 (two stages fit in
/// 227 KB); D = 128 without the mask: 176 (FlashAttention-3's block; fewer
/// hand-overs and waits per key); else 128 (192 at D = 64 causal 2k: 4 %
/// slower, the causal CTAs' last block is partly past their rows).
inline int64_t keysPerStage(int64_t dim, bool causal) {
  return dim == 256 ? 80 : dim == 128 && !causal ? 176 : 128;
}

/// The CTA order of the `attention` instance the host runs for a problem
/// (measured, H200, B = 4, H = 16, against ORD = 0 in the same run): ORD = 1
/// for causal D = 64 with kCausalRankOrderMinSeq64 <= Sq <= 2048 and three
/// warpgroups (consumerWarpgroups: +8 % at 2k, f16 and bf16; at 1k within 1 %)
/// and causal D = 128 with Sq <= 1024 (+8 % at 1k; 2k runs the persistent
/// kernel). The heaviest blocks of the whole grid first leave the light ones
/// for the tail; the K and V of every head are then read in each round of
/// CTAs (at these lengths they fit L2).
inline constexpr int64_t kCausalRankOrderMinSeq64 = 1025, kCausalRankOrderMaxSeq64 = 2048;
inline constexpr int64_t kCausalRankOrderMaxSeq128 = 1024;
inline int64_t ctaOrder(int64_t dim, bool causal, int64_t warpgroups, int64_t seqQ) {
  if (!causal)
    return 0;
  if (dim == 64)
    return warpgroups == 3 && seqQ >= kCausalRankOrderMinSeq64 && seqQ <= kCausalRankOrderMaxSeq64
               ? 1
               : 0;
  return dim == 128 && seqQ <= kCausalRankOrderMaxSeq128 ? 1 : 0;
}

/// The schedules compiled for `attention` at (D, causal, WGS)
/// (samples/attention/CMakeLists.txt): ORD = 0, and ORD = 1 where the host
/// runs it (causal D = 64 with three warpgroups, causal D = 128).
inline std::vector<Schedule> compiledSchedules(int64_t dim, bool causal, int64_t warpgroups) {
  std::vector<Schedule> r{{keysPerStage(dim, causal), 0}};
  if (causal && ((dim == 64 && warpgroups == 3) || dim == 128))
    r.push_back({keysPerStage(dim, causal), 1});
  return r;
}

/// Instance (D, causal, WGS) of kernel `attention` (or, persistent,
/// `attention_persistent` with a grid of at most `ctas` CTAs) in the PTX.
inline TileKernel loadTileKernel(tile::Context &ctx, const std::string &ptxPath, int64_t dim,
                                 bool causal, int64_t warpgroups, bool persistent = false,
                                 int64_t ctas = 0, Schedule rg = {}) {
  TileKernel t;
  t.module = tile::Module::fromFiles(ctx, ptxPath);
  if (persistent) {
    t.kernel = t.module.kernel("attention_persistent",
                               {{"D", dim}, {"CAUSAL", causal ? 1 : 0}, {"WGS", warpgroups}});
  } else {
    if (!rg.keys)
      rg.keys = keysPerStage(dim, causal);
    t.kernel = t.module.kernel("attention", {{"D", dim},
                                             {"CAUSAL", causal ? 1 : 0},
                                             {"WGS", warpgroups},
                                             {"KB", rg.keys},
                                             {"ORD", rg.order}});
    t.keysPerStage = rg.keys;
    t.order = rg.order;
  }
  t.persistent = persistent;
  t.ctas = ctas > 0 ? ctas : ctx.smCount();
  const tile::KernelInfo &info = *t.kernel.info();
  if (!info.threads)
    throw std::runtime_error(ptxPath + ": kernel attention declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  if (t.threads != unsigned(128 * (warpgroups + 1)))
    throw std::runtime_error(ptxPath + ": kernel attention<WGS = " + std::to_string(warpgroups) +
                             "> has " + std::to_string(t.threads) +
                             " threads, not a producer and " + std::to_string(warpgroups) +
                             " consumer warpgroups");
  t.warpgroups = warpgroups;
  t.blockM = 64 * warpgroups;
  return t;
}

struct Buffers {
  CUdeviceptr q = 0, k = 0, v = 0, o = 0, lse = 0;
};

/// Q, K, V as 2-D TMA tensors of rows (every head's rows one after the
/// other); O and LSE by address. Grid: (ceil(Sq / blockM), Hq, B), or,
/// persistent, min(the work tiles ceil(Sq / blockM) * Hq * B, t.ctas).
inline void launchTile(TileKernel &t, const Problem &p, const Buffers &b,
                       CUstream stream = nullptr) {
  const tile::TensorElement e = gemm::tensorElement(p.dtype);
  tile::Tensor q(b.q, e, {int64_t(p.rowsQ()), p.dim});
  tile::Tensor k(b.k, e, {p.batch * p.kvHeads * p.seqK, p.dim});
  tile::Tensor v(b.v, e, {p.batch * p.kvHeads * p.seqK, p.dim});
  tile::LaunchConfig cfg;
  if (p.blockM != t.blockM)
    throw std::runtime_error("the problem's LSE is laid out for " + std::to_string(p.blockM) +
                             "-row CTAs, the kernel's are " + std::to_string(t.blockM));
  const int64_t blocksM = (p.seqQ + t.blockM - 1) / t.blockM;
  cfg.block = tile::Dim3(t.threads);
  cfg.stream = stream;
  const float scaleLog2 = float(p.softmaxScale() * 1.4426950408889634); // scale * log2(e)
  if (t.persistent) {
    cfg.grid = tile::Dim3(unsigned(std::min(blocksM * p.heads * p.batch, t.ctas)));
    t.kernel.launch(cfg, q, k, v, b.o, b.lse, int32_t(p.seqQ), int32_t(p.seqK), int32_t(p.heads),
                    int32_t(p.group()), int32_t(p.batch), scaleLog2);
    return;
  }
  cfg.grid = tile::Dim3(unsigned(blocksM), unsigned(p.heads), unsigned(p.batch));
  t.kernel.launch(cfg, q, k, v, b.o, b.lse, int32_t(p.seqQ), int32_t(p.seqK), int32_t(p.heads),
                  int32_t(p.group()), scaleLog2);
}

} // namespace attn
