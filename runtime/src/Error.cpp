//===- Error.cpp - tile::Error and the CUresult name table ----------------===//
#include "tile/error.h"

#include <cstring>

#include "Driver.h"

namespace tile {
namespace {

struct ErrorEntry {
  int code;
  const char *name;
  const char *description;
};

const ErrorEntry kErrorTable[] = {
#include "ErrorTable.inc"
};

const ErrorEntry *findError(int code) {
  for (const ErrorEntry &e : kErrorTable)
    if (e.code == code)
      return &e;
  return nullptr;
}

} // namespace

std::string errorName(int code) {
  if (const ErrorEntry *e = findError(code))
    return e->name;
  return "CUDA_ERROR_" + std::to_string(code);
}

bool isKnownError(int code) { return findError(code) != nullptr; }

std::string errorDescription(int code) {
  // Prefer the driver's own wording when it is loaded (never load it just for this
  // from a destructor path: driver() is cheap once loaded and never throws).
  const detail::Driver &d = detail::driver();
  if (d.handle && d.api.cuGetErrorString) {
    const char *s = nullptr;
    if (d.api.cuGetErrorString(static_cast<CUresult>(code), &s) == CUDA_SUCCESS && s && *s)
      return s;
  }
  if (const ErrorEntry *e = findError(code))
    return e->description;
  return "unrecognized CUDA error code";
}

std::string Error::format(const std::string &call, int code, const std::string &kernel,
                          const std::string &extra) {
  std::string m = call + " failed: " + tile::errorName(code) + " (" + std::to_string(code) +
                  "): " + errorDescription(code);
  if (!kernel.empty())
    m += " [kernel '" + kernel + "']";
  if (!extra.empty())
    m += ": " + extra;
  return m;
}

Error::Error(std::string call, int code, std::string kernel, std::string extra)
    : Error(call, code, kernel, format(call, code, kernel, extra), 0) {}

Error::Error(std::string call, int code, std::string kernel, std::string what, int)
    : std::runtime_error(what), call_(std::move(call)), code_(code),
      errorName_(tile::errorName(code)), kernel_(std::move(kernel)),
      description_(errorDescription(code)) {}

Error Error::withMessage(std::string call, int code, std::string kernel, std::string message) {
  return Error(std::move(call), code, std::move(kernel), std::move(message), 0);
}

} // namespace tile
