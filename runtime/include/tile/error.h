//===- error.h - the runtime's exception and CUresult names -----*- C++ -*-===//
#pragma once

#include <stdexcept>
#include <string>

namespace tile {

// Every failure of the runtime (CUDA driver errors, a missing driver, launch checks,
// cache/IO misuse) is reported as a tile::Error.
//
// For a CUDA error, what() reads
//   "<call> failed: <CUDA_ERROR_NAME> (<code>): <description>[ [kernel '<name>']][: <extra>]"
// e.g. "cuLaunchKernelEx failed: CUDA_ERROR_INVALID_VALUE (1): invalid argument [kernel 'vadd']".
// For a launch-check failure (no CUDA call was made) what() is the check's message,
// e.g. "kernel 'histogram': cluster of 16 CTAs exceeds the portable limit of 8
// (set allowNonPortableCluster)", call() is "Kernel::launch" and code() is
// CUDA_ERROR_INVALID_VALUE.
class Error : public std::runtime_error {
public:
  // A CUDA driver error: the message is formatted from the parts (see above).
  Error(std::string call, int code, std::string kernel = {}, std::string extra = {});
  // A runtime-detected error with a ready-made message.
  static Error withMessage(std::string call, int code, std::string kernel, std::string message);

  const std::string &call() const { return call_; }
  int code() const { return code_; } // a CUresult value
  const std::string &errorName() const { return errorName_; }
  const std::string &kernel() const { return kernel_; }
  const std::string &description() const { return description_; }

  // The message the (call, code, kernel, extra) constructor produces.
  static std::string format(const std::string &call, int code, const std::string &kernel,
                            const std::string &extra);

private:
  Error(std::string call, int code, std::string kernel, std::string what, int);
  std::string call_;
  int code_;
  std::string errorName_;
  std::string kernel_;
  std::string description_;
};

// "CUDA_ERROR_INVALID_VALUE" for 1, "CUDA_SUCCESS" for 0, "CUDA_ERROR_<code>" when unknown.
// Works without a driver (static table generated from cuda.h).
std::string errorName(int code);
// Short description; uses cuGetErrorString when the driver is loaded, else the table.
std::string errorDescription(int code);
// True when errorName(code) comes from the table.
bool isKnownError(int code);

} // namespace tile
