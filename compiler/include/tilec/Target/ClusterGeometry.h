//===- ClusterGeometry.h - cluster shape and multicast group arithmetic ---===//
//
// The one owner of the arithmetic on a thread-block cluster's shape: its
// size, whether a shape is legal, the rank of a CTA, and the multicast group
// of a CTA along an axis (its size, the ranks of its members and the ctaMask
// of a multicast copy). Sema, the dialect's verifiers, MLIRGen, the passes
// and the conversions all call these; nothing else spells the formulas.
//
// Header-only and MLIR-free (the frontend includes it). A shape is any
// indexable triple (std::array, int[3], ArrayRef<int32_t>): x, y, z extents.
//
// Rank order (PTX ISA 10.8 %cluster_ctarank): rank = x + y * X + z * X * Y
// for the CTA at (x, y, z) of an X x Y x Z cluster.
//
// A multicast group along axis a (0 = x, 1 = y, 2 = z) is the set of CTAs
// that share every coordinate but a's; along kAllAxes (3) it is the whole
// cluster. The members of the group of the CTA with rank r at position p
// along a are r - p * stride + q * stride for q < size, stride being the
// rank distance of one step along a (1, X or X * Y; 1 for the whole
// cluster, where p = r).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_CLUSTERGEOMETRY_H
#define TILEC_TARGET_CLUSTERGEOMETRY_H

#include "tile/target.h"

#include <cstdint>

namespace tile::cluster {

/// The multicast "axis" that stands for every CTA of the cluster.
inline constexpr int kAllAxes = 3;

/// CTAs in a cluster of shape `d`.
template <class Dims> constexpr int64_t ctaCount(const Dims &d) {
  return int64_t(d[0]) * int64_t(d[1]) * int64_t(d[2]);
}

/// Whether every extent is at least 1 and the cluster has at most
/// kMaxClusterSize CTAs (PTX .reqnctapercluster; 16 needs a non-portable
/// launch). Each extent is bounded before the product, so three 32-bit
/// extents cannot overflow into a small size.
template <class Dims> constexpr bool isLegalShape(const Dims &d) {
  for (int i = 0; i < 3; ++i)
    if (int64_t(d[i]) < 1 || int64_t(d[i]) > ::tile::target::kMaxClusterSize)
      return false;
  return ctaCount(d) <= ::tile::target::kMaxClusterSize;
}

/// Whether a cluster of `n` CTAs is within the hardware's limit.
constexpr bool isLegalSize(int64_t n) { return n >= 1 && n <= ::tile::target::kMaxClusterSize; }

/// Whether `axis` names a multicast axis (x, y, z or kAllAxes).
constexpr bool isMulticastAxis(int64_t axis) { return axis >= 0 && axis <= kAllAxes; }

/// The rank of the CTA at (x, y, z).
template <class Dims> constexpr int64_t rank(const Dims &d, int64_t x, int64_t y, int64_t z) {
  return x + y * int64_t(d[0]) + z * int64_t(d[0]) * int64_t(d[1]);
}

/// The coordinate along `axis` (0..2) of the CTA with rank `r`.
template <class Dims> constexpr int64_t coordinate(const Dims &d, int64_t r, int axis) {
  return axis == 0   ? r % int64_t(d[0])
         : axis == 1 ? r / int64_t(d[0]) % int64_t(d[1])
                     : r / (int64_t(d[0]) * int64_t(d[1]));
}

/// CTAs in each multicast group along `axis`.
template <class Dims> constexpr int64_t groupSize(const Dims &d, int axis) {
  return axis == kAllAxes ? ctaCount(d) : int64_t(d[axis]);
}

/// Rank distance between neighbours of a group along `axis`.
template <class Dims> constexpr int64_t groupStride(const Dims &d, int axis) {
  return axis == kAllAxes || axis == 0 ? 1 : axis == 1 ? int64_t(d[0]) : int64_t(d[0]) * d[1];
}

/// The rank of the q-th member of the group of the CTA with rank `r` at
/// position `pos` along `axis` (pos = r for kAllAxes).
template <class Dims>
constexpr int64_t groupMemberRank(const Dims &d, int axis, int64_t r, int64_t pos, int64_t q) {
  return r + (q - pos) * groupStride(d, axis);
}

/// The ctaMask of the group of the CTA at rank 0 (bit i set for each member
/// rank i); the group of a CTA at rank r and position pos is this mask
/// shifted left by groupFirstRank(r, pos) (cp.async.bulk.tensor's
/// .multicast::cluster ctaMask, PTX ISA 9.7.9.25.5.1).
template <class Dims> constexpr uint32_t groupMaskAtRankZero(const Dims &d, int axis) {
  uint32_t pattern = 0;
  for (int64_t i = 0, n = groupSize(d, axis), stride = groupStride(d, axis); i < n; ++i)
    pattern |= uint32_t(1) << (i * stride);
  return pattern;
}

/// The rank of the first member (q = 0) of the group of the CTA at rank `r`
/// and position `pos` along `axis`.
template <class Dims>
constexpr int64_t groupFirstRank(const Dims &d, int axis, int64_t r, int64_t pos) {
  return r - pos * groupStride(d, axis);
}

} // namespace tile::cluster

#endif // TILEC_TARGET_CLUSTERGEOMETRY_H
