//===- CacheRules.h - which ld/st cache hints PTX accepts -------*- C++ -*-===//
//
// The one table of legal cache-hint combinations on ld/st, read by the
// frontend (source-level diagnostics with location and hint) and by the
// tile.load/tile.store verifiers (so IR built by hand is held to the same
// rules). Dependency free on purpose: the frontend does not link MLIR.
//
// The rules are PTX ISA 9.7.9.8 (ld), 9.7.9.9 (st), 9.7.9.10 (ld.global.nc),
// each confirmed against ptxas -arch=sm_90a (tests/lit/ptx/cache-hints-*.tile
// assemble every legal form):
//  - a cache operator (.ca/.cg/.cs/.lu/.cv, .wb/.cg/.cs/.wt) and an L1
//    eviction priority exclude each other ("cannot be combined");
//  - cache operators exist only on weak accesses; .relaxed/.acquire/.release
//    take eviction priorities, cache hints and prefetch sizes but no .cop;
//  - ld.global.nc: global memory, weak only; .lu/.cv are illegal with it;
//  - .L1::evict_*, .L2::cache_hint and .L2::<size>B apply to global memory
//    only (ptxas: "cannot be applied to '.shared::cta' space");
//  - st has no prefetch size; loads take no .wb/.wt, stores no .ca/.lu/.cv/.nc.
//  - shared memory has no cache: a cache operator on it is accepted by ptxas
//    but means nothing, so it is refused as a likely mistake.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_CACHERULES_H
#define TILEC_TARGET_CACHERULES_H

#include <optional>
#include <string>

namespace tile::cache {

enum class Op { None, Ca, Cg, Cs, Lu, Cv, Nc, Wb, Wt };
enum class Evict { None, Normal, First, Last, Unchanged, NoAllocate };
enum class Space { Global, Shared, Cluster, Local };

inline const char *opName(Op op) {
  switch (op) {
  case Op::Ca:
    return "ca";
  case Op::Cg:
    return "cg";
  case Op::Cs:
    return "cs";
  case Op::Lu:
    return "lu";
  case Op::Cv:
    return "cv";
  case Op::Nc:
    return "nc";
  case Op::Wb:
    return "wb";
  case Op::Wt:
    return "wt";
  case Op::None:
    break;
  }
  return "";
}

inline bool isLoadOp(Op op) {
  return op == Op::Ca || op == Op::Cg || op == Op::Cs || op == Op::Lu || op == Op::Cv ||
         op == Op::Nc;
}
inline bool isStoreOp(Op op) {
  return op == Op::Wb || op == Op::Cg || op == Op::Cs || op == Op::Wt;
}

/// One access as the rules see it.
struct Access {
  bool isLoad = true;
  Space space = Space::Global;
  bool ordered = false; // .relaxed/.acquire/.release (sc included): not weak
  Op op = Op::None;
  Evict evict = Evict::None;
  int prefetch = 0; // bytes: 0, 64, 128, 256
  bool policy = false;
};

/// Which hint a violation is about, so the frontend points at its argument.
enum class Hint { Cache, Evict, Prefetch, Policy };

struct Violation {
  Hint at;
  std::string message, hint;
};

/// The first rule `a` breaks, or nullopt when PTX accepts it.
inline std::optional<Violation> check(const Access &a) {
  const char *verb = a.isLoad ? "load" : "store";
  if (a.op != Op::None) {
    if (a.isLoad ? !isLoadOp(a.op) : !isStoreOp(a.op))
      return Violation{Hint::Cache,
                       std::string("cache = ") + opName(a.op) + " is not a " + verb +
                           " cache operator",
                       a.isLoad ? "loads take cache = ca, cg, cs, lu, cv or nc"
                                : "stores take cache = wb, cg, cs or wt"};
    if (a.space != Space::Global)
      return Violation{Hint::Cache, std::string("cache = ") + opName(a.op) + " needs global memory",
                       a.op == Op::Nc ? "ld.global.nc reads global memory through the "
                                        "read-only path; shared memory has no cache"
                                      : "shared memory is not cached; drop `cache =`"};
    if (a.ordered)
      return Violation{
          Hint::Cache, std::string("cache = ") + opName(a.op) + " needs a plain (weak) " + verb,
          a.op == Op::Nc ? "ld.global.nc is weak only: drop `order =` (the data must not be "
                           "written during the kernel anyway)"
                         : "PTX has no cache operator on .relaxed/.acquire/.release accesses; "
                           "drop `order =`, or use `evict =` instead"};
    if (a.evict != Evict::None && a.op != Op::Nc)
      return Violation{Hint::Evict,
                       std::string("`evict =` cannot be combined with cache = ") + opName(a.op),
                       "PTX takes either a cache operator or an L1 eviction priority; keep one"};
  }
  if (a.evict != Evict::None && a.space != Space::Global)
    return Violation{Hint::Evict, "`evict =` needs global memory",
                     "L1 eviction priorities apply to global memory; shared memory is not "
                     "cached"};
  if (a.prefetch != 0) {
    if (!a.isLoad)
      return Violation{Hint::Prefetch, "stores take no `prefetch =`",
                       "the L2 prefetch size is a load hint (ld .L2::64B/128B/256B)"};
    if (a.prefetch != 64 && a.prefetch != 128 && a.prefetch != 256)
      return Violation{Hint::Prefetch,
                       "prefetch = " + std::to_string(a.prefetch) + " is not an L2 prefetch size",
                       "write prefetch = 64, 128 or 256 (bytes)"};
    if (a.space != Space::Global)
      return Violation{Hint::Prefetch, "`prefetch =` needs global memory",
                       "L2 prefetching applies to global memory"};
  }
  if (a.policy && a.space != Space::Global)
    return Violation{Hint::Policy, "`policy =` needs global memory",
                     ".L2::cache_hint applies to global memory"};
  return std::nullopt;
}

} // namespace tile::cache

#endif
