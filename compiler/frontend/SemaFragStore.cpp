//===- SemaFragStore.cpp - store(p, frag, row_stride = ld) -----------------===//
//
// Issue #9: a fragment straight to global memory, element by element at
// the (row, col) the wgmma D layout gives each thread's elements
// (tile::target::wgmmaFragmentCoord): p[row * ld + col]. The epilogue's
// vector / stmatrix stores supersede it; kept in its own file so the lead
// can keep one copy at merge.
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

bool Sema::isFragmentStore(const CallExpr &e) const {
  return (!e.args.empty() && !e.args[0]->is<IndexExpr>()) || findNamedArg(e, "row_stride");
}

Type Sema::checkFragmentStore(CallExpr &e) {
  const char *hint = "write `store(p, acc, row_stride = ld)` with p a ptr<T, global> to the "
                     "fragment's element [0, 0] and ld the row pitch in elements";
  bool ok = true;
  for (NamedArg &na : e.namedArgs)
    if (na.name != "row_stride") {
      error(na.loc, "store of a fragment takes only `row_stride =`", hint);
      ok = false;
    }
  const NamedArg *stride = findNamedArg(e, "row_stride");
  if (!checkArgCount(e, 2, 2))
    return Type::invalid();
  Type p = checkValue(e.args[0], nullptr, "");
  Type f = checkValue(e.args[1], nullptr, "");
  if (!p.isInvalid() && (!p.isPointer() || p.space != AddressSpace::Global)) {
    error(e.args[0]->loc, "a fragment is stored through a ptr<T, global>, found " + p.str(), hint);
    ok = false;
  }
  if (!f.isInvalid() && !f.isFragment()) {
    error(e.args[1]->loc, "store(p, VALUE, row_stride = ld) stores a fragment, found " + f.str(),
          "store one element with `store(p[i], v)`");
    ok = false;
  }
  if (ok && !p.isInvalid() && !f.isInvalid() && p.scalar != f.scalar) {
    error(e.loc, "fragment " + f.str() + " stored through " + p.str(), "convert it first");
    ok = false;
  }
  if (!stride) {
    error(e.loc, "store of a fragment needs `row_stride = ld`", hint);
    return Type::invalid();
  }
  ExprPtr &ld = const_cast<NamedArg *>(stride)->expr;
  Type i32 = Type::i32();
  Type st = checkValue(ld, &i32, "row_stride", "the row pitch is an i32 element count");
  if (!ok || st.isInvalid() || p.isInvalid() || f.isInvalid())
    return Type::invalid();
  if (!curRole_ && (!kernel_->threads.present || kernel_->threads.dims[1] != 1 ||
                    kernel_->threads.dims[2] != 1 ||
                    kernel_->threads.dims[0] % ::tile::target::kWarpgroupSize != 0)) {
    error(e.loc, "a fragment store outside a role needs a kernel of whole warpgroups",
          "give the kernel an exact threads(T) with T a multiple of 128");
    return Type::invalid();
  }
  e.mma.fragmentStore = true;
  e.mma.rowStride = ld.get();
  return Type::voidTy();
}

} // namespace tile::frontend
