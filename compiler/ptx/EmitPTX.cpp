//===- EmitPTX.cpp - LLVM IR optimisation and NVPTX code generation --------===//
#include "tilec/EmitPTX.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;

void mlir::tile::registerTileTranslations(MLIRContext &context) {
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerNVVMDialectTranslation(context);
}

static void initializeNVPTXOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared/shared::cluster addresses, as nvcc emits: mapa.u32 and
    // 32-bit address arithmetic instead of 64-bit generic-width registers.
    auto &registered = llvm::cl::getRegisteredOptions();
    auto it = registered.find("nvptx-short-ptr");
    if (it != registered.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
  });
}

/// Links the libdevice functions the module calls (__nv_expf, ...), as nvcc
/// does: only those needed, internalised so that unused ones are dropped and
/// the used ones inlined (they are alwaysinline). `__nvvm_reflect("__CUDA_FTZ")`
/// inside them reads the module flag nvvm-reflect-ftz: 0 keeps denormals (no
/// .ftz), as nvcc without -ftz=true; NVPTX's NVVMReflect pass folds it.
static bool linkLibdevice(llvm::Module &module, const std::string &path, std::string &error) {
  bool used = false;
  for (llvm::Function &f : module)
    used |= f.isDeclaration() && f.getName().starts_with("__nv_");
  if (!used)
    return true;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read libdevice '" + path + "': " + buffer.getError().message();
    return false;
  }
  auto library = llvm::parseBitcodeFile(**buffer, module.getContext());
  if (!library) {
    error = "cannot parse libdevice '" + path + "': " + llvm::toString(library.takeError());
    return false;
  }
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  bool failed =
      llvm::Linker::linkModules(module, std::move(*library), llvm::Linker::LinkOnlyNeeded,
                                [](llvm::Module &m, const llvm::StringSet<> &linked) {
                                  llvm::internalizeModule(m, [&](const llvm::GlobalValue &gv) {
                                    return !gv.hasName() || !linked.count(gv.getName());
                                  });
                                });
  if (failed) {
    error = "cannot link libdevice '" + path + "'";
    return false;
  }
  return true;
}

static llvm::OptimizationLevel toLLVMLevel(int level) {
  switch (level) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}

/// ptxas holds a 16-bit value in a 32-bit register and compiles `neg.s16`
/// and `abs.s16` as if they could not overflow: for -32768 the register
/// then holds +32768, and what reads it as 32 bits (a sign extension
/// `cvt.s32.s16`, a comparison, a division) sees +32768, while -MIN and
/// abs(MIN) are MIN (docs/reference/operators.md). Each such instruction
/// becomes the 32-bit one on the sign-extended operand, truncated back
/// explicitly. Whatever produced it (`-x`, `abs(x)`, `0 - x`, `x * -1`)
/// goes through here; i8 values live in 16-bit registers and are covered
/// too.
static std::string widenNeg16(llvm::StringRef ptx) {
  std::string out;
  out.reserve(ptx.size() + 256);
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    bool hadNewline = ptx.size() != line.size();
    ptx = rest;
    llvm::StringRef body = line.ltrim();
    llvm::StringRef guard; // `@%p1 ` or `@!%p1 `: kept on the write
    if (body.starts_with("@")) {
      guard = body.take_until([](char c) { return c == ' ' || c == '\t'; });
      body = body.drop_front(guard.size()).ltrim();
    }
    llvm::StringRef op;
    if ((body.starts_with("neg.s16") || body.starts_with("abs.s16")) && body.size() > 7 &&
        (body[7] == ' ' || body[7] == '\t'))
      op = body.take_front(3);
    llvm::StringRef dst, src;
    if (!op.empty()) {
      auto [d, s] = body.drop_front(7).split(',');
      dst = d.trim();
      src = s.trim();
      if (!src.consume_back(";") || !dst.starts_with("%") || !src.trim().starts_with("%"))
        op = {};
      src = src.trim();
    }
    if (op.empty()) {
      out += line;
    } else {
      out += line.take_front(line.size() - line.ltrim().size());
      out += ("{ .reg .b32 %tw<2>; cvt.s32.s16 %tw0, " + src + "; " + op + ".s32 %tw1, %tw0; ")
                 .str();
      if (!guard.empty())
        out += (guard + " ").str();
      out += ("cvt.u16.u32 " + dst + ", %tw1; }").str();
    }
    if (hadNewline)
      out += '\n';
  }
  return out;
}

bool mlir::tile::emitPTX(ModuleOp module, const PTXOptions &options, bool emitLLVM,
                         std::string &output, std::string &error) {
  // An unknown CPU name is only a warning to LLVM, which then selects
  // instructions for a default target and aborts (or drops the cluster
  // directives): refuse it here too, for callers that skip tile::compile.
  if (!::tile::target::findArch(options.arch)) {
    error = ::tile::target::unsupportedArchReason(options.arch).first;
    return false;
  }
  initializeNVPTXOnce();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmContext, "tile");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }

  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string lookupError;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "NVPTX target unavailable: " + lookupError;
    return false;
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.arch, options.ptxVersion, targetOptions, std::nullopt, std::nullopt,
      options.optLevel == 0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error = "cannot create an NVPTX target machine for " + options.arch;
    return false;
  }
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (!linkLibdevice(*llvmModule, options.libdevicePath, error))
    return false;

  if (options.optLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder builder(machine.get());
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    builder.buildPerModuleDefaultPipeline(toLLVMLevel(options.optLevel)).run(*llvmModule, mam);
  }

  llvm::raw_string_ostream os(output);
  if (emitLLVM) {
    llvmModule->print(os, nullptr);
    return true;
  }
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxStream(ptx);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, ptxStream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile)) {
    error = "NVPTX cannot emit assembly";
    return false;
  }
  codegen.run(*llvmModule);
  os << widenNeg16(ptx.str());
  return true;
}
