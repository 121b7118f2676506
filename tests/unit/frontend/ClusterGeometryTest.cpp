// The cluster and multicast-group formulas of tilec/Target/ClusterGeometry.h
// (the one place Sema, the dialect, MLIRGen, the passes and the conversions
// take them from), checked against a brute-force enumeration of the CTAs of
// every legal cluster shape.
#include "tilec/Target/ClusterGeometry.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

namespace cluster = ::tile::cluster;

namespace {
using Shape = std::array<int, 3>;

/// Every legal shape X x Y x Z (1..16 CTAs).
template <class F> void forEachShape(F f) {
  for (int x = 1; x <= 16; ++x)
    for (int y = 1; x * y <= 16; ++y)
      for (int z = 1; x * y * z <= 16; ++z)
        f(Shape{x, y, z});
}
} // namespace

TEST_CASE("cluster size and legality", "[cluster]") {
  CHECK(cluster::ctaCount(Shape{2, 2, 1}) == 4);
  CHECK(cluster::ctaCount(Shape{1, 1, 1}) == 1);
  CHECK(cluster::isLegalShape(Shape{16, 1, 1}));
  CHECK(cluster::isLegalShape(Shape{2, 2, 4}));
  CHECK_FALSE(cluster::isLegalShape(Shape{17, 1, 1}));
  CHECK_FALSE(cluster::isLegalShape(Shape{4, 4, 2}));
  CHECK_FALSE(cluster::isLegalShape(Shape{0, 1, 1}));
  CHECK_FALSE(cluster::isLegalShape(Shape{-1, -1, 1}));
  // Extents are bounded before they are multiplied: no overflow into a
  // small product.
  CHECK_FALSE(cluster::isLegalShape(Shape{65536, 65536, 1}));
  CHECK(cluster::isLegalSize(1));
  CHECK(cluster::isLegalSize(16));
  CHECK_FALSE(cluster::isLegalSize(0));
  CHECK_FALSE(cluster::isLegalSize(17));
  CHECK(cluster::isMulticastAxis(0));
  CHECK(cluster::isMulticastAxis(cluster::kAllAxes));
  CHECK_FALSE(cluster::isMulticastAxis(-1));
  CHECK_FALSE(cluster::isMulticastAxis(4));
}

TEST_CASE("ranks and coordinates", "[cluster]") {
  forEachShape([](Shape d) {
    int64_t expected = 0;
    for (int z = 0; z < d[2]; ++z)
      for (int y = 0; y < d[1]; ++y)
        for (int x = 0; x < d[0]; ++x, ++expected) {
          // %cluster_ctarank counts x fastest (PTX ISA 10.8).
          REQUIRE(cluster::rank(d, x, y, z) == expected);
          REQUIRE(cluster::coordinate(d, expected, 0) == x);
          REQUIRE(cluster::coordinate(d, expected, 1) == y);
          REQUIRE(cluster::coordinate(d, expected, 2) == z);
        }
  });
}

TEST_CASE("multicast groups: size, members and ctaMask", "[cluster]") {
  forEachShape([](Shape d) {
    for (int axis = 0; axis <= cluster::kAllAxes; ++axis) {
      int64_t n = cluster::groupSize(d, axis);
      REQUIRE(n == (axis == cluster::kAllAxes ? cluster::ctaCount(d) : d[axis]));
      for (int64_t r = 0; r < cluster::ctaCount(d); ++r) {
        int64_t c[3] = {cluster::coordinate(d, r, 0), cluster::coordinate(d, r, 1),
                        cluster::coordinate(d, r, 2)};
        int64_t pos = axis == cluster::kAllAxes ? r : c[axis];
        // The group by brute force: the CTAs equal to r in every coordinate
        // but axis's (every CTA for kAllAxes), in rank order.
        uint32_t mask = 0;
        int64_t q = 0;
        for (int64_t s = 0; s < cluster::ctaCount(d); ++s) {
          bool member = true;
          for (int i = 0; i < 3; ++i)
            if (i != axis && axis != cluster::kAllAxes && cluster::coordinate(d, s, i) != c[i])
              member = false;
          if (!member)
            continue;
          REQUIRE(cluster::groupMemberRank(d, axis, r, pos, q) == s);
          mask |= uint32_t(1) << s;
          ++q;
        }
        REQUIRE(q == n);
        REQUIRE(cluster::groupFirstRank(d, axis, r, pos) ==
                cluster::groupMemberRank(d, axis, r, pos, 0));
        REQUIRE((cluster::groupMaskAtRankZero(d, axis)
                 << cluster::groupFirstRank(d, axis, r, pos)) == mask);
      }
    }
  });
}
