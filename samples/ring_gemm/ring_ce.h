// The host half of the copy-engine ring (ring_gemm_ce.tile): a side stream
// that pulls the shards from their owners while the kernel computes, and
// sets the kernel's counters after each pull.
//
// Stream order (a copy cannot start inside a kernel's launch; it is ordered
// beside it):
//   kStream:  [what was queued: the barrier, the previous launch] -> record
//             `start` -> the kernel -> wait `done`
//   side:     wait `start` -> pull, set counters -> pull, set counters ... ->
//             record `done`
// The side stream is non-blocking (no implicit order with the legacy default
// stream kStream), so the pulls run while the kernel runs; both start after
// everything queued before, on this rank. Across ranks: a pull reads only
// its owner's own shard, which no launch writes (the owner computes it at
// step 0 and never receives it), so a pull needs no order against the
// owner's launches; the host writes the shards before the ranks' barrier.
// `start` follows the previous launch, whose exit protocol reset the
// counters: a counter set for this launch is never wiped by the last one.
// `done` makes the next work on kStream (a read-back, the next repetition)
// follow the last pull; the kernel itself waited for every counter, so the
// pulls are finished by then and the join costs nothing.
// The pulls are queued on the host before the kernel's launch: a launch
// that blocks the host (the runtime's first launch of a configuration
// synchronizes the context for its check across ranks) must not wait for
// a kernel whose waits need pulls not queued yet. The pulls themselves wait
// for nothing the kernel does, so a context synchronization before the
// launch only waits for them (memcheck passed this way on 4 H200s).
#pragma once

#include "ring_common.h"
#include "ring_nccl.h"

#include <tile/distributed.h>

#include <cuda_runtime.h>

#include <vector>

namespace ring {

class CeSide : public SideStream {
public:
  ~CeSide() {
    for (size_t i = 0; i < extra_.size(); ++i) {
      cudaEventDestroy(extraDone_[i]);
      cudaStreamDestroy(extra_[i]);
    }
  }
  /// One launch of the CE ring: `pulls` (cePulls) of rows of `rowElems`
  /// elements into `a` on the side stream, each followed by its counters in
  /// `sem`, beside `launch()` on kStream. `withhold` pulls at the end are
  /// left out (the planted hang of --hang-test --mode ce). Without `copies`
  /// only the counters are set (the benchmark's diagnostic, A already
  /// gathered: what the ring costs without the copy engines' traffic). With
  /// `streams` > 1 (--ce-streams) pull i and its counters go to side stream
  /// i mod `streams` (every stream after `start`, the kernel's stream after
  /// every one): the pieces of a shard cross at once, each stream's per-copy
  /// latency beside the others'.
  template <class Launch>
  void run(const std::vector<CePull> &pulls, size_t rowElems,
           const tile::SymmetricBuffer<uint16_t> &a, const tile::Semaphores &sem, Launch launch,
           size_t withhold = 0, bool copies = true, int streams = 1) {
    streams = streams < 1 ? 1 : streams;
    while (int(extra_.size()) + 1 < streams) {
      cudaStream_t s = nullptr;
      cudaEvent_t e = nullptr;
      SAMPLE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      SAMPLE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      extra_.push_back(s);
      extraDone_.push_back(e);
    }
    auto stream = [&](size_t i) { return i == 0 ? side_ : extra_[i - 1]; };
    SAMPLE_CUDA_CHECK(cudaEventRecord(start_, kStream));
    for (int i = 0; i < streams; ++i)
      SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(stream(size_t(i)), start_, 0));
    const size_t n = withhold < pulls.size() ? pulls.size() - withhold : 0;
    for (size_t i = 0; i < n; ++i) {
      const CePull &q = pulls[i];
      cudaStream_t s = stream(i % size_t(streams));
      if (copies)
        a.pullAsync(q.peer, size_t(q.firstRow) * rowElems, size_t(q.rows) * rowElems, s);
      for (int64_t b = q.firstBlock; b < q.firstBlock + q.blocks; ++b)
        sem.setAsync(uint32_t(b), 1, s);
    }
    SAMPLE_CUDA_CHECK(cudaEventRecord(done_, side_));
    for (int i = 1; i < streams; ++i)
      SAMPLE_CUDA_CHECK(cudaEventRecord(extraDone_[size_t(i - 1)], extra_[size_t(i - 1)]));
    launch();
    SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(kStream, done_, 0));
    for (int i = 1; i < streams; ++i)
      SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(kStream, extraDone_[size_t(i - 1)], 0));
  }

private:
  std::vector<cudaStream_t> extra_; // side streams 1 .. streams-1 (--ce-streams)
  std::vector<cudaEvent_t> extraDone_;
};

} // namespace ring
