//===- CudaNames.cpp - what CUDA C++'s names are in tile ---------------------===//
//
// The one table of CUDA C++ names (and Triton's, and a few other APIs')
// and their tile forms (CudaNames.h). Each entry is checked by
// tests/unit/frontend/CudaNamesTest.cpp; tests/lit/frontend/err-cuda-names.tile
// and err-triton-names.tile show them in programs.
//===----------------------------------------------------------------------===//
#include "CudaNames.h"
#include "tilec/frontend/AST.h"
#include "tilec/frontend/Types.h"

#include <cstring>

namespace tile::frontend {
namespace {

struct Entry {
  const char *cuda;
  const char *tile;
  const char *hint;
  const char *language = "CUDA"; // whose name `cuda` is
};

// Built-in variables. `threadIdx.x` reaches Sema as the name `threadIdx`.
const Entry kVariables[] = {
    {"threadIdx", "thread_id(0)",
     "threadIdx.x, .y, .z are thread_id(0), thread_id(1), thread_id(2) (i32)"},
    {"blockIdx", "block_id(0)",
     "blockIdx.x, .y, .z are block_id(0), block_id(1), block_id(2) (i32)"},
    {"blockDim", "block_dim(0)",
     "blockDim.x, .y, .z are block_dim(0), block_dim(1), block_dim(2); with threads(N) the "
     "block shape is the constant N"},
    {"gridDim", "grid_dim(0)", "gridDim.x, .y, .z are grid_dim(0), grid_dim(1), grid_dim(2)"},
    {"clusterIdx", "cluster_id(0)", "clusterIdx.x, .y, .z are cluster_id(0), (1), (2)"},
    {"clusterDim", "cluster_dim(0)", "clusterDim.x, .y, .z are cluster_dim(0), (1), (2)"},
    {"warpSize", "32", "a warp is 32 threads; declare `const WARP = 32` to name it"},
    {"laneId", "lane_id()", "the lane is lane_id() and the warp warp_id()"},
    {"laneid", "lane_id()", "the lane is lane_id() and the warp warp_id()"},
    {"warpId", "warp_id()", "the warp is warp_id() and the lane lane_id()"},
    // Triton's `tl.` prefix: tile's builtins are called by their own names.
    {"tl", "",
     "tile's builtins are plain functions, called without a prefix: tl.program_id(0) is "
     "block_id(0), tl.where(c, a, b) is select(c, a, b), tl.maximum(a, b) is max(a, b)",
     "Triton"},
    // C's and CUDA's constant macros (math.h, float.h, limits.h, math_constants.h).
    {"INFINITY", "inf", "`inf` and `nan` are float literals typed by their context: `-inf`, `inf as f16`"},
    {"HUGE_VALF", "inf", "`inf` and `nan` are float literals typed by their context: `-inf`, `inf as f16`"},
    {"CUDART_INF_F", "inf", "`inf` and `nan` are float literals typed by their context: `-inf`, `inf as f16`"},
    {"NAN", "nan", "`nan` is the quiet NaN, a float literal typed by its context"},
    {"CUDART_NAN_F", "nan", "`nan` is the quiet NaN, a float literal typed by its context"},
    {"NaN", "nan", "`nan` is the quiet NaN, a float literal typed by its context"},
    {"FLT_MAX", "3.4028235e38", "the largest finite f32; declare `const FLT_MAX: f32 = 3.4028235e38` to name it"},
    {"FLT_MIN", "1.17549435e-38", "the smallest normal f32; declare `const FLT_MIN: f32 = 1.17549435e-38` to name it"},
    {"FLT_EPSILON", "1.1920929e-7", "2^-23; declare `const FLT_EPSILON: f32 = 1.1920929e-7` to name it"},
    {"DBL_MAX", "1.7976931348623157e308", "the largest finite f64; declare `const DBL_MAX: f64 = 1.7976931348623157e308` to name it"},
    {"INT_MAX", "2147483647", "declare `const INT_MAX: i32 = 2147483647` to name it"},
    {"INT_MIN", "-2147483648", "declare `const INT_MIN: i32 = -2147483648` to name it"},
    {"UINT_MAX", "4294967295", "declare `const UINT_MAX: u32 = 4294967295` to name it"},
    {"M_PI", "3.141592653589793", "declare `const PI = 3.141592653589793` (f32 unless typed) to name it"},
    {"CUDART_PI_F", "3.14159265", "declare `const PI: f32 = 3.14159265` to name it"},
    {"M_LOG2E", "1.4426950408889634", "declare `const LOG2E = 1.4426950408889634` to name it; exp(x) is exp2(x * LOG2E)"},
};

// Device functions and intrinsics. The hint maps the arguments: CUDA's
// warp intrinsics take the mask first, tile's a named `mask =` (default: the
// full warp); CUDA's atomics take an address, tile's an element.
const Entry kFunctions[] = {
    {"__syncthreads", "sync_threads()", "sync_threads() is the block's barrier (bar.sync 0)"},
    {"__syncthreads_count", "sync_threads_count(p)",
     "sync_threads_count(p) is the block's barrier that also counts the threads whose p is true "
     "(bar.red.popc)"},
    {"__syncthreads_and", "sync_threads_and(p)",
     "sync_threads_and(p) is the block's barrier that also tells whether p is true in every "
     "thread (bar.red.and)"},
    {"__syncthreads_or", "sync_threads_or(p)",
     "sync_threads_or(p) is the block's barrier that also tells whether p is true in any thread "
     "(bar.red.or)"},
    {"sizeof", "size_of(T)",
     "size_of(T) is a type's size in bytes, a compile-time constant; it takes a type (a type "
     "parameter or a scalar type such as f16), not a value"},
    {"__syncwarp", "sync_warp()", "sync_warp(mask = m) waits for the lanes of m (default: all)"},
    // Misremembered spellings of the barriers and warp intrinsics.
    {"sync", "sync_threads()",
     "sync_threads() is the block's barrier (bar.sync 0), CUDA's "
     "__syncthreads(); sync_warp() is a warp's",
     "tile"},
    {"barrier", "sync_threads()",
     "barrier(CLK_LOCAL_MEM_FENCE) is sync_threads(), the block's barrier (bar.sync 0)", "OpenCL"},
    {"debug_barrier", "sync_threads()",
     "tl.debug_barrier() is sync_threads(), the block's "
     "barrier (bar.sync 0)",
     "Triton"},
    {"warp_sync", "sync_warp()", "sync_warp(mask = m) waits for the lanes of m (default: all)",
     "tile"},
    {"shfl_sync", "shfl_idx(v, src)",
     "shfl_idx(v, src, width = W, mask = M): mask and width are "
     "named and default to the full warp",
     "tile"},
    {"shfl_up_sync", "shfl_up(v, d)",
     "shfl_up(v, d, width = W, mask = M): mask and width are "
     "named and default to the full warp",
     "tile"},
    {"shfl_down_sync", "shfl_down(v, d)",
     "shfl_down(v, d, width = W, mask = M): mask and width "
     "are named and default to the full warp",
     "tile"},
    {"shfl_xor_sync", "shfl_xor(v, m)",
     "shfl_xor(v, m, width = W, mask = M): mask and width are "
     "named and default to the full warp",
     "tile"},
    {"warp_size", "32", "a warp is 32 threads; declare `const WARP = 32` to name it", "tile"},
    {"lane", "lane_id()", "the lane is lane_id() and the warp warp_id()", "tile"},
    {"num_threads", "block_dim(0)",
     "block_dim(0), (1), (2) are the block's extents; with "
     "threads(N) the block shape is the constant N",
     "tile"},
    {"sync_block", "sync_threads()", "sync_threads() is the block's barrier (bar.sync 0)", "tile"},
    {"atomic_sub", "atomic_add(p[i], -v)", "subtract by adding the negated value", "tile"},
    {"atomic_inc", "atomic_add(p[i], 1)",
     "an increment is atomic_add(p[i], 1) (CUDA's "
     "atomicInc(p, limit) also wraps at limit; tile has no wrapping increment)",
     "tile"},
    {"warp_reduce_sum", "redux_add(v)",
     "redux_add(v) sums over the warp: one redux.sync for i32 or u32, a "
     "butterfly of shuffles for f32",
     "tile"},
    {"exp_approx", "exp(x, approx = true)",
     "the approximate math functions are the builtins' "
     "`approx = true` (ex2.approx), or every call with tilec --fast-math",
     "tile"},
    {"rcp", "1.0 / x", "a reciprocal is `1.0 / x` (IEEE, round to nearest)", "tile"},
    {"float2half", "x as f16", "conversions are `as`: round to nearest even", "tile"},
    {"relu", "max(x, 0.0)",
     "max is IEEE maxNum, so a NaN x gives 0.0; torch.relu keeps the "
     "NaN, as `select(x < 0.0, 0.0, x)` does",
     "PyTorch"},
    // OpenCL's work-item functions.
    {"get_local_id", "thread_id(0)", "get_local_id(0), (1), (2) are thread_id(0), (1), (2)",
     "OpenCL"},
    {"get_group_id", "block_id(0)", "get_group_id(0), (1), (2) are block_id(0), (1), (2)",
     "OpenCL"},
    {"get_local_size", "block_dim(0)", "get_local_size(0), (1), (2) are block_dim(0), (1), (2)",
     "OpenCL"},
    {"get_global_id", "block_id(0) * block_dim(0) + thread_id(0)",
     "or `for i in grid_range(n)` to spread 0 .. n-1 over the grid", "OpenCL"},
    // Triton's tl functions (a Triton program is a CTA; its block of values
    // is spread over the CTA's threads, one or more elements per thread).
    {"program_id", "block_id(0)",
     "a Triton program is a CTA: tl.program_id(0), (1), (2) are "
     "block_id(0), block_id(1), block_id(2) (i32)",
     "Triton"},
    {"num_programs", "grid_dim(0)",
     "tl.num_programs(0), (1), (2) are grid_dim(0), grid_dim(1), "
     "grid_dim(2)",
     "Triton"},
    {"where", "select(c, a, b)",
     "tl.where(c, a, b) is select(c, a, b), with c an i1 (a "
     "comparison)",
     "Triton"},
    {"maximum", "max(a, b)",
     "tl.maximum and tl.minimum are max and min (IEEE maxNum and minNum "
     "on floats)",
     "Triton"},
    {"minimum", "min(a, b)",
     "tl.maximum and tl.minimum are max and min (IEEE maxNum and minNum "
     "on floats)",
     "Triton"},
    {"cdiv", "(a + b - 1) / b",
     "for a >= 0 and b > 0; declare `fn cdiv(a: i32, b: i32) -> i32` "
     "to name it",
     "Triton"},
    {"sigmoid", "1.0 / (1.0 + exp(-x))", "exp(-x, approx = true) for ex2.approx", "Triton"},
    {"dot", "mma(a, trans(b), acc)",
     "tl.dot(a, b, acc) is `acc = mma(a, b, acc)`: a and b "
     "shared tiles (trans(b) for a B stored [N, K]), acc a frag<f32>[M, N] of a warpgroup "
     "(docs/reference/mma.md)",
     "Triton"},
    {"sum", "row_sum(f)",
     "row_sum(f) and row_max(f) reduce a fragment's rows; a warp's sum is "
     "redux_add(v) (i32, u32 and f32)",
     "Triton"},
    {"arange", "",
     "a tile kernel is written per thread: tl.arange(0, BLOCK)'s element is the "
     "thread's own index, thread_id() (or a `for k in 0 .. N` loop over a thread's elements)",
     "Triton"},
    {"rand", "",
     "tile has no random numbers: hash the element's index with a seed (integer "
     "multiplies, xors and shifts on u32), as tl.rand's Philox does",
     "Triton"},
    {"matmul", "mma(a, trans(b), acc)",
     "a warpgroup's product of shared tiles is `acc = mma(a, "
     "b, acc)` (docs/reference/mma.md)",
     "PyTorch"},
    {"mm", "mma(a, trans(b), acc)",
     "a warpgroup's product of shared tiles is `acc = mma(a, b, "
     "acc)` (docs/reference/mma.md)",
     "PyTorch"},
    {"gemm", "mma(a, trans(b), acc)",
     "a warpgroup's product of shared tiles is `acc = mma(a, b, "
     "acc)` (docs/reference/mma.md)",
     "cuBLAS"},
    {"wgmma", "mma(a, trans(b), acc)",
     "the compiler places wgmma.fence, the wgmmas, commit_group "
     "and wait_group of `acc = mma(a, b, acc)` (docs/reference/mma.md)",
     "PTX"},
    {"row_index", "frag_row(f)",
     "frag_row(f) and frag_col(f) are a fragment's i32 row and column "
     "indices",
     "tile"},
    {"row_idx", "frag_row(f)",
     "frag_row(f) and frag_col(f) are a fragment's i32 row and column "
     "indices",
     "tile"},
    {"col_index", "frag_col(f)",
     "frag_row(f) and frag_col(f) are a fragment's i32 row and column "
     "indices",
     "tile"},
    {"col_idx", "frag_col(f)",
     "frag_row(f) and frag_col(f) are a fragment's i32 row and column "
     "indices",
     "tile"},
    {"__shfl_sync", "shfl_idx(v, src)",
     "__shfl_sync(mask, v, src, width) is shfl_idx(v, src, width = W, mask = M); mask and width "
     "are named and default to the full warp"},
    {"__shfl_up_sync", "shfl_up(v, d)",
     "__shfl_up_sync(mask, v, d, width) is shfl_up(v, d, width = W, mask = M); mask and width are "
     "named and default to the full warp"},
    {"__shfl_down_sync", "shfl_down(v, d)",
     "__shfl_down_sync(mask, v, d, width) is shfl_down(v, d, width = W, mask = M); mask and "
     "width are named and default to the full warp"},
    {"__shfl_xor_sync", "shfl_xor(v, m)",
     "__shfl_xor_sync(mask, v, m, width) is shfl_xor(v, m, width = W, mask = M); mask and width "
     "are named and default to the full warp"},
    {"__ballot_sync", "vote_ballot(p)",
     "__ballot_sync(mask, p) is vote_ballot(p, mask = M) (an i32; p an i1: compare, `x != 0`)"},
    {"__any_sync", "vote_any(p)", "__any_sync(mask, p) is vote_any(p, mask = M)"},
    {"__all_sync", "vote_all(p)", "__all_sync(mask, p) is vote_all(p, mask = M)"},
    {"__match_any_sync", "match_any(v)", "__match_any_sync(mask, v) is match_any(v, mask = M)"},
    {"__match_all_sync", "match_all(v)",
     "__match_all_sync(mask, v, &pred) is match_all(v, mask = M): the mask when all match, else 0"},
    {"__reduce_add_sync", "redux_add(v)", "__reduce_add_sync(mask, v) is redux_add(v, mask = M)"},
    {"__reduce_min_sync", "redux_min(v)",
     "__reduce_min_sync(mask, v) is redux_min(v, mask = M): signed for an i32 v, unsigned for a u32 "
     "(CUDA's two overloads)"},
    {"__reduce_max_sync", "redux_max(v)",
     "__reduce_max_sync(mask, v) is redux_max(v, mask = M): signed for an i32 v, unsigned for a u32 "
     "(CUDA's two overloads)"},
    {"__reduce_and_sync", "redux_and(v)", "__reduce_and_sync(mask, v) is redux_and(v, mask = M)"},
    {"__reduce_or_sync", "redux_or(v)", "__reduce_or_sync(mask, v) is redux_or(v, mask = M)"},
    {"__reduce_xor_sync", "redux_xor(v)", "__reduce_xor_sync(mask, v) is redux_xor(v, mask = M)"},
    {"__activemask", "vote_ballot(true)",
     "the lanes that reach a point are vote_ballot(true, mask = M) for a mask M they all know"},
    {"__lanemask_lt", "lanemask_lt()", "also lanemask_le/eq/ge/gt()"},
    {"atomicAdd", "atomic_add(p[i], v)",
     "atomicAdd(&p[i], v) is atomic_add(p[i], v): the element, not its address (returns the old "
     "value; used as a statement it is a red)"},
    {"atomicSub", "atomic_add(p[i], -v)", "subtract by adding the negated value"},
    {"atomicMin", "atomic_min(p[i], v)", "atomicMin(&p[i], v) is atomic_min(p[i], v)"},
    {"atomicMax", "atomic_max(p[i], v)", "atomicMax(&p[i], v) is atomic_max(p[i], v)"},
    {"atomicExch", "atomic_exch(p[i], v)", "atomicExch(&p[i], v) is atomic_exch(p[i], v)"},
    {"atomicCAS", "atomic_cas(p[i], compare, v)",
     "atomicCAS(&p[i], compare, v) is atomic_cas(p[i], compare, v)"},
    {"atomicAnd", "atomic_and(p[i], v)", "atomicAnd(&p[i], v) is atomic_and(p[i], v)"},
    {"atomicOr", "atomic_or(p[i], v)", "atomicOr(&p[i], v) is atomic_or(p[i], v)"},
    {"atomicXor", "atomic_xor(p[i], v)", "atomicXor(&p[i], v) is atomic_xor(p[i], v)"},
    {"__threadfence", "fence(scope = gpu)",
     "__threadfence_block() is fence(scope = cta), "
     "__threadfence_system() fence(scope = sys)"},
    {"__threadfence_block", "fence(scope = cta)", "__threadfence() is fence(scope = gpu)"},
    {"__threadfence_system", "fence(scope = sys)", "__threadfence() is fence(scope = gpu)"},
    {"__ldg", "load(p[i], cache = nc)",
     "__ldg(&p[i]) is load(p[i], cache = nc): the read-only path, for data nothing writes while "
     "the kernel runs"},
    {"__ldcs", "load(p[i], cache = cs)", "the cache operators are load's `cache =` argument"},
    {"__ldcg", "load(p[i], cache = cg)", "the cache operators are load's `cache =` argument"},
    {"__stcs", "store(p[i], v, cache = cs)", "the cache operators are store's `cache =` argument"},
    {"__stcg", "store(p[i], v, cache = cg)", "the cache operators are store's `cache =` argument"},
    {"__expf", "exp(x, approx = true)", "expf(x) is exp(x) (libdevice, 2 ulp)"},
    {"__exp2f", "exp2(x, approx = true)", "exp2f(x) is exp2(x)"},
    {"expf", "exp(x)", "__expf(x) is exp(x, approx = true)"},
    {"exp2f", "exp2(x)", "__exp2f(x) is exp2(x, approx = true)"},
    {"logf", "log(x)", "__logf(x) is log(x, approx = true)"},
    {"sqrtf", "sqrt(x)", "sqrt is correctly rounded; sqrt(x, approx = true) is sqrt.approx"},
    {"rsqrtf", "rsqrt(x)", "rsqrt(x, approx = true) is rsqrt.approx"},
    {"sinf", "sin(x)", "__sinf(x) is sin(x, approx = true)"},
    {"cosf", "cos(x)", "__cosf(x) is cos(x, approx = true)"},
    {"tanhf", "tanh(x)", "tanh(x, approx = true) is tanh.approx"},
    {"__logf", "log(x, approx = true)", "logf(x) is log(x)"},
    {"__log2f", "log2(x, approx = true)", "log2f(x) is log2(x)"},
    {"log2f", "log2(x)", "__log2f(x) is log2(x, approx = true)"},
    {"__sinf", "sin(x, approx = true)", "sinf(x) is sin(x)"},
    {"__cosf", "cos(x, approx = true)", "cosf(x) is cos(x)"},
    {"__tanhf", "tanh(x, approx = true)", "tanhf(x) is tanh(x)"},
    {"__fsqrt_rn", "sqrt(x)", "sqrt is correctly rounded; sqrt(x, approx = true) is sqrt.approx"},
    {"__frsqrt_rn", "rsqrt(x)",
     "__frsqrt_rn is correctly rounded; rsqrt(x) is rcp.rn(sqrt.rn(x)), two roundings (within "
     "1.5 ulp), and rsqrt(x, approx = true) is rsqrt.approx"},
    {"__fdividef", "x / y", "division is the operator `/` (IEEE, round to nearest)"},
    {"__fdiv_rn", "x / y", "division is the operator `/` (IEEE, round to nearest)"},
    {"__frcp_rn", "1.0 / x", "a reciprocal is `1.0 / x`"},
    {"__fadd_rn", "x + y", "tilec --fmad=false keeps every product and sum rounded on its own"},
    {"__fmul_rn", "x * y", "tilec --fmad=false keeps every product and sum rounded on its own"},
    {"__fmaf_rn", "fma(a, b, c)", "fma is always fused (one rounding)"},
    {"fmaf", "fma(a, b, c)", "fma is always fused (one rounding)"},
    {"fabsf", "abs(x)", "abs takes floats and integers"},
    {"fabs", "abs(x)", "abs takes floats and integers"},
    {"__habs", "abs(x)", "abs takes f16 and bf16 too"},
    {"fminf", "min(a, b)", "min and max are IEEE minNum/maxNum on floats, like fminf/fmaxf"},
    {"fmaxf", "max(a, b)", "min and max are IEEE minNum/maxNum on floats, like fminf/fmaxf"},
    {"fmin", "min(a, b)", "min and max are IEEE minNum/maxNum on floats, like fminf/fmaxf"},
    {"fmax", "max(a, b)", "min and max are IEEE minNum/maxNum on floats, like fminf/fmaxf"},
    {"__hmax", "max(a, b)", "min and max take f16 and bf16 values and f16x2/bf16x2 pairs"},
    {"__hmin", "min(a, b)", "min and max take f16 and bf16 values and f16x2/bf16x2 pairs"},
    {"floorf", "floor(x)", "floor, ceil, trunc, round, rint take f16, bf16, f32 and f64"},
    {"ceilf", "ceil(x)", "floor, ceil, trunc, round, rint take f16, bf16, f32 and f64"},
    {"truncf", "trunc(x)", "floor, ceil, trunc, round, rint take f16, bf16, f32 and f64"},
    {"roundf", "round(x)", "round is half away from zero, as roundf; rint(x) ties to even"},
    {"lroundf", "round(x) as i64", "round is half away from zero, as lroundf; then `as i64`"},
    {"rintf", "rint(x)", "rint rounds to nearest, ties to even, as rintf; round is half away from zero"},
    {"nearbyintf", "rint(x)",
     "rint rounds to nearest, ties to even, as nearbyintf; round is half away from zero"},
    {"nearbyint", "rint(x)",
     "rint rounds to nearest, ties to even, as nearbyint; round is half away from zero"},
    {"lrintf", "rint(x) as i64", "rint rounds to nearest, ties to even; then `as i64`"},
    {"llrintf", "rint(x) as i64", "rint rounds to nearest, ties to even; then `as i64`"},
    {"copysignf", "copysign(a, b)", "copysign takes floats of one type"},
    {"erff", "erf(x)", "erf is libdevice's erff"},
    {"powf", "pow(x, y)", "pow is libdevice's powf"},
    {"log1pf", "log1p(x)", "log1p is libdevice's log1pf (1 ulp)"},
    {"expm1f", "expm1(x)", "expm1 is libdevice's expm1f (1 ulp)"},
    {"log10f", "log10(x)", "log10 is libdevice's log10f (2 ulp)"},
    {"exp10f", "exp10(x)", "exp10 is libdevice's exp10f (2 ulp)"},
    {"cbrtf", "cbrt(x)", "cbrt is libdevice's cbrtf (1 ulp)"},
    {"atanf", "atan(x)", "atan is libdevice's atanf (2 ulp)"},
    {"asinf", "asin(x)", "asin is libdevice's asinf (2 ulp)"},
    {"acosf", "acos(x)", "acos is libdevice's acosf (2 ulp)"},
    {"sinhf", "sinh(x)", "sinh is libdevice's sinhf (3 ulp)"},
    {"coshf", "cosh(x)", "cosh is libdevice's coshf (2 ulp)"},
    {"erfcf", "erfc(x)", "erfc is libdevice's erfcf (4 ulp)"},
    {"atan2f", "atan2(y, x)", "atan2 is libdevice's atan2f (3 ulp, C's special cases)"},
    {"hypotf", "hypot(x, y)", "hypot is libdevice's hypotf (3 ulp)"},
    {"fmodf", "fmod(x, y)", "fmod is libdevice's fmodf (exact, C's special cases)"},
    {"__exp10f", "exp2(x * 3.321928, approx = true)",
     "tile's exp10 has no fast form: __exp10f's ex2 is exp2 of x * log2(10) with approx = true"},
    {"__log10f", "log2(x, approx = true) * 0.30103",
     "tile's log10 has no fast form: __log10f's lg2 is log2(x, approx = true) times log10(2)"},
    {"__powf", "exp2(y * log2(x, approx = true), approx = true)",
     "tile's pow has no fast form: for x > 0, __powf's ex2/lg2 is exp2(y * log2(x)) with "
     "approx = true on both"},
    {"__popc", "popc(x)", "popc takes i32, i64, u32, u64"},
    {"__popcll", "popc(x)", "popc takes i32, i64, u32, u64"},
    {"__clz", "clz(x)", "clz takes i32, i64, u32, u64"},
    {"__clzll", "clz(x)", "clz takes i32, i64, u32, u64"},
    {"__brev", "brev(x)", "brev takes i32, i64, u32, u64"},
    {"__umulhi", "mul_hi(a, b)", "mul_hi of two u32 is __umulhi (signed or unsigned by the type)"},
    {"__mulhi", "mul_hi(a, b)", "mul_hi of two i32 is __mulhi (signed or unsigned by the type)"},
    {"__umul64hi", "mul_hi(a, b)", "mul_hi of two u64 is __umul64hi"},
    {"__mul64hi", "mul_hi(a, b)", "mul_hi of two i64 is __mul64hi"},
    {"__float_as_int", "bitcast<i32>(x)", "bitcast<T>(x) reinterprets the bits (same size)"},
    {"__float_as_uint", "bitcast<u32>(x)", "bitcast<T>(x) reinterprets the bits (same size)"},
    {"__int_as_float", "bitcast<f32>(x)", "bitcast<T>(x) reinterprets the bits (same size)"},
    {"__uint_as_float", "bitcast<f32>(x)", "bitcast<T>(x) reinterprets the bits (same size)"},
    {"__float2half", "x as f16", "conversions are `as`: round to nearest even, as __float2half"},
    {"__float2half_rn", "x as f16", "conversions are `as`: round to nearest even"},
    {"__half2float", "x as f32", "widening conversions are exact"},
    {"__float2bfloat16", "x as bf16", "conversions are `as`: round to nearest even"},
    {"__float2bfloat16_rn", "x as bf16", "conversions are `as`: round to nearest even"},
    {"__bfloat162float", "x as f32", "widening conversions are exact"},
    {"__float22half2_rn", "v as f16x2", "v a vec<f32, 2>: `{a, b} as f16x2` converts both"},
    {"__floats2half2_rn", "{a, b} as f16x2", "build the pair with `{a, b}`, then convert it"},
    {"__half22float2", "h as vec<f32, 2>", "each half widened exactly"},
    {"__halves2half2", "{a, b}", "a pair of halves is the vector `{a, b}` (an f16x2)"},
    {"__float2int_rz", "x as i32", "float -> integer casts round toward zero and saturate"},
    {"__float2int_rn", "rint(x) as i32",
     "`as` rounds toward zero: rint first (to nearest even, as _rn; round is half away from zero)"},
    {"__float2uint_rn", "rint(x) as u32",
     "`as` rounds toward zero: rint first (to nearest even, as _rn; round is half away from zero)"},
    {"__float2ll_rn", "rint(x) as i64",
     "`as` rounds toward zero: rint first (to nearest even, as _rn; round is half away from zero)"},
    {"__double2int_rn", "rint(x) as i32",
     "`as` rounds toward zero: rint first (to nearest even, as _rn; round is half away from zero)"},
    {"__float2int_rd", "floor(x) as i32", "`as` rounds toward zero: floor first (as _rd)"},
    {"__float2int_ru", "ceil(x) as i32", "`as` rounds toward zero: ceil first (as _ru)"},
    {"__int2float_rn", "x as f32", "integer -> float casts round to nearest even"},
    {"__nv_cvt_float_to_fp8", "x as e4m3",
     "`as e4m3` / `as e5m2` round to nearest even, satfinite"},
    {"make_float2", "{a, b}", "a vector is built with `{a, b}` (a vec<f32, 2>)"},
    {"make_float4", "{a, b, c, d}", "a vector is built with `{a, b, c, d}` (a vec<f32, 4>)"},
    {"make_int2", "{a, b}", "a vector is built with `{a, b}` (a vec<i32, 2>)"},
    {"make_int4", "{a, b, c, d}", "a vector is built with `{a, b, c, d}` (a vec<i32, 4>)"},
    {"__nanosleep", "nanosleep(ns)",
     "nanosleep(ns) is nanosleep.u32: a spin-wait's backoff, at most 1 ms; it orders nothing"},
    {"clock64", "", "tile has no clock reads; time kernels from the host"},
    {"printf", "", "tile has no printf; write values to an output buffer"},
    {"assert", "", "tile has no device assert; write a flag to an output buffer"},
};

const Entry kTypes[] = {
    {"int", "i32", nullptr},
    {"int32_t", "i32", nullptr},
    {"unsigned", "u32", nullptr},
    {"uint", "u32", nullptr},
    {"uint32_t", "u32", nullptr},
    {"long", "i64", nullptr},
    {"int64_t", "i64", nullptr},
    {"uint64_t", "u64", nullptr},
    {"size_t", "u64", nullptr},
    {"short", "i16", nullptr},
    {"int16_t", "i16", nullptr},
    {"uint16_t", "u16", nullptr},
    {"char", "i8", nullptr},
    {"int8_t", "i8", nullptr},
    {"uint8_t", "u8", nullptr},
    {"float", "f32", nullptr},
    {"double", "f64", nullptr},
    {"half", "f16", nullptr},
    {"__half", "f16", nullptr},
    {"__nv_bfloat16", "bf16", nullptr},
    {"nv_bfloat16", "bf16", nullptr},
    {"bfloat16", "bf16", nullptr},
    {"__nv_fp8_e4m3", "e4m3", nullptr},
    {"__nv_fp8_e5m2", "e5m2", nullptr},
    {"half2", "f16x2", nullptr},
    {"__half2", "f16x2", nullptr},
    {"__nv_bfloat162", "bf16x2", nullptr},
    {"float2", "vec<f32, 2>", nullptr},
    {"float4", "vec<f32, 4>", nullptr},
    {"int2", "vec<i32, 2>", nullptr},
    {"int4", "vec<i32, 4>", nullptr},
    {"uint4", "vec<u32, 4>", nullptr},
    {"double2", "vec<f64, 2>", nullptr},
    {"bool", "i1", nullptr},
};

template <size_t N> const Entry *find(const Entry (&table)[N], const std::string &name) {
  for (const Entry &e : table)
    if (name == e.cuda)
      return &e;
  return nullptr;
}

} // namespace

std::optional<CudaName> cudaVariable(const std::string &name) {
  if (const Entry *e = find(kVariables, name))
    return CudaName{e->tile, e->hint, e->language};
  return std::nullopt;
}

std::vector<std::string> cudaNames() {
  std::vector<std::string> names;
  for (const Entry &e : kVariables)
    names.push_back(e.cuda);
  for (const Entry &e : kFunctions)
    names.push_back(e.cuda);
  return names;
}

std::optional<CudaName> cudaFunction(const std::string &name) {
  if (const Entry *e = find(kFunctions, name))
    return CudaName{e->tile, e->hint, e->language};
  return std::nullopt;
}

std::string cudaNameMessage(const std::string &what, const std::string &name,
                            const CudaName &found) {
  // A misremembered tile spelling (`sync`, `warp_size`) names no language.
  std::string whose = found.language == "tile" ? "" : found.language + "'s ";
  if (found.tileForm.empty())
    return "unknown " + what + " '" + name + "': tile has no equivalent of " + whose + name;
  if (whose.empty())
    return "unknown " + what + " '" + name + "': tile writes `" + found.tileForm + "`";
  return "unknown " + what + " '" + name + "': " + whose + name + " is `" + found.tileForm +
         "` in tile";
}

std::string cudaNameBuiltin(const std::string &name) {
  std::optional<CudaName> found = cudaFunction(name);
  if (!found)
    return "";
  const std::string &form = found->tileForm;
  size_t n = form.find('(');
  if (n == std::string::npos || n == 0)
    return "";
  std::string callee = form.substr(0, n);
  return builtinFromName(callee) != Builtin::Unknown ? callee : "";
}

std::optional<std::string> cTypeName(const std::string &name) {
  if (const Entry *e = find(kTypes, name))
    return std::string(e->tile);
  return std::nullopt;
}

std::optional<std::string> typeWordAsValue(const std::string &name) {
  if (scalarFromName(name) || name == "f16x2" || name == "bf16x2")
    return name;
  std::optional<std::string> c = cTypeName(name);
  if (c && !c->empty())
    return c;
  return std::nullopt;
}

std::string conversionHint(const std::string &written, const std::string &type) {
  std::string c = type == written ? "" : "; C's " + written + " is " + type;
  if (type == "i1")
    return "there is no conversion to i1: compare instead, `x != 0`" + c;
  if (type.rfind("vec<", 0) == 0 || type == "f16x2" || type == "bf16x2")
    return "a vector is built with `{a, b, ...}` (`let v: " + type + " = {a, b, ...}`) and " +
           "converted with `v as " + type + "`" + c;
  if (type == written)
    return "a conversion is written `x as " + type + "`, not `(" + written + ")x` or `" + written +
           "(x)`";
  return "a conversion is written `x as " + type + "` (C's `(" + written + ")x` and `" + written +
         "(x)`" + c + ")";
}

} // namespace tile::frontend
