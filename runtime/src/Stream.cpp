//===- Stream.cpp - streams and event timers ------------------------------===//
#include "RuntimeState.h"
#include "tile/runtime.h"

namespace tile {

namespace detail {
StreamState::~StreamState() {
  const Driver &d = driver();
  if (stream && d.api.cuStreamDestroy) {
    ScopedContext current(ctx.get());
    d.api.cuStreamDestroy(stream);
  }
  if (stream)
    forgetStream(stream);
}

namespace {
std::shared_ptr<StreamState> createStream(std::shared_ptr<ContextState> ctx, unsigned flags) {
  auto s = std::make_shared<StreamState>();
  s->ctx = std::move(ctx);
  ScopedContext current(s->ctx.get());
  CUresult r = TILE_CU_RAW(cuStreamCreate, &s->stream, flags);
  if (r == CUDA_ERROR_INVALID_CONTEXT && !s->ctx)
    throw Error("cuStreamCreate", r, {},
                "no tile::Context is alive on this thread: construct one (or call makeCurrent() "
                "on one) before creating a tile::Stream, or pass the Context");
  check(r, "cuStreamCreate");
  return s;
}
} // namespace
} // namespace detail

Stream::Stream(unsigned flags) : s_(detail::createStream(detail::currentContext(), flags)) {}
Stream::Stream(const Context &ctx, unsigned flags) : s_(detail::createStream(ctx.state(), flags)) {}
Stream::~Stream() = default;
CUstream Stream::raw() const { return s_ ? s_->stream : nullptr; }
void Stream::synchronize() {
  if (!s_)
    throw Error::withMessage("Stream::synchronize", CUDA_ERROR_INVALID_HANDLE, {},
                             "Stream::synchronize: this tile::Stream is empty (moved from)");
  detail::checkAfterKernels(TILE_CU_RAW(cuStreamSynchronize, s_->stream), "cuStreamSynchronize",
                            true, detail::Scope::ThisStream, s_->stream);
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
