// The runtime's side of the hang record (tile/hang_record.h), against the fake
// libcuda.so.1: a module tilec gave a record gets mapped host memory, its
// address in the module's tile$hang_record, and its report formats; a record
// the "kernel" wrote is reported in the error of the call that sees the
// failed launch, once, formatted like the device printf would have.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "FakeDriverSupport.h"
#include "tile/hang_record.h"
#include "tile/runtime.h"

namespace {

const std::string kHeader = ".version 8.5\n.target sm_90a\n.address_size 64\n";
const std::string kEntry = ".visible .entry k(.param .u64 a) { ret; }\n";

// `.visible .global .align 1 .b8 NAME[N] = {...}` of text and its NUL, as tilec writes it.
std::string bytesGlobal(const std::string &name, const std::string &text) {
  std::string out =
      ".visible .global .align 1 .b8 " + name + "[" + std::to_string(text.size() + 1) + "] = {";
  for (unsigned char c : text)
    out += std::to_string(c) + ", ";
  return out + "0};\n";
}

const std::string kSemReport = "tilec: hang: device %d: wait(sem[%d], %llu) at k.tile:3:5: counter "
                               "is %llu (CTA %u, mask %x, 100%%)\n";
const std::string kBarReport = "tilec --debug-hangs: k.tile:9:7: wait on mbarrier 'r.full' of "
                               "stage %d timed out\n";

std::string ptxWithRecord() {
  return kHeader + ".visible .global .align 8 .u64 " + tile::hang::kRecordSymbol + ";\n" +
         bytesGlobal(std::string(tile::hang::kMessagePrefix) + "0", kSemReport) +
         bytesGlobal(std::string(tile::hang::kMessagePrefix) + "1", kBarReport) + kEntry;
}

tile::ModuleOptions options() {
  tile::ModuleOptions o = tile::ModuleOptions::launchWithoutInfo();
  o.useCache = false;
  return o;
}

// What the kernel finds in tile$hang_record: the record's device address.
uint64_t *recordOf(const tile::Module &m) {
  using GetGlobal = CUresult (*)(CUdeviceptr *, size_t *, CUmodule, const char *);
  auto get = reinterpret_cast<GetGlobal>(dlsym(fakeDriverHandle(), "cuModuleGetGlobal_v2"));
  REQUIRE(get != nullptr);
  CUdeviceptr global = 0;
  size_t bytes = 0;
  REQUIRE(get(&global, &bytes, m.raw(), tile::hang::kRecordSymbol) == CUDA_SUCCESS);
  REQUIRE(bytes == 8);
  uint64_t address = 0;
  std::memcpy(&address, reinterpret_cast<const void *>(global), 8);
  return reinterpret_cast<uint64_t *>(address);
}

// The kernel's writes (DebugToNVVM.cpp): the fields, then the magic word.
void writeRecord(uint64_t *r, uint64_t site, std::initializer_list<uint64_t> args) {
  r[1] = site;
  r[2] = args.size();
  size_t i = 3;
  for (uint64_t a : args)
    r[i++] = a;
  r[0] = tile::hang::kHangRecordMagic;
}

} // namespace

TEST_CASE("hang record: mapped for a module that has one, reported once by the failing call",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Module m = tile::Module::fromPtx(ctx, ptxWithRecord(), options());
  CHECK(fake().hostAllocs == 1);
  CHECK((fake().hostAllocFlags & CU_MEMHOSTALLOC_DEVICEMAP) != 0);
  // The report formats are looked up by the names the module holds: no
  // lookup past the last one fails (compute-sanitizer reports a failed
  // driver call as an error of the program).
  CHECK(fake().globalMisses == 0);
  uint64_t *record = recordOf(m);
  REQUIRE(record != nullptr);
  CHECK(record[0] == 0); // nothing timed out yet
  CHECK(tile::takeHangReports().empty());
  CHECK_NOTHROW(ctx.synchronize());

  // Device 2, counter -5 (an i32, sign-extended), value 7, seen 3, CTA 4294967295 (%u), 0xbeef.
  writeRecord(record, 0, {2, uint64_t(int64_t(-5)), 7, 3, 0xffffffffull, 0xbeef});
  fake().syncResult = CUDA_ERROR_LAUNCH_FAILED;
  const std::string text = errorText([&] { ctx.synchronize(); });
  fake().syncResult = CUDA_SUCCESS;
  CHECK_THAT(text, Catch::Contains("cuCtxSynchronize failed"));
  CHECK_THAT(text, Catch::Contains("tilec: hang: device 2: wait(sem[-5], 7) at k.tile:3:5: "
                                   "counter is 3 (CTA 4294967295, mask beef, 100%)"));
  // Reported once: neither a later call nor the exit report repeats it.
  CHECK(tile::takeHangReports().empty());
}

TEST_CASE("hang record: the report of a module unloaded first is kept; a module without a "
          "record maps nothing",
          "[fake]") {
  reset();
  tile::Context ctx;
  {
    tile::Module m = tile::Module::fromPtx(ctx, ptxWithRecord(), options());
    writeRecord(recordOf(m), 1, {3});
  }
  CHECK(fake().hostFrees == 1);
  CHECK(tile::takeHangReports() ==
        "tilec --debug-hangs: k.tile:9:7: wait on mbarrier 'r.full' of stage 3 timed out\n");
  CHECK(tile::takeHangReports().empty());

  reset();
  tile::Module plain = tile::Module::fromPtx(ctx, kHeader + kEntry, options());
  CHECK(fake().hostAllocs == 0);
  // A fault without a record says what it said before.
  fake().syncResult = CUDA_ERROR_LAUNCH_FAILED;
  const std::string text = errorText([&] { ctx.synchronize(); });
  fake().syncResult = CUDA_SUCCESS;
  CHECK_THAT(text, Catch::Contains("cuCtxSynchronize failed"));
  CHECK_THAT(text, !Catch::Contains("tilec: hang"));
}
