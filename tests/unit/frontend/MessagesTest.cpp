// Frontend classes: float literals round like C, every rejected
// character and foreign operator or keyword gets a precise message, the
// unknown-function hint comes from the builtin table, pointer vars assign.
#include "TestUtil.h"

#include "tilec/frontend/Lexer.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

using namespace tile::frontend;

static std::string lexError(const std::string &src) {
  DiagnosticEngine d;
  Lexer lexer("t.tile", src, d);
  lexer.tokenize();
  return d.hasErrors() ? d.diagnostics()[0].message + " | " + d.diagnostics()[0].hint : "";
}

TEST_CASE("float literals: round to nearest even, reject only overflow", "[literals]") {
  auto value = [](const std::string &text, ScalarKind k) {
    bool overflow = false;
    return roundToFloatKind(parseFloatRoundToOdd(text, overflow), k);
  };
  // FLT_MAX as printed by %.8g rounds to FLT_MAX.
  REQUIRE(value("3.4028235e38", ScalarKind::F32));
  CHECK(*value("3.4028235e38", ScalarKind::F32) == 3.4028234663852886e38);
  // Just below / exactly the halfway point between FLT_MAX and 2^128.
  CHECK(value("3.40282356779733661637539395458142568447e38", ScalarKind::F32));
  CHECK_FALSE(value("340282356779733661637539395458142568448", ScalarKind::F32));
  // f16: 65519.99 rounds to 65504, 65520 (halfway, odd neighbour) overflows.
  CHECK(*value("65519.99", ScalarKind::F16) == 65504.0);
  CHECK_FALSE(value("65520", ScalarKind::F16));
  // bf16: halfway between its max and 2^128 is 2^128 - 2^119.
  CHECK(value("3.39617752923046e38", ScalarKind::BF16));
  CHECK_FALSE(value("3.3961775292304601e38", ScalarKind::BF16));
  // Double rounding: 1 + 2^-24 + 2^-60 is above the f32 halfway point
  // 1 + 2^-24 (so it rounds up), but as a double it is exactly that halfway
  // point, which rounds to even (1.0).
  CHECK(*value("1.00000005960464477539931892317", ScalarKind::F32) == 1.0 + std::ldexp(1.0, -23));
  CHECK(*value("1.000000059604644775390625", ScalarKind::F32) == 1.0); // exactly halfway: even
  // Subnormals and underflow to zero are finite.
  CHECK(*value("1e-45", ScalarKind::F32) == std::ldexp(1.0, -149));
  CHECK(*value("1e-50", ScalarKind::F32) == 0.0);
  // Integers beyond 2^53 round once.
  CHECK(*roundToFloatKind(roundToOddFromUnsigned((1ull << 24) + 1), ScalarKind::F32) == 16777216.0);
  CHECK(*roundToFloatKind(roundToOddFromUnsigned(UINT64_MAX), ScalarKind::F32) ==
        std::ldexp(1.0, 64));
}

TEST_CASE("float literals in programs", "[literals]") {
  auto c = compile(inKernel("f[0] = -3.4028235e38\n let h: f16 = 65504.0\n let b: bf16 = 1e38"));
  INFO(c->rendered());
  CHECK(c->ok);
  auto bad = compile(inKernel("let h: f16 = 65520"));
  CHECK(bad->firstError() == "integer literal 65520 is out of range for f16");
  auto bad2 = compile(inKernel("let h: f16 = 1e5"));
  CHECK(bad2->firstError() == "float literal is out of range for f16");
  CHECK(bad2->first()->hint == "the largest finite f16 is 65504; use f32 for larger values");
}

TEST_CASE("lexer: every character that starts no token has its own message", "[lexer]") {
  for (char c : std::string("\"'@#$`\\")) { // `?` is an operator
    std::string e = lexError(std::string("let x = 1 ") + c + " 2");
    INFO(c << ": " << e);
    CHECK(e.rfind(std::string("unexpected character '") + c + "': ", 0) == 0);
    CHECK(e.find("ASCII") == std::string::npos);
  }
  CHECK(lexError("let x = n ? 1 : 2").empty()); // `c ? a : b` is an operator
  CHECK(lexError("let x = \"a\"").find("there are no strings") != std::string::npos);
  CHECK(lexError("let x = \xc3\xa9").find("tile source is ASCII") != std::string::npos);
  CHECK(lexError("let x = \x01").find("a control character") != std::string::npos);
}

TEST_CASE("lexer: operators of other languages", "[lexer]") {
  CHECK(lexError("x++").rfind("there is no '++' operator | write `x += 1`", 0) == 0);
  CHECK(lexError("x ** 2").rfind("there is no '**' operator", 0) == 0);
  CHECK(lexError("a === b").rfind("there is no '===' operator", 0) == 0);
  CHECK(lexError("a !== b").rfind("there is no '!==' operator", 0) == 0);
  CHECK(lexError("a >>> 1").rfind("there is no '>>>' operator", 0) == 0);
  CHECK(lexError("0 ..= n").rfind("there is no inclusive range '..='", 0) == 0);
  // `->` is a token (a function's result type); in an expression the parser rejects it.
  CHECK(lexError("a -> b").empty());
  CHECK(compile(inKernel("let x = p -> y"))->firstError() == "there is no '->' operator");
  // Still valid: `a - -b`, `x >>= 1`, `0..n`.
  CHECK(lexError("a - -b x >>= 1 0..n a--b").empty());
}

TEST_CASE("sema/parser: keywords of other languages", "[sema]") {
  // break/continue are tile statements: only outside a loop an error.
  CHECK(compile(inKernel("break"))->firstError() == "'break' outside a loop");
  CHECK(compile(inKernel("while true { continue }"))->ok);
  CHECK(compile(inKernel("goto"))->firstError() == "tile has no 'goto' statement");
  CHECK(compile(inKernel("fn f() { }"))->firstError() ==
        "functions are defined at file level, not inside a kernel or function");
  CHECK(compile(inKernel("def f() { }"))->firstError() ==
        "functions are declared with `fn`, not 'def'");
  CHECK(compile(inKernel("if n > 0 { } elif n < 0 { }"))->firstError() ==
        "tile has no 'elif'; write `else if`");
  CHECK(compile(inKernel("auto x = 1"))->firstError() ==
        "variables are declared with `let` or `var`, not 'auto'");
  CHECK(compile(inKernel("const x = 1\n p[0] = x"))->ok); // a constant
  CHECK(compile(inKernel("switch n { }"))->firstError() == "tile has no 'switch' statement");
  CHECK(compile(inKernel("let x = null"))->firstError() == "there are no null pointers ('null')");
  CHECK(compile(inKernel("return 1"))->firstError() == "a kernel returns no value");
  CHECK(compile(inKernel("{ }"))->firstError() == "a block cannot stand alone as a statement");
  // A user name that happens to be such a word is still a name.
  auto ok = compile(inKernel("let goto = 1\n p[0] = goto\n if n > 0 { return }\n p[1] = 2"));
  INFO(ok->rendered());
  CHECK(ok->ok);
}

TEST_CASE("sema: operators on arrays, mbarriers and pointers", "[sema]") {
  CHECK(compile(inKernel("let s = shared<i32>[4]\n let x = s + 4"))->firstError() ==
        "'+' cannot be applied to shared<i32>[4]");
  CHECK(compile(inKernel("let s = shared<i32>[4]\n let x = 4 - s"))->firstError() ==
        "'-' cannot be applied to shared<i32>[4]");
  CHECK(compile(inKernel("let b = mbarrier(1)\n let x = b * n"))->firstError() ==
        "'*' cannot be applied to mbarrier");
  CHECK(compile(inKernel("let x = p * 2"))->firstError() ==
        "'*' cannot be applied to ptr<i32, global>");
  CHECK(compile(inKernel("var q = p\n q *= 2"))->firstError() ==
        "'*=' cannot be applied to ptr<i32, global>");
  auto ok = compile(inKernel("var q = p\n q = q + n\n q = p\n q -= 2\n q[0] = 1"));
  INFO(ok->rendered());
  CHECK(ok->ok);
}

TEST_CASE("sema: the unknown-function hint names the nearest names", "[sema]") {
  auto c = compile(inKernel("foo(1)"));
  const Diagnostic *d = c->first();
  REQUIRE(d);
  CHECK(d->message == "unknown function 'foo'");
  CHECK(d->hint.rfind("the nearest names are ", 0) == 0);
  CHECK(d->hint.find("thread_id") == std::string::npos); // five names, not every builtin
  auto near = compile(inKernel("let x = lane_idx()"));
  REQUIRE(near->first());
  CHECK(near->first()->hint.rfind("the nearest names are lane_id, ", 0) == 0);
  auto fn = compile("fn scale_row(x: i32) -> i32 { return x }\n" + inKernel("let y = scale_rows(1)"));
  REQUIRE(fn->first());
  CHECK(fn->first()->hint.rfind("the nearest names are scale_row, ", 0) == 0);
  CHECK(compile(inKernel("let x = thread_idx()"))->firstError() ==
        "unknown function 'thread_idx'; did you mean 'thread_id'?");
}

TEST_CASE("sema: kernel names PTX reserves", "[sema]") {
  CHECK(compile("kernel _(p: ptr<i32, global>) { }")
            ->firstError()
            .rfind("kernel name '_' is reserved", 0) == 0);
  CHECK(compile("kernel WARP_SZ(p: ptr<i32, global>) { }")
            ->firstError()
            .rfind("kernel name 'WARP_SZ' is reserved", 0) == 0);
  CHECK(compile("kernel a(p: ptr<i32, global>) { }\nkernel a_param_0(p: ptr<i32, global>) { }")
            ->firstError() ==
        "kernel name 'a_param_0' is the PTX name of parameter 0 of kernel 'a'");
  CHECK(compile("kernel __tile_smem_a_0(ld: i32, WARP_SZ: i32, _: i32) { }")->ok);
}
