// The host half of the copy-engine ring (ring_gemm_ce.tile): a side stream
// that pulls the shards from their owners while the kernel computes (or
// pushes this rank's shard into its peers: --ce-push), and sets the
// receiver's counter after each copy.
//
// Stream order (a copy cannot start inside a kernel's launch; it is ordered
// beside it):
//   kStream:  [what was queued: the barrier, the previous launch] -> record
//             `start` -> the kernel -> wait `done`
//   side:     wait `start` -> pull, set its counter -> pull, set its
//             counter ... -> record `done`
// The side stream is non-blocking (no implicit order with the legacy default
// stream kStream), so the pulls run while the kernel runs; both start after
// everything queued before, on this rank. Across ranks: a pull reads only
// its owner's own shard, which no launch writes (the owner computes it at
// step 0 and never receives it), so a pull needs no order against the
// owner's launches; the host writes the shards before the ranks' barrier.
// `start` follows the previous launch, whose exit protocol reset the
// counters: a counter set for this launch is never wiped by the last one.
// A push (--ce-push) writes a peer's rows and counter instead: `start`
// follows this rank's previous launch, whose exit protocol waited until
// every peer had ended that launch (each peer's last CTA reset its counters,
// after all its loads, before its release to this rank), so the push and its
// counter land after the receiver's previous launch read its A and reset
// its counters. The receiver's kernel waits for the counter, so every push
// into a rank is complete before that rank's launch ends.
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
  /// One launch of the CE ring: the copies and their counters on the side
  /// stream (queueCeCopies), beside `launch()` on kStream. `withhold` copies
  /// at the end are left out (the planted hang of --hang-test --mode ce).
  /// Without `move` only the counters are set (the benchmark's diagnostic, A
  /// already gathered: what the ring costs without the copy engines' traffic).
  template <class Launch>
  void run(const std::vector<CeCopy> &copies, size_t rowElems,
           const tile::SymmetricBuffer<uint16_t> &a, const tile::Semaphores &sem, Launch launch,
           size_t withhold = 0, bool move = true) {
    SAMPLE_CUDA_CHECK(cudaEventRecord(start_, kStream));
    SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(side_, start_, 0));
    queueCeCopies(copies, rowElems, a, sem, side_, withhold, move);
    SAMPLE_CUDA_CHECK(cudaEventRecord(done_, side_));
    launch();
    SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(kStream, done_, 0));
  }
};

} // namespace ring
