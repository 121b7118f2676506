//===- tile-opt.cpp - mlir-opt for the tile dialect and tilec passes ------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Passes.h"
#include "tilec/Pipeline.h"

#include "RepeatedOptions.h"
#include "TestDialect.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ToolOutputFile.h"

/// MLIR 22's parser crashes (it asks an index type for its bit width) on a
/// dense array of `index`, e.g. `cluster_dims = array<index: 2>`. No such
/// attribute is valid anywhere, so refuse the input before parsing it.
static bool rejectParserCrashes(const llvm::MemoryBuffer &input) {
  llvm::StringRef text = input.getBuffer();
  llvm::Regex indexArray("array[[:space:]]*<[[:space:]]*index([^_[:alnum:]]|$)");
  llvm::SmallVector<llvm::StringRef, 2> match;
  if (!indexArray.match(text, &match))
    return true;
  size_t offset = match[0].data() - text.data();
  llvm::StringRef before = text.take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t col = offset - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  llvm::errs() << input.getBufferIdentifier() << ":" << line << ":" << col
               << ": error: dense arrays of 'index' are not supported; use array<i32: ...> or "
                  "array<i64: ...>\n";
  return false;
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect, mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::tile::test::TileTestDialect>();
  mlir::tile::registerTilePasses();
  // --tile-pipeline: exactly the passes tilec runs (tilec/Pipeline.h).
  mlir::tile::registerTilePipelines();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();

  if (!tile::opt::rejectOptionLikeValues(argc, argv))
    return 1;
  // MlirOptMain(argc, argv, ...) split open, so that the input can be checked first.
  auto [inputFile, outputFile] =
      mlir::registerAndParseCLIOptions(argc, argv, "tile optimizer driver\n", registry);
  if (!tile::opt::rejectRepeatedOptions(argc, argv))
    return 1;
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "tile-opt: error: " << error << "\n";
    return 1;
  }
  if (!rejectParserCrashes(*input))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "tile-opt: error: " << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
