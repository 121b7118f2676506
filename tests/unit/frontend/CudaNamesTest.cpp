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
