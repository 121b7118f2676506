//===- TileInterfaces.td - what tile ops do to memory ----------*- tablegen -*-===//
//
// The sync passes (compiler/transforms/) reason about memory and mbarriers
// only through these interfaces: an op joins the fence, DSMEM-lifetime and
// barrier-relaxation rules by declaring what it does, never by being matched
// by class name (docs/passes.md, "Op interfaces").
//===----------------------------------------------------------------------===//
#ifndef TILE_INTERFACES_TD
#define TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_MemoryAccessOpInterface : OpInterface<"MemoryAccessOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    An op that reads and/or writes the memory a `!tile.ptr` operand addresses
    (PTX ISA 8 "Memory Consistency Model"): which pointer, what it writes,
    whether it reads or writes, the state space (from the pointer type), the
    `.sem` order and `.scope`, and the proxy that performs the access
    (PTX ISA 8.6 "Proxies": generic ld/st/atom, or the async proxy of st.async,
    TMA and wgmma). Accesses of different proxies are not ordered with each
    other without a proxy fence.
  }];
  let methods = [
    InterfaceMethod<"The pointer operand the access goes through.",
      "::mlir::Value", "getAccessPtr", (ins), [{}],
      [{ return $_op.getPtr(); }]>,
    InterfaceMethod<"The values the access writes (none for a pure read).",
      "::mlir::ValueRange", "getStoredValues", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<"Whether the access reads memory.", "bool", "readsMemory">,
    InterfaceMethod<"Whether the access writes memory.", "bool", "writesMemory">,
    InterfaceMethod<"The state space the pointer addresses.",
      "::mlir::tile::AddressSpace", "getAccessSpace", (ins), [{}],
      [{ return ::llvm::cast<::mlir::tile::PtrType>($_op.getAccessPtr().getType()).getSpace(); }]>,
    InterfaceMethod<"The access's memory order (`weak` for a plain access).",
      "::mlir::tile::MemoryOrder", "getAccessOrder", (ins), [{}],
      [{ return $_op.getOrder(); }]>,
    InterfaceMethod<"The access's scope (meaningful when the order is not weak).",
      "::mlir::tile::MemoryScope", "getAccessScope", (ins), [{}],
      [{ return $_op.getScope(); }]>,
    InterfaceMethod<"The proxy that performs the access.",
      "::mlir::tile::MemoryProxy", "getAccessProxy", (ins), [{}],
      [{ return ::mlir::tile::MemoryProxy::generic; }]>,
    // wgmma reads two tiles in one access (same order, scope, proxy).
    InterfaceMethod<"Further pointers the same access goes through (none by default).",
      "::llvm::SmallVector<::mlir::Value, 1>", "getOtherAccessPtrs", (ins), [{}],
      [{ return {}; }]>,
  ];
}

def Tile_MBarrierCompletionOpInterface : OpInterface<"MBarrierCompletionOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    An op that moves an mbarrier's current phase towards completion (PTX ISA
    9.7.13.15: a phase completes when the pending arrival count and the
    pending transaction count both reach zero): by an arrival
    (`mbarrier.arrive`), by completing transaction bytes (`st.async`'s
    complete_tx, later TMA), or both. The mbarrier is this CTA's (`shared`)
    or a peer's reached through mapa (`cluster`): an mbarrier some op
    completes remotely is one that peers complete, which decides its fences
    (tile-insert-fences) and the scope of its waits (tile-sync-semantics).
  }];
  let methods = [
    InterfaceMethod<"The mbarrier operand whose phase this op completes.",
      "::mlir::Value", "getCompletedMBarrier", (ins), [{}],
      [{ return $_op.getMbar(); }]>,
    InterfaceMethod<"Whether the mbarrier is a peer CTA's (shared::cluster).",
      "bool", "completesRemotely", (ins), [{}],
      [{ return ::llvm::cast<::mlir::tile::PtrType>($_op.getCompletedMBarrier().getType())
                   .getSpace() == ::mlir::tile::AddressSpace::cluster; }]>,
    InterfaceMethod<"Whether the op counts one arrival.", "bool", "completesArrival">,
    InterfaceMethod<"Whether the op completes transaction bytes.", "bool", "completesTxBytes">,
    InterfaceMethod<"The transaction bytes completed, when known at compile time.",
      "std::optional<int64_t>", "getCompletedTxBytes", (ins), [{}],
      [{ return std::nullopt; }]>,
  ];
}

#endif // TILE_INTERFACES_TD
