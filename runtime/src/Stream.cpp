//===- Stream.cpp - streams and event timers ------------------------------===//
#include "RuntimeState.h"
#include "tile/runtime.h"

namespace tile {

Stream::Stream(unsigned flags) { TILE_CU(cuStreamCreate, &s_, flags); }
Stream::~Stream() {
  const detail::Driver &d = detail::driver();
  if (s_ && d.api.cuStreamDestroy)
    d.api.cuStreamDestroy(s_);
  if (s_)
    detail::forgetStream(s_);
}
void Stream::synchronize() {
  detail::checkAfterKernels(TILE_CU_RAW(cuStreamSynchronize, s_), "cuStreamSynchronize", true,
                            detail::Scope::ThisStream, s_);
}

EventTimer::EventTimer() {
  TILE_CU(cuEventCreate, &start_, CU_EVENT_DEFAULT);
  try {
    TILE_CU(cuEventCreate, &stop_, CU_EVENT_DEFAULT);
  } catch (...) {
    TILE_CU_RAW(cuEventDestroy, start_);
    throw;
  }
}
EventTimer::~EventTimer() {
  const detail::Driver &d = detail::driver();
  if (!d.api.cuEventDestroy)
    return;
  if (start_)
    d.api.cuEventDestroy(start_);
  if (stop_)
    d.api.cuEventDestroy(stop_);
}
void EventTimer::start(CUstream stream) {
  detail::checkAfterKernels(TILE_CU_RAW(cuEventRecord, start_, stream), "cuEventRecord", false,
                            detail::Scope::ThisStream, stream);
}
float EventTimer::stopMs(CUstream stream) {
  detail::checkAfterKernels(TILE_CU_RAW(cuEventRecord, stop_, stream), "cuEventRecord", false,
                            detail::Scope::ThisStream, stream);
  detail::checkAfterKernels(TILE_CU_RAW(cuEventSynchronize, stop_), "cuEventSynchronize", true,
                            detail::Scope::ThisStream, stream);
  float ms = 0;
  TILE_CU(cuEventElapsedTime, &ms, start_, stop_);
  return ms;
}

} // namespace tile
