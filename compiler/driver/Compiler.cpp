//===- Compiler.cpp - the tilec pipeline as a library ----------------------===//
#include "tilec/Compiler.h"
#include "tilec/EmitPTX.h"
#include "tilec/MLIRGen.h"
#include "tilec/Passes.h"
#include "tilec/frontend/Frontend.h"
#include "tile/Dialect/TileDialect.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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
    auto reason = op->getAttrOfType<StringAttr>("tile.sync");
    if (!reason)
      return;
    auto loc = dyn_cast<FileLineColLoc>(op->getLoc());
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

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}
} // namespace

/// The pipeline; frontend and MLIR errors and warnings go to `diags`, which
/// compile() renders whether or not compilation succeeded.
static ::tile::CompileResult compileWith(const std::string &source, const ::tile::CompileOptions &options,
                                         frontend::DiagnosticEngine &diags) {
  ::tile::CompileResult result;
  auto ast = frontend::parseSource(options.fileName, source, diags);
  if (!ast || diags.hasErrors())
    return result;
  frontend::CheckOptions checkOptions;
  checkOptions.clusterOverride = options.clusterOverride;
  if (!frontend::checkModule(*ast, diags, checkOptions))
    return result;
  if (options.emit == "ast") {
    std::ostringstream os;
    frontend::dumpAST(*ast, os);
    result.output = os.str();
    result.ok = true;
    return result;
  }

  // MLIR diagnostics (verifier, passes) are rendered like the frontend's:
  // FILE:LINE:COL, the source line with a caret, and the note starting with
  // "hint: " as the hint.
  MLIRContext context;
  context.printOpOnDiagnostic(false);
  loadDialects(context);
  frontend::DiagnosticEngine &mlirDiags = diags;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    frontend::Location where;
    if (auto loc = dyn_cast<FileLineColLoc>(d.getLocation()))
      where = {loc.getFilename().str(), static_cast<int>(loc.getLine()),
               static_cast<int>(loc.getColumn())};
    std::string hint;
    for (Diagnostic &note : d.getNotes()) {
      std::string text = note.str();
      if (StringRef(text).starts_with("hint: "))
        hint = text.substr(6);
    }
    if (d.getSeverity() == DiagnosticSeverity::Error)
      mlirDiags.error(where, d.str(), hint);
    else if (d.getSeverity() == DiagnosticSeverity::Warning)
      mlirDiags.warning(where, d.str(), hint);
    return success();
  });
  auto finishWithError = [&] { return result; };

  OwningOpRef<ModuleOp> module = mlir::tile::mlirGen(context, *ast);
  if (!module || failed(verify(*module)))
    return finishWithError();
  if (options.emit == "mlir") {
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
  pm.addPass(createCanonicalizerPass());
  OpPassManager &kernels = pm.nest<mlir::tile::KernelOp>();
  if (options.autoSync) {
    kernels.addPass(mlir::tile::createTileInsertFences());
    kernels.addPass(mlir::tile::createTileDSMEMLifetime());
    kernels.addPass(mlir::tile::createTileSplitClusterBarriers());
  } else {
    kernels.addPass(mlir::tile::createTileDSMEMLifetime({/*checkOnly=*/true}));
  }
  kernels.addPass(mlir::tile::createTileMBarrierPhases());
  if (options.debugHangsMs > 0)
    kernels.addPass(mlir::tile::createTileDebugHangs({options.debugHangsMs}));
  if (failed(pm.run(*module)))
    return finishWithError();
  if (options.explainSync)
    result.syncReport = syncReport(*module);

  pm.clear();
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(mlir::tile::createConvertTileToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return finishWithError();
  if (options.emit == "nvvm") {
    result.output = printOp(*module);
    result.ok = true;
    return result;
  }
  if (options.emit != "llvm" && options.emit != "ptx") {
    result.diagnostics = "error: unknown --emit kind '" + options.emit +
                         "'\nhint: use ast, mlir, nvvm, llvm, ptx or cubin\n";
    return result;
  }
  mlir::tile::PTXOptions ptxOptions;
  ptxOptions.arch = options.arch;
  ptxOptions.optLevel = options.optLevel;
  std::string error;
  if (!mlir::tile::emitPTX(*module, ptxOptions, options.emit == "llvm", result.output, error)) {
    result.diagnostics = "error: " + error + "\n";
    return result;
  }
  result.ok = true;
  return result;
}

::tile::CompileResult (::tile::compile)(const std::string &source, const CompileOptions &options) {
  frontend::DiagnosticEngine diags;
  diags.addSource(options.fileName, source);
  CompileResult result = compileWith(source, options, diags);
  // Warnings are shown on success too, ahead of any message the pipeline
  // wrote directly (unknown --emit kind, PTX emission).
  std::ostringstream os;
  diags.print(os);
  result.diagnostics = os.str() + result.diagnostics;
  return result;
}
