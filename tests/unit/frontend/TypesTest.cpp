// In the frontend: `c ? a : b`, break/continue (binding; the divergence
// rule is the IR's: tests/lit/sync/divergence-barriers.tile), unsigned integers and f64 (literals, constant
// evaluation with the run-time semantics, constant errors), bitcast and the
// bit counts.
#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tile::frontend;

namespace {
size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
    ++n;
  return n;
}
} // namespace

TEST_CASE("select: parse, precedence, typing, laziness", "[types]") {
  // Right-associative, below ||, the middle operand a whole expression.
  auto c = compile(inKernel("p[0] = n < 0 ? -1 : n > 0 ? 1 : 0\n"
                            "let b = n > 0 || m > 0 ? n : 2\n"
                            "let x = n > 0 ? n > 1 ? 5 : 6 : 7"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  std::string d = c->dump();
  CHECK(count(d, "Select") == 5);
  CHECK(d.find("Select lazy") == std::string::npos); // literals and names: arith.select
  // Literal adaptation to the other side; pointers; an i1 result.
  auto t = compile(inKernel("let a = n > 0 ? m : 0\nlet q = n > 0 ? p : p + 1\n"
                            "let z: i1 = n > 0 ? true : n < -4\nlet h = n > 0 ? 1.5 : f[0]"));
  INFO(t->rendered());
  REQUIRE(t->ok);
  CHECK(t->dump().find("Let a : i64") != std::string::npos);
  // Loads, divisions and atomics are evaluated only when chosen: lazy.
  for (const char *side :
       {"p[n]", "n / 3", "n % m as i32", "atomic_add(p[0], 1)", "f[0] / 2.0", "load(p[1])"}) {
    auto l = compile(inKernel(std::string("let v = n > 0 ? 0 : ") + side));
    INFO(side << "\n" << l->rendered());
    REQUIRE(l->ok);
    CHECK(l->dump().find("Select lazy") != std::string::npos);
  }
  for (const char *side :
       {"min(n, 3)", "thread_id() + 1", "n << 2", "popc(n)", "(n as f32 * 2.0)"}) {
    auto l = compile(inKernel(std::string("let v = n > 0 ? 0 : ") + side + " as i32"));
    INFO(side << "\n" << l->rendered());
    REQUIRE(l->ok);
    CHECK(l->dump().find("Select lazy") == std::string::npos);
  }
}

TEST_CASE("select: errors", "[types]") {
  CHECK(compile(inKernel("let v = n ? 1 : 2"))->firstError() ==
        "condition of '?' has type i32, expected i1");
  CHECK(compile(inKernel("let v = n > 0 ? n : m"))->firstError() ==
        "mismatched types i32 and i64 in the two sides of '?'");
  CHECK(compile(inKernel("let s = shared<i32>[4]\nlet v = n > 0 ? s : s"))->firstError() ==
        "'?' chooses between scalars or pointers, found shared<i32>[4]");
  CHECK(compile(inKernel("let v = n > 0 ? sync_threads() : sync_threads()"))->firstError() ==
        "'?' chooses between scalars or pointers, found void");
  CHECK(compile(inKernel("let v = n > 0 ? 1"))->firstError() == "expected ':', found '}'");
  // A constant condition: only the chosen side is checked for constant errors.
  auto ok = compile(inKernel("let v = 1 > 0 ? n : n / 0\nlet w = 1 < 0 ? n << 40 : n"));
  INFO(ok->rendered());
  CHECK(ok->ok);
  CHECK(compile(inKernel("let v = 1 < 0 ? n : n / 0"))->firstError() == "division by zero");
  CHECK(compile(inKernel("let v = n > 0 ? n : n / 0"))->firstError() == "division by zero");
}

TEST_CASE("break/continue: binding to the innermost loop", "[types]") {
  auto c = compile(inKernel("for i in 0 .. n { if p[i] == 0 { break }\n"
                            "  while true { continue }\n  if i > 3 { continue } }"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  auto &body = c->module->kernels[0]->body;
  auto *f = body[0]->as<ForStmt>();
  REQUIRE(f);
  CHECK(f->hasBreak);
  CHECK(f->hasContinue);
  auto *w = f->body[1]->as<WhileStmt>();
  REQUIRE(w);
  CHECK(!w->hasBreak);
  CHECK(w->hasContinue);
  auto *brk = f->body[0]->as<IfStmt>()->thenBody[0]->as<BreakStmt>();
  REQUIRE(brk);
  CHECK(brk->loop == f);
  CHECK(w->body[0]->as<ContinueStmt>()->loop == w);

  CHECK(compile(inKernel("if n > 0 { break }"))->firstError() == "'break' outside a loop");
  CHECK(compile(inKernel("continue"))->firstError() == "'continue' outside a loop");
  // Keywords now: not names.
  CHECK(compile(inKernel("let break = 1"))->firstError() ==
        "expected variable name, found the keyword 'break'");
}

TEST_CASE("unsigned: literals, operators, constants", "[types]") {
  auto c = compile("kernel k(p: ptr<u32, global>, q: ptr<u64, global>, x: u32, b: u8) {\n"
                   "  p[0] = 0xffffffff\n  q[0] = 18446744073709551615\n  let s: u8 = 255\n"
                   "  p[1] = x / 7 % 3 >> 2\n  p[2] = min(x, 4000000000)\n"
                   "  let lt = x < 3000000000\n  p[3] = (b as u32) + (-(1) as u32)\n}\n");
  INFO(c->rendered());
  REQUIRE(c->ok);
  CHECK(c->dump().find("IntLiteral 18446744073709551615 : u64") != std::string::npos);

  auto neg = compile(inKernel("let x: u32 = -1"));
  CHECK(neg->firstError() == "negative literal -1 cannot be u32");
  CHECK(compile(inKernel("let x: u8 = 256"))->firstError() ==
        "integer literal 256 does not fit in u8");
  CHECK(compile(inKernel("let x: u16 = -0"))->ok);
  // Constant errors with unsigned run-time values in the hints.
  auto div = compile(inKernel("let x = 5 as u32\nlet y = x / 0"));
  CHECK(div->firstError() == "division by zero");
  CHECK(div->first()->hint ==
        "a run-time x / 0 gives all ones (4294967295); test the divisor before dividing");
  auto shr = compile(inKernel("let x = 5 as u64\nlet y = x >> 64"));
  CHECK(shr->firstError() == "shift amount 64 is out of range for u64 (0 to 63)");
  CHECK(shr->first()->hint.find("gives 0 (`>>` is logical on u64)") != std::string::npos);
  auto cast = compile(inKernel("let y = -1.0 as u32"));
  CHECK(cast->firstError() == "cast of -1 to u32 is out of range (0 to 4294967295)");
  CHECK(cast->first()->hint.find("(here to 0)") != std::string::npos);
  auto big = compile(inKernel("let y = 1e20 as u64"));
  CHECK(big->first()->hint.find("(here to 18446744073709551615)") != std::string::npos);
  CHECK(compile(inKernel("let y = -0.5 as u32"))->ok); // truncates to 0: in range
  CHECK(compile(inKernel("let y = (0.0 / 0.0) as u8"))->firstError() ==
        "cast of NaN to u8: NaN has no integer value");
  // Constant evaluation is unsigned: no error for the MIN / -1 pattern, and
  // comparisons / shifts give the unsigned results (used by constant indices).
  CHECK(compile(inKernel("let y = (0x80000000 as u32) / (0xffffffff as u32)"))->ok);
  auto idx = compile(inKernel("let s = shared<i32>[4]\ns[(0xffffffff as u32) >> 30] = 1"));
  CHECK(idx->ok);
  auto oob = compile(inKernel("let s = shared<i32>[4]\ns[(0xffffffff as u32) >> 29] = 1"));
  CHECK(oob->firstError() == "index 7 is out of bounds for shared<i32>[4]");
  auto cmp = compile(inKernel("let s = shared<i32>[4]\ns[(0xffffffff as u32) < 1 ? 9 : 1] = 1"));
  CHECK(cmp->ok);
  // Sizes are signed.
  CHECK(compile("kernel k(n: u32) { let s = shared<i32>[n] }")->firstError() ==
        "shared array size must be built from constants and kernel parameters: 'n' is unsigned "
        "(u32); sizes use signed parameters");
  CHECK(compile(inKernel("let s = shared<i32>[4 as u32]"))->firstError() ==
        "shared array size must be built from constants and kernel parameters: sizes are "
        "computed in signed integers, not u32");
  // Atomics.
  CHECK(compile("kernel k(p: ptr<u64, global>, d: ptr<f64, global>) { atomic_min(p[0], 1)\n"
                "atomic_max(p[1], 2)\n atomic_add(d[0], 1.5)\n atomic_cas(p[0], 1, 2) }")
            ->ok);
  CHECK(compile("kernel k(d: ptr<f64, global>) { atomic_min(d[0], 1.5) }")->firstError() ==
        "atomic_min does not support elements of type f64");
}

TEST_CASE("f64: literals, casts, constants", "[types]") {
  auto c =
      compile("kernel k(d: ptr<f64, global>, x: f64) {\n  d[0] = 0.1\n  d[1] = 1e300 * x\n"
              "  d[2] = 9007199254740993\n  d[3] = (x as f32) as f64 + (x as i64 as f64)\n}\n");
  INFO(c->rendered());
  REQUIRE(c->ok);
  std::string d = c->dump();
  // The nearest double (not the round-to-odd one): 0.1 and 2^53 + 1 -> 2^53.
  CHECK(d.find("FloatLiteral 0.10000000000000001 : f64") != std::string::npos);
  CHECK(d.find("FloatLiteral 9007199254740992 : f64") != std::string::npos);
  CHECK(compile(inKernel("let y: f32 = 1e300"))->first()->hint ==
        "the largest finite f32 is 3.40282347e+38; use f64 for larger values");
  CHECK(compile(inKernel("let y = 0.1 as f64"))
            ->dump()
            .find("FloatLiteral 0.10000000000000001 : f64") != std::string::npos);
  CHECK(compile(inKernel("let y = (1e300 as f64) as i32"))->firstError() ==
        "cast of 1e+300 to i32 is out of range (-2147483648 to 2147483647)");
  // f64 casts to f32 round once: 1 + 2^-24 + 2^-60 as f64 rounds up to f32.
  CHECK(compile(inKernel("let s = shared<i32>[2]\n"
                         "s[((1.0000000596046448 as f64) as f32 > 1.0) ? 1 : 5] = 0"))
            ->ok);
}

TEST_CASE("bitcast and bit counts", "[types]") {
  auto c =
      compile("kernel k(p: ptr<i32, global>, u: ptr<u32, global>, h: ptr<f16, global>,\n"
              "         x: f32, y: f64, w: u64) {\n"
              "  p[0] = bitcast<i32>(x)\n  u[0] = bitcast<u32>(1.0)\n"
              "  let z: f32 = bitcast<f32>(0x7fc00000)\n  let i: i64 = bitcast<i64>(y)\n"
              "  h[0] = bitcast<f16>(bitcast<i16>(h[1]))\n  let v: bf16 = bitcast<bf16>(h[0])\n"
              "  p[1] = popc(w) + clz(x as i32) + popc(7)\n  u[1] = bfind(w)\n"
              "  p[2] = bfind(-2)\n  let r: u64 = brev(w)\n}\n");
  INFO(c->rendered());
  REQUIRE(c->ok);
  CHECK(c->dump().find("Call bitcast to=f32") != std::string::npos);

  CHECK(compile(inKernel("let v = bitcast<f32>(m)"))->firstError() ==
        "bitcast<f32> needs a 32-bit operand, found i64 (64 bits)");
  CHECK(compile(inKernel("let v = bitcast(n)"))->firstError() ==
        "bitcast needs its target type: `bitcast<T>(x)`");
  CHECK(compile(inKernel("let v = bitcast<i1>(n > 0)"))->firstError() ==
        "bitcast reinterprets scalars of 8 to 64 bits, not i1");
  CHECK(compile(inKernel("let v = bitcast<f32>(p)"))->firstError() ==
        "bitcast reinterprets scalars of 8 to 64 bits, not ptr<i32, global>");
  CHECK(compile(inKernel("let v = bitcast<ptr<i32, global>>(m)"))->firstError() ==
        "'ptr<...>' cannot be written here");
  auto pf = compile(inKernel("let v = popc(f[0])"));
  CHECK(pf->firstError() == "'popc' needs an i32, i64, u32 or u64 operand, found f32");
  CHECK(pf->first()->hint == "count the bits of a float's encoding: `popc(bitcast<u32>(x))`");
  CHECK(compile(inKernel("let v = clz(n as i16)"))->firstError() ==
        "'clz' needs an i32, i64, u32 or u64 operand, found i16");
  CHECK(compile(inKernel("let v = brev(n, n)"))->firstError() == "'brev' takes 1 argument, got 2");
}
