//===- TestOps.td - test-only ops that join the sync rules -----*- tablegen -*-===//
//
// A dialect registered only in tile-opt (like MLIR's test dialect). Its ops
// are not tile ops and no pass names them: they join the fence, DSMEM
// lifetime, barrier-relaxation and scope rules only by implementing the op
// interfaces of TileInterfaces.td (tests/lit/transforms/interface-*.mlir).
//===----------------------------------------------------------------------===//
#ifndef TILE_TEST_OPS_TD
#define TILE_TEST_OPS_TD

include "tile/Dialect/TileBase.td"
include "tile/Dialect/TileInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileTest_Dialect : Dialect {
  let name = "tile_test";
  let cppNamespace = "::mlir::tile::test";
  let summary = "test-only ops declaring their memory semantics through the tile interfaces";
}

class TileTest_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileTest_Dialect, mnemonic, traits>;

def TileTest_AsyncWriteTxOp : TileTest_Op<"async_write_tx", [
    Tile_MemoryAccessOpInterface, Tile_MBarrierCompletionOpInterface]> {
  let summary = "an async-proxy write of 4 bytes that completes them on an mbarrier";
  let description = [{ Declares what st.async does (a weak async-proxy write
    of a peer's shared memory that completes transaction bytes on that
    peer's mbarrier) without being st.async. }];
  let arguments = (ins I32:$value, Arg<Tile_PtrType, "", [MemWrite]>:$dst,
                       Arg<Tile_PtrType, "", [MemRead, MemWrite]>:$mbar);
  let assemblyFormat = [{
    $value `,` $dst `,` $mbar attr-dict `:` qualified(type($dst)) `,` qualified(type($mbar))
  }];
  let extraClassDeclaration = [{
    ::mlir::Value getAccessPtr() { return getDst(); }
    ::mlir::ValueRange getStoredValues() { return getODSOperands(0); }
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cluster; }
    ::mlir::tile::MemoryProxy getAccessProxy() { return ::mlir::tile::MemoryProxy::async; }
    bool completesArrival() { return false; }
    bool completesTxBytes() { return true; }
    std::optional<int64_t> getCompletedTxBytes() { return 4; }
  }];
}

def TileTest_GenericWriteOp : TileTest_Op<"generic_write", [Tile_MemoryAccessOpInterface]> {
  let summary = "a weak generic-proxy write through any pointer";
  let arguments = (ins I32:$value, Arg<Tile_PtrType, "", [MemWrite]>:$ptr);
  let assemblyFormat = "$value `,` $ptr attr-dict `:` qualified(type($ptr))";
  let extraClassDeclaration = [{
    ::mlir::ValueRange getStoredValues() { return getODSOperands(0); }
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cta; }
  }];
}

#endif // TILE_TEST_OPS_TD
