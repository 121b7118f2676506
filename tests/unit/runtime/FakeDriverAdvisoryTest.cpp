// The JIT info log's ptxas advisories that undo warp roles (dropped
// setmaxnreg) or wgmma pipelining (serialised wgmma) are errors naming the
// kernel (runtime/src/Module.cpp, tile/ptxas_advisory.h). The advisory texts
// are what ptxas 13.0 prints (tests/lit/driver/verify-ptxas.test makes ptxas
// print them for real).
#include "FakeDriverSupport.h"

#include <cstdlib>
#include <filesystem>

#include "tile/ptxas_advisory.h"

namespace fs = std::filesystem;

namespace {

const char kDroppedSetMaxNReg[] =
    "ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to "
    "determine register count at entry.\n";
const char kSerialisedWgmma[] =
    "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are "
    "serialized due to wgmma pipeline crossing function boundary at a function call in the "
    "function 'mma'\n";

const std::string kRolesPtx = ".version 8.5\n.target sm_90a\n.address_size 64\n"
                              ".visible .entry plain(.param .u64 a) { ret; }\n"
                              ".visible .entry roles(.param .u64 a)\n{\n"
                              "  setmaxnreg.dec.sync.aligned.u32 40;\n  ret;\n}\n";

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "tilec-advisory-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

} // namespace

TEST_CASE("ptxas advisories: parsed from a log with code, kernel and text", "[fake]") {
  std::string log = std::string("ptxas info    : 0 bytes gmem\n") + kDroppedSetMaxNReg +
                    "ptxas info    : Used 168 registers, used 0 barriers\n" + kSerialisedWgmma;
  std::vector<tile::PtxasAdvisory> found = tile::findPtxasAdvisories(log);
  REQUIRE(found.size() == 2);
  CHECK(found[0].kind == tile::PtxasAdvisoryKind::DroppedSetMaxNReg);
  CHECK(found[0].code == "C7508");
  CHECK(found[0].kernel.empty());
  CHECK(found[0].text == "Potential Performance Loss: 'setmaxnreg' ignored; unable to determine "
                         "register count at entry.");
  CHECK(found[1].kind == tile::PtxasAdvisoryKind::SerialisedWgmma);
  CHECK(found[1].code == "C7510");
  CHECK(found[1].kernel == "mma");
  // Other performance notes (C7519: warpgroup.arrive injected) are not errors.
  CHECK(tile::findPtxasAdvisories("ptxas info    : (C7519) warpgroup.arrive is injected in "
                                  "around line 16 by compiler to allow use of registers in GMMA "
                                  "in function 'w'\n")
            .empty());
  CHECK(tile::ptxEntriesContaining(kRolesPtx, "setmaxnreg") == std::vector<std::string>{"roles"});
}

TEST_CASE("fake driver: a dropped setmaxnreg in the JIT log is an error naming the kernel",
          "[fake]") {
  reset();
  TempDir cache;
  tile::ModuleOptions options;
  options.cacheDir = cache.path.string();
  fake().jitInfoLog = kDroppedSetMaxNReg;
  tile::Context ctx;
  try {
    tile::Module::fromPtx(ctx, kRolesPtx, options);
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    std::string w = e.what();
    CHECK(e.call() == "ptxas (JIT)");
    CHECK(e.kernel() == "roles");
    CHECK_THAT(w, Catch::Contains("ptxas advisory C7508 for kernel 'roles': ptxas dropped "
                                  "setmaxnreg"));
    CHECK_THAT(w, Catch::Contains("'setmaxnreg' ignored; unable to determine register count"));
  }
  CHECK(fs::is_empty(cache.path)); // not cached: the next load reports it again
  // Without the advisory the same PTX loads, JIT-compiled as a whole program
  // (through the driver linker ptxas would drop setmaxnreg: a relocatable unit).
  fake().jitInfoLog.clear();
  int before = fake().wholeProgramLoads;
  tile::Module m = tile::Module::fromPtx(ctx, kRolesPtx, options);
  CHECK(m.valid());
  CHECK(fake().wholeProgramLoads == before + 1);
  CHECK(m.cubin().empty());
  CHECK(fs::is_empty(cache.path));
}

TEST_CASE("fake driver: serialised wgmma in the JIT log is an error naming the kernel", "[fake]") {
  reset();
  TempDir cache;
  tile::ModuleOptions options;
  options.cacheDir = cache.path.string();
  fake().jitInfoLog = kSerialisedWgmma;
  tile::Context ctx;
  try {
    tile::Module::fromPtx(ctx, kRolesPtx, options);
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.kernel() == "mma");
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("ptxas advisory C7510 for kernel 'mma': ptxas serialised the "
                               "wgmma instructions"));
  }
}
