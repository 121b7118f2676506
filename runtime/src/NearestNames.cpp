//===- NearestNames.cpp - what a lookup by name offers instead -------------===//
#include "tile/nearest_names.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace tile {

namespace {

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

std::vector<std::string> nearestNames(const std::string &name,
                                      const std::vector<std::string> &known, size_t count) {
  const std::string want = lower(name);
  std::vector<std::tuple<size_t, std::string>> near; // (distance, name)
  for (const std::string &k : known) {
    const std::string have = lower(k);
    if (have == want && k == name)
      continue; // the name itself is no suggestion
    size_t d = editDistance(want, have);
    bool within = d <= std::max<size_t>(1, (std::max(want.size(), have.size()) + 1) / 3);
    bool contains = std::min(want.size(), have.size()) >= 3 &&
                    (have.find(want) != std::string::npos || want.find(have) != std::string::npos);
    if ((within || contains) &&
        std::none_of(near.begin(), near.end(), [&](const auto &n) { return std::get<1>(n) == k; }))
      near.emplace_back(d, k);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto &a, const auto &b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<std::string> out;
  for (size_t i = 0; i < near.size() && i < count; ++i)
    out.push_back(std::get<1>(near[i]));
  return out;
}

std::string didYouMean(const std::string &name, const std::vector<std::string> &known) {
  std::vector<std::string> near = nearestNames(name, known);
  if (near.empty())
    return "";
  std::string out = "; did you mean ";
  for (size_t i = 0; i < near.size(); ++i)
    out += (i == 0 ? "'" : i + 1 == near.size() ? " or '" : ", '") + near[i] + "'";
  return out + "?";
}

std::string quotedList(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "'" : ", '") + n + "'";
  return out.empty() ? "none" : out;
}

} // namespace tile
