// RUN: tile-opt %s --tile-prune-float-bit-marks | FileCheck %s

// tile-prune-float-bit-marks keeps a NaN-bit mark only where a folder could
// make the marked value a NaN constant of its own bits: a constant
// expression, or, for a bitcast's read, one through the thread's own
// variables. Every other mark goes, and so does the declaration nothing
// calls any more.

// CHECK: llvm.func @tilec.float_bits.f32
// CHECK-NOT: llvm.func @tilec.float_bits.f16
llvm.func @tilec.float_bits.f32(f32) -> f32 attributes {memory_effects = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = none, errnoMem = none, targetMem0 = none, targetMem1 = none>, no_unwind, will_return}
llvm.func @tilec.float_bits.f16(f16) -> f16 attributes {memory_effects = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = none, errnoMem = none, targetMem0 = none, targetMem1 = none>, no_unwind, will_return}

// CHECK-LABEL: tile.kernel @reads
tile.kernel @reads(%o: !tile.ptr<i32, global>, %oh: !tile.ptr<f16, global>, %x: f32, %h: f16) {
  %slot = tile.local_var -> !tile.ptr<f32, local>
  %zero = arith.constant 0.000000e+00 : f32
  // A constant expression (0.0 / 0.0): kept before a bitcast and before a
  // conversion.
  // CHECK: %[[Q:.*]] = arith.divf
  // CHECK-NEXT: %[[QM:.*]] = llvm.call @tilec.float_bits.f32(%[[Q]])
  // CHECK-NEXT: arith.bitcast %[[QM]] : f32 to i32
  %q = arith.divf %zero, %zero : f32
  %qm = llvm.call @tilec.float_bits.f32(%q) : (f32) -> f32
  %qi = arith.bitcast %qm : f32 to i32
  tile.store %qi, %o : i32, !tile.ptr<i32, global>
  // CHECK: %[[Q2:.*]] = llvm.call @tilec.float_bits.f32(%[[Q]])
  // CHECK-NEXT: arith.truncf %[[Q2]] : f32 to f16
  %q2 = llvm.call @tilec.float_bits.f32(%q) : (f32) -> f32
  %qh = arith.truncf %q2 : f32 to f16
  tile.store %qh, %oh : f16, !tile.ptr<f16, global>
  // A parameter, and a constant that is no NaN: removed.
  // CHECK-NEXT: tile.store
  // CHECK-NEXT: arith.bitcast %arg2 : f32 to i32
  %xm = llvm.call @tilec.float_bits.f32(%x) : (f32) -> f32
  %xi = arith.bitcast %xm : f32 to i32
  tile.store %xi, %o : i32, !tile.ptr<i32, global>
  // CHECK: arith.truncf %[[Z:.*]] : f32 to f16
  %zm = llvm.call @tilec.float_bits.f32(%zero) : (f32) -> f32
  %zh = arith.truncf %zm : f32 to f16
  tile.store %zh, %oh : f16, !tile.ptr<f16, global>
  // A NaN constant: kept.
  // CHECK: %[[N:.*]] = arith.constant 0x7FC00000 : f32
  // CHECK-NEXT: llvm.call @tilec.float_bits.f32(%[[N]])
  %nan = arith.constant 0x7FC00000 : f32
  %nm = llvm.call @tilec.float_bits.f32(%nan) : (f32) -> f32
  %nh = arith.truncf %nm : f32 to f16
  tile.store %nh, %oh : f16, !tile.ptr<f16, global>
  // Through a thread's variable: kept before a bitcast, removed before a
  // conversion (EmitPTX recognises a converted NaN constant, not an
  // integer one).
  tile.store %q, %slot : f32, !tile.ptr<f32, local>
  %v = tile.load %slot : !tile.ptr<f32, local> -> f32
  // CHECK: %[[V:.*]] = tile.load
  // CHECK-NEXT: %[[VM:.*]] = llvm.call @tilec.float_bits.f32(%[[V]])
  // CHECK-NEXT: arith.bitcast %[[VM]] : f32 to i32
  %vm = llvm.call @tilec.float_bits.f32(%v) : (f32) -> f32
  %vi = arith.bitcast %vm : f32 to i32
  tile.store %vi, %o : i32, !tile.ptr<i32, global>
  // CHECK: arith.truncf %[[V]] : f32 to f16
  %vm2 = llvm.call @tilec.float_bits.f32(%v) : (f32) -> f32
  %vh = arith.truncf %vm2 : f32 to f16
  tile.store %vh, %oh : f16, !tile.ptr<f16, global>
  // A value loaded from global memory: removed.
  // CHECK: %[[G:.*]] = tile.load %arg0
  // CHECK-NEXT: %[[GF:.*]] = arith.bitcast %[[G]] : i32 to f32
  // CHECK-NEXT: arith.truncf %[[GF]] : f32 to f16
  %g = tile.load %o : !tile.ptr<i32, global> -> i32
  %gf = arith.bitcast %g : i32 to f32
  %gm = llvm.call @tilec.float_bits.f32(%gf) : (f32) -> f32
  %gh = arith.truncf %gm : f32 to f16
  tile.store %gh, %oh : f16, !tile.ptr<f16, global>
  // An f16 mark on a parameter: removed, and its declaration with it.
  %hm = llvm.call @tilec.float_bits.f16(%h) : (f16) -> f16
  %hi = arith.bitcast %hm : f16 to i16
  %hx = arith.extui %hi : i16 to i32
  tile.store %hx, %o : i32, !tile.ptr<i32, global>
  tile.return
}

// CHECK-LABEL: tile.kernel @pins
tile.kernel @pins(%o: !tile.ptr<f32, global>, %bits: i32) {
  // A `nan` the program spelled: kept.
  // CHECK: %[[N:.*]] = arith.constant 0x7FC00000 : f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.arithmetic.fence"(%[[N]])
  %nan = arith.constant 0x7FC00000 : f32
  %np = llvm.call_intrinsic "llvm.arithmetic.fence"(%nan) : (f32) -> f32
  tile.store %np, %o : f32, !tile.ptr<f32, global>
  // NaN bits spelled as an integer: kept.
  // CHECK: %[[K:.*]] = arith.bitcast %c2143289345_i32 : i32 to f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.arithmetic.fence"(%[[K]])
  %kb = arith.constant 2143289345 : i32
  %k = arith.bitcast %kb : i32 to f32
  %kp = llvm.call_intrinsic "llvm.arithmetic.fence"(%k) : (f32) -> f32
  tile.store %kp, %o : f32, !tile.ptr<f32, global>
  // A constant integer expression: kept (it may fold to NaN bits).
  // CHECK: %[[E:.*]] = arith.bitcast %{{.*}} : i32 to f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.arithmetic.fence"(%[[E]])
  %one = arith.constant 1 : i32
  %eb = arith.addi %kb, %one : i32
  %e = arith.bitcast %eb : i32 to f32
  %ep = llvm.call_intrinsic "llvm.arithmetic.fence"(%e) : (f32) -> f32
  tile.store %ep, %o : f32, !tile.ptr<f32, global>
  // 1.0's bits, and bits from a parameter: removed.
  // CHECK: %[[O:.*]] = arith.bitcast %{{.*}} : i32 to f32
  // CHECK-NEXT: tile.store %[[O]]
  %ob = arith.constant 1065353216 : i32
  %of = arith.bitcast %ob : i32 to f32
  %op = llvm.call_intrinsic "llvm.arithmetic.fence"(%of) : (f32) -> f32
  tile.store %op, %o : f32, !tile.ptr<f32, global>
  // CHECK: %[[P:.*]] = arith.bitcast %arg1 : i32 to f32
  // CHECK-NEXT: tile.store %[[P]]
  %p = arith.bitcast %bits : i32 to f32
  %pp = llvm.call_intrinsic "llvm.arithmetic.fence"(%p) : (f32) -> f32
  tile.store %pp, %o : f32, !tile.ptr<f32, global>
  // A read mark on a sum of two removed pins of infinity's bits: decided
  // after them, so it sees inf - inf, a constant NaN, and stays.
  // CHECK: %[[D:.*]] = arith.subf
  // CHECK-NEXT: llvm.call @tilec.float_bits.f32(%[[D]])
  %infb = arith.constant 2139095040 : i32
  %inf = arith.bitcast %infb : i32 to f32
  %infp = llvm.call_intrinsic "llvm.arithmetic.fence"(%inf) : (f32) -> f32
  %d = arith.subf %infp, %infp : f32
  %dm = llvm.call @tilec.float_bits.f32(%d) : (f32) -> f32
  %di = arith.bitcast %dm : f32 to i32
  %df = arith.bitcast %di : i32 to f32
  tile.store %df, %o : f32, !tile.ptr<f32, global>
  tile.return
}
