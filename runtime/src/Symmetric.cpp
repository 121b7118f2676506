//===- Symmetric.cpp - symmetric buffers and peers' addresses -------------===//
#include <algorithm>
#include <cstring>

#include "DistributedState.h"
#include "Nccl.h"

// kNcclLsaHelperPtx: NcclLsaHelper.cu compiled by nvcc at build time ("" when the
// build had no nvcc); TILEC_NCCL_HELPER_VERSION: the NCCL_VERSION_CODE of its headers.
#include "NcclLsaHelperPtx.inc"

namespace tile {
namespace detail {
namespace {

// NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch (2.9 on), so /100 drops the patch.
int majorMinor(int code) { return code / 100; }

// Peers' addresses of an NCCL symmetric window, by world rank.
std::vector<CUdeviceptr> ncclPeerPointers(CommState &s, SymmetricState &b) {
  const int rank = s.rank;
  ncclTeam_t world = ncclFn(&NcclApi::ncclTeamWorld, "ncclTeamWorld", rank)(s.comm);
  ncclTeam_t lsa = ncclFn(&NcclApi::ncclTeamLsa, "ncclTeamLsa", rank)(s.comm);
  auto toLsa = ncclFn(&NcclApi::ncclTeamRankToLsa, "ncclTeamRankToLsa", rank);
  std::vector<int> lsaRank(size_t(s.size));
  for (int p = 0; p < s.size; ++p) {
    lsaRank[p] = toLsa(s.comm, world, p);
    if (lsaRank[p] < 0 || lsaRank[p] >= lsa.nRanks)
      throwRankError("ncclTeamRankToLsa", CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, rank,
                     "rank " + std::to_string(p) + " is not a load/store peer of rank " +
                         std::to_string(rank) + ": it is outside NCCL's LSA team (" +
                         std::to_string(lsa.nRanks) +
                         " ranks: those with NVLink or PCIe P2P to this GPU); peer "
                         "references need every rank in one LSA team");
  }
  if (sizeof(kNcclLsaHelperPtx) <= 1)
    throwRankError("SymmetricBuffer", CUDA_ERROR_NOT_SUPPORTED, rank,
                   "peers' addresses need the ncclGetLsaPointer helper, which this build "
                   "lacks (no nvcc or nccl_device.h when the runtime was built)");
  int libVersion = 0;
  TILE_NCCL(rank, s.comm, ncclGetVersion, &libVersion);
  if (majorMinor(libVersion) != majorMinor(TILEC_NCCL_HELPER_VERSION))
    throwRankError("SymmetricBuffer", CUDA_ERROR_NOT_SUPPORTED, rank,
                   nccl().path + " is NCCL " + std::to_string(libVersion) +
                       " but the ncclGetLsaPointer helper was compiled against NCCL " +
                       std::to_string(TILEC_NCCL_HELPER_VERSION) +
                       " headers (a window's layout may differ between versions)");
  return withRank(rank, [&] {
    s.ctx->makeCurrent();
    if (!s.lsaKernel.valid()) {
      // nvcc's PTX, without kernel info (its four arguments are the runtime's own).
      ModuleOptions helperOptions;
      helperOptions.withoutKernelInfo = true;
      helperOptions.reportSkippedChecks = false;
      s.helper = Module::fromPtx(*s.ctx, kNcclLsaHelperPtx, helperOptions);
      s.lsaKernel = s.helper.kernel("tile_nccl_lsa_pointers");
    }
    DeviceBuffer<uint64_t> out(*s.ctx, size_t(lsa.nRanks));
    out.fillBytes(0);
    LaunchConfig cfg;
    cfg.grid = Dim3(unsigned((lsa.nRanks + 127) / 128));
    cfg.block = Dim3(128);
    s.ctx->makeCurrent();
    s.lsaKernel.launch(cfg, reinterpret_cast<CUdeviceptr>(b.window), int32_t(0),
                       int32_t(lsa.nRanks), out.ptr());
    s.ctx->synchronize();
    std::vector<uint64_t> byLsa = out.toHost();
    std::vector<CUdeviceptr> peers(size_t(s.size));
    for (int p = 0; p < s.size; ++p) {
      peers[p] = CUdeviceptr(byLsa[size_t(lsaRank[p])]);
      if (!peers[p])
        throwRankError("ncclGetLsaPointer", CUDA_ERROR_INVALID_VALUE, rank,
                       "NCCL gave a null address for rank " + std::to_string(p) +
                           "'s part of the symmetric window");
    }
    // NCCL maps every LSA peer's part of the window, this rank's included,
    // into its own address range: this rank's entry is an alias of the
    // registered buffer (measured on 2 H200s with NCCL 2.28: a different
    // address). The rank's own part is named by the buffer it registered.
    peers[rank] = b.ptr;
    return peers;
  });
}

void allocateNccl(CommState &s, SymmetricState &b) {
  void *p = nullptr;
  s.ctx->makeCurrent();
  TILE_NCCL(s.rank, s.comm, ncclMemAlloc, &p, b.bytes);
  b.ptr = reinterpret_cast<CUdeviceptr>(p);
  TILE_NCCL(s.rank, s.comm, ncclCommWindowRegister, s.comm, p, b.bytes, &b.window,
            NCCL_WIN_COLL_SYMMETRIC);
  if (!b.window)
    throwRankError("ncclCommWindowRegister", CUDA_ERROR_INVALID_HANDLE, s.rank,
                   "NCCL returned a null window for " + std::to_string(b.bytes) + " bytes at " +
                       hexAddress(b.ptr) +
                       " (symmetric windows need NCCL 2.27+ with every rank on "
                       "NVLink; see NCCL_DEBUG=INFO)");
  b.peers = ncclPeerPointers(s, b);
}

void allocateInProcess(CommState &s, SymmetricState &b) {
  b.ptr = withRank(s.rank, [&] { return memAlloc(s.ctx->state(), b.bytes); });
  GroupState &g = *s.group;
  std::lock_guard<std::mutex> lock(g.mu);
  auto &mine = g.allocs[size_t(s.rank)];
  if (mine.size() <= size_t(b.index))
    mine.resize(size_t(b.index) + 1);
  mine[size_t(b.index)] = GroupAlloc{b.ptr, b.bytes, true};
}

// In-process: rank p's part, which p may allocate after this rank did.
CUdeviceptr inProcessPeer(const SymmetricState &b, int p) {
  const CommState &s = *b.comm.state();
  GroupState &g = *s.group;
  std::lock_guard<std::mutex> lock(g.mu);
  const auto &theirs = g.allocs[size_t(p)];
  if (theirs.size() <= size_t(b.index) || !theirs[size_t(b.index)].alive)
    throwRankError("SymmetricBuffer::peerPtr", CUDA_ERROR_INVALID_VALUE, s.rank,
                   "rank " + std::to_string(p) + " has no symmetric buffer #" +
                       std::to_string(b.index) +
                       " (in-process mode: allocate it on every rank before asking for peers)");
  return theirs[size_t(b.index)].ptr;
}

} // namespace

SymmetricState::~SymmetricState() {
  CommState &s = *comm.state();
  table.reset();
  if (s.mode == CommMode::InProcess) {
    if (ptr) {
      std::lock_guard<std::mutex> lock(s.group->mu);
      s.group->allocs[size_t(s.rank)][size_t(index)].alive = false;
    }
    memFree(s.ctx->state(), ptr);
    return;
  }
  const Nccl &n = nccl();
  ScopedContext current(s.ctx->state().get());
  if (window && n.api.ncclCommWindowDeregister)
    n.api.ncclCommWindowDeregister(s.comm, window);
  if (ptr && n.api.ncclMemFree)
    n.api.ncclMemFree(reinterpret_cast<void *>(ptr));
}

Tensor peerTensorChecked(const SymmetricAllocation &a, int rank, TensorElement element,
                         TensorShape extents, TensorShape strides) {
  Tensor t(a.peerPtr(rank), element, std::move(extents), std::move(strides));
  // The peer's part has this buffer's size: a view past it is refused here, as a
  // DeviceBuffer's would be at launch.
  uint64_t last = 0; // offset of the last element, in elements
  for (size_t d = 0; d < t.extents().size(); ++d) {
    int64_t stride = 1;
    if (!t.strides().empty())
      stride = t.strides()[d];
    else
      for (size_t e = d + 1; e < t.extents().size(); ++e)
        stride *= t.extents()[e];
    last += uint64_t(t.extents()[d] - 1) * uint64_t(stride);
  }
  uint64_t need = (last + 1) * tensorElementBytes(element);
  if (need > a.bytes())
    throwRankError("SymmetricBuffer::peerTensor", CUDA_ERROR_INVALID_VALUE, a.communicator().rank(),
                   t.describe() + " of rank " + std::to_string(rank) + " needs " +
                       std::to_string(need) + " bytes but the symmetric buffer has " +
                       std::to_string(a.bytes()));
  return t;
}

void symmetricCopyHtoD(const SymmetricAllocation &a, const void *src, size_t bytes) {
  const Communicator &c = a.communicator();
  withRank(c.rank(), [&] {
    ScopedContext current(c.context().state().get());
    copyHtoD(a.ptr(), src, bytes);
  });
}
void symmetricCopyDtoH(const SymmetricAllocation &a, void *dst, size_t bytes) {
  const Communicator &c = a.communicator();
  withRank(c.rank(), [&] {
    ScopedContext current(c.context().state().get());
    copyDtoH(dst, a.ptr(), bytes);
  });
}
void symmetricMemset(const SymmetricAllocation &a, unsigned char value) {
  const Communicator &c = a.communicator();
  withRank(c.rank(), [&] {
    ScopedContext current(c.context().state().get());
    memsetD8(a.ptr(), value, a.bytes());
  });
}

} // namespace detail

SymmetricAllocation::SymmetricAllocation(const Communicator &comm, size_t bytes)
    : s_(std::make_unique<detail::SymmetricState>(comm)) {
  using namespace detail;
  CommState &s = *comm.state();
  s_->bytes = bytes;
  s_->index = s.allocations++;
  if (bytes == 0)
    throwRankError("SymmetricBuffer", CUDA_ERROR_INVALID_VALUE, s.rank,
                   "a symmetric buffer of 0 bytes");
  comm.checkUniform("the size in bytes of symmetric buffer #" + std::to_string(s_->index),
                    {uint64_t(bytes)});
  if (s.mode == CommMode::Nccl)
    allocateNccl(s, *s_);
  else
    allocateInProcess(s, *s_);
}

SymmetricAllocation::~SymmetricAllocation() = default;
SymmetricAllocation::SymmetricAllocation(SymmetricAllocation &&) noexcept = default;
SymmetricAllocation &SymmetricAllocation::operator=(SymmetricAllocation &&) noexcept = default;

size_t SymmetricAllocation::bytes() const { return s_->bytes; }
CUdeviceptr SymmetricAllocation::ptr() const { return s_->ptr; }
void *SymmetricAllocation::window() const { return s_->window; }
const Communicator &SymmetricAllocation::communicator() const { return s_->comm; }

CUdeviceptr SymmetricAllocation::peerPtr(int rank) const {
  const detail::CommState &s = *s_->comm.state();
  if (rank < 0 || rank >= s.size)
    detail::throwRankError("SymmetricBuffer::peerPtr", CUDA_ERROR_INVALID_VALUE, s.rank,
                           "rank " + std::to_string(rank) + " is not in the communicator of " +
                               std::to_string(s.size) + " ranks");
  if (rank == s.rank)
    return s_->ptr;
  if (s.mode == CommMode::Nccl)
    return s_->peers[size_t(rank)];
  return detail::inProcessPeer(*s_, rank);
}

std::vector<CUdeviceptr> SymmetricAllocation::peerPtrs() const {
  std::vector<CUdeviceptr> v;
  for (int p = 0; p < s_->comm.size(); ++p)
    v.push_back(peerPtr(p));
  return v;
}

CUdeviceptr SymmetricAllocation::peerTable() const {
  if (!s_->table) {
    const Communicator &c = s_->comm;
    std::vector<CUdeviceptr> peers = peerPtrs();
    detail::withRank(c.rank(), [&] {
      s_->table.emplace(c.context(), peers.size());
      std::vector<uint64_t> v(peers.begin(), peers.end());
      s_->table->copyFrom(v);
      // A copy from pageable memory may return before its DMA lands; kernels
      // that read the table may run on another (non-blocking) stream.
      detail::ScopedContext current(c.context().state().get());
      detail::check(TILE_CU_RAW(cuStreamSynchronize, nullptr), "cuStreamSynchronize");
    });
  }
  return s_->table->ptr();
}

} // namespace tile

namespace tile {
namespace detail {

std::shared_ptr<PeerBinding> newPeerBinding(const SymmetricAllocation &a, PeerBinding::Kind kind) {
  const Communicator &c = a.communicator();
  auto b = std::make_shared<PeerBinding>();
  b->kind = kind;
  b->group = c.state().get();
  b->keepGroup = c.state();
  b->rank = c.rank();
  b->world = c.size();
  b->device = c.device();
  b->peers = a.peerPtrs();
  b->peerTable = a.peerTable();
  b->bytes = a.bytes();
  // The callbacks hold the communicator (a copy shares its state).
  b->checkUniformLaunch = [c](const std::string &kernel, const LaunchConfig &cfg) {
    c.checkUniformLaunch(kernel, cfg);
  };
  b->checkUniform = [c](const std::string &what, const std::vector<uint64_t> &values) {
    c.checkUniform(what, values);
  };
  return b;
}

Tensor symmetricTensorChecked(const SymmetricAllocation &a, TensorElement element,
                              TensorShape extents, size_t bufferElementBytes) {
  if (tensorElementBytes(element) != bufferElementBytes)
    throwRankError(
        "SymmetricBuffer::symmetricTensor", CUDA_ERROR_INVALID_VALUE, a.communicator().rank(),
        std::string("the element type ") + tensorElementName(element) + " is " +
            std::to_string(tensorElementBytes(element)) + " bytes but the buffer's elements are " +
            std::to_string(bufferElementBytes) + " bytes");
  // Dense row-major by construction (no strides): every rank's part has the
  // same layout, so one row-major offset addresses any peer's element.
  Tensor t = peerTensorChecked(a, a.communicator().rank(), element, std::move(extents), {});
  return withPeerBinding(std::move(t), a.peerBinding());
}

} // namespace detail

std::shared_ptr<const detail::PeerBinding> SymmetricAllocation::peerBinding() const {
  if (!s_->binding) {
    auto b = detail::newPeerBinding(*this, detail::PeerBinding::Kind::SymmetricTensor);
    b->maps = std::make_shared<detail::PeerMapCache>(s_->comm.context().state());
    s_->binding = std::move(b);
  }
  return s_->binding;
}

} // namespace tile
