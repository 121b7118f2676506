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
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <sstream>

using namespace mlir;

namespace {
void loadDialects(MLIRContext &context) {
  context.loadDialect<mlir::tile::TileDialect, arith::ArithDialect, scf::SCFDialect,
                      cf::ControlFlowDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  mlir::tile::registerTileTranslations(context);
}

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}
} // namespace

::tile::CompileResult (::tile::compile)(const std::string &source, const CompileOptions &options) {
  CompileResult result;
  frontend::DiagnosticEngine diags;
  diags.addSource(options.fileName, source);
  auto renderFrontend = [&] {
    std::ostringstream os;
    diags.print(os);
    result.diagnostics = os.str();
  };

  auto ast = frontend::parseSource(options.fileName, source, diags);
  if (!ast || diags.hasErrors()) {
    renderFrontend();
    return result;
  }
  frontend::CheckOptions checkOptions;
  checkOptions.clusterOverride = options.clusterOverride;
  if (!frontend::checkModule(*ast, diags, checkOptions)) {
    renderFrontend();
    return result;
  }
  if (options.emit == "ast") {
    std::ostringstream os;
    frontend::dumpAST(*ast, os);
    result.output = os.str();
    result.ok = true;
    return result;
  }

  // MLIR diagnostics (verifier, passes) are rendered against the source with
  // a caret line, like the frontend's.
  MLIRContext context;
  loadDialects(context);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, options.fileName),
                               llvm::SMLoc());
  std::string mlirDiagnostics;
  llvm::raw_string_ostream diagStream(mlirDiagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagStream);
  auto finishWithError = [&] {
    result.diagnostics = mlirDiagnostics;
    return result;
  };

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
    pm.enableIRPrinting();
  }
  pm.addPass(createCanonicalizerPass());
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
