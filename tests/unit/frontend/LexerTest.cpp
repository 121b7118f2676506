#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tile::frontend;

static std::vector<Token> lex(const std::string &src, DiagnosticEngine &d) {
  Lexer lx("t.tile", src, d);
  return lx.tokenize();
}

TEST_CASE("lexer: kinds, text and 1-based locations", "[lexer]") {
  DiagnosticEngine d;
  auto t = lex("kernel k(a: i32)\n  { let x = a <<= 2 }", d);
  REQUIRE_FALSE(d.hasErrors());
  std::vector<Tok> kinds;
  for (auto &tk : t)
    kinds.push_back(tk.kind);
  std::vector<Tok> want = {Tok::KwKernel,  Tok::Ident,  Tok::LParen, Tok::Ident,
                           Tok::Colon,     Tok::Ident,  Tok::RParen, Tok::LBrace,
                           Tok::KwLet,     Tok::Ident,  Tok::Assign, Tok::Ident,
                           Tok::ShlAssign, Tok::IntLit, Tok::RBrace, Tok::Eof};
  CHECK(kinds == want);
  CHECK(t[0].loc.line == 1);
  CHECK(t[0].loc.col == 1);
  CHECK(t[1].text == "k");
  CHECK(t[1].loc.col == 8);
  CHECK(t[7].loc.line == 2);
  CHECK(t[7].loc.col == 3);
  CHECK(t[7].atLineStart);
  CHECK_FALSE(t[8].atLineStart);
  CHECK(t[12].loc.col == 15);
  CHECK(t[0].loc.file == "t.tile");
}

TEST_CASE("lexer: every location shares one copy of the file name", "[lexer]") {
  // A file of a million tokens must not hold its name a million times (a
  // 2.8 MB file with a long path took 438 MB at --emit=mlir).
  DiagnosticEngine d;
  std::string longName(200, 'd');
  std::string src = "kernel k(a: i32) { }";
  Lexer lx(longName + "/k.tile", src, d);
  auto t = lx.tokenize();
  REQUIRE(t.size() > 3);
  CHECK(t[0].loc.file == longName + "/k.tile");
  CHECK(&t[0].loc.file.str() == &t.back().loc.file.str());
  Location copy = t[2].loc;
  CHECK(&copy.file.str() == &t[0].loc.file.str());
  CHECK(sizeof(Location) <= 16);
  CHECK(Location{}.file.empty());
}

TEST_CASE("lexer: numbers", "[lexer]") {
  DiagnosticEngine d;
  auto t = lex("42 0xff 0b101 1_000 1.5 2e3 0..n 7.25e-1", d);
  REQUIRE_FALSE(d.hasErrors());
  CHECK(t[0].kind == Tok::IntLit);
  CHECK(t[0].intValue == 42);
  CHECK(t[1].intValue == 255);
  CHECK(t[2].intValue == 5);
  CHECK(t[3].intValue == 1000);
  CHECK(t[4].kind == Tok::FloatLit);
  CHECK(t[4].floatValue == 1.5);
  CHECK(t[5].kind == Tok::FloatLit);
  CHECK(t[5].floatValue == 2000.0);
  // `0..n` is a range, not the float `0.`
  CHECK(t[6].kind == Tok::IntLit);
  CHECK(t[7].kind == Tok::DotDot);
  CHECK(t[8].kind == Tok::Ident);
  CHECK(t[9].floatValue == Approx(0.725));
  auto big = lex("18446744073709551615", d);
  CHECK(big[0].intValue == UINT64_MAX);
}

TEST_CASE("lexer: comments and whitespace", "[lexer]") {
  DiagnosticEngine d;
  auto t = lex("// line comment\n/* block\n comment */ let /**/ x\t// tail", d);
  REQUIRE_FALSE(d.hasErrors());
  REQUIRE(t.size() == 3);
  CHECK(t[0].kind == Tok::KwLet);
  CHECK(t[0].loc.line == 3);
  CHECK(t[0].loc.col == 13);
  CHECK(t[1].kind == Tok::Ident);
}

TEST_CASE("lexer: keywords vs identifiers", "[lexer]") {
  DiagnosticEngine d;
  auto t = lex("shared dshared as in step block_range lets", d);
  CHECK(t[0].kind == Tok::KwShared);
  CHECK(t[1].kind == Tok::KwDShared);
  CHECK(t[2].kind == Tok::KwAs);
  CHECK(t[3].kind == Tok::KwIn);
  CHECK(t[4].kind == Tok::Ident); // contextual
  CHECK(t[5].kind == Tok::Ident);
  CHECK(t[6].kind == Tok::Ident);
}

TEST_CASE("lexer: errors", "[lexer]") {
  SECTION("unexpected character") {
    DiagnosticEngine d;
    auto t = lex("let x = 1 $", d);
    REQUIRE(d.hasErrors());
    CHECK(d.diagnostics()[0].message ==
          "unexpected character '$': '$' cannot appear in identifiers");
    CHECK(d.diagnostics()[0].loc.col == 11);
    CHECK_FALSE(d.diagnostics()[0].hint.empty());
    CHECK(t.back().kind == Tok::Eof);
  }
  SECTION("non-printable byte") {
    DiagnosticEngine d;
    lex(std::string("a \x01"), d);
    CHECK(d.diagnostics()[0].message == "unexpected character byte 0x01: a control character");
  }
  SECTION("unterminated block comment") {
    DiagnosticEngine d;
    lex("x /* never closed", d);
    CHECK(d.diagnostics()[0].message == "unterminated block comment");
    CHECK(d.diagnostics()[0].loc.col == 3);
  }
  SECTION("integer overflow") {
    DiagnosticEngine d;
    lex("18446744073709551616", d);
    CHECK(d.diagnostics()[0].message ==
          "integer literal '18446744073709551616' does not fit in 64 bits");
  }
  SECTION("bad number") {
    DiagnosticEngine d;
    lex("12abc", d);
    CHECK(d.diagnostics()[0].message == "invalid number literal '12abc'");
  }
}
