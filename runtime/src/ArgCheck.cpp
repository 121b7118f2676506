//===- ArgCheck.cpp - launch arguments against kernel parameters ----------===//
//
// Launch arguments against the kernel's parameters. cuLaunchKernelEx copies exactly
// the parameter's size from each kernelParams[i] and cannot tell how big the host
// object behind it is, so an int32_t passed for an i64 parameter reads 4 bytes past
// the argument (garbage in the high half) and a missing argument reads past the
// array: both silently wrong. The count and sizes are checked before launching.
//===----------------------------------------------------------------------===//
#include <cctype>

#include "PtxFacts.h"
#include "tile/error.h"
#include "tile/launch.h"

namespace tile {
namespace {

std::string paramLabel(size_t i, const KernelParam &p) {
  std::string s = "parameter " + std::to_string(i);
  if (!p.name.empty())
    s += " ('" + p.name + "')";
  return s;
}

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// What to pass for a parameter of `size` bytes.
std::string sizeHint(size_t size) {
  switch (size) {
  case 1:
    return "int8_t or uint8_t";
  case 2:
    return "int16_t or uint16_t";
  case 4:
    return "int32_t, uint32_t or float";
  case 8:
    return "int64_t, uint64_t, double, a CUdeviceptr or a DeviceBuffer";
  default:
    return "a trivially copyable struct of " + std::to_string(size) + " bytes";
  }
}

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

// The name in one parameter declaration: the last identifier, ignoring an array
// suffix (".param .align 8 .b8 p[16]" -> "p").
std::string declaredName(const std::string &decl) {
  size_t end = decl.find('[');
  if (end == std::string::npos)
    end = decl.size();
  while (end > 0 && !isIdentChar(decl[end - 1]))
    --end;
  size_t begin = end;
  while (begin > 0 && isIdentChar(decl[begin - 1]))
    --begin;
  return decl.substr(begin, end - begin);
}

} // namespace

std::string checkArguments(const std::string &kernel, const size_t *argSizes, size_t argCount,
                           const std::vector<KernelParam> &params) {
  const auto k = [&] { return "kernel '" + kernel + "': "; }; // for a refusal only
  if (argCount < params.size()) {
    const KernelParam &p = params[argCount];
    return k() + plural(argCount, "argument") + " given but the kernel takes " +
           plural(params.size(), "parameter") + "; " + paramLabel(argCount, p) + " (" +
           plural(p.size, "byte") + ") has no argument";
  }
  if (argCount > params.size())
    return k() + plural(argCount, "argument") + " given but the kernel takes " +
           plural(params.size(), "parameter") + "; argument " + std::to_string(params.size()) +
           " (" + plural(argSizes[params.size()], "byte") + ") has no parameter";
  for (size_t i = 0; i < argCount; ++i) {
    if (argSizes[i] == params[i].size)
      continue;
    return k() + "argument " + std::to_string(i) + " is " + plural(argSizes[i], "byte") + " but " +
           paramLabel(i, params[i]) + " is " + plural(params[i].size, "byte") + " (pass " +
           sizeHint(params[i].size) + ")";
  }
  return {};
}

void validateArguments(const std::string &kernel, const size_t *argSizes, size_t argCount,
                       const std::vector<KernelParam> &params) {
  std::string msg = checkArguments(kernel, argSizes, argCount, params);
  if (!msg.empty())
    throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, kernel, msg);
}

std::vector<std::string> ptxParamNames(const std::string &ptxText, const std::string &kernel) {
  if (kernel.empty())
    return {};
  const std::string ptx = detail::blankComments(ptxText);
  for (size_t at = ptx.find(".entry"); at != std::string::npos; at = ptx.find(".entry", at + 1)) {
    size_t i = at + 6;
    if (i >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[i])))
      continue;
    while (i < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[i])))
      ++i;
    if (ptx.compare(i, kernel.size(), kernel) != 0)
      continue;
    i += kernel.size();
    if (i < ptx.size() && isIdentChar(ptx[i]))
      continue; // a longer name with this prefix
    while (i < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[i])))
      ++i;
    if (i >= ptx.size() || ptx[i] != '(')
      return {}; // no parameter list
    size_t close = ptx.find(')', i);
    if (close == std::string::npos)
      return {};
    std::vector<std::string> names;
    std::string list = ptx.substr(i + 1, close - i - 1);
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos)
        comma = list.size();
      std::string name = declaredName(list.substr(start, comma - start));
      if (!name.empty())
        names.push_back(name);
      start = comma + 1;
    }
    return names;
  }
  return {};
}

} // namespace tile
