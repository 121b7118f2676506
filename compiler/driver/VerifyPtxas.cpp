//===- VerifyPtxas.cpp - ptxas advisories as errors (--verify-ptxas) -------===//
//
// ptxas reports some silent slow-downs only in its info log (see
// tile/ptxas_advisory.h); with --verify-ptxas tilec runs ptxas on the PTX it
// produced and turns them into errors at the kernel's source location, so a
// build fails where the runtime's JIT would. The dropped-setmaxnreg advisory
// (C7508) names no kernel: with several kernels using setmaxnreg, ptxas runs
// again once per such kernel (`-e NAME`) to find it.
//
// Without the flag, a module with wgmma.mma_async is still assembled by the
// ptxas found (checkWgmmaWithPtxas): ptxas serialises wgmma for code that is
// legal (a non-wgmma instruction touching accumulator registers inside a
// wgmma pipeline stage, a call in the pipeline: the "wgmma.mma_async
// instructions are serialized" advisories), and the runtime then refuses
// the module at load; tilec says so at compile time instead. Modules without
// wgmma pay nothing.
//===----------------------------------------------------------------------===//
#include "VerifyPtxas.h"

#include "tile/ptxas_advisory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <functional>
#include <optional>

namespace tile::driver {

namespace {

/// A temporary file removed on destruction.
struct Temp {
  llvm::SmallString<128> path;
  bool create(llvm::StringRef suffix) {
    int fd = -1;
    if (llvm::sys::fs::createTemporaryFile("tilec-verify", suffix, fd, path))
      return false;
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    return true;
  }
  ~Temp() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

struct PtxasRun {
  int rc = -1;
  std::string log, error;
};

PtxasRun runPtxas(const std::string &ptxas, const std::string &arch, llvm::StringRef ptxPath,
                  const std::string &entry) {
  PtxasRun r;
  Temp log;
  if (!log.create("log")) {
    r.error = "cannot create a temporary file (check $TMPDIR)";
    return r;
  }
  llvm::SmallVector<llvm::StringRef, 10> args = {ptxas,   "-arch", arch,       "-v",
                                                 ptxPath, "-o",    "/dev/null"};
  if (!entry.empty()) {
    args.push_back("-e");
    args.push_back(entry);
  }
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log.path),
                                                llvm::StringRef(log.path)};
  r.rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &r.error);
  if (auto buf = llvm::MemoryBuffer::getFile(log.path))
    r.log = (*buf)->getBuffer().str();
  return r;
}

const frontend::KernelAST *findKernel(const frontend::ModuleAST &ast, const std::string &name) {
  for (const auto &k : ast.kernels)
    if (k->name == name)
      return k.get();
  return nullptr;
}

/// ptxas compiles every instruction of a kernel against the registers a
/// thread has at entry (65536 / (min_blocks x threads), rounded down to 8:
/// `.minnctapersm` with `.reqntid`/`.maxntid`); setmaxnreg moves registers
/// between warps at run time but does not raise that limit. A kernel whose
/// live values at some instruction need more (a wgmma accumulator of m64nN
/// f32 is N / 2 registers per thread) makes ptxas fail with "Insufficient
/// registers (E) to compile instruction at line L in function F": legal
/// source, so an error at the kernel with the cause, not a tilec bug.
/// Returns true when the log held that failure (every kernel it names is
/// reported).
bool reportRegisterShortage(llvm::StringRef log, const frontend::ModuleAST &ast,
                            frontend::DiagnosticEngine &diags) {
  bool found = false;
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    const size_t at = line.find("Insufficient registers (");
    const size_t fn = line.find(" in function ");
    if (at == llvm::StringRef::npos || fn == llvm::StringRef::npos)
      continue;
    llvm::StringRef count = line.drop_front(at + 24).take_until([](char c) { return c == ')'; });
    llvm::StringRef name = line.drop_front(fn + 13).take_until([](char c) { return c == ' '; });
    if (name.ends_with("."))
      name = name.drop_back();
    const frontend::KernelAST *k = findKernel(ast, name.str());
    if (!k) // an instance: its template's source
      k = findKernel(ast, name.take_until([](char c) { return c == '$'; }).str());
    diags.error(k ? k->loc : frontend::Location{},
                "kernel '" + name.str() + "' needs more registers per thread at some instruction "
                    "than the " + count.str() + " its launch bounds leave: ptxas compiles every "
                    "instruction against the count a thread enters with (65536 / (min_blocks x "
                    "threads), rounded down to 8), which setmaxnreg does not raise (ptxas: " +
                    line.trim().str() + ")",
                "lower min_blocks(N) or the threads, or keep less live at once: an mma "
                "accumulator of 64 x N f32 takes N / 2 registers per thread");
    found = true;
  }
  return found;
}

/// The local arrays a kernel body declares, with those of the functions
/// inlined in it.
void collectLocalArrays(const frontend::Block &b,
                        std::vector<const frontend::LocalArrayStmt *> &arrays) {
  frontend::forEachStmtIn(b, [&](const frontend::StmtAST &s) {
    if (auto *a = s.as<frontend::LocalArrayStmt>())
      arrays.push_back(a);
  });
  std::function<void(const frontend::ExprAST &)> visit = [&](const frontend::ExprAST &e) {
    if (auto *call = e.as<frontend::CallExpr>(); call && call->inlined)
      collectLocalArrays(call->inlined->body, arrays);
    frontend::forEachOperand(e, visit);
  };
  frontend::forEachExprIn(b, visit);
}

/// A local array lives in registers (docs/reference/statements.md, "Register
/// arrays"), as long as ptxas finds enough of them: where it does not, it
/// spills values to local memory, a slow-down the PTX does not show. Each
/// kernel that `ptxas -v` says spills is a warning at the kernel, naming its
/// local arrays, the usual cause.
void reportSpills(llvm::StringRef log, const frontend::ModuleAST &ast,
                  frontend::DiagnosticEngine &diags) {
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  llvm::StringRef function;
  for (llvm::StringRef line : lines) {
    if (size_t at = line.find("Function properties for "); at != llvm::StringRef::npos) {
      function = line.drop_front(at + 24).trim();
      continue;
    }
    size_t stores = line.find(" bytes spill stores");
    size_t loads = line.find(" bytes spill loads");
    if (function.empty() || stores == llvm::StringRef::npos || loads == llvm::StringRef::npos)
      continue;
    auto number = [&](size_t end) {
      return line.take_front(end).rtrim().rsplit(' ').second; // "..., 1536 bytes spill stores"
    };
    llvm::StringRef stored = number(stores), loaded = number(loads);
    llvm::StringRef name = function;
    function = {};
    if (stored == "0" && loaded == "0")
      continue;
    const frontend::KernelAST *k = findKernel(ast, name.str());
    if (!k) // an instance: its template's source
      k = findKernel(ast, name.take_until([](char c) { return c == '$'; }).str());
    if (!k)
      continue; // not an entry (a function ptxas kept)
    std::vector<const frontend::LocalArrayStmt *> arrays;
    collectLocalArrays(k->body, arrays);
    std::string named;
    for (const frontend::LocalArrayStmt *a : arrays)
      named += (named.empty() ? "'" : ", '") + a->decl->name + "'";
    diags.warning(k->loc,
                  "kernel '" + name.str() + "' spills registers to local memory: ptxas stores " +
                      stored.str() + " and loads " + loaded.str() +
                      " bytes per thread (ptxas -v)" +
                      (named.empty() ? std::string()
                                     : "; its local arrays " + named + " are meant to live in "
                                                                       "registers"),
                  "a thread has at most 255 registers, 65536 / (threads x min_blocks) when "
                  "that is fewer, and N in a role with `regs = N`: keep fewer values live at "
                  "once (smaller local arrays, fewer unrolled copies), or give the kernel fewer "
                  "threads or the role more registers");
  }
}

} // namespace

namespace {
bool runAndReport(const std::string &ptx, const CompileOptions &options,
                  const frontend::ModuleAST &ast, frontend::DiagnosticEngine &diags,
                  bool wgmmaOnly, bool hasWgmma) {
  std::string ptxas;
  // TILEC_PTXAS names the ptxas of the default wgmma check (a test's stand-in).
  const char *env = wgmmaOnly ? std::getenv("TILEC_PTXAS") : nullptr;
  if (env && *env && !llvm::sys::fs::can_execute(env)) {
    diags.warning({},
                  "TILEC_PTXAS='" + std::string(env) +
                      "' is not an executable ptxas: whether ptxas serialises this module's "
                      "wgmma instructions was not checked",
                  "give the path of ptxas in TILEC_PTXAS, or unset it to find ptxas; "
                  "--no-wgmma-check skips the check");
    return true;
  }
  if (env && *env) {
    ptxas = env;
  } else if (!options.ptxasPath.empty()) {
    if (!llvm::sys::fs::can_execute(options.ptxasPath)) {
      diags.error({}, "--verify-ptxas: '" + options.ptxasPath + "' is not an executable ptxas",
                  "give the path of ptxas (e.g. /usr/local/cuda/bin/ptxas), or --verify-ptxas "
                  "alone to find it");
      return false;
    }
    ptxas = options.ptxasPath;
  } else if (auto found = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"})) {
    ptxas = *found;
  } else if (auto inPath = llvm::sys::findProgramByName("ptxas")) {
    ptxas = *inPath;
  } else if (wgmmaOnly && !hasWgmma) {
    return true; // only spills to look for: not worth a warning on a machine without CUDA
  } else if (wgmmaOnly) {
    diags.warning({},
                  "ptxas not found: whether ptxas serialises this module's wgmma instructions "
                  "was not checked",
                  "install the CUDA toolkit (/usr/local/cuda/bin/ptxas), put ptxas in PATH, or "
                  "give --verify-ptxas=PATH; --no-wgmma-check skips the check (the runtime "
                  "still checks the JIT log at load)");
    return true;
  } else {
    diags.warning({},
                  "--verify-ptxas: ptxas not found; the PTX was not checked for ptxas "
                  "advisories",
                  "install the CUDA toolkit (/usr/local/cuda/bin/ptxas), put ptxas in PATH, or "
                  "give --verify-ptxas=PATH; the runtime still checks the JIT log");
    return true;
  }

  Temp ptxFile;
  std::error_code ec;
  if (ptxFile.create("ptx")) {
    llvm::raw_fd_ostream os(ptxFile.path, ec);
    if (!ec)
      os << ptx;
  }
  if (ptxFile.path.empty() || ec) {
    diags.error({}, "--verify-ptxas: cannot write the PTX to a temporary file",
                "check the temporary directory ($TMPDIR)");
    return false;
  }
  PtxasRun run = runPtxas(ptxas, options.arch, ptxFile.path, "");
  if (run.rc != 0 && reportRegisterShortage(run.log, ast, diags))
    return false;
  if (run.rc != 0) {
    std::string why = llvm::StringRef(run.log).trim().str();
    diags.error({},
                std::string(wgmmaOnly ? "ptxas (the default check)" : "--verify-ptxas: ptxas") +
                    " failed" + (run.error.empty() ? "" : ": " + run.error) +
                    (why.empty() ? "" : "\n" + why),
                "tilec's PTX should always assemble: this is a tilec bug; please report it with "
                "the input file");
    return false;
  }

  bool ok = true;
  auto report = [&](const PtxasAdvisory &a, const std::string &kernel) {
    const frontend::KernelAST *k = findKernel(ast, kernel);
    frontend::Location where;
    if (k)
      where = a.kind == PtxasAdvisoryKind::DroppedSetMaxNReg && k->warpgroups ? k->warpgroups->loc
                                                                              : k->loc;
    diags.error(where,
                "ptxas advisory " + (a.code.empty() ? "" : a.code + " ") + "in kernel '" + kernel +
                    "': " + ptxasAdvisoryMeaning(a.kind) + " (ptxas: " + a.text + ")",
                a.kind == PtxasAdvisoryKind::DroppedSetMaxNReg
                    ? "this is a tilec bug when the kernel came from tilec unchanged; please "
                      "report it with the input file"
                : llvm::StringRef(a.text).contains("insufficient register resources")
                    ? "the wgmma pipeline needs every in-flight accumulator and operand in "
                      "registers at once (the runtime refuses a module whose wgmma ptxas "
                      "serialises): hold fewer values across the mmas (a smaller N tile or "
                      "accumulator, fewer fragments live across them, no mma per branch of an "
                      "`if`), or give the role more registers (its `regs =`)"
                    : "keep non-wgmma instructions away from the accumulators between a wgmma and "
                      "its wait, and calls out of the mainloop (the runtime refuses a module "
                      "whose wgmma ptxas serialises); in tile source, mmas on different "
                      "accumulators in the branches of an `if` inside `consume ... inflight(n > "
                      "0)` do this: make that consume inflight(0), or report the input file");
    ok = false;
  };
  reportSpills(run.log, ast, diags);
  std::vector<PtxasAdvisory> found = findPtxasAdvisories(run.log);
  if (wgmmaOnly)
    llvm::erase_if(found, [](const PtxasAdvisory &a) {
      return a.kind != PtxasAdvisoryKind::SerialisedWgmma;
    });
  std::vector<std::string> users;
  bool usersKnown = false;
  for (const PtxasAdvisory &a : found) {
    if (!a.kernel.empty()) {
      report(a, a.kernel);
      continue;
    }
    // No kernel named (C7508): one of those that use setmaxnreg; run ptxas
    // on each alone when there are several.
    if (!usersKnown) {
      users = ptxEntriesContaining(ptx, "setmaxnreg");
      usersKnown = true;
    }
    if (users.size() == 1) {
      report(a, users.front());
      continue;
    }
    bool attributed = false;
    for (const std::string &name : users) {
      PtxasRun one = runPtxas(ptxas, options.arch, ptxFile.path, name);
      for (const PtxasAdvisory &b : findPtxasAdvisories(one.log))
        if (b.kind == a.kind) {
          report(b, name);
          attributed = true;
          break;
        }
    }
    if (!attributed)
      report(a, "<unknown>");
  }
  return ok;
}
} // namespace

bool verifyWithPtxas(const std::string &ptx, const CompileOptions &options,
                     const frontend::ModuleAST &ast, frontend::DiagnosticEngine &diags) {
  return runAndReport(ptx, options, ast, diags, /*wgmmaOnly=*/false, /*hasWgmma=*/true);
}

bool checkWithPtxas(const std::string &ptx, const CompileOptions &options,
                    const frontend::ModuleAST &ast, frontend::DiagnosticEngine &diags) {
  bool hasWgmma = ptx.find("wgmma.mma_async") != std::string::npos;
  bool hasLocalArrays = llvm::any_of(ast.kernels, [](const auto &k) {
    std::vector<const frontend::LocalArrayStmt *> arrays;
    collectLocalArrays(k->body, arrays);
    return !arrays.empty();
  });
  if (!hasWgmma && !hasLocalArrays)
    return true;
  return runAndReport(ptx, options, ast, diags, /*wgmmaOnly=*/true, hasWgmma);
}

} // namespace tile::driver
