//===- EmitPTX.cpp - LLVM IR optimisation and NVPTX code generation --------===//
#include "tilec/EmitPTX.h"
#include "tilec/Target/NaNBits.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
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

/// `c` with each NaN replaced by the NaN the GPU's arithmetic returns in
/// its type, whatever the sign and payload a folder gave it (measured on an
/// H200): f32, f16 and bf16 return the positive quiet NaN with every
/// fraction bit set (0x7fffffff, 0x7fff), also from neg, abs, min and max;
/// f64 returns 0xfff8000000000000 and passes a NaN operand through. Null
/// when `c` holds no other NaN.
static llvm::Constant *withCanonicalNaNs(llvm::Constant *c) {
  if (auto *fp = llvm::dyn_cast<llvm::ConstantFP>(c)) {
    const llvm::APFloat &v = fp->getValueAPF();
    if (!v.isNaN())
      return nullptr;
    unsigned bits = llvm::APFloat::getSizeInBits(v.getSemantics());
    llvm::APInt pattern(bits, 0);
    if (&v.getSemantics() == &llvm::APFloat::IEEEdouble())
      pattern = llvm::APInt(64, 0xfff8000000000000ull);
    else if (bits == 32 || bits == 16)
      pattern = llvm::APInt::getSignedMaxValue(bits);
    else
      return nullptr;
    llvm::APFloat canonical(v.getSemantics(), pattern);
    return canonical.bitwiseIsEqual(v) ? nullptr : llvm::ConstantFP::get(c->getType(), canonical);
  }
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(c->getType());
  if (!vector || !vector->getElementType()->isFloatingPointTy() ||
      !llvm::isa<llvm::ConstantDataVector, llvm::ConstantVector>(c))
    return nullptr;
  llvm::SmallVector<llvm::Constant *, 8> elements;
  bool changed = false;
  for (unsigned i = 0; i < vector->getNumElements(); ++i) {
    llvm::Constant *e = c->getAggregateElement(i);
    llvm::Constant *r = e ? withCanonicalNaNs(e) : nullptr;
    changed |= r != nullptr;
    elements.push_back(r ? r : e);
  }
  return changed ? llvm::ConstantVector::get(elements) : nullptr;
}

/// A NaN that a folder computed gets the bits the GPU computes
/// (tilec/Target/NaNBits.h; docs/reference/operators.md, "NaN bits"): after
/// optimisation every NaN constant operand is made canonical, but the
/// operand of llvm.arithmetic.fence, which MLIRGen puts on a NaN the program
/// spelled. The calls MLIRGen put before the operations that move a NaN's
/// bits (a bitcast to an integer, a conversion) kept the folders
/// from applying them to a NaN they made: each becomes its operand, or, for
/// a NaN constant, the canonical NaN behind a fence, so that the code
/// generator's folds do not apply them either and the GPU does.
static void canonicalizeFoldedNaNs(llvm::Module &module) {
  llvm::StringRef marker = ::tile::target::kFloatBitsFunctionPrefix;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &b : f)
      for (llvm::Instruction &i : llvm::make_early_inc_range(b)) {
        auto *call = llvm::dyn_cast<llvm::CallInst>(&i);
        if (call && call->getIntrinsicID() == llvm::Intrinsic::arithmetic_fence)
          continue;
        for (llvm::Use &u : i.operands())
          if (auto *c = llvm::dyn_cast<llvm::Constant>(u.get()))
            if (llvm::Constant *r = withCanonicalNaNs(c))
              u.set(r);
        llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
        if (!callee || !callee->getName().starts_with(marker))
          continue;
        llvm::Value *x = call->getArgOperand(0);
        if (auto *c = llvm::dyn_cast<llvm::ConstantFP>(x); c && c->isNaN())
          x = llvm::IRBuilder<>(call).CreateArithmeticFence(x, x->getType());
        call->replaceAllUsesWith(x);
        call->eraseFromParent();
      }
  for (llvm::Function &f : llvm::make_early_inc_range(module))
    if (f.getName().starts_with(marker) && f.use_empty())
      f.eraseFromParent();
}

/// Integer negation and abs wrap: -MIN = abs(MIN) = MIN
/// (docs/reference/operators.md). ptxas does not keep that for two forms:
/// - It holds a 16-bit value in a 32-bit register and compiles `neg.s16`
///   and `abs.s16` as if they could not overflow: for -32768 the register
///   then holds +32768, and whatever reads it as 32 bits (a sign extension
///   `cvt.s32.s16`, a comparison, a division) sees +32768. Each becomes the
///   32-bit instruction on the sign-extended operand, truncated back
///   explicitly (i8 values live in 16-bit registers and are covered too).
/// - It takes the result of `abs.s32`/`abs.s64` to be non-negative, so a
///   signed `rem` or comparison of abs(MIN) reads it as +2^31 (abs(MIN) % 40
///   was 8, not -8). Each becomes abs on the other values and a select of
///   the operand itself for MIN.
/// Whatever produced the instruction (`-x`, `abs(x)`, `0 - x`, `x * -1`,
/// `x < 0 ? -x : x`) goes through here.
static std::string wrapIntNegAbs(llvm::StringRef ptx) {
  std::string out;
  out.reserve(ptx.size() + 256);
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    bool hadNewline = ptx.size() != line.size();
    ptx = rest;
    llvm::StringRef body = line.ltrim();
    llvm::StringRef guard; // `@%p1` or `@!%p1`: kept on the write
    if (body.starts_with("@")) {
      guard = body.take_until([](char c) { return c == ' ' || c == '\t'; });
      body = body.drop_front(guard.size()).ltrim();
    }
    llvm::StringRef opcode = body.take_until([](char c) { return c == ' ' || c == '\t'; });
    bool narrow = opcode == "neg.s16" || opcode == "abs.s16";
    bool wide = opcode == "abs.s32" || opcode == "abs.s64";
    auto [d, s] = body.drop_front(opcode.size()).split(',');
    llvm::StringRef dst = d.trim(), src = s.trim();
    if (!(narrow || wide) || !src.consume_back(";") || !dst.starts_with("%") ||
        !src.trim().starts_with("%")) {
      out += line;
    } else {
      src = src.trim();
      std::string g = guard.empty() ? "" : (guard + " ").str();
      out += line.take_front(line.size() - line.ltrim().size());
      if (narrow) {
        out += ("{ .reg .b32 %tw<2>; cvt.s32.s16 %tw0, " + src + "; " + opcode.take_front(3) +
                ".s32 %tw1, %tw0; " + g + "cvt.u16.u32 " + dst + ", %tw1; }")
                   .str();
      } else {
        bool is64 = opcode.ends_with("64");
        std::string b = is64 ? "64" : "32";
        std::string min = is64 ? "-9223372036854775808" : "-2147483648";
        out += ("{ .reg .pred %twp; .reg .b" + b + " %tw; setp.eq.s" + b + " %twp, " + src + ", " +
                min + "; abs.s" + b + " %tw, " + src + "; " + g + "selp.b" + b + " " + dst + ", " +
                src + ", %tw, %twp; }")
                   .str();
      }
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

  canonicalizeFoldedNaNs(*llvmModule);

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
  os << wrapIntNegAbs(ptx.str());
  return true;
}
