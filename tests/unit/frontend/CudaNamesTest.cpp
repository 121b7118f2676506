// The table of CUDA C++ names (compiler/frontend/CudaNames.cpp) stays true to
// the language: every tile form that calls something calls a builtin, no
// CUDA name is itself a builtin (it would never be looked up), and every name
// reaches the user as an error at its position with the tile form.
#include "TestUtil.h"

#include "../../../compiler/frontend/CudaNames.h"

#include <catch2/catch.hpp>
#include <cctype>

using namespace tile::frontend;

TEST_CASE("CUDA names: tile forms name builtins, each name is reported", "[cuda]") {
  std::vector<std::string> names = cudaNames();
  REQUIRE(names.size() > 50);
  for (const std::string &name : names) {
    INFO(name);
    CHECK(builtinFromName(name) == Builtin::Unknown);
    std::optional<CudaName> v = cudaVariable(name), f = cudaFunction(name);
    REQUIRE((v || f));
    const std::string &form = v ? v->tileForm : f->tileForm;
    CHECK(!(v ? v->hint : f->hint).empty());
    // `name(` at the start of the form (`shfl_xor(v, m)`, `exp(x, ...)`):
    // a builtin or a type query (`size_of(T)`). Operators, casts and vectors
    // (`x / y`, `x as f16`, `{a, b}`) are not calls.
    size_t n = 0;
    while (n < form.size() && (std::isalnum((unsigned char)form[n]) || form[n] == '_'))
      ++n;
    if (n > 0 && n < form.size() && form[n] == '(' && !std::isdigit((unsigned char)form[0]))
      CHECK((builtinFromName(form.substr(0, n)) != Builtin::Unknown ||
             isTypeQueryName(form.substr(0, n))));
    if (form.rfind("bitcast<", 0) == 0)
      CHECK(builtinFromName("bitcast") != Builtin::Unknown);
    // Used as the program would: a name (variables) or a call (functions).
    auto c = compile(inKernel(v ? "let x = " + name : "let x = " + name + "(f[0])"));
    const fe::Diagnostic *d = c->first();
    REQUIRE(d);
    CHECK(d->loc.line == 2);
    CHECK(d->loc.col == 9);
    CHECK(d->message.find(name) != std::string::npos);
    CHECK(d->message.find(form) != std::string::npos);
  }
}

// A CUDA name that rounds to nearest even (C's rint family, the `_rn`
// conversions) has a form that does too: rint, or `as` alone (an
// integer -> float or float -> float conversion); round() is half away from
// zero and would change the result on every tie.
TEST_CASE("CUDA names: round-to-nearest-even names keep ties to even", "[cuda]") {
  for (const std::string &name : cudaNames()) {
    std::optional<CudaName> f = cudaFunction(name);
    if (!f)
      continue;
    bool toNearestEven = name.find("rint") != std::string::npos ||
                         (name.size() > 3 && name.compare(name.size() - 3, 3, "_rn") == 0);
    if (!toNearestEven)
      continue;
    INFO(name << " -> " << f->tileForm);
    CHECK(f->tileForm.find("round(") == std::string::npos);
  }
  for (const char *name : {"__float2int_rn", "__float2uint_rn", "__float2ll_rn", "__double2int_rn",
                           "rintf", "nearbyintf", "lrintf"}) {
    INFO(name);
    std::optional<CudaName> f = cudaFunction(name);
    REQUIRE(f);
    CHECK(f->tileForm.rfind("rint(x)", 0) == 0);
  }
}

// CUDA's `_rn` functions round once, to nearest even (`__fsqrt_rn`,
// `__frsqrt_rn`, `__fdiv_rn`, the `_rn` conversions). A tile form is that
// too when it is an operator, a conversion, or a call of a correctly rounded
// builtin (sqrt, fma, rint); any other call must say in its hint how far
// it is from the correctly rounded value.
TEST_CASE("CUDA names: correctly rounded names say where the tile form is not", "[cuda]") {
  const char *correctlyRounded[] = {"sqrt", "fma", "rint"};
  for (const std::string &name : cudaNames()) {
    std::optional<CudaName> f = cudaFunction(name);
    if (!f || name.size() <= 3 || name.compare(name.size() - 3, 3, "_rn") != 0)
      continue;
    INFO(name << " -> " << f->tileForm << " (" << f->hint << ")");
    size_t n = 0;
    while (n < f->tileForm.size() && (std::isalnum((unsigned char)f->tileForm[n]) ||
                                      f->tileForm[n] == '_'))
      ++n;
    if (n == 0 || n == f->tileForm.size() || f->tileForm[n] != '(')
      continue; // an operator or a conversion: one rounding to nearest even
    std::string callee = f->tileForm.substr(0, n);
    bool exact = false;
    for (const char *c : correctlyRounded)
      exact = exact || callee == c;
    if (!exact)
      CHECK(f->hint.find("ulp") != std::string::npos);
  }
}
