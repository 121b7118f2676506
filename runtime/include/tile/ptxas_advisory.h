//===- ptxas_advisory.h - ptxas advisories that tilec treats as errors -*- C++ -*-===//
//
// ptxas compiles some PTX silently slower than written and only says so in
// its info log ("Potential Performance Loss"). Two of them defeat what a
// warp-specialised kernel is built for, so both the compiler (tilec
// --verify-ptxas) and the runtime (the JIT info log) turn them into errors:
//
//  - C7508 "'setmaxnreg' ignored; ...": the role register budgets do not
//    happen (e.g. a kernel without .maxntid/.reqntid and .minnctapersm);
//    the message does not name the kernel;
//  - C7510 "wgmma.mma_async instructions are serialized due to ... in the
//    function 'K'": every wgmma waits for the previous one.
//
// The texts were measured with ptxas 13.0 (they are in the ptxas binary);
// matching is on the stable middle of the message, not the code. Header-only
// and free of CUDA/MLIR headers: both layers include it.
//===----------------------------------------------------------------------===//
#ifndef TILE_PTXAS_ADVISORY_H
#define TILE_PTXAS_ADVISORY_H

#include <string>
#include <string_view>
#include <vector>

namespace tile {

enum class PtxasAdvisoryKind { DroppedSetMaxNReg, SerialisedWgmma };

struct PtxasAdvisory {
  PtxasAdvisoryKind kind;
  std::string code;   // "C7508", or "" when the line has none
  std::string kernel; // the function the message names, or "" (C7508 names none)
  std::string text;   // the message, without the "ptxas info    : " prefix
};

/// The advisories in a ptxas / JIT info log, one per line, in order.
inline std::vector<PtxasAdvisory> findPtxasAdvisories(std::string_view log) {
  std::vector<PtxasAdvisory> found;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos)
      end = log.size();
    std::string_view line = log.substr(pos, end - pos);
    pos = end + 1;
    bool setmaxnreg = line.find("'setmaxnreg' ignored") != std::string_view::npos;
    bool wgmma = line.find("wgmma.mma_async instructions are serialized") != std::string_view::npos;
    if (!setmaxnreg && !wgmma)
      continue;
    PtxasAdvisory a;
    a.kind = setmaxnreg ? PtxasAdvisoryKind::DroppedSetMaxNReg : PtxasAdvisoryKind::SerialisedWgmma;
    std::string_view text = line;
    if (size_t colon = text.find(" : ");
        colon != std::string_view::npos &&
        text.substr(0, colon).find("info") != std::string_view::npos)
      text = text.substr(colon + 3);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' '))
      text.remove_suffix(1);
    if (text.size() > 7 && text[0] == '(' && text[1] == 'C' && text[6] == ')') { // "(C7508) "
      a.code = std::string(text.substr(1, 5));
      text = text.substr(text[7] == ' ' ? 8 : 7);
    }
    a.text = std::string(text);
    constexpr std::string_view kFunction = "in the function '";
    if (size_t f = text.rfind(kFunction); f != std::string_view::npos) {
      size_t start = f + kFunction.size();
      size_t close = text.find('\'', start);
      if (close != std::string_view::npos)
        a.kernel = std::string(text.substr(start, close - start));
    }
    found.push_back(std::move(a));
  }
  return found;
}

/// The `.entry` kernels of a PTX module whose body contains `needle`
/// ("setmaxnreg"): for advisories that do not name their kernel.
inline std::vector<std::string> ptxEntriesContaining(std::string_view ptx,
                                                     std::string_view needle) {
  std::vector<std::string> names;
  constexpr std::string_view kEntry = ".entry ";
  size_t at = ptx.find(kEntry);
  while (at != std::string_view::npos) {
    size_t nameStart = at + kEntry.size();
    size_t nameEnd = nameStart;
    while (nameEnd < ptx.size() && ptx[nameEnd] != '(' && ptx[nameEnd] != ' ' &&
           ptx[nameEnd] != '\n')
      ++nameEnd;
    size_t next = ptx.find(kEntry, nameEnd);
    std::string_view body =
        ptx.substr(nameEnd, (next == std::string_view::npos ? ptx.size() : next) - nameEnd);
    if (body.find(needle) != std::string_view::npos)
      names.emplace_back(ptx.substr(nameStart, nameEnd - nameStart));
    at = next;
  }
  return names;
}

/// What the advisory means for a tile program, for error messages.
inline const char *ptxasAdvisoryMeaning(PtxasAdvisoryKind kind) {
  return kind == PtxasAdvisoryKind::DroppedSetMaxNReg
             ? "ptxas dropped setmaxnreg: the warp roles keep the register count the kernel "
               "starts with (it needs .maxntid or .reqntid and .minnctapersm 1, which tilec emits "
               "for kernels with warpgroups)"
             : "ptxas serialised the wgmma instructions: each waits for the previous one";
}

} // namespace tile

#endif
