//===- TileBase.td - tile dialect, enums and types -------------*- tablegen -*-===//
#ifndef TILE_BASE_TD
#define TILE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level Hopper programming: clusters, DSMEM, PTX memory model";
  let description = [{
    Kernels with cluster dimensions, shared and cluster-distributed memory,
    loads/stores/atomics carrying the PTX memory model's order and scope, and
    the synchronisation operations the tile passes reason about.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // Attributes the passes attach to ops of any dialect (generated
  // TileDialect::get*AttrHelper(): no pass spells the names).
  let discardableAttrs = (ins
    // tile.sync: why a pass inserted or changed the op (tilec --explain-sync).
    "::mlir::StringAttr":$sync,
    // tile.auto: a cluster arrive the compiler inserted, whose order
    // tile-sync-semantics chooses by the publication rule.
    "::mlir::UnitAttr":$auto,
    // tile.name: the source name of the mbarrier a wait is on (hang reports).
    "::mlir::StringAttr":$name,
    // tile.shared_only: a compiler-owned synchronisation that publishes
    // shared memory only, never global memory (a ring slot's warp sync and
    // release, the role barrier after a role's TMA store read its tile).
    "::mlir::UnitAttr":$shared_only,
    // tile.exit_flag: a tile.local_var that records that the thread left
    // early (a return, break or continue). The uniformity analysis words a
    // decision guarded by it as the decision under which the flag was set.
    "::mlir::UnitAttr":$exit_flag,
    // tile.hang_note: what completes a wait (tile.mbarrier_wait,
    // tile.sem_wait), in words; --debug-hangs quotes it when the wait times
    // out.
    "::mlir::StringAttr":$hang_note,
    // tile.hang_stage: the index of a ring wait's mbarrier is the ring's
    // stage (the --debug-hangs report says "of stage N").
    "::mlir::UnitAttr":$hang_stage,
    // tile.host_record: a tile.hang_trap of a kernel with mma reports through
    // the runtime's hang record instead of vprintf (a call would make ptxas
    // serialise every wgmma, C7510).
    "::mlir::UnitAttr":$host_record
  );
  // Every tile.* attribute on an op is one of the declared ones above (or
  // the host contract's, HostContract.h), with its type, on the ops it
  // belongs to (TileDialect::verifyOperationAttribute).
  let hasOperationAttrVerify = 1;
}

// State spaces of PTX (PTX ISA 5.1) that tile code can name.
def Tile_AddressSpace : I32EnumAttr<"AddressSpace", "memory space of a pointer", [
    I32EnumAttrCase<"global", 0>, I32EnumAttrCase<"shared", 1>,
    I32EnumAttrCase<"cluster", 2>, I32EnumAttrCase<"local", 3>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_AddressSpaceAttr : EnumAttr<Tile_Dialect, Tile_AddressSpace, "space">;

// Memory-operation semantics (PTX ISA 8.4 "Memory Consistency Model": .weak,
// .relaxed, .acquire, .release, .acq_rel; `sc` is realised with fence.sc).
def Tile_MemoryOrder : I32EnumAttr<"MemoryOrder", "memory order", [
    I32EnumAttrCase<"weak", 0>, I32EnumAttrCase<"relaxed", 1>,
    I32EnumAttrCase<"acquire", 2>, I32EnumAttrCase<"release", 3>,
    I32EnumAttrCase<"acq_rel", 4>, I32EnumAttrCase<"sc", 5>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemoryOrderAttr : EnumAttr<Tile_Dialect, Tile_MemoryOrder, "order">;

// Scopes (PTX ISA 8.5): .cta, .cluster, .gpu, .sys.
def Tile_MemoryScope : I32EnumAttr<"MemoryScope", "memory scope", [
    I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"cluster", 1>,
    I32EnumAttrCase<"gpu", 2>, I32EnumAttrCase<"sys", 3>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemoryScopeAttr : EnumAttr<Tile_Dialect, Tile_MemoryScope, "scope">;

// Who performs a memory access (PTX ISA 8.6 "Proxies"): the generic proxy
// (ld, st, atom, red) or the async proxy (st.async, and later TMA, wgmma).
// Accesses through different proxies to the same memory are ordered only
// through a proxy fence (fence.proxy.async) or an mbarrier complete-tx.
def Tile_MemoryProxy : I32EnumAttr<"MemoryProxy", "memory proxy", [
    I32EnumAttrCase<"generic", 0>, I32EnumAttrCase<"async", 1>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "read-modify-write operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>, I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"exch", 3>, I32EnumAttrCase<"and_", 4, "and">,
    I32EnumAttrCase<"or_", 5, "or">, I32EnumAttrCase<"xor_", 6, "xor">,
    // Unsigned min/max (atom.min.u32): the value type is signless.
    I32EnumAttrCase<"umin", 7>, I32EnumAttrCase<"umax", 8>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic_kind">;

// What a barrier reduces its threads' predicates to (PTX ISA 9.7.13.1,
// barrier.red): the number of true ones (.popc.u32), all true (.and.pred),
// any true (.or.pred). Every participating thread receives the result.
def Tile_BarrierReduction : I32EnumAttr<"BarrierReduction", "barrier reduction", [
    I32EnumAttrCase<"popc", 0>, I32EnumAttrCase<"and_", 1, "and">,
    I32EnumAttrCase<"or_", 2, "or">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_BarrierReductionAttr : EnumAttr<Tile_Dialect, Tile_BarrierReduction, "barrier_reduction">;

// PTX special registers (PTX ISA 10) read by tile.sreg.
def Tile_SpecialReg : I32EnumAttr<"SpecialReg", "PTX special register", [
    I32EnumAttrCase<"tid_x", 0>, I32EnumAttrCase<"tid_y", 1>, I32EnumAttrCase<"tid_z", 2>,
    I32EnumAttrCase<"ntid_x", 3>, I32EnumAttrCase<"ntid_y", 4>, I32EnumAttrCase<"ntid_z", 5>,
    I32EnumAttrCase<"ctaid_x", 6>, I32EnumAttrCase<"ctaid_y", 7>, I32EnumAttrCase<"ctaid_z", 8>,
    I32EnumAttrCase<"nctaid_x", 9>, I32EnumAttrCase<"nctaid_y", 10>, I32EnumAttrCase<"nctaid_z", 11>,
    I32EnumAttrCase<"cluster_ctarank", 12>, I32EnumAttrCase<"cluster_nctarank", 13>,
    I32EnumAttrCase<"clusterid_x", 14>, I32EnumAttrCase<"clusterid_y", 15>, I32EnumAttrCase<"clusterid_z", 16>,
    I32EnumAttrCase<"nclusterid_x", 17>, I32EnumAttrCase<"nclusterid_y", 18>, I32EnumAttrCase<"nclusterid_z", 19>,
    I32EnumAttrCase<"cluster_ctaid_x", 20>, I32EnumAttrCase<"cluster_ctaid_y", 21>, I32EnumAttrCase<"cluster_ctaid_z", 22>,
    I32EnumAttrCase<"cluster_nctaid_x", 23>, I32EnumAttrCase<"cluster_nctaid_y", 24>, I32EnumAttrCase<"cluster_nctaid_z", 25>,
    I32EnumAttrCase<"laneid", 26>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_SpecialRegAttr : EnumAttr<Tile_Dialect, Tile_SpecialReg, "sreg">;

// Cache operators of ld/st (PTX ISA 9.7.9.8 ld, 9.7.9.9 st, 9.7.9.10
// ld.global.nc): ca/cg/cs/lu/cv on loads, `nc` = ld.global.nc (the
// non-coherent read-only path), wb/cg/cs/wt on stores.
def Tile_CacheOp : I32EnumAttr<"CacheOp", "PTX cache operator of ld/st", [
    I32EnumAttrCase<"ca", 0>, I32EnumAttrCase<"cg", 1>, I32EnumAttrCase<"cs", 2>,
    I32EnumAttrCase<"lu", 3>, I32EnumAttrCase<"cv", 4>, I32EnumAttrCase<"nc", 5>,
    I32EnumAttrCase<"wb", 6>, I32EnumAttrCase<"wt", 7>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_CacheOpAttr : EnumAttr<Tile_Dialect, Tile_CacheOp, "cache">;

// Cache eviction priorities: `.L1::<p>` on ld/st, `.L2::<p>` of createpolicy
// (which takes every one but no_allocate).
def Tile_EvictionPriority : I32EnumAttr<"EvictionPriority", "cache eviction priority", [
    I32EnumAttrCase<"evict_normal", 0>, I32EnumAttrCase<"evict_first", 1>,
    I32EnumAttrCase<"evict_last", 2>, I32EnumAttrCase<"evict_unchanged", 3>,
    I32EnumAttrCase<"no_allocate", 4>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_EvictionPriorityAttr : EnumAttr<Tile_Dialect, Tile_EvictionPriority, "evict">;

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "pointer to scalars in one PTX state space";
  let parameters = (ins "::mlir::Type":$elementType, "::mlir::tile::AddressSpace":$space);
  let assemblyFormat = "`<` $elementType `,` $space `>`";
  // Element types are the scalars the lowering knows the width of (i1..i64,
  // f16, bf16, f32); pointers are elements only in local memory (a `var`).
  let genVerifyDecl = 1;
}

class Tile_PtrIn<string space> : Type<
  And<[CPred<"::llvm::isa<::mlir::tile::PtrType>($_self)">,
       CPred<"::llvm::cast<::mlir::tile::PtrType>($_self).getSpace() == ::mlir::tile::AddressSpace::" # space>]>,
  "pointer to " # space # " memory", "::mlir::tile::PtrType">;

#endif // TILE_BASE_TD
