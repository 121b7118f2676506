//===- PTXBuilder.h - the one inline-PTX builder of the tile lowering -*- C++ -*-===//
//
// Instructions that MLIR 22's NVVM dialect cannot spell with the exact
// semantics the IR asks for (ld/st/atom/red with `.cluster` scope or `.sc`,
// st.async, cluster-scope try_wait loops, non-aligned barrier.sync, fence.acq_rel)
// are emitted as inline PTX composed here from pieces. Every `.sem`, `.scope`
// and state-space qualifier comes from the tile dialect's generated
// `stringify*` functions (TileBase.td), so a qualifier is spelled in one place.
//
// Deliberately free of NVVMDialect.h (18 s and 1.3 GB per translation unit).
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_PTXBUILDER_H
#define TILEC_CONVERSION_PTXBUILDER_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::tile::ptx {

/// `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.sc`; "" for weak (no
/// `.sem`: a plain access).
std::string sem(MemoryOrder order);
/// `.cta`, `.cluster`, `.gpu`, `.sys`.
std::string scope(MemoryScope scope);
/// The state space of an address: `.global`, `.shared::cta` (this CTA's shared
/// window), `.shared::cluster` (any CTA's window in the cluster); "" for local
/// memory, which goes through generic addressing.
std::string space(AddressSpace space);

/// One PTX instruction, composed from its opcode and qualifiers in the order
/// the PTX ISA's syntax lists them, e.g.
///   Instr("ld").sem(acquire).scope(gpu).space(global).type('b', 32)
///       .operands({"$0", "[$1]"})  ->  "ld.acquire.gpu.global.b32 $0, [$1];"
class Instr {
public:
  explicit Instr(StringRef opcode) : text(opcode.str()) {}
  /// A fixed qualifier, without its dot: "parity", "v4", "mbarrier::complete_tx::bytes".
  Instr &qual(StringRef q);
  Instr &sem(MemoryOrder order);
  Instr &scope(MemoryScope scope);
  Instr &space(AddressSpace space);
  /// `.b32`, `.u64`, `.s32`, `.f32`: kind is 'b', 'u', 's' or 'f'.
  Instr &type(char kind, unsigned bits);
  /// The complete statement: the operands, comma-separated, and a semicolon.
  std::string operands(ArrayRef<std::string> list) const;
  /// The instruction with no operands, as a statement.
  std::string statement() const { return text + ";"; }
  const std::string &str() const { return text; }

private:
  std::string text;
};

/// Register class and bit-size of a scalar in inline PTX: f16/bf16 and i8
/// travel in 16-bit registers, f32 in `f`, others in `r`/`l`.
struct AsmScalar {
  StringRef constraint;
  Type asmType;
  unsigned bits;
};
AsmScalar asmScalar(Type type);
Value toAsm(OpBuilder &b, Location loc, Value v, const AsmScalar &s);
Value fromAsm(OpBuilder &b, Location loc, Value v, Type type);

/// One inline-PTX block: statements joined as ptxas sees them, operands
/// numbered `$0..` in the order they are added (results first, as LLVM
/// inline asm numbers them), and their constraints.
class Asm {
public:
  Asm(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// The result register ("$0"); must come before any operand.
  std::string result(Type type, StringRef constraint);
  /// `count` result registers ("$0".."$count-1") returned together as the
  /// literal struct `type`; must come before any operand.
  SmallVector<std::string> results(Type type, unsigned count, StringRef constraint);
  /// An input operand in a register of the given class.
  std::string operand(Value v, StringRef constraint);
  /// A scalar input, moved into its inline-PTX register class (asmScalar).
  std::string scalar(Value v, const AsmScalar &s);
  /// `[$k]`: shared and shared::cluster addresses are 32-bit (short pointers,
  /// as nvcc emits), global and local ones 64-bit.
  std::string address(Value ptr, AddressSpace space);

  /// Appends one statement (or a label, or a brace of a scoped block).
  Asm &line(StringRef text);

  /// A volatile block that clobbers memory (it orders or accesses memory the
  /// optimiser cannot see); returns its result, or null without one.
  Value emit();
  /// A block without side effects (a plain register move): may be CSE'd.
  Value emitPure();

private:
  Value create(bool sideEffects, bool clobbersMemory);

  OpBuilder &b;
  Location loc;
  std::string text;
  SmallVector<Value> inputs;
  SmallVector<std::string> constraints;
  Type resultType;
};

/// `fence.sc.<scope>` before an access with order sc, nothing otherwise: `.sc`
/// has no instruction form; PTX ISA 8.10 (memory consistency model, the
/// mapping of sequentially consistent accesses) realises it as `fence.sc`
/// followed by the strongest single-sided semantics of the access.
void addScFence(Asm &as, MemoryOrder order, MemoryScope scope);

/// `barrier.red{.aligned}` (PTX ISA 9.7.13.1) on barrier `barrier` ("0", or
/// "id, count" for a named barrier) reducing the i1 `pred` of every
/// participating thread: an i32 count for popc, an i1 for and / or. MLIR 22's
/// nvvm.barrier has only the aligned form, so both are composed here.
Value barrierReduction(OpBuilder &b, Location loc, Value pred, BarrierReduction kind,
                       StringRef barrier, bool aligned);

} // namespace mlir::tile::ptx

#endif
