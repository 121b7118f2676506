//===- FastMath.h - the PTX forms of the fast (`approx`) math ---*- C++ -*-===//
//
// The choices that the scalar builtins (mlirgen/MLIRGenMath.cpp) and the
// fragment math (conversion/FragmentToNVVM.cpp) share, written once.
// Header-only, no dependency.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_FASTMATH_H
#define TILEC_TARGET_FASTMATH_H

#include <string>
#include <string_view>

namespace tile::target {

/// The fast exp2 in f32 (`approx = true` on exp2, and on exp as
/// exp2(x * log2(e))): ex2.approx.ftz.f32 (PTX ISA 9.7.4.8 ex2), which ptxas
/// emits as one MUFU.EX2. ex2.approx.f32 without .ftz costs three more SASS
/// instructions per call (an FSETP and two predicated FMULs rescaling around
/// MUFU.EX2 to produce subnormal results): in a softmax, where every score
/// takes one FFMA, one MUFU.EX2, one FMNMX and one FADD, that is more than
/// half again. The results differ only below 2^-126 (x < -126): +0 instead
/// of a subnormal; a subnormal input gives 1 either way. The other .approx
/// functions keep the form without .ftz: there it would change the results
/// of subnormal inputs (lg2 of one would be -inf).
inline constexpr const char *kFastExp2F32Intrinsic = "llvm.nvvm.ex2.approx.ftz.f32";

/// The libdevice function computing C's single-precision `name` (log1p,
/// atan2, fmod, ...): __nv_<name>f, which is what nvcc builds for
/// <name>f (libdevice's naming: the C name, `f` for float, `__nv_` before).
inline std::string libdeviceF32Name(std::string_view name) {
  return "__nv_" + std::string(name) + "f";
}

} // namespace tile::target

#endif
