//===- tilec.cpp - the tilec command line ----------------------------------===//
//
//   tilec FILE.tile -o OUT [--emit=ast|mlir|nvvm|llvm|ptx|cubin] [--arch=sm_90a]
//         [-O0..-O3] [--cluster=X[,Y,Z]] [--mlir-print-ir-after-all]
//
// Exit code 0 on success, 1 on any error (diagnostics on stderr).
//===----------------------------------------------------------------------===//
#include "tilec/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("tilec options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .tile file>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<std::string> emit("emit", cl::desc("What to emit: ast, mlir, nvvm, llvm, ptx, cubin"),
                                 cl::init("ptx"), cl::cat(category));
static cl::opt<std::string> arch("arch", cl::desc("Target architecture"), cl::init("sm_90a"),
                                 cl::cat(category));
static cl::opt<unsigned> optLevel("O", cl::desc("Optimisation level 0-3"), cl::Prefix,
                                  cl::init(3), cl::cat(category));
static cl::opt<std::string> cluster("cluster",
                                    cl::desc("Override every kernel's cluster shape: X[,Y[,Z]]"),
                                    cl::init(""), cl::cat(category));
static cl::opt<bool> explainSync("explain-sync",
                                 cl::desc("Print one line per fence/barrier the compiler inserted "
                                          "or changed (location, kind, reason) to stderr"),
                                 cl::init(false), cl::cat(category));
static cl::opt<bool> noAutoSync("no-auto-sync",
                                cl::desc("Insert no fences or barriers; report missing ones as errors"),
                                cl::init(false), cl::cat(category));
static cl::opt<std::string> debugHangs(
    "debug-hangs", cl::desc("Bound every mbarrier wait to MS milliseconds (default 2000), then "
                            "print the wait, CTA and thread, and trap"),
    cl::value_desc("MS"), cl::ValueOptional, cl::init(""), cl::cat(category));
static cl::opt<bool> printIRAfterAll("mlir-print-ir-after-all",
                                     cl::desc("Print the IR after every MLIR pass"),
                                     cl::init(false), cl::cat(category));

static bool parseCluster(StringRef text, std::array<int, 3> &dims) {
  dims = {1, 1, 1};
  SmallVector<StringRef, 3> parts;
  text.split(parts, ',');
  if (parts.empty() || parts.size() > 3)
    return false;
  for (auto [i, part] : llvm::enumerate(parts)) {
    if (part.trim().getAsInteger(10, dims[i]) || dims[i] < 1 || dims[i] > 16)
      return false;
  }
  return true;
}

/// ptxas from PATH or the CUDA toolkit, to turn PTX into a cubin.
static bool runPtxas(StringRef ptx, StringRef output) {
  auto ptxas = sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas) {
    errs() << "tilec: error: --emit=cubin needs ptxas (not in PATH or /usr/local/cuda/bin)\n"
           << "hint: install the CUDA toolkit, or use --emit=ptx and let the runtime JIT it\n";
    return false;
  }
  SmallString<128> ptxPath;
  int fd;
  if (sys::fs::createTemporaryFile("tilec", "ptx", fd, ptxPath)) {
    errs() << "tilec: error: cannot create a temporary file\n";
    return false;
  }
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string err;
  StringRef args[] = {*ptxas, "-arch", arch, ptxPath, "-o", output};
  int rc = sys::ExecuteAndWait(*ptxas, args, std::nullopt, {}, 0, 0, &err);
  sys::fs::remove(ptxPath);
  if (rc != 0) {
    errs() << "tilec: error: ptxas failed" << (err.empty() ? "" : ": " + err) << "\n";
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tilec: compile .tile kernels for NVIDIA Hopper (sm_90a) to PTX\n");

  static const char *kinds[] = {"ast", "mlir", "nvvm", "llvm", "ptx", "cubin"};
  if (std::find(std::begin(kinds), std::end(kinds), emit.getValue()) == std::end(kinds)) {
    errs() << "tilec: error: unknown --emit kind '" << emit << "'\n"
           << "hint: use one of ast, mlir, nvvm, llvm, ptx, cubin\n";
    return 1;
  }
  if (optLevel > 3) {
    errs() << "tilec: error: -O" << optLevel << " is not a level\nhint: use -O0 to -O3\n";
    return 1;
  }

  tile::CompileOptions options;
  options.arch = arch;
  options.optLevel = optLevel;
  options.emit = emit == "cubin" ? "ptx" : emit.getValue();
  options.fileName = inputFile;
  options.printIRAfterAll = printIRAfterAll;
  options.autoSync = !noAutoSync;
  options.explainSync = explainSync;
  if (debugHangs.getNumOccurrences()) {
    unsigned ms = 2000;
    if (!debugHangs.empty() && (StringRef(debugHangs).getAsInteger(10, ms) || ms == 0)) {
      errs() << "tilec: error: bad --debug-hangs value '" << debugHangs << "'\n"
             << "hint: give a positive number of milliseconds, e.g. --debug-hangs=500\n";
      return 1;
    }
    options.debugHangsMs = ms;
  }
  if (!cluster.empty()) {
    std::array<int, 3> dims;
    if (!parseCluster(cluster, dims)) {
      errs() << "tilec: error: bad --cluster value '" << cluster << "'\n"
             << "hint: give 1 to 3 positive sizes of at most 16, e.g. --cluster=2 or --cluster=2,1,1\n";
      return 1;
    }
    options.clusterOverride = dims;
  }

  auto buffer = MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer) {
    errs() << "tilec: error: cannot read '" << inputFile << "': " << buffer.getError().message()
           << "\n";
    return 1;
  }
  tile::CompileResult result = tile::compile((*buffer)->getBuffer().str(), options);
  errs() << result.diagnostics << result.syncReport;
  if (!result.ok)
    return 1;

  if (emit == "cubin") {
    if (outputFile == "-") {
      errs() << "tilec: error: --emit=cubin needs -o FILE\n";
      return 1;
    }
    return runPtxas(result.output, outputFile) ? 0 : 1;
  }
  std::error_code ec;
  ToolOutputFile out(outputFile, ec, sys::fs::OF_Text);
  if (ec) {
    errs() << "tilec: error: cannot write '" << outputFile << "': " << ec.message() << "\n";
    return 1;
  }
  out.os() << result.output;
  out.keep();
  return 0;
}
