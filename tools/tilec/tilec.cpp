//===- tilec.cpp - the tilec command line ----------------------------------===//
//
//   tilec FILE.tile -o OUT [--emit=ast|mlir|nvvm|llvm|ptx|cubin|info] [--arch=ARCH]
//         [-O0..-O3] [--cluster=X[,Y,Z]] [--verify-ptxas[=PATH]] [--mlir-print-ir-after-all]
//
// Exit code 0 on success, 1 on any error. Every error is one
// "tilec: error: ..." line (or a FILE:LINE:COL diagnostic) plus a hint on
// stderr; nothing ends in an LLVM fatal error or an abort.
//===----------------------------------------------------------------------===//
#include "TilecIO.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Compiler.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace llvm;
using tilec::io::fail;

static cl::OptionCategory category("tilec options");
// Help texts from the facts they describe (tilec/Target/TargetFacts.h, tilec/Compiler.h).
static const std::string emitKinds = tile::emitKindList() + ", cubin";
static const std::string emitHelp = "What to emit: " + emitKinds;
static const std::string archHelp = "Target architecture: " + tile::target::supportedArchList() +
                                    " (default " + tile::target::kDefaultArch + ")";
static const std::string clusterHelp =
    "Override every kernel's cluster shape: X[,Y[,Z]], at most " +
    std::to_string(tile::target::kMaxClusterSize) + " CTAs in all";
static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .tile file, or - for stdin>"), cl::Required,
                                      cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout, the default)"),
                                       cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<std::string> emit("emit", cl::desc(emitHelp), cl::init("ptx"), cl::cat(category));
static cl::opt<std::string> arch("arch", cl::desc(archHelp), cl::init(tile::target::kDefaultArch),
                                 cl::cat(category));
static cl::opt<std::string> optLevel("O", cl::desc("Optimisation level 0-3 (default 3)"),
                                     cl::Prefix, cl::value_desc("level"), cl::init("3"),
                                     cl::cat(category));
static cl::opt<std::string> cluster("cluster", cl::desc(clusterHelp), cl::init(""),
                                    cl::cat(category));
static cl::opt<bool> explainSync("explain-sync",
                                 cl::desc("Print one line per fence/barrier the compiler inserted "
                                          "or changed (location, kind, reason) to stderr"),
                                 cl::init(false), cl::cat(category));
static cl::opt<bool>
    noAutoSync("no-auto-sync",
               cl::desc("Insert no fences or barriers; report missing ones as errors"),
               cl::init(false), cl::cat(category));
static const std::string debugHangsHelp = "Bound every mbarrier wait to MS milliseconds (default " +
                                          std::to_string(tile::kDefaultDebugHangsMs) +
                                          ", at most " + std::to_string(tile::kMaxDebugHangsMs) +
                                          "), then print the wait, CTA and thread, and trap";
static cl::opt<std::string> debugHangs("debug-hangs", cl::desc(debugHangsHelp),
                                       cl::value_desc("MS"), cl::ValueOptional, cl::init(""),
                                       cl::cat(category));
static cl::opt<std::string>
    verifyPtxas("verify-ptxas",
                cl::desc("Run ptxas -v on the PTX (ptxas from PATH or /usr/local/cuda/bin, or "
                         "the one given) and make its advisories about dropped setmaxnreg or "
                         "serialised wgmma errors at the kernel's location"),
                cl::value_desc("PATH"), cl::ValueOptional, cl::init(""), cl::cat(category));
static cl::opt<bool>
    noWgmmaCheck("no-wgmma-check",
                 cl::desc("Do not run ptxas on a module with wgmma to find serialised wgmma "
                          "(by default an error at the kernel: the runtime refuses the module)"),
                 cl::init(false), cl::cat(category));
static cl::opt<bool> fmad("fmad",
                          cl::desc("Contract a * b + c into fma.rn (default true, as nvcc's "
                                   "-fmad); --fmad=false rounds every product and sum"),
                          cl::init(true), cl::cat(category));
static cl::opt<bool> fastMath("fast-math",
                              cl::desc("Math functions default to their approximate PTX forms "
                                       "(ex2.approx, lg2.approx, sin.approx, rsqrt.approx, "
                                       "tanh.approx, sqrt.approx); no flush-to-zero"),
                              cl::init(false), cl::cat(category));
static cl::opt<std::string> mmaWaitAnchor(
    "mma-wait-anchor",
    cl::desc("Keep a consume block's closing wgmma.wait_group 0, when its turn left mmas in "
             "flight, after: none (default; ptxas hoists it to the first stall of the block's "
             "work), reduce (the block's first reduction), last (the end of its work)"),
    cl::value_desc("none|reduce|last"), cl::init("none"), cl::cat(category));
static cl::opt<std::string>
    libdevice("libdevice",
              cl::desc("libdevice.10.bc for the accurate exp, log, sin, cos, tanh, erf, pow "
                       "and C's log1p ... fmod (default: $TILEC_LIBDEVICE, else the CUDA "
                       "toolkit tilec was built with)"),
              cl::value_desc("path"), cl::init(""), cl::cat(category));
static cl::list<std::string>
    defines("D",
            cl::desc("Instantiate kernels with compile-time parameters: NAME=V[,V...] (every "
                     "kernel with parameter NAME), KERNEL.NAME=V[,V...], or 'KERNEL<V1,V2>' (one "
                     "instance; repeatable); a value is an integer, true/false, or a scalar "
                     "type's name for a type parameter (T=f16,bf16)"),
            cl::Prefix, cl::value_desc("def"), cl::ZeroOrMore, cl::cat(category));
static cl::opt<bool> printIRAfterAll("mlir-print-ir-after-all",
                                     cl::desc("Print the IR after every MLIR pass"),
                                     cl::init(false), cl::cat(category));

/// The cluster shape of --cluster, or an error naming the option and the limit.
static bool parseCluster(StringRef text, std::array<int, 3> &dims) {
  auto bad = [&](const Twine &why) {
    return fail("bad --cluster value '" + text + "': " + why,
                "give 1 to 3 positive sizes whose product is at most " +
                    Twine(tile::target::kMaxClusterSize) + ", e.g. --cluster=2 or --cluster=4,2");
  };
  dims = {1, 1, 1};
  SmallVector<StringRef, 4> parts;
  text.split(parts, ',');
  if (parts.size() > 3)
    return bad("more than 3 dimensions");
  int64_t total = 1;
  for (auto [i, part] : llvm::enumerate(parts)) {
    int64_t d;
    if (part.trim().getAsInteger(10, d))
      return bad("'" + part + "' is not a number");
    // As the source and -D read integers: a leading 0 is C's octal, not ours.
    if (part.trim().size() > 1 && part.trim().starts_with("0"))
      return bad("'" + part + "' starts with 0 (there are no octal sizes): write " + Twine(d));
    if (d < 1)
      return bad("sizes must be positive");
    if (d > tile::target::kMaxClusterSize)
      return bad(Twine(d) + " is more than " + Twine(tile::target::kMaxClusterSize) + " CTAs");
    dims[i] = static_cast<int>(d);
    total *= d;
  }
  if (total > tile::target::kMaxClusterSize) {
    std::string product;
    for (size_t i = 0; i < parts.size(); ++i)
      product += (i ? "*" : "") + std::to_string(dims[i]);
    return fail("--cluster=" + text + " asks for " + product + " = " + Twine(total) +
                    " CTAs per cluster, over the limit of " + Twine(tile::target::kMaxClusterSize),
                "a cluster holds at most " + Twine(tile::target::kMaxClusterSize) + " CTAs (" +
                    Twine(tile::target::kMaxPortableClusterSize) +
                    " portably); e.g. --cluster=4,2,2");
  }
  return true;
}

/// ptxas from PATH or the CUDA toolkit turns the PTX into a cubin, written
/// (with every output check) to `output`.
static bool emitCubin(StringRef ptx, StringRef output, StringRef input) {
  auto ptxas = sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    return fail("--emit=cubin needs ptxas (not in PATH or /usr/local/cuda/bin)",
                "install the CUDA toolkit, or use --emit=ptx and let the runtime JIT it");
  tilec::io::TempFile ptxFile("ptx"), cubinFile("cubin"), logFile("log");
  if (!ptxFile.create() || !cubinFile.create() || !logFile.create())
    return false;
  if (!tilec::io::writeOutput(ptxFile.path(), ptx, /*binary=*/false, /*input=*/""))
    return false;
  std::string err;
  StringRef args[] = {*ptxas, "-arch", arch, ptxFile.path(), "-o", cubinFile.path()};
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.path(), logFile.path()};
  int rc = sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects, 0, 0, &err);
  if (rc != 0) {
    std::string log;
    tilec::io::readSmallFile(logFile.path(), log);
    StringRef why = StringRef(log).trim();
    return fail("ptxas failed" + (err.empty() ? "" : ": " + err) + (why.empty() ? "" : "\n" + why),
                "the PTX itself is valid for " + arch +
                    " (tilec checks it); see ptxas's message above");
  }
  std::string cubin;
  if (!tilec::io::readSmallFile(cubinFile.path(), cubin))
    return fail("cannot read ptxas's output", "check the temporary directory ($TMPDIR)");
  return tilec::io::writeOutput(output, cubin, /*binary=*/true, input);
}

static void printVersion(raw_ostream &os) {
  os << "tilec version " << TILEC_VERSION << "\n"
     << "  targets: " << tile::target::supportedArchList() << " (default "
     << tile::target::kDefaultArch << "), PTX ISA " << tile::target::kPtxIsaMajor << "."
     << tile::target::kPtxIsaMinor << "\n"
     << "  built with LLVM " << LLVM_VERSION_STRING << "\n";
}

/// Whatever still reaches an LLVM fatal error becomes a tilec error with exit
/// status 1, not "LLVM ERROR" and an abort. Written with write(2): raw_ostreams
/// may themselves be what failed (stdout of --help or --version on a full
/// disk fails when the stream is destroyed at exit).
static void onFatalError(void *, const char *reason, bool) {
  StringRef why(reason);
  std::string text =
      why.consume_front("IO failure on output stream: ")
          ? "tilec: error: cannot write the output: " + why.str() +
                "\nhint: check where stdout goes, or use -o FILE\n"
          : "tilec: error: internal error: " + why.str() +
                "\nhint: this is a tilec bug; please report it with the input file\n";
  ssize_t written = ::write(2, text.data(), text.size());
  (void)written;
  sys::RunInterruptHandlers();
  _exit(1);
}

/// llvm::cl::ParseCommandLineOptions with its messages rewritten as tilec
/// errors. Some of them (a missing value, a bad boolean) go straight to
/// stderr, not to the stream it is given, so stderr is redirected to an
/// unlinked temporary file while it parses.
static bool parseCommandLine(int argc, char **argv) {
  std::string overview = "tilec: compile .tile kernels for NVIDIA Hopper (" +
                         tile::target::supportedArchList() + ") to PTX\n";
  SmallString<128> capturePath;
  int captureFd = -1;
  int savedStderr = -1;
  // --help and --version print and exit inside the parser: leave stderr alone
  // for them, or an error writing their output would vanish into the capture.
  bool exitsInParser = llvm::any_of(ArrayRef<char *>(argv + 1, argv + argc), [](StringRef arg) {
    arg = arg.ltrim('-');
    return arg.starts_with("help") || arg.starts_with("version") || arg.starts_with("print-");
  });
  if (!exitsInParser && !sys::fs::createTemporaryFile("tilec-cl", "txt", captureFd, capturePath)) {
    sys::fs::remove(capturePath);
    errs().flush();
    savedStderr = ::dup(2);
    if (savedStderr < 0 || ::dup2(captureFd, 2) < 0) {
      ::close(captureFd);
      captureFd = -1;
    }
  }
  std::string messages;
  raw_string_ostream messageStream(messages);
  bool ok = cl::ParseCommandLineOptions(argc, argv, overview, &messageStream);
  if (captureFd >= 0) {
    errs().flush();
    ::dup2(savedStderr, 2);
    ::close(savedStderr);
    char chunk[4096];
    ::lseek(captureFd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(captureFd, chunk, sizeof chunk)) > 0 && messages.size() < 65536;)
      messages.append(chunk, static_cast<size_t>(n));
    ::close(captureFd);
  }
  if (ok && messages.empty())
    return true;
  // llvm::cl's lines start with the program name ("tilec: ...").
  StringRef program = sys::path::filename(argv[0]);
  SmallVector<StringRef, 4> lines;
  StringRef(messages).split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string text;
  for (StringRef line : lines) {
    line = line.trim();
    if (line.consume_front(program))
      line = line.drop_while([](char c) { return c == ':' || c == ' '; });
    text += (text.empty() ? "" : "\n") + line.str();
  }
  if (text.empty())
    text = "cannot parse the command line";
  fail(text, "run 'tilec --help' for the options");
  return false;
}

/// Each occurrence of single-value option `opt` on the command line: its
/// spelling ("-o a.ptx", "--emit=mlir", "-O2") and its value ("true" for a
/// bare flag).
static SmallVector<std::pair<std::string, std::string>, 2>
occurrences(const cl::Option &opt, ArrayRef<char *> args) {
  SmallVector<std::pair<std::string, std::string>, 2> out;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef arg = args[i];
    if (arg == "--")
      break;
    if (!arg.starts_with("-"))
      continue;
    StringRef body = arg.drop_front(arg.starts_with("--") ? 2 : 1);
    if (!body.consume_front(opt.ArgStr))
      continue;
    if (body.consume_front("="))
      out.push_back({arg.str(), body.str()});
    else if (!body.empty() && opt.getFormattingFlag() == cl::Prefix)
      out.push_back({arg.str(), body.str()});
    else if (!body.empty())
      continue; // another option that starts with this one's name
    else if (opt.getValueExpectedFlag() == cl::ValueRequired && i + 1 < args.size()) {
      out.push_back({arg.str() + " " + args[i + 1], args[i + 1]});
      ++i;
    } else
      out.push_back({arg.str(), "true"});
  }
  return out;
}

/// An option's name as --help spells it: -o, -O, --emit.
static std::string dashed(const cl::Option &opt) {
  return (opt.ArgStr.size() == 1 ? "-" : "--") + opt.ArgStr.str();
}

/// tilec's own options: LLVM's registered ones are not tilec's to judge
/// (and, LLVM being built without RTTI, UBSan cannot type them).
static ArrayRef<cl::Option *> ownOptions() {
  static cl::Option *const own[] = {&outputFile, &emit,        &arch,         &optLevel,
                                    &cluster,    &explainSync, &noAutoSync,   &debugHangs,
                                    &verifyPtxas, &noWgmmaCheck, &fmad,        &fastMath,
                                    &mmaWaitAnchor, &libdevice, &printIRAfterAll,
                                    std::addressof(defines)};
  return own;
}

/// An option that takes its value from the next word (`-o FILE`, `-D DEF`,
/// `--emit KIND`) followed by a word that is itself an option is an error:
/// llvm::cl would take `-D -o x.ptx` as the definition "-o" (then x.ptx as a
/// second input) and `-o -D` as the output file "-D". A value that starts
/// with '-' is still written joined (`-o=-D`); a lone `-` (stdout) is a value.
static bool checkOptionLikeValues(int argc, char **argv) {
  ArrayRef<char *> args(argv + 1, argv + argc);
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    StringRef arg = args[i], next = args[i + 1];
    if (arg == "--")
      break;
    if (!arg.starts_with("-") || next.size() < 2 || !next.starts_with("-"))
      continue;
    StringRef name = arg.drop_front(arg.starts_with("--") ? 2 : 1);
    for (cl::Option *opt : ownOptions()) {
      if (name != opt->ArgStr || opt->getValueExpectedFlag() != cl::ValueRequired)
        continue;
      std::string what = opt->ValueStr.empty() ? "value" : opt->ValueStr.str();
      std::string joined = dashed(*opt) + (opt->getFormattingFlag() == cl::Prefix ? "" : "=");
      return fail("'" + arg.str() + "' needs a value (<" + what + ">) next, found the option '" +
                      next.str() + "'",
                  "write the value right after " + dashed(*opt) + " (`" + dashed(*opt) + " <" +
                      what + ">`); a value that starts with '-' is written joined: `" + joined +
                      next.str() + "`");
    }
  }
  return true;
}

/// A single-value option given twice with different values is an error
/// naming both (as nvcc's "redefinition of argument"): llvm::cl would keep
/// the last silently. The same value twice is accepted, as `-D N=3 -D N=3`.
static bool checkRepeatedOptions(int argc, char **argv) {
  bool ok = true;
  for (cl::Option *opt : ownOptions()) {
    if (opt->getNumOccurrences() < 2 || opt->isPositional() ||
        opt->getNumOccurrencesFlag() == cl::ZeroOrMore ||
        opt->getNumOccurrencesFlag() == cl::OneOrMore)
      continue;
    auto seen = occurrences(*opt, ArrayRef<char *>(argv + 1, argv + argc));
    for (size_t i = 1; i < seen.size() && ok; ++i)
      if (seen[i].second != seen[0].second)
        ok = fail("'" + seen[0].first + "' and '" + seen[i].first + "' give " + dashed(*opt) +
                      " two values",
                  "give " + dashed(*opt) + " once (tilec does not take the last one silently)");
  }
  return ok;
}

static int run(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter(printVersion);
  if (!checkOptionLikeValues(argc, argv) || !parseCommandLine(argc, argv) ||
      !checkRepeatedOptions(argc, argv))
    return 1;

  // cubin is PTX run through ptxas here, after compiling.
  std::optional<tile::EmitKind> emitKind =
      emit == "cubin" ? tile::EmitKind::PTX : tile::parseEmitKind(emit.getValue());
  if (!emitKind) {
    fail("unknown --emit kind '" + emit + "'", "use one of " + emitKinds);
    return 1;
  }
  unsigned level;
  if (StringRef(optLevel).getAsInteger(10, level) || level > 3) {
    fail("-O" + optLevel + " is not a level", "use -O0 to -O3");
    return 1;
  }
  // --arch is checked by tile::compile, against tile/target.h and tilec/Target/TargetFacts.h.

  tile::CompileOptions options;
  options.arch = arch;
  options.optLevel = static_cast<int>(level);
  options.emit = *emitKind;
  options.fileName = inputFile == "-" ? "<stdin>" : inputFile.getValue();
  options.printIRAfterAll = printIRAfterAll;
  options.autoSync = !noAutoSync;
  options.explainSync = explainSync;
  if (verifyPtxas.getNumOccurrences()) {
    options.verifyPtxas = true;
    options.ptxasPath = verifyPtxas;
  }
  options.checkWgmma = !noWgmmaCheck;
  options.fmad = fmad;
  options.fastMath = fastMath;
  options.mmaWaitAnchor = mmaWaitAnchor;
  options.libdevicePath = libdevice;
  options.defines.assign(defines.begin(), defines.end());
  if (debugHangs.getNumOccurrences()) {
    unsigned ms = tile::kDefaultDebugHangsMs;
    if (!debugHangs.empty() &&
        (StringRef(debugHangs).getAsInteger(10, ms) || ms == 0 || ms > tile::kMaxDebugHangsMs)) {
      fail("bad --debug-hangs value '" + debugHangs + "'",
           "give a number of milliseconds from 1 to " + Twine(tile::kMaxDebugHangsMs) +
               ", e.g. --debug-hangs=500");
      return 1;
    }
    options.debugHangsMs = ms;
  }
  if (!cluster.empty() || cluster.getNumOccurrences()) {
    std::array<int, 3> dims;
    if (!parseCluster(cluster, dims))
      return 1;
    options.clusterOverride = dims;
  }
  if (emit == "cubin" && outputFile == "-") {
    fail("--emit=cubin needs -o FILE", "a cubin is binary; name the file to write it to");
    return 1;
  }
  // Refuse before compiling: writing would destroy the source.
  if (!tilec::io::checkOutputIsNotInput(outputFile, inputFile))
    return 1;

  std::string source;
  if (!tilec::io::readSource(inputFile, source))
    return 1;
  tile::CompileResult result = tile::compile(source, options);
  errs() << result.diagnostics << result.syncReport;
  if (!result.ok) {
    // An earlier run's output must not pass for this one's (a build system
    // would take it as up to date): removed, as a C compiler does.
    if (outputFile != "-" && sys::fs::is_regular_file(outputFile))
      sys::fs::remove(outputFile);
    return 1;
  }

  if (emit == "cubin")
    return emitCubin(result.output, outputFile, inputFile) ? 0 : 1;
  return tilec::io::writeOutput(outputFile, result.output, /*binary=*/false, inputFile) ? 0 : 1;
}

int main(int argc, char **argv) {
  install_fatal_error_handler(onFatalError);
  int rc = run(argc, argv);
  // A closed or full stderr must not turn into a fatal error at exit (the
  // stream reports unhandled write errors when destroyed); the exit status
  // already says whether compilation failed.
  errs().flush();
  errs().clear_error();
  return rc;
}
