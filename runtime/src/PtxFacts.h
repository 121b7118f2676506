//===- PtxFacts.h - what a PTX text pins, read without the driver -*- C++ -*-===//
//
// Internal. The runtime reads a few facts from the PTX it loads, so that it
// can compare them with the kernel info (Module.cpp, Kernel.cpp), check a
// launch against `.reqntid` even without info, and explain a JIT failure
// (truncated text, a target or PTX ISA version the driver or device lacks)
// instead of passing on CUDA_ERROR_INVALID_PTX alone.
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tile::detail {

/// The performance-tuning directives and the parameter list of one `.entry`
/// (PTX ISA, "Performance-Tuning Directives" and "Cluster Dimension
/// Directives"); dimensions a directive leaves out are 1.
struct PtxEntryFacts {
  bool found = false;
  std::optional<std::array<unsigned, 3>> reqntid;           // .reqntid
  std::optional<std::array<unsigned, 3>> maxntid;           // .maxntid
  std::optional<unsigned> minnctapersm;                     // .minnctapersm
  std::optional<std::array<unsigned, 3>> reqnctapercluster; // .reqnctapercluster
  bool explicitCluster = false;                             // .explicitcluster
  struct Param {
    std::string name;
    size_t size = 0;
    size_t align = 0; // of the parameter itself (not a .ptr's pointee)
  };
  std::vector<Param> params;
  bool paramsParsed = false; // false: a declaration was not understood
};

/// PTX with `//` and `/* */` comments blanked (newlines kept, so line numbers
/// stay; string literals left alone), so that a commented-out entry or a
/// comment inside a parameter list is not parsed; `open` is set when the
/// text ends inside a /* comment.
std::string blankComments(const std::string &ptx, bool *open = nullptr);

/// The facts of `.entry kernel`; found is false when the PTX has no such entry.
PtxEntryFacts ptxEntryFacts(const std::string &ptx, const std::string &kernel);

/// `.version` ("8.7") and `.target` ("sm_90a") of a PTX module; "" when absent.
struct PtxHeader {
  std::string version, target;
};
PtxHeader ptxHeader(const std::string &ptx);

/// "" when the PTX text is complete; otherwise where it ends and what is left
/// open there ("it ends at line 41, column 7, inside the body of entry 'k'
/// opened at line 12"), for a PTX text cut short (a partial write or copy).
std::string ptxTruncation(const std::string &ptx);

/// The newest PTX ISA version (major * 10 + minor, e.g. 90 for 9.0) a driver
/// of this cuDriverGetVersion value JIT-compiles; 0 when not known.
int maxPtxIsaForDriver(int driverVersion);

/// Why this driver and device cannot take PTX with `header` (its ISA version
/// or target), or "" when nothing in the header explains a failure. `cc` is
/// the device's compute capability (90), `driverVersion` cuDriverGetVersion's.
std::string ptxHeaderMismatch(const PtxHeader &header, int cc, int driverVersion);

/// Only the target part of ptxHeaderMismatch: certain before the JIT runs
/// (PTX for a newer or another arch-specific target never loads).
std::string ptxTargetMismatch(const PtxHeader &header, int cc);

} // namespace tile::detail
