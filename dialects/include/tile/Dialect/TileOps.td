//===- TileOps.td - tile dialect operations --------------------*- tablegen -*-===//
#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/Dialect/TileBase.td"
include "tile/Dialect/TileInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

// The integer widths PTX registers and memory accesses have (i1 is a
// predicate); wider or odd widths have no lowering.
def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Tile_Scalar : AnyTypeOf<[Tile_Int, F16, BF16, F32, F64, F8E4M3FN, F8E5M2]>;
// What a load/store moves: scalars anywhere, pointers only in thread-local
// memory (a `var` that holds a pointer).
def Tile_Value : AnyTypeOf<[Tile_Int, F16, BF16, F32, F64, F8E4M3FN, F8E5M2, Tile_PtrType]>;
def Tile_AtomicValue : AnyTypeOf<[I32, I64, F32, F64]>;
// atom/red.add.noftz.f16 (sm_70) and .bf16 (sm_90): the 16-bit floats add only.
def Tile_AtomicRMWValue : AnyTypeOf<[I32, I64, F16, BF16, F32, F64]>;
// A vector of 2 to 32 elements moved by one ld/st.vN of 4, 8 or 16 bytes, or
// by two 16-byte ones (32 bytes; the byte rule is the verifier's; 8- and
// 16-bit elements move as 32-bit words).
def Tile_Vector : FixedVectorOfLengthAndType<[2, 4, 8, 16, 32], [I8, I16, I32, I64, F16, BF16, F32, F64,
                                                        F8E4M3FN, F8E5M2]>;
// A fragment, per_row or per_col value (TileMmaOps.td) moves only to and
// from a `var` slot in local memory (SROA keeps it in registers).
def Tile_FragSlotValue : Type<CPred<"::llvm::isa<::mlir::tile::FragType, "
                                    "::mlir::tile::PerRowType, ::mlir::tile::PerColType>($_self)">,
                              "a fragment held in a `var`">;
def Tile_LoadStoreValue : AnyTypeOf<[Tile_Value, Tile_Vector, Tile_FragSlotValue]>;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface, Symbol]> {
  let summary = "a GPU kernel with optional cluster and thread-count bounds";
  let description = [{
    `cluster_dims` fixes the cluster shape (PTX `.reqnctapercluster` +
    `.explicitcluster`); `cluster_dynamic` says the kernel uses cluster
    operations but the shape comes at launch. `max_threads` becomes `.maxntid`
    (an upper bound on the block), `req_threads` `.reqntid` (the exact block
    shape) and `min_blocks` `.minnctapersm` (PTX ISA 11.4.2-11.4.4).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<DenseI32ArrayAttr>:$cluster_dims,
                       UnitAttr:$cluster_dynamic,
                       OptionalAttr<DenseI32ArrayAttr>:$max_threads,
                       OptionalAttr<DenseI32ArrayAttr>:$req_threads,
                       OptionalAttr<I32Attr>:$min_blocks);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// Cluster shape (x, y, z) when it is known at compile time (1, 1, 1
    /// without a cluster; missing dimensions are 1).
    std::optional<std::array<int64_t, 3>> getStaticClusterShape();
    /// Cluster size when it is known at compile time (1 without a cluster).
    std::optional<int64_t> getStaticClusterSize();
    /// Whether the kernel runs in clusters at all.
    bool hasCluster() { return getClusterDims().has_value() || getClusterDynamic(); }
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">, ReturnLike, Terminator]> {
  let summary = "end of a kernel";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Ids
//===----------------------------------------------------------------------===//

def Tile_SRegOp : Tile_Op<"sreg", [Pure]> {
  let summary = "read a PTX special register (thread, block, cluster ids and dims)";
  let arguments = (ins Tile_SpecialRegAttr:$reg);
  let results = (outs I32:$result);
  let assemblyFormat = "$reg attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_SharedAllocOp : Tile_Op<"shared_alloc"> {
  let summary = "a per-CTA shared-memory array";
  let description = [{
    With `static_count` the array lives in static shared memory. With a `count`
    operand it is carved out of dynamic shared memory: dynamic arrays are laid
    out in program order, each at a 16-byte aligned offset, so the host can
    compute the byte count it must pass at launch.
  }];
  let arguments = (ins Optional<Tile_Int>:$count, OptionalAttr<I64Attr>:$static_count,
                       OptionalAttr<I64Attr>:$alignment);
  let results = (outs Tile_PtrIn<"shared">:$result);
  // `alignment` (bytes, > 16: TMA tiles) is set after creation where needed.
  let builders = [OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$count,
                                 "::mlir::IntegerAttr":$static_count), [{
    build($_builder, $_state, result, count, static_count, ::mlir::IntegerAttr());
  }]>];
  let assemblyFormat = "($count^ `:` type($count))? attr-dict `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_LocalVarOp : Tile_Op<"local_var"> {
  let summary = "a mutable scalar private to the thread";
  let results = (outs Tile_PtrIn<"local">:$result);
  let assemblyFormat = "attr-dict `->` qualified(type($result))";
}

def Tile_PtrAddOp : Tile_Op<"ptr_add", [Pure,
    TypesMatchWith<"result has the type of base", "base", "result", "$_self">]> {
  let summary = "pointer plus an element offset";
  let arguments = (ins Tile_PtrType:$base, Tile_Int:$offset);
  let results = (outs Tile_PtrType:$result);
  let assemblyFormat = "$base `,` $offset attr-dict `:` qualified(type($base)) `,` type($offset)";
}

def Tile_GlobalAddressOp : Tile_Op<"global_address", [Pure]> {
  let summary = "the 64-bit address a global pointer holds";
  let description = [{ A global address is a generic one (PTX ISA 6.4.1: the
    global window is the identity), 64 bits under `.address_size 64`. Only
    global pointers convert: a shared or cluster address is an offset into a
    CTA's window, which means nothing to another CTA or kernel. }];
  let arguments = (ins Tile_PtrIn<"global">:$ptr);
  let results = (outs I64:$result);
  let assemblyFormat = "$ptr attr-dict `:` qualified(type($ptr))";
}

def Tile_GlobalPtrOp : Tile_Op<"global_ptr", [Pure]> {
  let summary = "a global pointer from a 64-bit device address";
  let description = [{ The inverse of global_address: an address read from
    memory (a table of pointers, a peer's base) or computed. Its alignment
    is unknown: no access through it is reported misaligned at compile time
    or required of a parameter (tile-check-address-alignment), as with an
    index whose low bits are unknown. }];
  let arguments = (ins I64:$address);
  let results = (outs Tile_PtrIn<"global">:$result);
  let assemblyFormat = "$address attr-dict `:` qualified(type($result))";
}

def Tile_MapaOp : Tile_Op<"mapa", [Pure]> {
  let summary = "address of the same shared location in CTA `rank` of the cluster";
  let description = [{ PTX `mapa.shared::cluster` (PTX ISA 9.7.9.x): the result
    addresses the peer CTA's shared memory through the shared::cluster window. }];
  let arguments = (ins Tile_PtrIn<"shared">:$source, I32:$rank);
  let results = (outs Tile_PtrIn<"cluster">:$result);
  let assemblyFormat = "$source `,` $rank attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [Tile_MemoryAccessOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load with a PTX memory order and scope, and optional cache hints";
  let description = [{ A weak load only reads `ptr`; a relaxed or acquire
    load also synchronises, so it is kept and not merged (its effects name
    all memory, as LLVM models atomic loads).
    A vector result loads N consecutive elements with one `ld.vN` (the
    address must be aligned to the vector's bytes, else the GPU traps).
    Cache hints (PTX ISA 9.7.9.8): `cache` (.ca/.cg/.cs/.lu/.cv, or nc =
    ld.global.nc), `evict` (.L1::evict_*), `prefetch` (.L2::64B/128B/256B) and a
    `policy` operand from tile.create_policy (.L2::cache_hint). }];
  let arguments = (ins Tile_PtrType:$ptr,
                       DefaultValuedAttr<Tile_MemoryOrderAttr, "MemoryOrder::weak">:$order,
                       DefaultValuedAttr<Tile_MemoryScopeAttr, "MemoryScope::gpu">:$scope,
                       OptionalAttr<Tile_CacheOpAttr>:$cache,
                       OptionalAttr<Tile_EvictionPriorityAttr>:$evict,
                       OptionalAttr<I32Attr>:$prefetch,
                       Optional<I64>:$policy);
  let results = (outs Tile_LoadStoreValue:$result);
  let assemblyFormat = "$ptr (`policy` $policy^)? attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$ptr,
                   "::mlir::tile::MemoryOrder":$order, "::mlir::tile::MemoryScope":$scope), [{
      build($_builder, $_state, result, ptr, order, scope, nullptr, nullptr, nullptr,
            ::mlir::Value());
    }]>
  ];
  let extraClassDeclaration = [{
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    /// Any of cache, evict, prefetch, policy.
    bool hasCacheHints() {
      return getCache() || getEvict() || getPrefetch() || getPolicy();
    }
  }];
}

def Tile_StoreOp : Tile_Op<"store", [Tile_MemoryAccessOpInterface]> {
  let summary = "store with a PTX memory order and scope, and optional cache hints";
  let description = [{ A vector value stores its elements with one `st.vN`.
    Cache hints (PTX ISA 9.7.9.9): `cache` (.wb/.cg/.cs/.wt), `evict`
    (.L1::evict_*) and a `policy` operand (.L2::cache_hint). }];
  let arguments = (ins Tile_LoadStoreValue:$value, Arg<Tile_PtrType, "", [MemWrite]>:$ptr,
                       DefaultValuedAttr<Tile_MemoryOrderAttr, "MemoryOrder::weak">:$order,
                       DefaultValuedAttr<Tile_MemoryScopeAttr, "MemoryScope::gpu">:$scope,
                       OptionalAttr<Tile_CacheOpAttr>:$cache,
                       OptionalAttr<Tile_EvictionPriorityAttr>:$evict,
                       Optional<I64>:$policy);
  let assemblyFormat = "$value `,` $ptr (`policy` $policy^)? attr-dict `:` qualified(type($value)) `,` qualified(type($ptr))";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$ptr,
                   "::mlir::tile::MemoryOrder":$order, "::mlir::tile::MemoryScope":$scope), [{
      build($_builder, $_state, value, ptr, order, scope, nullptr, nullptr, ::mlir::Value());
    }]>
  ];
  let extraClassDeclaration = [{
    ::mlir::ValueRange getStoredValues() { return getODSOperands(0); }
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    bool hasCacheHints() { return getCache() || getEvict() || getPolicy(); }
  }];
}

def Tile_CreatePolicyOp : Tile_Op<"create_policy", [Pure]> {
  let summary = "createpolicy.fractional.L2::<primary>: an L2 cache policy for .L2::cache_hint";
  let description = [{ PTX ISA 9.7.9.17: the policy applies `primary` to
    `fraction` (0 < fraction <= 1) of the accesses that use it and
    evict_unchanged to the rest. The result is an opaque 64-bit value that
    only ld/st `policy` operands take. }];
  let arguments = (ins Tile_EvictionPriorityAttr:$primary, F32Attr:$fraction);
  let results = (outs I64:$policy);
  let assemblyFormat = "$primary `fraction` $fraction attr-dict `:` type($policy)";
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [AllTypesMatch<["value", "result"]>,
    Tile_MemoryAccessOpInterface]> {
  let summary = "atomic read-modify-write (PTX atom, or red when the result is unused)";
  let arguments = (ins Tile_AtomicKindAttr:$kind, Arg<Tile_PtrType, "", [MemRead, MemWrite]>:$ptr, Tile_AtomicRMWValue:$value,
                       DefaultValuedAttr<Tile_MemoryOrderAttr, "MemoryOrder::relaxed">:$order,
                       DefaultValuedAttr<Tile_MemoryScopeAttr, "MemoryScope::gpu">:$scope);
  let results = (outs Tile_AtomicRMWValue:$result);
  let assemblyFormat = "$kind $ptr `,` $value attr-dict `:` qualified(type($ptr)) `,` type($value)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::ValueRange getStoredValues() { return getODSOperands(1); }
    bool readsMemory() { return true; }
    bool writesMemory() { return true; }
  }];
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [AllTypesMatch<["compare", "value", "result"]>,
    Tile_MemoryAccessOpInterface]> {
  let summary = "atomic compare-and-swap (PTX atom.cas)";
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead, MemWrite]>:$ptr, Tile_AtomicValue:$compare, Tile_AtomicValue:$value,
                       DefaultValuedAttr<Tile_MemoryOrderAttr, "MemoryOrder::relaxed">:$order,
                       DefaultValuedAttr<Tile_MemoryScopeAttr, "MemoryScope::gpu">:$scope);
  let results = (outs Tile_AtomicValue:$result);
  let assemblyFormat = "$ptr `,` $compare `,` $value attr-dict `:` qualified(type($ptr)) `,` type($value)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::ValueRange getStoredValues() { return getODSOperands(2); }
    bool readsMemory() { return true; }
    bool writesMemory() { return true; }
  }];
}

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "CTA-wide barrier 0: `bar.sync 0` when aligned, else `barrier.sync 0`";
  let description = [{ `bar.sync` is `barrier.sync.aligned` (PTX ISA 9.7.13.1):
    every thread of the warp must execute the same instruction. `aligned` is set
    by tile-sync-semantics only where control flow is warp-uniform.
    With a predicate and a `reduction` it is `barrier.red` (PTX ISA 9.7.13.1):
    the barrier also reduces every thread's predicate and gives each thread
    the result, the same in every thread of the CTA: the number of true
    predicates (`popc`, an i32) or whether all (`and`) or any (`or`) are true
    (an i1). }];
  let arguments = (ins Optional<I1>:$pred, OptionalAttr<Tile_BarrierReductionAttr>:$reduction,
                       UnitAttr:$aligned);
  let results = (outs Optional<AnyTypeOf<[I1, I32]>>:$result);
  // `reduce KIND %pred : T`: the keyword keeps the next op's result from
  // reading as the predicate.
  let assemblyFormat = "(`reduce` $reduction^ $pred `:` type($result))? attr-dict";
  let builders = [
    OpBuilder<(ins "bool":$aligned), [{
      build($_builder, $_state, ::mlir::Type(), ::mlir::Value(), BarrierReductionAttr(), aligned);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_ClusterSyncOp : Tile_Op<"cluster_sync"> {
  let summary = "cluster-wide barrier: every thread of every CTA of the cluster";
  let description = [{ Equivalent to `barrier.cluster.arrive` (release by
    default) followed by `barrier.cluster.wait` (acquire by default), PTX ISA
    9.7.13.4. The tile passes may split it into the two halves. }];
  let arguments = (ins UnitAttr:$aligned);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterArriveOp : Tile_Op<"cluster_arrive"> {
  let summary = "barrier.cluster.arrive with order relaxed or release";
  let description = [{ `order` (relaxed | release, PTX ISA 9.7.13.4) is absent
    when the source left it open; tile-sync-semantics decides it and lowering
    rejects an arrive without one. `aligned` (PTX `.aligned`): every thread of
    the warp executes this same barrier; the passes set it only in uniform
    control flow. }];
  let arguments = (ins OptionalAttr<Tile_MemoryOrderAttr>:$order, UnitAttr:$aligned);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterWaitOp : Tile_Op<"cluster_wait"> {
  let summary = "barrier.cluster.wait (acquire)";
  let arguments = (ins UnitAttr:$aligned);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers (PTX ISA 9.7.13.15). An mbarrier is an i64 in shared memory:
// !tile.ptr<i64, shared> in this CTA, !tile.ptr<i64, cluster> in a peer.
//===----------------------------------------------------------------------===//

def Tile_MBarrierPtr : AnyTypeOf<[Tile_PtrIn<"shared">, Tile_PtrIn<"cluster">]>;

def Tile_MBarrierInitOp : Tile_Op<"mbarrier_init"> {
  let summary = "mbarrier.init.shared::cta.b64: expected arrivals per phase";
  let arguments = (ins Arg<Tile_PtrIn<"shared">, "", [MemWrite]>:$mbar, I32:$count);
  let assemblyFormat = "$mbar `,` $count attr-dict `:` qualified(type($mbar))";
  let hasVerifier = 1;
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive", [Tile_MBarrierCompletionOpInterface]> {
  let summary = "mbarrier.arrive[.expect_tx] on this CTA's or a peer's mbarrier";
  let description = [{
    With `tx_count`, also raises the phase's expected transaction bytes
    (`mbarrier.arrive.expect_tx`). `order` (relaxed | release) and `scope`
    (cta | cluster) are absent when the source left them to the compiler;
    tile-sync-semantics decides them and lowering rejects an arrive without.
  }];
  let arguments = (ins Arg<Tile_MBarrierPtr, "", [MemRead, MemWrite]>:$mbar, Optional<I32>:$tx_count,
                       OptionalAttr<Tile_MemoryOrderAttr>:$order,
                       OptionalAttr<Tile_MemoryScopeAttr>:$scope);
  let assemblyFormat = [{
    $mbar (`expect_tx` $tx_count^)? attr-dict `:` qualified(type($mbar))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool completesArrival() { return true; }
    bool completesTxBytes() { return false; }
  }];
}

def Tile_MBarrierExpectTxOp : Tile_Op<"mbarrier_expect_tx"> {
  let summary = "mbarrier.expect_tx.relaxed: raise the expected transaction bytes";
  let arguments = (ins Arg<Tile_PtrIn<"shared">, "", [MemRead, MemWrite]>:$mbar, I32:$tx_count,
                       OptionalAttr<Tile_MemoryScopeAttr>:$scope);
  let assemblyFormat = "$mbar `,` $tx_count attr-dict `:` qualified(type($mbar))";
  let hasVerifier = 1;
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait"> {
  let summary = "wait until the current phase of this CTA's mbarrier completes";
  let description = [{
    Without `parity` the wait is phase-tracked: tile-mbarrier-phases derives the
    parity from per-thread phase bits. With `parity` it is PTX
    `mbarrier.try_wait.parity` in a loop (PTX ISA 9.7.13.15.16).
  }];
  // An acquire: modelled as a write so that it is neither erased nor merged.
  let arguments = (ins Arg<Tile_PtrIn<"shared">, "", [MemRead, MemWrite]>:$mbar, Optional<I32>:$parity,
                       OptionalAttr<Tile_MemoryOrderAttr>:$order,
                       OptionalAttr<Tile_MemoryScopeAttr>:$scope);
  let assemblyFormat = [{
    $mbar (`parity` $parity^)? attr-dict `:` qualified(type($mbar))
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierTryWaitOp : Tile_Op<"mbarrier_try_wait"> {
  let summary = "one mbarrier.try_wait.parity: true once the phase has completed";
  let arguments = (ins Arg<Tile_PtrIn<"shared">, "", [MemRead, MemWrite]>:$mbar, I32:$parity,
                       OptionalAttr<Tile_MemoryOrderAttr>:$order,
                       OptionalAttr<Tile_MemoryScopeAttr>:$scope);
  let results = (outs I1:$done);
  let assemblyFormat = "$mbar `,` $parity attr-dict `:` qualified(type($mbar))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Async proxy and fences
//===----------------------------------------------------------------------===//

def Tile_StoreAsyncOp : Tile_Op<"store_async", [Tile_MemoryAccessOpInterface,
    Tile_MBarrierCompletionOpInterface]> {
  let summary = "st.async into a peer's shared memory, completing bytes on its mbarrier";
  let description = [{ PTX ISA 9.7.9.12: `st.async.shared::cluster.mbarrier::
    complete_tx::bytes{.v2,.v4}`. The mbarrier must be in the CTA that owns `dst`.
    The store is a weak async-proxy write; the complete-tx on the mbarrier
    has .release semantics at .cluster scope. }];
  let arguments = (ins Arg<Tile_PtrIn<"cluster">, "", [MemWrite]>:$dst,
                       Variadic<AnyTypeOf<[I32, I64, F32]>>:$values,
                       Arg<Tile_PtrIn<"cluster">, "", [MemRead, MemWrite]>:$mbar);
  let assemblyFormat = [{
    `(` $values `)` `,` $dst `,` $mbar attr-dict `:` `(` type($values) `)` `,`
      qualified(type($dst)) `,` qualified(type($mbar))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes this store delivers to the mbarrier's transaction count.
    int64_t getByteCount();
    // MemoryAccessOpInterface: a weak write of the async proxy.
    ::mlir::Value getAccessPtr() { return getDst(); }
    ::mlir::ValueRange getStoredValues() { return getValues(); }
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cluster; }
    ::mlir::tile::MemoryProxy getAccessProxy() { return ::mlir::tile::MemoryProxy::async; }
    // MBarrierCompletionOpInterface: complete_tx of the bytes stored.
    bool completesArrival() { return false; }
    bool completesTxBytes() { return true; }
    std::optional<int64_t> getCompletedTxBytes() { return getByteCount(); }
  }];
}

def Tile_FenceOp : Tile_Op<"fence"> {
  let summary = "fence.{acq_rel,sc}.scope";
  let description = [{ `order`/`scope` are absent when the source left them
    open; tile-sync-semantics decides them and lowering rejects a fence
    without. }];
  let arguments = (ins OptionalAttr<Tile_MemoryOrderAttr>:$order,
                       OptionalAttr<Tile_MemoryScopeAttr>:$scope);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_FenceProxyAsyncOp : Tile_Op<"fence_proxy_async"> {
  let summary = "fence.proxy.async.shared::cta: order generic-proxy smem writes before async-proxy reads";
  let assemblyFormat = "attr-dict";
}

def Tile_FenceMBarrierInitOp : Tile_Op<"fence_mbarrier_init"> {
  let summary = "fence.mbarrier_init.release.cluster: publish mbarrier inits to the cluster";
  let assemblyFormat = "attr-dict";
}

// No Pure trait: the op has no result, and a pure one would be erased.
def Tile_NanosleepOp : Tile_Op<"nanosleep"> {
  let summary = "nanosleep.u32: suspend the thread for about `ns` nanoseconds";
  let description = [{ A spinning thread's backoff: the builtin
    `nanosleep(ns)` and the waits tilec builds (tile-debug-hangs' loops).
    PTX ISA "nanosleep": the sleep lies in [0, 2 ns] and is at most 1 ms, so
    every u32 is defined (a larger value sleeps 1 ms at most); threads of a
    warp may wake together. It orders no memory. }];
  let arguments = (ins I32:$ns);
  let assemblyFormat = "$ns attr-dict";
}

//===----------------------------------------------------------------------===//
// Hang debugging (tilec --debug-hangs)
//===----------------------------------------------------------------------===//

def Tile_GlobalTimerOp : Tile_Op<"globaltimer"> {
  let summary = "read %globaltimer (nanoseconds)";
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_HangTrapOp : Tile_Op<"hang_trap"> {
  let summary = "printf a hang report naming the wait, then trap";
  let description = [{ The message is a printf format; `args` (i32) fill it.
    Lowered to vprintf + `trap`, so the launch fails and the report is printed. }];
  let arguments = (ins StrAttr:$message, Variadic<AnyTypeOf<[I32, I64]>>:$args);
  let assemblyFormat = "$message ($args^ `:` type($args))? attr-dict";
  let hasVerifier = 1;
}

include "tile/Dialect/TileRoleOps.td"
// Tensor maps, tile layouts and TMA copies.
include "tile/Dialect/TileTmaOps.td"
include "tile/Dialect/TileWarpOps.td"
// Pipeline rings: stages of member tiles with full/empty mbarriers.
include "tile/Dialect/TileRingOps.td"
// Fragments and wgmma.
include "tile/Dialect/TileMmaOps.td"
// Element-wise math, conversions and stores of fragments.
include "tile/Dialect/TileEpilogueOps.td"
// Row reductions, comparisons, masks and math on fragments.
include "tile/Dialect/TileFragmentOps.td"
// Peers' symmetric memory and semaphores.
include "tile/Dialect/TilePeerOps.td"
//===----------------------------------------------------------------------===//
// Register arrays (`local<T>[N]`)
//===----------------------------------------------------------------------===//

def Tile_LocalArrayOp : Tile_Op<"local_array"> {
  let summary = "an array of `count` elements private to the thread";
  let description = [{
    One alloca of `count` elements in the kernel's entry block. When every
    access has a constant index (after unrolling and folding), LLVM's SROA
    splits it into scalars, which live in registers; otherwise it stays in
    local memory (`tile-check-local-arrays` warns, naming the index). `name`
    is the source name, for diagnostics.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$count, StrAttr:$name);
  let results = (outs Tile_PtrIn<"local">:$result);
  let assemblyFormat = "$name `[` $count `]` attr-dict `->` qualified(type($result))";
}

#endif // TILE_OPS_TD
