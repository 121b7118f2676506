//===- InstanceNote.cpp - the note naming a kernel instance ---------------===//
#include "tilec/frontend/InstanceNote.h"
#include "tilec/frontend/Types.h"

namespace tile::frontend {

std::optional<std::pair<Location, std::string>> instanceNote(const KernelAST &k) {
  if (k.sourceName.empty())
    return std::nullopt;
  std::string args; // in parameter order
  Location at = k.loc;
  bool atType = false;
  for (auto &d : k.templateDecls) {
    bool type = d->kind == DeclKind::TypeParam;
    args += (args.empty() ? "" : ", ") + d->name + " = " +
            (type ? std::string(scalarName(d->typeValue)) : std::to_string(d->constInt));
    if (type && !atType) { // the parameter a type error most likely names
      at = d->loc;
      atType = true;
    }
  }
  return std::make_pair(at, "in the instance " + k.sourceName + "<" + args + "> of kernel '" +
                                k.sourceName + "'" +
                                (k.instanceOrigin.empty() ? "" : " (from " + k.instanceOrigin + ")"));
}

} // namespace tile::frontend
