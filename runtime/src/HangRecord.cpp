//===- HangRecord.cpp - hang reports of kernels that cannot print ---------===//
//
// A kernel with mma built with tilec --debug-hangs reports a wait that timed
// out by writing a hang record into host memory (tile/hang_record.h: a call
// to vprintf would make ptxas serialise its wgmma), then traps. The runtime
// maps that memory for every module that has a record when it loads it, keeps
// the module's report formats, and prints the report after the launch failed:
// in the error of the call that reports the fault (checkAfterKernels), or, for
// a program that synchronises through the CUDA runtime API instead, on stderr
// at exit. The record lives in host memory because a trap leaves the context
// unusable: device memory cannot be read after it.
//===----------------------------------------------------------------------===//
#include "RuntimeState.h"

#include "tile/hang_record.h"
#include "tile/runtime.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tile::detail {

struct HangRecordSlot {
  volatile uint64_t *host = nullptr; // the mapped record (kHangRecordWords words)
  std::vector<std::string> formats;  // tile$hang_msg$N, by N
  bool taken = false;                // reported once
  ~HangRecordSlot();
};

namespace {

struct HangRegistry {
  std::mutex mu;
  std::vector<HangRecordSlot *> live;
  std::vector<std::string> pending; // reports of modules already unloaded
  bool atExit = false;
};
HangRegistry &registry() {
  static HangRegistry *r = new HangRegistry; // never destroyed: read at exit
  return *r;
}

// The report of a written, not yet taken record ("" otherwise). Holds the lock.
std::string takeLocked(HangRecordSlot &s) {
  if (s.taken || !s.host || s.host[0] != hang::kHangRecordMagic)
    return "";
  s.taken = true;
  uint64_t words[hang::kHangRecordWords];
  for (int i = 0; i < hang::kHangRecordWords; ++i)
    words[i] = s.host[i];
  const uint64_t site = words[1];
  const size_t nargs = std::min<uint64_t>(words[2], hang::kHangRecordMaxArgs);
  if (site >= s.formats.size())
    return "tilec: hang: a --debug-hangs wait timed out (report " + std::to_string(site) +
           ", which the module does not name)\n";
  return formatHangRecord(s.formats[site], std::vector<uint64_t>(words + 3, words + 3 + nargs));
}

void printAtExit() {
  const std::string text = takeHangReports();
  if (!text.empty()) {
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  }
}

} // namespace

HangRecordSlot::~HangRecordSlot() {
  {
    HangRegistry &r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    std::string text = takeLocked(*this);
    if (!text.empty())
      r.pending.push_back(std::move(text));
    r.live.erase(std::remove(r.live.begin(), r.live.end(), this), r.live.end());
  }
  const Driver &d = driver();
  if (host && d.api.cuMemFreeHost)
    d.api.cuMemFreeHost(const_cast<uint64_t *>(host));
}

std::string formatHangRecord(const std::string &format, const std::vector<uint64_t> &args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out += format[i];
      continue;
    }
    if (format[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    const bool wide = format.compare(i + 1, 2, "ll") == 0;
    const size_t c = i + (wide ? 3 : 1);
    if (c >= format.size()) {
      out += format.substr(i);
      break;
    }
    const uint64_t v = next < args.size() ? args[next] : 0;
    ++next;
    char buf[32];
    switch (format[c]) {
    case 'd':
    case 'i':
      std::snprintf(buf, sizeof buf, "%lld",
                    wide ? static_cast<long long>(v) : static_cast<long long>(int32_t(v)));
      break;
    case 'u':
      std::snprintf(buf, sizeof buf, "%llu",
                    static_cast<unsigned long long>(wide ? v : uint32_t(v)));
      break;
    case 'x':
      std::snprintf(buf, sizeof buf, "%llx",
                    static_cast<unsigned long long>(wide ? v : uint32_t(v)));
      break;
    default: // not a conversion tilec writes: keep the text
      out += format.substr(i, c - i + 1);
      i = c;
      continue;
    }
    out += buf;
    i = c;
  }
  return out;
}

// Whether `text` (PTX, or an image's symbol table) holds `name` followed by
// no further digit (tile$hang_msg$1 is not tile$hang_msg$12).
static bool holdsName(const std::string &text, const std::string &name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end])))
      return true;
  }
  return false;
}

void bindHangRecord(ModuleState &s) {
  // Only modules tilec gave a record: the others cost no driver call.
  const std::string &text = s.ptx.empty() ? s.image : s.ptx;
  if (text.find(hang::kRecordSymbol) == std::string::npos)
    return;
  CUdeviceptr global = 0;
  size_t bytes = 0;
  if (TILE_CU_RAW(cuModuleGetGlobal, &global, &bytes, s.mod, hang::kRecordSymbol) != CUDA_SUCCESS ||
      bytes != sizeof(uint64_t))
    return; // the name only appears in a comment or a string
  auto slot = std::make_shared<HangRecordSlot>();
  void *host = nullptr;
  TILE_CU(cuMemHostAlloc, &host, hang::kHangRecordWords * sizeof(uint64_t),
          CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  std::memset(host, 0, hang::kHangRecordWords * sizeof(uint64_t));
  slot->host = static_cast<volatile uint64_t *>(host);
  CUdeviceptr device = 0;
  TILE_CU(cuMemHostGetDevicePointer, &device, host, 0);
  const uint64_t address = device;
  TILE_CU(cuMemcpyHtoD, global, &address, sizeof address);
  for (int n = 0;; ++n) {
    CUdeviceptr msg = 0;
    size_t len = 0;
    const std::string name = hang::kMessagePrefix + std::to_string(n);
    // Only a name the module holds is looked up: the lookup past the last
    // message would fail, and compute-sanitizer reports a failed driver call
    // as an error of the program.
    if (!holdsName(text, name) ||
        TILE_CU_RAW(cuModuleGetGlobal, &msg, &len, s.mod, name.c_str()) != CUDA_SUCCESS)
      break;
    std::string format(len, '\0');
    TILE_CU(cuMemcpyDtoH, &format[0], msg, len);
    format.resize(std::strlen(format.c_str()));
    slot->formats.push_back(std::move(format));
  }
  HangRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.live.push_back(slot.get());
  if (!r.atExit) {
    r.atExit = true;
    std::atexit(printAtExit);
  }
  s.hangRecord = std::move(slot);
}

} // namespace tile::detail

namespace tile {

std::string takeHangReports() {
  detail::HangRegistry &r = detail::registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string out;
  for (std::string &p : r.pending)
    out += p;
  r.pending.clear();
  for (detail::HangRecordSlot *s : r.live)
    out += detail::takeLocked(*s);
  return out;
}

} // namespace tile
