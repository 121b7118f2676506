// tile/distributed.h against the fake driver and a fake libnccl.so.2
// (fakenccl/FakeNccl.cpp): NCCL-mode bootstrap, symmetric windows and peers'
// addresses (through the runtime's ncclGetLsaPointer helper kernel, which the
// fake driver runs on the host), the errors naming the rank, the in-process
// mode with peer access, and the copy-engine ring's side stream as the
// all-gather sample queues it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "FakeNcclSupport.h"
#include "Nccl.h"
#include "ring_gemm/ring_common.h"
#include "tile/distributed.h"

namespace {

void resetAll(int devices = 2) { resetFakeDriverAndNccl(devices); }

std::vector<unsigned char> someId() {
  std::vector<unsigned char> id(128);
  for (size_t i = 0; i < id.size(); ++i)
    id[i] = static_cast<unsigned char>(255 - i);
  return id;
}

tile::Bootstrap rankOf2(int rank) {
  tile::Bootstrap b;
  b.rank = rank;
  b.worldSize = 2;
  b.localRank = rank;
  b.device = rank;
  b.uniqueIdHex = tile::uniqueIdToHex(someId());
  return b;
}

template <class F> tile::DistributedError distributedError(F &&f) {
  try {
    f();
  } catch (const tile::DistributedError &e) {
    return e;
  } catch (const std::exception &e) {
    FAIL("not a DistributedError: " << e.what());
  }
  FAIL("no error");
  throw std::logic_error("unreachable");
}

constexpr unsigned long long k4G = 1ull << 32;

} // namespace

TEST_CASE("NCCL mode: the communicator from a unique id", "[distributed]") {
  resetAll();
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  unsetenv("TILEC_ALLOW_NVLS");
  {
    tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
    CHECK(c.mode() == tile::CommMode::Nccl);
    CHECK(c.rank() == 1);
    CHECK(c.size() == 2);
    CHECK(c.device() == 1);
    CHECK(c.context().device() == 1);
    CHECK(c.ncclComm() != nullptr);
    CHECK(fakeNccl().inits == 1);
    CHECK(fakeNccl().initNranks == 2);
    CHECK(fakeNccl().initRank == 1);
    CHECK(fakeNccl().initId == someId());
    CHECK(fakeNccl().nvlsEnableAtInit == "0"); // forced off on shared hosts
  }
  CHECK(fakeNccl().destroys == 1);
  CHECK(fake().ctxRetains == fake().ctxReleases);
}

TEST_CASE("NCCL mode: symmetric buffer, window and peers' addresses", "[distributed]") {
  resetAll();
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  {
    tile::SymmetricBuffer<float> buf(c, 1024);
    CHECK(buf.size() == 1024);
    CHECK(buf.bytes() == 4096);
    CHECK(fakeNccl().allocs == 1);
    REQUIRE(fakeNccl().windowFlags.size() == 1);
    CHECK(fakeNccl().windowFlags[0] == NCCL_WIN_COLL_SYMMETRIC);
    CHECK(fakeNccl().registeredBytes[0] == 4096);
    CHECK(buf.window() != nullptr);
    // The fake's window puts LSA rank i at 4 GiB * (i - mine): rank 1 sees rank 0 below.
    CHECK(buf.peerPtr(1) == buf.ptr());
    CHECK(buf.peerPtr(0) == buf.ptr() - k4G);
    CHECK(buf.peerPtrs() == std::vector<CUdeviceptr>{buf.ptr() - k4G, buf.ptr()});
    // Peers' addresses came from the helper kernel, launched once on this device.
    REQUIRE(!fake().launches.empty());
    CHECK(fake().launches.back().kernel == "tile_nccl_lsa_pointers");
    // The size check was one collective pair (header, values) before allocating.
    CHECK(fakeNccl().gathers == 2);
    // The peer table holds them, by rank.
    auto *table = reinterpret_cast<const uint64_t *>(buf.peerTable());
    CHECK(table[0] == buf.ptr() - k4G);
    CHECK(table[1] == buf.ptr());
    // This rank's part, through the local address.
    buf.copyFrom({1.f, 2.f, 3.f});
    CHECK(buf.toHost()[2] == 3.f);
    // A peer's part as a tensor argument.
    tile::Tensor t = buf.peerTensor(0, {32, 32});
    CHECK(t.address() == buf.ptr() - k4G);
    CHECK(t.element() == tile::TensorElement::F32);
    CHECK_THAT(distributedError([&] {
                 buf.peerTensor(0, {33, 32});
               }).what(),
               Catch::Contains("needs 4224 bytes but the symmetric buffer has 4096") &&
                   Catch::Contains("[rank 1]"));
    CHECK_THAT(distributedError([&] { buf.peerPtr(2); }).what(),
               Catch::Contains("rank 2 is not in the communicator of 2 ranks"));
  }
  CHECK(fakeNccl().deregisters == 1);
  CHECK(fakeNccl().frees == 1);
}

TEST_CASE("NCCL mode: a null window is an error naming the rank", "[distributed]") {
  resetAll();
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  fakeNccl().nullWindow = true;
  tile::DistributedError e = distributedError([&] { tile::SymmetricBuffer<int> b(c, 64); });
  CHECK(e.rank() == 1);
  CHECK(e.call() == "ncclCommWindowRegister");
  CHECK_THAT(e.what(), Catch::Contains("NCCL returned a null window for 256 bytes") &&
                           Catch::EndsWith("[rank 1]"));
  CHECK(fakeNccl().frees == 1); // the allocation is given back
}

TEST_CASE("NCCL mode: a peer outside the LSA team is an error naming both ranks", "[distributed]") {
  resetAll();
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(0));
  fakeNccl().lsaSize = 1; // rank 1 is reachable only over the network
  tile::DistributedError e = distributedError([&] { tile::SymmetricBuffer<int> b(c, 64); });
  CHECK(e.rank() == 0);
  CHECK_THAT(e.what(), Catch::Contains("rank 1 is not a load/store peer of rank 0") &&
                           Catch::Contains("outside NCCL's LSA team (1 ranks") &&
                           Catch::EndsWith("[rank 0]"));
  CHECK(fakeNccl().deregisters == 1);
}

TEST_CASE("NCCL mode: mismatched sizes across ranks name both ranks", "[distributed]") {
  resetAll();
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  fakeNccl().mismatchGather = 1; // the values of the first check
  fakeNccl().mismatchRank = 0;
  fakeNccl().mismatchXor = 0x1000;
  tile::DistributedError e = distributedError([&] { tile::SymmetricBuffer<int> b(c, 1024); });
  CHECK(e.rank() == 1);
  CHECK_THAT(e.what(), Catch::Contains("the size in bytes of symmetric buffer #0 differs across "
                                       "ranks: rank 0 has [0] but rank 1 has [4096] [rank 1]"));
  CHECK(fakeNccl().allocs == 0); // checked before anything is allocated
}

TEST_CASE("NCCL mode: ranks out of step and mismatched launches", "[distributed]") {
  resetAll();
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  fakeNccl().mismatchGather = 0; // the header: another check, or another count
  fakeNccl().mismatchRank = 0;
  fakeNccl().mismatchXor = 1;
  CHECK_THAT(distributedError([&] {
               c.checkUniform("tiles", {1, 2});
             }).what(),
             Catch::Contains("rank 0 checked something else") &&
                 Catch::Contains("where rank 1 checks 'tiles': the ranks' calls are out of step"));
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(132);
  cfg.block = tile::Dim3(384);
  cfg.sharedBytes = 1000;
  c.checkUniformLaunch("ring", cfg); // all agree
  fakeNccl().mismatchGather = fakeNccl().gathers + 1;
  fakeNccl().mismatchXor = 132 ^ 66; // rank 0 launched 66 CTAs
  CHECK_THAT(distributedError([&] { c.checkUniformLaunch("ring", cfg); }).what(),
             Catch::Contains("the launch configuration of kernel 'ring'") &&
                 Catch::Contains("rank 0 has [66, ") &&
                 Catch::Contains("rank 1 has [132, 1, 1, 384"));
}

TEST_CASE("NCCL mode: NCCL and CUDA errors name the call, the error and the rank",
          "[distributed]") {
  resetAll();
  fakeNccl().failCall = "ncclCommInitRank";
  fakeNccl().lastError = "bootstrap: connection to 10.0.0.1 refused";
  tile::DistributedError e =
      distributedError([&] { tile::Communicator::fromBootstrap(rankOf2(1)); });
  CHECK(e.rank() == 1);
  CHECK(e.ncclResult() == ncclSystemError);
  CHECK(e.call() == "ncclCommInitRank");
  CHECK(std::string(e.what()) ==
        "ncclCommInitRank failed: ncclSystemError (2): unhandled system error (run with "
        "NCCL_DEBUG=INFO for details): bootstrap: connection to 10.0.0.1 refused [rank 1]");

  resetAll();
  fakeNccl().failCall = "ncclMemAlloc";
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(0));
  CHECK_THAT(distributedError([&] { tile::SymmetricBuffer<int> b(c, 8); }).what(),
             Catch::StartsWith("ncclMemAlloc failed: ncclSystemError (2)") &&
                 Catch::EndsWith("[rank 0]"));

  resetAll(1); // rank 1 asks for device 1 of 1
  e = distributedError([&] { tile::Communicator::fromBootstrap(rankOf2(1)); });
  CHECK(e.rank() == 1);
  CHECK(e.call() == "cuDeviceGet");
  CHECK_THAT(e.what(), Catch::Contains("CUDA_ERROR_INVALID_DEVICE") && Catch::EndsWith("[rank 1]"));

  resetAll();
  fakeNccl().reportedDevice = 0;
  CHECK_THAT(distributedError([&] { tile::Communicator::fromBootstrap(rankOf2(1)); }).what(),
             Catch::Contains("reports rank 1 of 2 on device 0 but rank 1 of 2 on device 1"));
}

TEST_CASE("NCCL mode: the helper's answers are checked", "[distributed]") {
  resetAll();
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  // NCCL's own LSA address of this rank's part is an alias (another
  // address): the rank's own entry is the registered buffer.
  fakeNccl().selfPointerDelta = 256;
  {
    tile::SymmetricBuffer<int> b(c, 8);
    CHECK(b.peerPtr(1) == b.ptr());
  }
  fakeNccl().selfPointerDelta = 0;
  fakeNccl().nullPeer = 0;
  CHECK_THAT(distributedError([&] { tile::SymmetricBuffer<int> b(c, 8); }).what(),
             Catch::Contains("NCCL gave a null address for rank 0's part"));
  fakeNccl().nullPeer = -1;
  fakeNccl().version = 22903; // not the 2.28 headers the helper was compiled against
  CHECK_THAT(distributedError([&] { tile::SymmetricBuffer<int> b(c, 8); }).what(),
             Catch::Contains("is NCCL 22903 but the ncclGetLsaPointer helper was compiled "
                             "against NCCL 228")); // 2.28.x headers (the GPU machines have 2.28.3)
}

TEST_CASE("NCCL mode: the unique id through a file", "[distributed]") {
  resetAll();
  std::string path = "tilec-fake-nccl-id-" + std::to_string(getpid());
  std::remove(path.c_str());
  tile::Bootstrap b0 = rankOf2(0), b1 = rankOf2(1);
  b0.uniqueIdHex.clear();
  b0.idFile = path;
  b1.uniqueIdHex.clear();
  b1.idFile = path;
  b1.timeoutSeconds = 1;
  {
    tile::Communicator c0 = tile::Communicator::fromBootstrap(b0); // writes it
    std::vector<unsigned char> written = fakeNccl().initId;
    CHECK(fakeNccl().uniqueIds == 1);
    tile::Communicator c1 = tile::Communicator::fromBootstrap(b1); // reads it
    CHECK(fakeNccl().initId == written);
  }
  // A file left behind is refused by rank 0 (its id is stale).
  CHECK_THAT(distributedError([&] { tile::Communicator::fromBootstrap(b0); }).what(),
             Catch::Contains("File exists (left by an earlier run?"));
  std::remove(path.c_str());
  CHECK_THAT(distributedError([&] { tile::Communicator::fromBootstrap(b1); }).what(),
             Catch::Contains("no NCCL unique id appeared in TILEC_NCCL_ID_FILE") &&
                 Catch::EndsWith("[rank 1]"));
}

TEST_CASE("NCCL missing: the load error names every place tried", "[distributed]") {
  tile::detail::Nccl n = tile::detail::loadNccl({"/nonexistent/libnccl.so.2", "libnope.so.9"});
  CHECK(n.handle == nullptr);
  CHECK_THAT(n.loadError, Catch::Contains("dlopen(\"/nonexistent/libnccl.so.2\") failed") &&
                              Catch::Contains("dlopen(\"libnope.so.9\") failed"));
  CHECK(tile::detail::ncclResultName(5) == "ncclInvalidUsage");
  CHECK(tile::detail::ncclResultName(42) == "ncclResult 42");
}

TEST_CASE("in-process mode: peer access, symmetric buffers and peers", "[distributed]") {
  resetAll(3);
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 2});
  REQUIRE(comms.size() == 2);
  CHECK(comms[1].rank() == 1);
  CHECK(comms[1].size() == 2);
  CHECK(comms[1].device() == 2);
  CHECK(comms[0].mode() == tile::CommMode::InProcess);
  using P = std::pair<int, int>;
  CHECK(fake().peerAccessEnabled == std::vector<P>{P(0, 2), P(2, 0)});
  {
    tile::SymmetricBuffer<int32_t> a(comms[0], 256), b(comms[1], 256);
    CHECK(a.peerPtr(1) == b.ptr());
    CHECK(b.peerPtr(0) == a.ptr());
    CHECK(a.peerPtr(0) == a.ptr());
    CHECK(a.window() == nullptr);
    b.copyFrom(std::vector<int32_t>(256, 7));
    // Rank 0 reads rank 1's part through its peer address (host memory in the fake).
    CHECK(reinterpret_cast<const int32_t *>(a.peerPtr(1))[255] == 7);
    auto *table = reinterpret_cast<const uint64_t *>(a.peerTable());
    CHECK(table[1] == b.ptr());
    // A second allocation pairs with the second of the other rank.
    tile::SymmetricBuffer<int32_t> a2(comms[0], 64);
    CHECK_THAT(distributedError([&] { a2.peerPtr(1); }).what(),
               Catch::Contains("rank 1 has no symmetric buffer #1") && Catch::EndsWith("[rank 0]"));
    tile::DistributedError e =
        distributedError([&] { tile::SymmetricBuffer<int32_t> b2(comms[1], 65); });
    CHECK(e.rank() == 1);
    CHECK_THAT(e.what(), Catch::Contains("symmetric buffer #1 differs across ranks: rank 0 has "
                                         "[256] but rank 1 has [260]"));
  }
  CHECK(fake().liveAllocs == 0);
}

TEST_CASE("in-process mode: errors", "[distributed]") {
  resetAll(2);
  fake().noPeerAccess = {{1, 0}};
  tile::DistributedError e = distributedError([&] { tile::Communicator::local({0, 1}); });
  CHECK(e.rank() == 1);
  CHECK_THAT(e.what(), Catch::Contains("rank 0 (device 0) is not a load/store peer of rank 1 "
                                       "(device 1): no peer access"));
  resetAll(2);
  CHECK_THAT(distributedError([&] {
               tile::Communicator::local({1, 1});
             }).what(),
             Catch::Contains("device 1 is given for rank 0 and rank 1"));
  CHECK_THAT(distributedError([&] {
               tile::Communicator::local({0, 3});
             }).what(),
             Catch::Contains("CUDA_ERROR_INVALID_DEVICE") && Catch::EndsWith("[rank 1]"));
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(8);
  comms[0].checkUniformLaunch("k", cfg);
  cfg.grid = tile::Dim3(16);
  CHECK_THAT(distributedError([&] { comms[1].checkUniformLaunch("k", cfg); }).what(),
             Catch::Contains("rank 0 has [8, 1, 1") && Catch::Contains("rank 1 has [16, 1, 1"));
  CHECK_THAT(distributedError([&] { tile::SymmetricBuffer<char> z(comms[0], 0); }).what(),
             Catch::Contains("a symmetric buffer of 0 bytes"));
}

TEST_CASE("barriers: a collective in NCCL mode, every device in-process", "[distributed]") {
  resetAll(2);
  {
    tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(0));
    int before = fakeNccl().gathers;
    c.barrier();
    CHECK(fakeNccl().gathers == before + 1); // the header only: no values
    fake().syncResult = CUDA_ERROR_ILLEGAL_ADDRESS;
    tile::DistributedError e = distributedError([&] { c.barrier(); });
    CHECK(e.call() == "cuCtxSynchronize");
    CHECK_THAT(e.what(),
               Catch::Contains("CUDA_ERROR_ILLEGAL_ADDRESS") && Catch::EndsWith("[rank 0]"));
  }
  resetAll(2);
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  // Peer access already enabled (a second group on the same devices) is fine.
  std::vector<tile::Communicator> again = tile::Communicator::local({1, 0});
  CHECK(fake().peerAccessEnabled.size() == 2);
  comms[0].barrier();
  fake().syncResult = CUDA_ERROR_ILLEGAL_ADDRESS;
  CHECK_THAT(distributedError([&] { comms[1].barrier(); }).what(),
             Catch::Contains("cuCtxSynchronize failed") && Catch::EndsWith("[rank 0]"));
}

TEST_CASE("NCCL mode: copy-engine pulls and pushes, stream-ordered counters", "[distributed]") {
  resetAll(2);
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  const CUstream side = reinterpret_cast<CUstream>(uintptr_t(0x5100));
  {
    tile::SymmetricBuffer<uint16_t> a(c, 1024);
    tile::Semaphores sem(c, 4u);
    // Elements [256, 384) of rank 0's part into the same elements of this
    // rank's, through rank 0's address, then counter 3 set to 1 on the stream.
    a.pullAsync(0, 256, 128, side);
    sem.setAsync(3, 1, side);
    REQUIRE(fake().streamOps.size() == 2);
    const FakeState::StreamOp &copy = fake().streamOps[0];
    CHECK(copy.what == "cuMemcpyAsync");
    CHECK(copy.dst == a.ptr() + 512);
    CHECK(copy.src == a.peerPtr(0) + 512);
    CHECK(copy.src == a.ptr() - k4G + 512);
    CHECK(copy.bytes == 256);
    CHECK(copy.stream == side);
    CHECK(copy.contextPushed);
    const FakeState::StreamOp &flag = fake().streamOps[1];
    CHECK(flag.what == "cuStreamWriteValue32");
    CHECK(flag.dst == sem.ptr() + 3 * 8);
    CHECK(flag.value == 1);
    // Default flags: the memory fence before the write that publishes the copy.
    CHECK(flag.flags == CU_STREAM_WRITE_VALUE_DEFAULT);
    CHECK(flag.stream == side);
    CHECK(flag.contextPushed);

    // The whole buffer is fine; past its end, itself, or no such rank is not.
    a.pullAsync(0, 0, 1024, side);
    CHECK(fake().streamOps.size() == 3);
    // In elements, as SymmetricBuffer::copyFrom says it; in bytes, naming the rank.
    CHECK_THAT(errorText([&] { a.pullAsync(0, 1000, 25, side); }),
               Catch::Contains("SymmetricBuffer::pullAsync: 1025 elements requested but the "
                               "buffer holds 1024"));
    CHECK_THAT(distributedError([&] { a.allocation().pullAsync(0, 2000, 49, side); }).what(),
               Catch::Contains("bytes [2000, 2049) are not inside the symmetric buffer of 2048 "
                               "bytes") &&
                   Catch::EndsWith("[rank 1]"));
    CHECK_THAT(distributedError([&] { a.pullAsync(1, 0, 8, side); }).what(),
               Catch::Contains("a copy between this rank and itself") &&
                   Catch::EndsWith("[rank 1]"));
    CHECK_THAT(distributedError([&] { a.pullAsync(2, 0, 8, side); }).what(),
               Catch::Contains("rank 2 is not in the communicator of 2 ranks"));
    // Counters [S] and [S+1] are the exit protocol's: not the host's to set.
    tile::DistributedError bad = distributedError([&] { sem.setAsync(4, 1, side); });
    CHECK(bad.call() == "Semaphores::setAsync");
    CHECK_THAT(bad.what(), Catch::Contains("counter 4 of a semaphore array of 4") &&
                               Catch::EndsWith("[rank 1]"));
    CHECK(fake().streamOps.size() == 3);

    // The push: this rank's elements into rank 0's; rank 0's counter 2 set
    // through its address; this rank's counter 1 waited for (>= 16).
    a.pushAsync(0, 512, 256, side);
    sem.setPeerAsync(0, 2, 1, side);
    sem.waitAsync(1, 16, side);
    REQUIRE(fake().streamOps.size() == 6);
    const FakeState::StreamOp &push = fake().streamOps[3];
    CHECK(push.what == "cuMemcpyAsync");
    CHECK(push.dst == a.peerPtr(0) + 1024);
    CHECK(push.src == a.ptr() + 1024);
    CHECK(push.bytes == 512);
    const FakeState::StreamOp &peerFlag = fake().streamOps[4];
    CHECK(peerFlag.what == "cuStreamWriteValue32");
    CHECK(peerFlag.dst == sem.ptr() - k4G + 2 * 8); // rank 0's counters, 4 GiB below
    CHECK(peerFlag.flags == CU_STREAM_WRITE_VALUE_DEFAULT);
    const FakeState::StreamOp &wait = fake().streamOps[5];
    CHECK(wait.what == "cuStreamWaitValue32");
    CHECK(wait.dst == sem.ptr() + 8);
    CHECK(wait.value == 16);
    CHECK(wait.flags == CU_STREAM_WAIT_VALUE_GEQ);
    CHECK(wait.contextPushed);
    CHECK_THAT(errorText([&] { a.pushAsync(0, 1024, 1, side); }),
               Catch::Contains("SymmetricBuffer::pushAsync: 1025 elements requested"));
    CHECK_THAT(distributedError([&] { sem.setPeerAsync(2, 0, 1, side); }).what(),
               Catch::Contains("rank 2 is not in the communicator of 2 ranks"));
    bad = distributedError([&] { sem.waitAsync(5, 1, side); });
    CHECK(bad.call() == "Semaphores::waitAsync");
    CHECK_THAT(bad.what(), Catch::Contains("counter 5 of a semaphore array of 4"));
    CHECK(fake().streamOps.size() == 6);

    // A CUDA error names the call, the error and the rank.
    fake().streamOpResult = CUDA_ERROR_ILLEGAL_ADDRESS;
    tile::DistributedError e = distributedError([&] { a.pullAsync(0, 0, 8, side); });
    CHECK(e.call() == "cuMemcpyAsync");
    CHECK(e.rank() == 1);
    CHECK_THAT(e.what(), Catch::Contains("cuMemcpyAsync failed") &&
                             Catch::Contains("CUDA_ERROR_ILLEGAL_ADDRESS") &&
                             Catch::EndsWith("[rank 1]"));
    e = distributedError([&] { sem.setAsync(0, 1, side); });
    CHECK(e.call() == "cuStreamWriteValue32");
    CHECK_THAT(e.what(),
               Catch::Contains("cuStreamWriteValue32 failed") && Catch::EndsWith("[rank 1]"));
    e = distributedError([&] { sem.waitAsync(0, 1, side); });
    CHECK(e.call() == "cuStreamWaitValue32");
    CHECK_THAT(e.what(),
               Catch::Contains("cuStreamWaitValue32 failed") && Catch::EndsWith("[rank 1]"));
    fake().streamOpResult = CUDA_SUCCESS;
  }
}

TEST_CASE("NCCL mode: a strided copy-engine push (a column range of rows)", "[distributed]") {
  resetAll(2);
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  const CUstream side = reinterpret_cast<CUstream>(uintptr_t(0x5100));
  {
    // A [8, 64] matrix of 16-bit elements: columns [16, 48) of rows 2 .. 5
    // into rank 0's part, one cuMemcpy2DAsync with the matrix's row pitch.
    tile::SymmetricBuffer<uint16_t> a(c, 8 * 64);
    a.pushRowsAsync(0, 2 * 64 + 16, 32, 4, 64, side);
    REQUIRE(fake().streamOps.size() == 1);
    const FakeState::StreamOp &push = fake().streamOps[0];
    CHECK(push.what == "cuMemcpy2DAsync");
    CHECK(push.dst == a.peerPtr(0) + (2 * 64 + 16) * 2);
    CHECK(push.src == a.ptr() + (2 * 64 + 16) * 2);
    CHECK(push.bytes == 64);
    CHECK(push.rows == 4);
    CHECK(push.srcPitch == 128);
    CHECK(push.dstPitch == 128);
    CHECK(push.deviceToDevice);
    CHECK(push.stream == side);
    CHECK(push.contextPushed);
    // The last row may end at the buffer's end; one element further may not.
    a.pushRowsAsync(0, 7 * 64 - 3 * 64 + 32, 32, 4, 64, side);
    CHECK(fake().streamOps.size() == 2);
    tile::DistributedError e =
        distributedError([&] { a.pushRowsAsync(0, 4 * 64 + 33, 32, 4, 64, side); });
    CHECK(e.call() == "SymmetricBuffer::pushRowsAsync");
    CHECK_THAT(e.what(), Catch::Contains("bytes [962, 1026) are not inside the symmetric "
                                         "buffer of 1024 bytes") &&
                             Catch::EndsWith("[rank 1]"));
    CHECK_THAT(distributedError([&] { a.pushRowsAsync(0, 0, 32, 100, 64, side); }).what(),
               Catch::Contains("100 rows 128 bytes apart from byte 0 are not inside the "
                               "symmetric buffer of 1024 bytes"));
    CHECK_THAT(distributedError([&] { a.pushRowsAsync(0, 0, 65, 2, 64, side); }).what(),
               Catch::Contains("rows of 130 bytes overlap at a pitch of 128 bytes"));
    CHECK_THAT(distributedError([&] { a.pushRowsAsync(1, 0, 8, 2, 64, side); }).what(),
               Catch::Contains("a copy between this rank and itself"));
    CHECK(fake().streamOps.size() == 2);
    fake().streamOpResult = CUDA_ERROR_ILLEGAL_ADDRESS;
    e = distributedError([&] { a.pushRowsAsync(0, 0, 8, 2, 64, side); });
    CHECK(e.call() == "cuMemcpy2DAsync");
    CHECK_THAT(e.what(), Catch::Contains("cuMemcpy2DAsync failed") && Catch::EndsWith("[rank 1]"));
    fake().streamOpResult = CUDA_SUCCESS;
  }
}

// The copy-engine all-gather ring's side stream (samples/ring_gemm,
// ring::queueCeCopies) through the runtime against the fake driver: one
// write-value a copy, on the counter the kernel computes for its blocks.
TEST_CASE("the CE all-gather ring's side stream: one counter a copy, pulled or pushed",
          "[distributed]") {
  resetAll(2);
  tile::Communicator c = tile::Communicator::fromBootstrap(rankOf2(1));
  const CUstream side = reinterpret_cast<CUstream>(uintptr_t(0x5200));
  ring::Problem p;
  p.ranks = 2;
  p.ms = 512; // 4 blocks of 128 rows a shard
  p.k = 64;
  const size_t rowBytes = size_t(p.k) * 2;
  {
    tile::SymmetricBuffer<uint16_t> a(c, size_t(p.mg() * p.k));
    // 3 pieces of shard 0 (blocks [0, 2), [2, 3), [3, 4)): 3 pulls, 3 counters.
    const ring::CeLayout three = ring::ceLayout(p, 3);
    tile::Semaphores sem(c, uint32_t(ring::ceSemaphoreCount(p, three)));
    CHECK(sem.count() == 6);
    size_t at = fake().streamOps.size();
    ring::queueCeCopies(ring::ceCopies(p, 1, three), size_t(p.k), a, sem, side);
    REQUIRE(fake().streamOps.size() == at + 6);
    const int64_t firstBlock[] = {0, 2, 3}, blocks[] = {2, 1, 1};
    for (int i = 0; i < 3; ++i) {
      const FakeState::StreamOp &copy = fake().streamOps[at + 2 * size_t(i)];
      const FakeState::StreamOp &flag = fake().streamOps[at + 2 * size_t(i) + 1];
      CHECK(copy.what == "cuMemcpyAsync");
      CHECK(copy.src == a.peerPtr(0) + size_t(firstBlock[i]) * 128 * rowBytes);
      CHECK(copy.dst == a.ptr() + size_t(firstBlock[i]) * 128 * rowBytes);
      CHECK(copy.bytes == size_t(blocks[i]) * 128 * rowBytes);
      CHECK(copy.stream == side);
      CHECK(flag.what == "cuStreamWriteValue32");
      // Shard 0's counter i: the one ring_gemm_ce.tile waits on for these blocks.
      CHECK(flag.dst == sem.ptr() + 8 * size_t(ring::ceCounter(p, three, 0, firstBlock[i])));
      CHECK(flag.dst == sem.ptr() + 8 * size_t(i));
      CHECK(flag.value == 1);
      CHECK(flag.flags == CU_STREAM_WRITE_VALUE_DEFAULT);
      CHECK(flag.stream == side);
    }
    // The planted hang withholds the last copy and its counter; the
    // benchmark's no-copy diagnostic sets the counters only.
    at = fake().streamOps.size();
    ring::queueCeCopies(ring::ceCopies(p, 1, three), size_t(p.k), a, sem, side, 1);
    CHECK(fake().streamOps.size() == at + 4);
    at = fake().streamOps.size();
    ring::queueCeCopies(ring::ceCopies(p, 1, three), size_t(p.k), a, sem, side, 0, false);
    REQUIRE(fake().streamOps.size() == at + 3);
    for (size_t i = at; i < at + 3; ++i)
      CHECK(fake().streamOps[i].what == "cuStreamWriteValue32");

    // Pushed whole: this rank's shard (rows [512, 1024)) into rank 0, then
    // rank 0's counter 1 (shard 1's only one) through its address.
    const ring::CeLayout push = ring::ceLayout(p, 1, /*push=*/true);
    tile::Semaphores one(c, uint32_t(ring::ceSemaphoreCount(p, push)));
    CHECK(one.count() == 2);
    at = fake().streamOps.size();
    ring::queueCeCopies(ring::ceCopies(p, 1, push), size_t(p.k), a, one, side);
    REQUIRE(fake().streamOps.size() == at + 2);
    const FakeState::StreamOp &sent = fake().streamOps[at];
    CHECK(sent.what == "cuMemcpyAsync");
    CHECK(sent.src == a.ptr() + 512 * rowBytes);
    CHECK(sent.dst == a.peerPtr(0) + 512 * rowBytes);
    CHECK(sent.bytes == 512 * rowBytes);
    const FakeState::StreamOp &peerFlag = fake().streamOps[at + 1];
    CHECK(peerFlag.what == "cuStreamWriteValue32");
    CHECK(peerFlag.dst == one.ptr() - k4G + 8 * 1);

    // The earlier layout (a counter per 128-row block): one pull, 4 writes.
    const ring::CeLayout perBlock = ring::ceLayout(p, 1, false, /*counterPerBlock=*/true);
    tile::Semaphores four(c, uint32_t(ring::ceSemaphoreCount(p, perBlock)));
    at = fake().streamOps.size();
    ring::queueCeCopies(ring::ceCopies(p, 1, perBlock), size_t(p.k), a, four, side);
    CHECK(fake().streamOps.size() == at + 5);
  }
}
