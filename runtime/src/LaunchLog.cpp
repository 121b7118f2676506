//===- LaunchLog.cpp - which kernel to blame for an asynchronous fault ----===//
//
// A kernel's faults are reported asynchronously, by whatever call synchronizes
// next (or by any later call, for the sticky ones), so that error names the
// kernel most likely at fault rather than nothing.
//===----------------------------------------------------------------------===//
#include "RuntimeState.h"

#include "tile/runtime.h"

#include <mutex>
#include <unordered_map>

namespace tile::detail {
namespace {

/// The last kernel launched through the runtime, overall and per stream.
struct LaunchLog {
  std::mutex mu;
  std::string last;
  std::unordered_map<CUstream, std::string> byStream;
};
LaunchLog &launchLog() {
  static LaunchLog *log = new LaunchLog; // never destroyed: used by destructors at exit
  return *log;
}

} // namespace

void noteLaunch(CUstream stream, const std::string &kernel) {
  LaunchLog &log = launchLog();
  std::lock_guard<std::mutex> lock(log.mu);
  log.last = kernel;
  log.byStream[stream] = kernel;
}

void forgetStream(CUstream stream) {
  LaunchLog &log = launchLog();
  std::lock_guard<std::mutex> lock(log.mu);
  log.byStream.erase(stream);
}

std::string lastKernel(Scope scope, CUstream stream) {
  LaunchLog &log = launchLog();
  std::lock_guard<std::mutex> lock(log.mu);
  if (scope == Scope::AnyStream)
    return log.last;
  auto it = log.byStream.find(stream);
  return it == log.byStream.end() ? std::string() : it->second;
}

bool isKernelFault(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    return true;
  default:
    return false;
  }
}

void checkAfterKernels(CUresult r, const char *call, bool synchronizing, Scope scope,
                       CUstream stream) {
  if (r == CUDA_SUCCESS)
    return;
  std::string kernel;
  if (synchronizing || isKernelFault(r))
    kernel = lastKernel(scope, stream);
  // A --debug-hangs trap of a kernel that could not print: its report.
  std::string hang = isKernelFault(r) ? takeHangReports() : std::string();
  while (!hang.empty() && hang.back() == '\n')
    hang.pop_back();
  if (kernel.empty() && hang.empty())
    throw Error(call, static_cast<int>(r));
  throw Error(call, static_cast<int>(r), kernel,
              (kernel.empty() ? std::string()
                              : std::string("the last kernel launched") +
                                    (scope == Scope::ThisStream ? " on this stream" : "") +
                                    " before this call (a kernel's faults are reported by a "
                                    "later call)") +
                  (hang.empty() ? std::string() : (kernel.empty() ? "" : "\n") + hang));
}

} // namespace tile::detail
