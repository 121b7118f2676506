// The kernel info of a kernel with tensor parameters, shared by the tensor
// tests with and without the fake driver.
#pragma once

#include <tuple>
#include <vector>

#include "tile/kernel_info.h"

// kernel k(A: tensor<bf16>[M, K], s: f32, B: tensor<bf16>[K, 64]): A copied in
// 64 x 64 boxes with 128B swizzle, B never copied; M and K hidden.
inline tile::KernelInfo tensorKernelInfo() {
  tile::KernelInfo k;
  k.name = "k";
  auto tensor = [](const char *name, std::vector<tile::TensorParamInfo::Extent> extents,
                   std::vector<unsigned> box, tile::TmaSwizzle swizzle) {
    tile::KernelParamInfo p;
    p.name = name;
    p.scalar = tile::ScalarType::BF16;
    p.size = 128;
    p.align = 64;
    tile::TensorParamInfo t;
    t.element = tile::ScalarType::BF16;
    t.extents = std::move(extents);
    t.box = std::move(box);
    t.swizzle = swizzle;
    p.tensor = t;
    return p;
  };
  auto named = [](const char *n, int hidden) {
    tile::TensorParamInfo::Extent e;
    e.name = n;
    e.hiddenParam = hidden;
    return e;
  };
  tile::TensorParamInfo::Extent lit;
  lit.literal = 64;
  k.params.push_back(tensor("A", {named("M", 3), named("K", 4)}, {64, 64}, tile::TmaSwizzle::B128));
  tile::KernelParamInfo s;
  s.name = "s";
  s.scalar = tile::ScalarType::F32;
  s.size = s.align = 4;
  k.params.push_back(s);
  k.params.push_back(tensor("B", {named("K", 4), lit}, {}, tile::TmaSwizzle::None));
  for (auto [name, tensorIndex, dim] :
       {std::tuple<const char *, int, unsigned>{"M", 0, 0}, {"K", 0, 1}}) {
    tile::KernelParamInfo h;
    h.name = name;
    h.scalar = tile::ScalarType::I32;
    h.size = h.align = 4;
    h.hidden = tile::HiddenExtentInfo{tensorIndex, dim};
    k.params.push_back(h);
  }
  return k;
}
