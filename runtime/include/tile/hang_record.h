// tile/hang_record.h - the hang record, shared by tilec and the runtime.
//
// tilec --debug-hangs bounds every wait; when one times out, the kernel
// reports it and traps. In a kernel without mma the report is the device
// printf (vprintf). In a kernel with mma it cannot be: any call in the
// function makes ptxas serialise every wgmma (advisory C7510), so the timed-out
// thread instead writes a *hang record* into host memory the runtime mapped
// for the module, and the runtime prints it once the launch has failed (the
// error of the call that reports the fault, or at exit).
//
// The module's side (tilec, DebugToNVVM.cpp):
//   .visible .global .align 8 .u64 tile$hang_record;  the record's device address
//       (0: no runtime set it, the kernel just traps)
//   .visible .global .align 1 .b8 tile$hang_msg$N[...];  report N's printf
//       format (%d %i %u %x, %lld %llu %llx, %%), NUL-terminated
// The record: kHangRecordWords u64 words,
//   [0] kHangRecordMagic, written last (after a fence.sc.sys)
//   [1] N, the report's index      [2] the number of arguments (<= kHangRecordMaxArgs)
//   [3 + i] argument i, sign-extended to 64 bits
// One thread per launch writes it (the first to claim it); the others that
// time out wait until it is written, then trap too.
#pragma once

#include <cstdint>

namespace tile::hang {

inline constexpr const char *kRecordSymbol = "tile$hang_record";
inline constexpr const char *kMessagePrefix = "tile$hang_msg$";
/// "tilhang" in little-endian bytes; the high bit clear, so PTX takes it as
/// a plain 64-bit literal.
inline constexpr uint64_t kHangRecordMagic = 0x676e61686c6974ull;
inline constexpr int kHangRecordMaxArgs = 16;
inline constexpr int kHangRecordWords = 3 + kHangRecordMaxArgs;

} // namespace tile::hang
