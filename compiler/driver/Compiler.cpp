//===- Compiler.cpp - the tilec pipeline as a library ----------------------===//
#include "tilec/Compiler.h"
#include "KernelInfo.h"
#include "VerifyPtxas.h"
#include "tile/Dialect/Hint.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/EmitPTX.h"
#include "tilec/MLIRGen.h"
#include "tilec/Pipeline.h"
#include "tilec/SourceLoc.h"
#include "tilec/Target/ClusterGeometry.h"
#include "tilec/frontend/Frontend.h"
#include "tilec/frontend/InstanceNote.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

using namespace mlir;
namespace frontend = ::tile::frontend;

namespace {
void loadDialects(MLIRContext &context) {
  context.loadDialect<mlir::tile::TileDialect, arith::ArithDialect, scf::SCFDialect,
                      cf::ControlFlowDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  mlir::tile::registerTileTranslations(context);
}

/// The reasons the sync passes attached to what they inserted or changed,
/// in source order.
std::string syncReport(ModuleOp module) {
  std::vector<std::tuple<unsigned, unsigned, std::string>> lines;
  module.walk([&](Operation *op) {
    StringAttr reason =
        op->getContext()->getLoadedDialect<mlir::tile::TileDialect>()->getSyncAttrHelper().getAttr(
            op);
    if (!reason)
      return;
    auto loc = mlir::tile::sourceFileLoc(op->getLoc());
    std::string where = loc ? (loc.getFilename().getValue() + ":" + Twine(loc.getLine()) + ":" +
                               Twine(loc.getColumn()))
                                  .str()
                            : "<unknown>";
    lines.emplace_back(loc ? loc.getLine() : 0, loc ? loc.getColumn() : 0,
                       where + ": " + op->getName().stripDialect().str() + ": " +
                           reason.getValue().str() + "\n");
  });
  std::stable_sort(lines.begin(), lines.end(), [](const auto &a, const auto &b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::string text;
  for (auto &line : lines)
    text += std::get<2>(line);
  return text;
}

/// The options an embedder passed, checked before any work: the CLI checks
/// them too, with its own wording, but tile::compile must never reach LLVM
/// with a target it cannot serve. Errors have no source location.
bool checkOptions(const ::tile::CompileOptions &options,
                  ::tile::frontend::DiagnosticEngine &diags) {
  ::tile::frontend::Location none;
  if (auto [error, hint] = ::tile::target::unsupportedArchReason(options.arch); !error.empty())
    diags.error(none, error, hint);
  if (!::tile::emitKindName(options.emit))
    diags.error(
        none,
        "emit kind " + std::to_string(static_cast<int>(options.emit)) + " is not a tile::EmitKind",
        "use one of " + ::tile::emitKindList() + " (tilec's --emit=cubin runs ptxas on ptx)");
  if (options.debugHangsMs > ::tile::kMaxDebugHangsMs)
    diags.error(none,
                "a --debug-hangs bound of " + std::to_string(options.debugHangsMs) +
                    " ms is too long",
                "give at most " + std::to_string(::tile::kMaxDebugHangsMs) + " ms (an hour)");
  if (options.mmaWaitAnchor != "none" && options.mmaWaitAnchor != "reduce" &&
      options.mmaWaitAnchor != "last")
    diags.error(none, "mma wait anchor '" + options.mmaWaitAnchor + "' is not an anchor",
                "use none, reduce or last (tilec --mma-wait-anchor)");
  if (options.optLevel < 0 || options.optLevel > 3)
    diags.error(none, "optimisation level " + std::to_string(options.optLevel) + " is not a level",
                "use 0 to 3");
  if (options.clusterOverride) {
    if (!::tile::cluster::isLegalShape(*options.clusterOverride))
      diags.error(none,
                  "the cluster override " + std::to_string((*options.clusterOverride)[0]) + "x" +
                      std::to_string((*options.clusterOverride)[1]) + "x" +
                      std::to_string((*options.clusterOverride)[2]) +
                      " is not a cluster shape of 1 to " +
                      std::to_string(::tile::target::kMaxClusterSize) + " CTAs",
                  "give positive sizes whose product is at most " +
                      std::to_string(::tile::target::kMaxClusterSize));
  }
  return !diags.hasErrors();
}

/// Source must be UTF-8 text. A NUL byte or a malformed UTF-8 sequence (a
/// binary file, another encoding) is reported at its line and column; the
/// caret line shows the offending bytes as '?'.
bool checkSourceText(const std::string &source, const std::string &fileName,
                     ::tile::frontend::DiagnosticEngine &diags) {
  size_t bad = std::string::npos;
  for (size_t i = 0; i < source.size() && bad == std::string::npos;) {
    auto byte = static_cast<unsigned char>(source[i]);
    size_t length = byte < 0x80           ? 1
                    : (byte >> 5) == 0x6  ? 2
                    : (byte >> 4) == 0xE  ? 3
                    : (byte >> 3) == 0x1E ? 4
                                          : 0;
    if (byte == 0 || length == 0 || i + length > source.size()) {
      bad = i;
      break;
    }
    for (size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(source[i + k]) & 0xC0) != 0x80)
        bad = i;
    // Overlong forms, surrogates and code points above U+10FFFF are not UTF-8 either.
    if (bad == std::string::npos && length > 1) {
      uint32_t cp = byte & (0x7F >> length);
      for (size_t k = 1; k < length; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(source[i + k]) & 0x3F);
      static const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
      if (cp < minimum[length] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        bad = i;
    }
    i += length;
  }
  if (bad == std::string::npos)
    return true;
  // Lines end as the lexer ends them: "\n", "\r\n" or a lone "\r".
  size_t lineStart = 0;
  int line = 1;
  for (size_t i = 0; i < bad; ++i)
    if (source[i] == '\n' || (source[i] == '\r' && source[i + 1] != '\n')) {
      ++line;
      lineStart = i + 1;
    }
  int col = 1 + static_cast<int>(bad - lineStart);
  // The shown line: printable ASCII kept, everything else '?', cut after the column.
  size_t lineEnd = std::min(source.find_first_of("\r\n", bad), bad + 40);
  std::string shown(line - 1, '\n');
  for (size_t i = lineStart; i < lineEnd && i < source.size(); ++i) {
    auto c = static_cast<unsigned char>(source[i]);
    shown += (c == '\t' || (c >= 0x20 && c < 0x7F)) ? static_cast<char>(c) : '?';
  }
  char byteText[8];
  std::snprintf(byteText, sizeof byteText, "0x%02X", static_cast<unsigned char>(source[bad]));
  diags.addSource(fileName, shown);
  diags.error({fileName, line, col},
              source[bad] == 0
                  ? "the source contains a NUL byte: this is not a text file"
                  : std::string("the source is not valid UTF-8 (byte ") + byteText + ")",
              "tilec reads .tile source as UTF-8 text; is this the right file?");
  return false;
}

/// The PTX parameter space of each kernel (declared and hidden parameters,
/// laid out in order at their alignments) fits ptxas's limit; otherwise an
/// error at the kernel's name, as ptxas would reject the PTX.
bool checkParamSpace(const std::vector<::tile::KernelInfo> &kernels, const frontend::ModuleAST &ast,
                     frontend::DiagnosticEngine &diags) {
  bool ok = true;
  for (const ::tile::KernelInfo &k : kernels) {
    int64_t bytes = 0;
    for (const ::tile::KernelParamInfo &p : k.params) {
      int64_t align = std::max<int64_t>(1, static_cast<int64_t>(p.align));
      bytes = (bytes + align - 1) / align * align + static_cast<int64_t>(p.size);
    }
    if (bytes <= ::tile::target::kMaxKernelParamBytes)
      continue;
    frontend::Location loc;
    for (const auto &kernel : ast.kernels)
      if (kernel->name == k.name)
        loc = kernel->loc;
    diags.error(loc,
                "the parameters of kernel '" + k.name + "' take " + std::to_string(bytes) +
                    " bytes, over the limit of " +
                    std::to_string(::tile::target::kMaxKernelParamBytes) +
                    " bytes of kernel parameters",
                "pass large or many values through memory: put them in a global buffer and "
                "pass one `ptr<T, global>` (each parameter counts its size, a tensor 128 bytes)");
    ok = false;
  }
  return ok;
}

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}
} // namespace

/// The pipeline; frontend and MLIR errors and warnings go to `diags`, which
/// compile() renders whether or not compilation succeeded.
static ::tile::CompileResult compileWith(const std::string &source,
                                         const ::tile::CompileOptions &options,
                                         frontend::DiagnosticEngine &diags) {
  ::tile::CompileResult result;
  auto ast = frontend::parseSource(options.fileName, source, diags);
  if (!ast || diags.hasErrors())
    return result;
  frontend::CheckOptions checkOptions;
  checkOptions.clusterOverride = options.clusterOverride;
  checkOptions.fastMath = options.fastMath;
  std::string libdevice =
      options.libdevicePath.empty() ? ::tile::defaultLibdevicePath() : options.libdevicePath;
  checkOptions.libdevicePath = libdevice;
  checkOptions.libdeviceFound = !libdevice.empty() && llvm::sys::fs::exists(libdevice);
  checkOptions.defines = options.defines;
  if (!frontend::checkModule(*ast, diags, checkOptions))
    return result;
  if (options.emit == ::tile::EmitKind::AST) {
    std::ostringstream os;
    frontend::dumpAST(*ast, os);
    result.output = os.str();
    result.ok = true;
    return result;
  }

  // MLIR diagnostics (verifier, passes) become the frontend's Diagnostic:
  // FILE:LINE:COL, the source line with a caret, the hint a pass attached
  // (mlir::tile::attachHint, read as data) and the notes with a source
  // location, each rendered with its own caret.
  MLIRContext context;
  context.printOpOnDiagnostic(false);
  std::set<std::string> reportedFromCopies;
  loadDialects(context);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    auto where = [](Location l) {
      frontend::Location out;
      if (auto loc = mlir::tile::sourceFileLoc(l))
        out = {loc.getFilename().str(), static_cast<int>(loc.getLine()),
               static_cast<int>(loc.getColumn())};
      return out;
    };
    frontend::Diagnostic out;
    if (d.getSeverity() == DiagnosticSeverity::Error)
      out.kind = frontend::Diagnostic::Error;
    else if (d.getSeverity() == DiagnosticSeverity::Warning)
      out.kind = frontend::Diagnostic::Warning;
    else
      return success();
    out.loc = where(d.getLocation());
    out.message = d.str();
    for (Diagnostic &note : d.getNotes()) {
      if (std::optional<std::string> hint = mlir::tile::hintOf(note)) {
        out.hint = *hint;
        continue;
      }
      // Other notes with a source location (the write a missing fence
      // follows, the decision a divergent barrier depends on) are the
      // diagnostic's notes.
      if (mlir::tile::sourceFileLoc(note.getLocation()))
        out.notes.push_back(
            {frontend::Diagnostic::Note, where(note.getLocation()), note.str(), "", {}});
    }
    // An inlined function or a kernel instance is a copy of code that every
    // copy checks: what an earlier copy reported already is shown once, as
    // Sema shows its own (DiagnosticEngine::closeCopy).
    if (!reportedFromCopies.insert(frontend::DiagnosticEngine::identity(out, out.notes.size()))
             .second)
      return success();
    // Code of an inlined function: name the calls it was inlined through.
    // Sema's wording for the same note: "in the call of 'f' here".
    for (const mlir::tile::InlinedCallSite &call : mlir::tile::inlinedCallSites(d.getLocation()))
      out.notes.push_back({frontend::Diagnostic::Note, where(call.site),
                           call.callee.empty()
                               ? std::string("inlined from the call here")
                               : "in the call of '" + call.callee.str() + "' here",
                           "", {}});
    // In an instance of a kernel with compile-time parameters: name it, as
    // Sema's diagnostics do (each instance reports its own).
    if (llvm::StringRef inst = mlir::tile::instanceOf(d.getLocation()); !inst.empty())
      for (const auto &k : ast->kernels)
        if (k->name == inst)
          if (auto note = frontend::instanceNote(*k))
            out.notes.push_back({frontend::Diagnostic::Note, note->first, note->second, "", {}});
    diags.report(std::move(out));
    return success();
  });
  auto finishWithError = [&] { return result; };

  auto internalError = [&](const std::string &what) {
    diags.error({}, "internal error: " + what,
                "this is a tilec bug; please report it with the input file");
    return result;
  };
  mlir::tile::MLIRGenOptions genOptions;
  genOptions.fmad = options.fmad;
  OwningOpRef<ModuleOp> module = mlir::tile::mlirGen(context, *ast, genOptions);
  // MLIRGen reports what it cannot translate (an internal error) as a diagnostic.
  if (!module || diags.hasErrors() || failed(verify(*module)))
    return finishWithError();
  // The host contract is read off the tile IR the output comes from.
  auto collectKernels = [&] {
    std::string error;
    if (!::tile::driver::collectKernelInfo(*module, result.kernels, error)) {
      internalError("kernel info: " + error);
      return false;
    }
    return checkParamSpace(result.kernels, *ast, diags);
  };
  if (options.emit == ::tile::EmitKind::MLIR) {
    if (!collectKernels())
      return result;
    result.output = printOp(*module);
    result.ok = true;
    return result;
  }

  PassManager pm(&context);
  if (options.printIRAfterAll) {
    context.disableMultithreading();
    // As mlir-opt's flag of the same name: after every pass (changed or not),
    // nothing before.
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  // tile-opt --tile-pipeline builds the same passes (Pipeline.h); run here in
  // its two stages so that the sync report sees the tile IR.
  mlir::tile::TilePipelineOptions pipelineOptions;
  pipelineOptions.autoSync = options.autoSync;
  pipelineOptions.debugHangsMs = options.debugHangsMs;
  pipelineOptions.mmaWaitAnchor = options.mmaWaitAnchor;
  mlir::tile::buildTileSyncPipeline(pm, pipelineOptions);
  if (failed(pm.run(*module)))
    return finishWithError();
  // The final tile IR: the lowering below only translates it.
  if (!collectKernels())
    return result;
  if (options.explainSync)
    result.syncReport = syncReport(*module);

  pm.clear();
  mlir::tile::buildTileLoweringPipeline(pm, pipelineOptions);
  if (failed(pm.run(*module)))
    return finishWithError();
  if (options.emit == ::tile::EmitKind::NVVM) {
    result.output = printOp(*module);
    result.ok = true;
    return result;
  }
  mlir::tile::PTXOptions ptxOptions;
  ptxOptions.arch = options.arch;
  ptxOptions.optLevel = options.optLevel;
  ptxOptions.libdevicePath = libdevice;
  std::string error;
  if (!mlir::tile::emitPTX(*module, ptxOptions, options.emit == ::tile::EmitKind::LLVM,
                           result.output, error)) {
    diags.error({}, error, "this is a tilec bug; please report it with the input file");
    return result;
  }
  if (options.verifyPtxas && options.emit != ::tile::EmitKind::LLVM &&
      !::tile::driver::verifyWithPtxas(result.output, options, *ast, diags))
    return result;
  if (!options.verifyPtxas && options.checkWgmma && options.emit != ::tile::EmitKind::LLVM &&
      !::tile::driver::checkWithPtxas(result.output, options, *ast, diags))
    return result;
  if (options.emit == ::tile::EmitKind::Info) {
    ::tile::ModuleInfo info;
    info.arch = options.arch;
    // Binds the info to this PTX: the runtime refuses it beside any other.
    info.ptxHash = ::tile::ptxFingerprint(result.output);
    info.kernels = result.kernels;
    result.output = ::tile::toJson(info);
  }
  result.ok = true;
  return result;
}

std::string(::tile::defaultLibdevicePath)() {
  if (const char *env = std::getenv("TILEC_LIBDEVICE"); env && *env)
    return env;
#ifdef TILEC_DEFAULT_LIBDEVICE
  return TILEC_DEFAULT_LIBDEVICE;
#else
  return "";
#endif
}

::tile::CompileResult(::tile::compile)(const std::string &source, const CompileOptions &options) {
  frontend::DiagnosticEngine diags;
  diags.setToolName("tilec");
  CompileResult result;
  if (checkOptions(options, diags) && checkSourceText(source, options.fileName, diags)) {
    diags.addSource(options.fileName, source);
    result = compileWith(source, options, diags);
  }
  // Warnings are shown on success too.
  std::ostringstream os;
  diags.print(os);
  result.diagnostics = os.str();
  return result;
}
