// The host half of the reduce-scatter ring's copy-engine form
// (ring_gemm_rs_ce.tile): a side stream that moves each step's running sums
// into the next rank while the kernel computes the next step.
//
// Stream order:
//   kStream: [the barrier, the previous launch] -> record `start` -> the
//            kernel -> wait `done` (`done` queued after the kernel)
//   side:    wait `start` -> for each step s = 0 .. D-2 and each column
//            chunk c of its block b: wait until the kernel counted every tile
//            of the chunk (cuStreamWaitValue32 on sem[D CH + b CH + c]), push
//            the chunk of R into the next rank's R (cuMemcpyAsync for whole
//            rows, else cuMemcpy2DAsync), set the next rank's sem[b CH + c]
//            (cuStreamWriteValue32 through the peer's address, after the
//            copy in stream order and behind the write-value's fence) -> set
//            this rank's sem[2 D CH] -> record `done`
// The side stream is non-blocking, so its waits never hold the kernel's
// stream. The kernel's last-step units wait for sem[2 D CH], so every wait of
// the side stream is satisfied before the kernel's exit protocol resets the
// counters; a push reaches the next rank's R before that rank's kernel can
// end (its last step adds the block), and every rank's exit protocol waits
// for every peer's end: after a launch no push into this rank is pending.
// The side stream's work is queued on the host after the kernel's launch:
// the runtime's first launch of a configuration checks it across ranks and
// synchronizes the context (Communicator::checkUniformLaunch), which would
// wait forever for a side stream already waiting for this kernel's counters
// (measured: the first form of this file queued them before the launch and
// hung there on 2 and 4 H200s). The copy-engine all-gather (ring_gemm's
// ring_ce.h) queues its pulls first: they wait for nothing.
#pragma once

#include "rs_common.h"

#include "../ring_gemm/ring_nccl.h"

#include <tile/distributed.h>

#include <cuda_runtime.h>

#include <vector>

namespace rsring {

class CeSide : public ring::SideStream {
public:
  /// One launch: `pushes` (cePushes) of R ([M, rowElems] in `r`)
  /// into rank `next` beside `launch()` on kStream; `withhold` pushes at the
  /// end left out (the planted hang of --hang-test --mode ce).
  template <class Launch>
  void run(const std::vector<CePush> &pushes, size_t rowElems, int next,
           const tile::SymmetricBuffer<uint16_t> &r, const tile::Semaphores &sem,
           uint32_t lastIndex, Launch launch, size_t withhold = 0) {
    SAMPLE_CUDA_CHECK(cudaEventRecord(start_, ring::kStream));
    launch();
    SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(side_, start_, 0));
    const size_t n = withhold < pushes.size() ? pushes.size() - withhold : 0;
    for (size_t i = 0; i < n; ++i) {
      const CePush &q = pushes[i];
      sem.waitAsync(uint32_t(q.waitIndex), uint32_t(q.tiles), side_);
      const size_t first = size_t(q.firstRow) * rowElems + size_t(q.firstCol);
      if (size_t(q.cols) == rowElems)
        r.pushAsync(next, first, size_t(q.rows) * rowElems, side_);
      else
        r.pushRowsAsync(next, first, size_t(q.cols), size_t(q.rows), rowElems, side_);
      sem.setPeerAsync(next, uint32_t(q.setIndex), 1, side_);
    }
    sem.setAsync(lastIndex, 1, side_);
    SAMPLE_CUDA_CHECK(cudaEventRecord(done_, side_));
    SAMPLE_CUDA_CHECK(cudaStreamWaitEvent(ring::kStream, done_, 0));
  }
};

} // namespace rsring
