// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The host contract on tile.kernel (tile.param on every argument,
// tile.shared_array on a dynamic allocation, tile.mbarrier_count on an
// mbarrier init whose count comes from the parameters, tile.instance,
// tile.spins_on_peers) round-trips; malformed ones and other tile.* names on
// a kernel or its arguments are refused, naming the field.

// CHECK-LABEL: tile.kernel @k$BM64(
// CHECK-SAME: %arg0: !tile.tensormap<f16, 2> {tile.param = {name = "A", tensor = {box = array<i64: 64, 64>, element = "f16", extents = [{hidden = 3 : i64, name = "M"}, {literal = 64 : i64}], swizzle = 128 : i64}, type = "f16"}}
// CHECK-SAME: %arg1: !tile.ptr<i32, global> {tile.param = {name = "out", pointer, type = "u32"}}
// CHECK-SAME: %arg2: i32 {tile.param = {name = "n", type = "i32"}}
// CHECK-SAME: %arg3: i32 {tile.param = {hidden = {dim = 0 : i64, tensor = 0 : i64}, name = "M", type = "i32"}}
// CHECK-SAME: tile.instance = {args = {{\[\["BM", 64\]\]}}, source = "k"}
// CHECK: tile.shared_alloc %{{.*}} : i32 {tile.shared_array = {count = {op = "param", param = 2 : i64, type = "i32"}, element = "f32", name = "buf"}}
tile.kernel @k$BM64(%a: !tile.tensormap<f16, 2> {tile.param = {name = "A", type = "f16", tensor = {element = "f16", extents = [{name = "M", hidden = 3}, {literal = 64}], box = array<i64: 64, 64>, swizzle = 128}}},
                    %out: !tile.ptr<i32, global> {tile.param = {name = "out", type = "u32", pointer}},
                    %n: i32 {tile.param = {name = "n", type = "i32"}},
                    %m: i32 {tile.param = {name = "M", type = "i32", hidden = {tensor = 0, dim = 0}}})
    attributes {tile.instance = {source = "k", args = [["BM", 64]]}} {
  %buf = tile.shared_alloc %n : i32 {tile.shared_array = {name = "buf", element = "f32", count = {op = "param", type = "i32", param = 2}}} -> !tile.ptr<f32, shared>
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.param.name: missing}}
tile.kernel @no_name(%n: i32 {tile.param = {type = "i32"}}) {
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.param.type: 'int' is not a scalar type}}
tile.kernel @bad_scalar(%n: i32 {tile.param = {name = "n", type = "int"}}) {
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.param.size: not a field of this attribute}}
tile.kernel @unknown_field(%n: i32 {tile.param = {name = "n", type = "i32", size = 4}}) {
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.param: parameter 'n' of type i64 does not match its argument type}}
tile.kernel @wrong_width(%n: i32 {tile.param = {name = "n", type = "i64"}}) {
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.param.peer.kind: 'everyone' is not a hidden peer parameter}}
tile.kernel @bad_peer(%n: i32 {tile.param = {name = "n", type = "i32", peer = {kind = "everyone", param = -1}}}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.note' is not an argument attribute of the tile dialect}}
tile.kernel @unknown_arg_attr(%n: i32 {tile.note = "x"}) {
  tile.return
}

// -----

tile.kernel @bad_count(%n: i32) {
  // expected-error @+1 {{tile.shared_array.count.operands[0].op: 'pow' is not an operator}}
  %buf = tile.shared_alloc %n : i32 {tile.shared_array = {name = "buf", element = "f32", count = {op = "neg", type = "i32", operands = [{op = "pow", type = "i32"}]}}} -> !tile.ptr<f32, shared>
  tile.return
}

// -----

tile.kernel @static_array() {
  // expected-error @+1 {{'tile.shared_array' must be a dictionary on a dynamic allocation}}
  %buf = tile.shared_alloc {static_count = 4 : i64, tile.shared_array = {name = "buf", element = "f32", count = {op = "literal", type = "i32", value = 4, fvalue = 4.0}}} -> !tile.ptr<f32, shared>
  tile.return
}

// -----

// The dialect's attribute verifier refuses an undeclared name on any op.
// expected-error @+1 {{'tile.aligned' is not an attribute of the tile dialect}}
tile.kernel @undeclared() attributes {tile.aligned} {
  tile.return
}

// -----

// expected-error @+1 {{tile.spins_on_peers must be a unit attribute}}
tile.kernel @spins() attributes {tile.spins_on_peers = 1 : i32} {
  tile.return
}

// -----

// tile.mbarrier_count: the rule of an mbarrier count built from parameters,
// on its init; an i32 rule, and only on a tile.mbarrier_init.
// CHECK-LABEL: tile.kernel @counted
// CHECK: tile.mbarrier_init %{{.*}}, %arg0 {tile.mbarrier_count = {count = {op = "param", param = 0 : i64, type = "i32"}, name = "full"}} : !tile.ptr<i64, shared>
tile.kernel @counted(%n: i32 {tile.param = {name = "n", type = "i32"}}) {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  tile.mbarrier_init %b, %n {tile.mbarrier_count = {name = "full", count = {op = "param", type = "i32", param = 0}}} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @count_of_i64(%n: i32) {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{tile.mbarrier_count.count: an mbarrier count is an i32 rule}}
  tile.mbarrier_init %b, %n {tile.mbarrier_count = {name = "full", count = {op = "literal", type = "i64", value = 4, fvalue = 4.0}}} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @count_not_a_dictionary(%n: i32) {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{'tile.mbarrier_count' must be a dictionary}}
  tile.mbarrier_init %b, %n {tile.mbarrier_count = 4 : i32} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @count_elsewhere(%n: i32) {
  // expected-error @+1 {{attribute 'tile.mbarrier_count' must be on a tile.mbarrier_init}}
  %buf = tile.shared_alloc %n : i32 {tile.mbarrier_count = {name = "full", count = {op = "param", type = "i32", param = 0}}} -> !tile.ptr<f32, shared>
  tile.return
}
