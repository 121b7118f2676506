//===- call_shapes.cpp - every builtin called in every argument shape -----===//
#include "call_shapes.h"

#include "tilec/frontend/AST.h"

namespace tile::fuzz {

namespace {

std::vector<std::string> builtinNames() {
  std::vector<std::string> names;
  std::string list = tile::frontend::builtinNameList();
  size_t at = 0;
  while (at < list.size()) {
    size_t comma = list.find(", ", at);
    names.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    at = comma == std::string::npos ? list.size() : comma + 2;
  }
  return names;
}

// A kernel with one operand of each kind in scope: pointers, scalars, a
// shared tile, a shared array, an mbarrier, a tensor.
const char *kPlainHead =
    "kernel k(p: ptr<i32, global>, f: ptr<f32, global>, n: i32, T: tensor<f16>[M, K])\n"
    "    cluster(2) threads(128) {\n"
    "  let s = shared<f16>[64, 64]\n"
    "  let a = shared<i32>[128]\n"
    "  let bar = mbarrier(1)\n";

const char *kPlainArgs[] = {
    "()",
    "(1)",
    "(2.5)",
    "(n)",
    "(p)",
    "(p[0])",
    "(f[n])",
    "(s)",
    "(a)",
    "(a[0])",
    "(bar)",
    "(T)",
    "(T[0, 0])",
    "(true)",
    "({1, 2})",
    "(1, 2)",
    "(p[0], 1)",
    "(a[0], p[0])",
    "(s, 0, 64)",
    "(s, T[0, 0])",
    "(bar, 16)",
    "(p, 1, 2, 3)",
    "(1, 2, 3, 4, 5, 6, 7)",
    "(x = 1)",
    "(p[0], order = relaxed)",
    "(p[0], 1, scope = cluster)",
    "(1, n = 2)",
};

// Inside a consumer's `consume` body, where operand views, mma and fragments
// are checked.
const char *kConsumerHead =
    "kernel k(A: tensor<f16>[M, K], p: ptr<f32, global>) threads(384) {\n"
    "  let ring = pipeline[2] { a: shared<f16>[64, 64] }\n"
    "  warpgroups {\n"
    "    producer(regs = 40) { produce ring as s { copy_async(s.a, A[0, 0]) } }\n"
    "    consumer(warpgroups = 2, regs = 232) {\n"
    "      var acc = zeros<f32>[64, 64]\n"
    "      consume ring as s {\n"
    "        acc = mma(s.a, trans(s.a), acc)\n";
const char *kConsumerTail = "\n      }\n    }\n  }\n}\n";

const char *kConsumerArgs[] = {
    "()",
    "(s)",
    "(s.a)",
    "(s.a, 1)",
    "(s.a, 0, 64)",
    "(acc)",
    "(acc, 0, 32)",
    "(acc, s.a)",
    "(s.a, s.a, acc)",
    "(trans(s.a))",
    "(rows(s.a, 0, 64))",
    "(acc, p)",
    "(p, acc)",
};

} // namespace

std::vector<std::string> builtinCallShapes() {
  std::vector<std::string> out;
  for (const std::string &name : builtinNames()) {
    for (const char *args : kPlainArgs) {
      out.push_back(std::string(kPlainHead) + "  " + name + args + "\n}\n");
      out.push_back(std::string(kPlainHead) + "  let v = " + name + args + "\n  p[0] = 1\n}\n");
    }
    out.push_back(std::string(kPlainHead) + "  let v = " + name + "\n}\n");
    out.push_back(std::string(kPlainHead) + "  p[0] = " + name + "<f32>(1)\n}\n");
    for (const char *args : kConsumerArgs) {
      out.push_back(std::string(kConsumerHead) + "        " + name + args + kConsumerTail);
      out.push_back(std::string(kConsumerHead) + "        let v = " + name + args + kConsumerTail);
    }
  }
  return out;
}

} // namespace tile::fuzz
