//===- Lexer.cpp - tile language lexer -------------------------------------===//
#include "tilec/frontend/Lexer.h"
#include "tilec/frontend/Types.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <unordered_map>

namespace tile::frontend {

/// A token's text as a message quotes it: a literal of a million digits is
/// shown by its first 40 characters.
static std::string shortText(const std::string &text) {
  return text.size() <= 48 ? text : text.substr(0, 40) + "...";
}

const char *tokSpelling(Tok k) {
  switch (k) {
  case Tok::Eof:
    return "end of file";
  case Tok::Error:
    return "invalid token";
  case Tok::Ident:
    return "identifier";
  case Tok::IntLit:
    return "integer literal";
  case Tok::FloatLit:
    return "float literal";
  case Tok::KwKernel:
    return "'kernel'";
  case Tok::KwLet:
    return "'let'";
  case Tok::KwVar:
    return "'var'";
  case Tok::KwFor:
    return "'for'";
  case Tok::KwIn:
    return "'in'";
  case Tok::KwIf:
    return "'if'";
  case Tok::KwElse:
    return "'else'";
  case Tok::KwWhile:
    return "'while'";
  case Tok::KwReturn:
    return "'return'";
  case Tok::KwTrue:
    return "'true'";
  case Tok::KwFalse:
    return "'false'";
  case Tok::KwAs:
    return "'as'";
  case Tok::KwShared:
    return "'shared'";
  case Tok::KwDShared:
    return "'dshared'";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::Comma:
    return "','";
  case Tok::Colon:
    return "':'";
  case Tok::Semi:
    return "';'";
  case Tok::Dot:
    return "'.'";
  case Tok::DotDot:
    return "'..'";
  case Tok::Arrow:
    return "'->'";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::Percent:
    return "'%'";
  case Tok::Amp:
    return "'&'";
  case Tok::Pipe:
    return "'|'";
  case Tok::Caret:
    return "'^'";
  case Tok::Tilde:
    return "'~'";
  case Tok::Bang:
    return "'!'";
  case Tok::Shl:
    return "'<<'";
  case Tok::Shr:
    return "'>>'";
  case Tok::Lt:
    return "'<'";
  case Tok::Le:
    return "'<='";
  case Tok::Gt:
    return "'>'";
  case Tok::Ge:
    return "'>='";
  case Tok::EqEq:
    return "'=='";
  case Tok::Ne:
    return "'!='";
  case Tok::AmpAmp:
    return "'&&'";
  case Tok::PipePipe:
    return "'||'";
  case Tok::Assign:
    return "'='";
  case Tok::PlusAssign:
    return "'+='";
  case Tok::MinusAssign:
    return "'-='";
  case Tok::StarAssign:
    return "'*='";
  case Tok::SlashAssign:
    return "'/='";
  case Tok::PercentAssign:
    return "'%='";
  case Tok::AmpAssign:
    return "'&='";
  case Tok::PipeAssign:
    return "'|='";
  case Tok::CaretAssign:
    return "'^='";
  case Tok::ShlAssign:
    return "'<<='";
  case Tok::ShrAssign:
    return "'>>='";
  case Tok::Question:
    return "'?'";
  case Tok::KwBreak:
    return "'break'";
  case Tok::KwContinue:
    return "'continue'";
  }
  return "token";
}

void Lexer::advance() {
  if (pos_ >= text_.size())
    return;
  // Lines end with "\n", "\r\n" or a lone "\r" (classic Mac OS).
  if (text_[pos_] == '\n' || (text_[pos_] == '\r' && peek(1) != '\n')) {
    ++line_;
    col_ = 1;
    sawNewline_ = true;
  } else {
    ++col_;
  }
  ++pos_;
}

bool Lexer::skipTrivia() {
  for (;;) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (pos_ < text_.size() && peek() != '\n' && peek() != '\r')
        advance();
    } else if (c == '/' && peek(1) == '*') {
      Location start = here();
      advance();
      advance();
      while (pos_ < text_.size() && !(peek() == '*' && peek(1) == '/'))
        advance();
      if (pos_ >= text_.size()) {
        diags_.error(start, "unterminated block comment", "close the comment with '*/'");
        return false;
      }
      advance();
      advance();
    } else {
      return true;
    }
  }
}

static bool isIdentStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
static bool isIdentChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

Token Lexer::lexNumber(Token tok) {
  size_t start = pos_;
  int base = 10;
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    base = 16;
  } else if (peek() == '0' && (peek(1) == 'b' || peek(1) == 'B')) {
    base = 2;
  }
  bool isFloat = false;
  if (base != 10) {
    advance();
    advance();
  }
  std::string digits;
  auto isDigit = [&](char c) {
    if (base == 16)
      return std::isxdigit((unsigned char)c) != 0;
    if (base == 2)
      return c == '0' || c == '1';
    return std::isdigit((unsigned char)c) != 0;
  };
  while (isDigit(peek()) || peek() == '_') {
    if (peek() != '_')
      digits += peek();
    advance();
  }
  // C's hex float `0x1.8p3`, `0x1p-1074`: tile has none; the hint writes
  // its decimal value (the shortest that reads back as the same double).
  if (base == 16 && (peek() == '.' || peek() == 'p' || peek() == 'P')) {
    while (std::isxdigit((unsigned char)peek()) || peek() == '.' || peek() == '_' ||
           peek() == 'p' || peek() == 'P' ||
           ((peek() == '+' || peek() == '-') && (text_[pos_ - 1] == 'p' || text_[pos_ - 1] == 'P')))
      advance();
    tok.text = text_.substr(start, pos_ - start);
    std::string plain;
    for (char c : tok.text)
      if (c != '_')
        plain += c;
    char *end = nullptr;
    double value = std::strtod(plain.c_str(), &end);
    std::string hint = "write the value in decimal";
    if (end && *end == '\0' &&
        std::isfinite(value)) {
      char buf[40];
      for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, value);
        if (std::strtod(buf, nullptr) == value)
          break;
      }
      std::string decimal = buf;
      if (decimal.find_first_of(".en") == std::string::npos)
        decimal += ".0";
      else if (decimal.find('.') == std::string::npos && decimal.find('e') != std::string::npos)
        decimal.insert(decimal.find('e'), ".0");
      hint = "write its decimal value `" + decimal + "` (a float literal is rounded to its type" +
             " once), or give the bits with `bitcast<f64>(...)` / `bitcast<f32>(...)`";
    }
    diags_.error(tok.loc, "there are no hex float literals, found '" + shortText(tok.text) + "'",
                 hint);
    tok.kind = Tok::Error;
    return tok;
  }
  // `0o17` (Python's, Rust's octal) and `0777` (C's octal): tile has no octal
  // literals, and a leading 0 would silently read C's 0777 as 777.
  if (base == 10 && digits == "0" && (peek() == 'o' || peek() == 'O')) {
    advance();
    uint64_t v = 0;
    bool ok = std::isdigit((unsigned char)peek()) != 0;
    while (isIdentChar(peek())) {
      char c = peek();
      if (c >= '0' && c <= '7' && v < (uint64_t(1) << 60))
        v = v * 8 + unsigned(c - '0');
      else if (c != '_')
        ok = false;
      advance();
    }
    tok.text = text_.substr(start, pos_ - start);
    diags_.error(tok.loc, "there are no octal literals, found '" + shortText(tok.text) + "'",
                 ok ? "write `" + std::to_string(v) + "` (decimal) or hex (0x...)"
                    : "write decimal (42), hex (0xff) or binary (0b101) numbers");
    tok.kind = Tok::Error;
    return tok;
  }
  if (base == 10 && digits.size() > 1 && digits[0] == '0' && peek() != '.' && peek() != 'e' &&
      peek() != 'E' && !isIdentChar(peek())) {
    tok.text = text_.substr(start, pos_ - start);
    size_t nonzero = digits.find_first_not_of('0');
    std::string decimal = nonzero == std::string::npos ? "0" : digits.substr(nonzero);
    std::string hint = "write `" + shortText(decimal) + "` for the decimal value";
    if (digits.find_first_of("89") == std::string::npos && digits.size() <= 22) {
      uint64_t v = 0;
      for (char c : digits)
        v = v * 8 + unsigned(c - '0');
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
      hint += std::string(", or `") + hex + "` for C's octal " + tok.text;
    }
    diags_.error(tok.loc,
                 "an integer literal does not start with 0, found '" + shortText(tok.text) +
                     "' (C reads it as octal, tile has no octal literals)",
                 hint);
    tok.kind = Tok::Error;
    return tok;
  }
  // `3.` or `3.e5`: C's float without a fraction. No member follows an
  // integer literal, so a '.' not starting `..` is this mistake.
  if (base == 10 && peek() == '.' && peek(1) != '.' && !std::isdigit((unsigned char)peek(1))) {
    advance();
    while (isIdentChar(peek()) || ((peek() == '+' || peek() == '-') &&
                                   (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))
      advance();
    tok.text = text_.substr(start, pos_ - start);
    std::string rest = tok.text.substr(tok.text.find('.') + 1);
    if (!rest.empty() && (rest.back() == 'f' || rest.back() == 'F')) // C's `2.f`: no suffixes
      rest.pop_back();
    std::string fixed = digits + ".0" + rest;
    diags_.error(tok.loc,
                 "a float literal needs a digit after the '.', found '" + shortText(tok.text) + "'",
                 "write `" + fixed + "`");
    tok.kind = Tok::Error;
    return tok;
  }
  // A '.' starts a fraction only when a digit follows: `0..n` is a range.
  if (base == 10 && peek() == '.' && std::isdigit((unsigned char)peek(1))) {
    isFloat = true;
    digits += '.';
    advance();
    while (std::isdigit((unsigned char)peek()) || peek() == '_') {
      if (peek() != '_')
        digits += peek();
      advance();
    }
  }
  if (base == 10 && (peek() == 'e' || peek() == 'E') &&
      (std::isdigit((unsigned char)peek(1)) ||
       ((peek(1) == '+' || peek(1) == '-') && std::isdigit((unsigned char)peek(2))))) {
    isFloat = true;
    digits += 'e';
    advance();
    if (peek() == '+' || peek() == '-') {
      digits += peek();
      advance();
    }
    while (std::isdigit((unsigned char)peek())) {
      digits += peek();
      advance();
    }
  }
  bool bad = digits.empty() || isIdentChar(peek());
  size_t numberEnd = pos_;
  while (isIdentChar(peek()))
    advance();
  tok.text = text_.substr(start, pos_ - start);
  // C's suffixes (`0.5f`, `1u`, `10ull`, `1e-3f`, `0x10u`): tile literals
  // have none; their context types them.
  std::string suffix = text_.substr(numberEnd, pos_ - numberEnd);
  for (char &c : suffix)
    c = (char)std::tolower((unsigned char)c);
  static const char *const kSuffixes[] = {"f",  "h",   "u",   "l", "ul", "lu",
                                          "ll", "ull", "llu", "z", "uz"};
  bool cSuffix = !digits.empty() && bad &&
                 std::any_of(std::begin(kSuffixes), std::end(kSuffixes),
                             [&](const char *x) { return suffix == x; }) &&
                 (base == 10 || (suffix != "f" && suffix != "h"));
  if (cSuffix) {
    std::string number = text_.substr(start, numberEnd - start);
    bool floatSuffix = suffix == "f" || suffix == "h";
    std::string fixed = floatSuffix && !isFloat ? number + ".0" : number;
    diags_.error(tok.loc, "number literals take no suffix, found '" + shortText(tok.text) + "'",
                 floatSuffix ? "write `" + fixed +
                                   "`: a float literal takes its type from where it is "
                                   "used (`let h: f16 = " +
                                   fixed + "`, `x * " + fixed + "` with x: f16), f32 otherwise"
                             : "write `" + fixed +
                                   "`: an integer literal takes its type from where it is "
                                   "used (`let n: u64 = " +
                                   fixed + "`, `x >> " + fixed + "` with x: u32, `" + fixed +
                                   " as u32`), i32 otherwise");
    tok.kind = Tok::Error;
    return tok;
  }
  if (bad) {
    diags_.error(tok.loc, "invalid number literal '" + shortText(tok.text) + "'",
                 "write decimal (42, 1.5, 2e3), hex (0xff) or binary (0b101) numbers");
    tok.kind = Tok::Error;
    return tok;
  }
  if (isFloat) {
    tok.kind = Tok::FloatLit;
    // Round-to-odd, so that Sema can round it once more, exactly, to the
    // literal's type (FloatLiterals.cpp).
    bool overflow = false;
    tok.floatValue = parseFloatRoundToOdd(digits, overflow);
    tok.nearestValue = parseFloatNearest(digits);
    if (overflow) {
      diags_.error(tok.loc, "float literal '" + shortText(tok.text) + "' is out of range",
                   "f32 values are at most about 3.4e38, f64 values about 1.8e308");
      tok.kind = Tok::Error;
    }
    return tok;
  }
  uint64_t v = 0;
  for (char c : digits) {
    unsigned d =
        std::isdigit((unsigned char)c) ? c - '0' : (std::tolower((unsigned char)c) - 'a' + 10);
    if (v > (UINT64_MAX - d) / base) {
      diags_.error(tok.loc, "integer literal '" + shortText(tok.text) + "' does not fit in 64 bits",
                   "the largest integer type is i64");
      tok.kind = Tok::Error;
      return tok;
    }
    v = v * base + d;
  }
  tok.kind = Tok::IntLit;
  tok.intValue = v;
  return tok;
}

/// What a character the language does not use would mean elsewhere, and what
/// to write instead: every printable ASCII character that starts no token is
/// listed (the others are control characters or not ASCII).
static std::pair<std::string, std::string> unexpectedCharacter(char c) {
  switch (c) {
  case '"':
    return {": there are no strings", "tile has no string literals; kernels compute on numbers"};
  case '\'':
    return {": there are no character literals",
            "write the character's code as an integer, e.g. 97 for 'a'"};
  case '@':
    return {": '@' is not an operator", "identifiers are letters, digits and '_'"};
  case '#':
    return {": there is no preprocessor", "comments are `// ...` and `/* ... */`"};
  case '$':
    return {": '$' cannot appear in identifiers", "identifiers are letters, digits and '_'"};
  case '`':
    return {": backquotes only quote code in the documentation", "write the code without them"};
  case '\\':
    return {": there are no escapes or line continuations",
            "an expression may continue on the next line as it is"};
  default:
    break;
  }
  return {": a control character",
          "only spaces, tabs, form feeds, vertical tabs and line ends separate tokens; remove it"};
}

/// Operator spellings of other languages that tile does not have: always an
/// error (no valid program contains them), reported as a whole.
static const struct {
  const char *spelling;
  const char *message;
  const char *hint;
} kForeignOperators[] = {
    {"++", "there is no '++' operator", "write `x += 1`"},
    {"**", "there is no '**' operator", "multiply explicitly, e.g. `x * x`"},
    {"===", "there is no '===' operator", "write `==`"},
    {"!==", "there is no '!==' operator", "write `!=`"},
    {">>>", "there is no '>>>' operator",
     "`>>` is logical on unsigned types (u8..u64) and arithmetic on signed ones: "
     "`(x as u32) >> n`"},
    {"=>", "there is no '=>' operator", "compare with `>=`; there are no lambdas or match arms"},
    {"..=", "there is no inclusive range '..='", "ranges are half-open: write `a .. b + 1`"},
    {"&&=", "there is no '&&=' operator", "write `b = b && c`"},
    {"||=", "there is no '||=' operator", "write `b = b || c`"},
    {"::", "there is no '::' operator", "builtins and names are written without a path"},
};

Token Lexer::next() {
  Token tok;
  if (!skipTrivia()) {
    tok.kind = Tok::Error;
    tok.loc = here();
    pos_ = text_.size();
    return tok;
  }
  tok.loc = here();
  tok.atLineStart = sawNewline_;
  sawNewline_ = false;
  if (pos_ >= text_.size()) {
    tok.kind = Tok::Eof;
    return tok;
  }
  char c = peek();
  if (isIdentStart(c)) {
    size_t start = pos_;
    while (isIdentChar(peek()))
      advance();
    tok.text = text_.substr(start, pos_ - start);
    static const std::unordered_map<std::string, Tok> keywords = {
        {"kernel", Tok::KwKernel},    {"let", Tok::KwLet},         {"var", Tok::KwVar},
        {"for", Tok::KwFor},          {"in", Tok::KwIn},           {"if", Tok::KwIf},
        {"else", Tok::KwElse},        {"while", Tok::KwWhile},     {"return", Tok::KwReturn},
        {"true", Tok::KwTrue},        {"false", Tok::KwFalse},     {"as", Tok::KwAs},
        {"shared", Tok::KwShared},    {"dshared", Tok::KwDShared}, {"break", Tok::KwBreak},
        {"continue", Tok::KwContinue}};
    auto it = keywords.find(tok.text);
    tok.kind = it == keywords.end() ? Tok::Ident : it->second;
    return tok;
  }
  if (std::isdigit((unsigned char)c))
    return lexNumber(std::move(tok));
  // `.5`: C's float without an integer part (a member name never starts
  // with a digit, so this is no member access).
  if (c == '.' && std::isdigit((unsigned char)peek(1))) {
    size_t start = pos_;
    advance();
    while (isIdentChar(peek()))
      advance();
    tok.text = text_.substr(start, pos_ - start);
    diags_.error(tok.loc,
                 "a float literal starts with a digit, found '" + shortText(tok.text) + "'",
                 "write `0" + tok.text + "`");
    tok.kind = Tok::Error;
    return tok;
  }

  // `*/` outside a comment: block comments do not nest, so the first `*/`
  // of `/* a /* b */ c */` ended the comment. (`a */* c */ b` and `a *// c`
  // are `*` and a comment.)
  if (c == '*' && peek(1) == '/' && peek(2) != '*' && peek(2) != '/') {
    diags_.error(tok.loc, "'*/' outside a comment: block comments do not nest",
                 "the first '*/' after '/*' ends the comment; remove this one, or comment "
                 "the lines out with `//`");
    tok.kind = Tok::Error;
    tok.text = "*/";
    return tok;
  }
  if ((unsigned char)c >= 0x80)
    return lexNonAscii(std::move(tok));

  for (const auto &f : kForeignOperators) {
    if (text_.compare(pos_, std::char_traits<char>::length(f.spelling), f.spelling) == 0) {
      diags_.error(tok.loc, f.message, f.hint);
      tok.kind = Tok::Error;
      tok.text = f.spelling;
      return tok;
    }
  }

  // Punctuation: longest match first.
  struct P {
    const char *s;
    Tok k;
  };
  static const P puncts[] = {
      {"<<=", Tok::ShlAssign},
      {">>=", Tok::ShrAssign},
      {"->", Tok::Arrow},
      {"..", Tok::DotDot},
      {"<<", Tok::Shl},
      {">>", Tok::Shr},
      {"<=", Tok::Le},
      {">=", Tok::Ge},
      {"==", Tok::EqEq},
      {"!=", Tok::Ne},
      {"&&", Tok::AmpAmp},
      {"||", Tok::PipePipe},
      {"+=", Tok::PlusAssign},
      {"-=", Tok::MinusAssign},
      {"*=", Tok::StarAssign},
      {"/=", Tok::SlashAssign},
      {"%=", Tok::PercentAssign},
      {"&=", Tok::AmpAssign},
      {"|=", Tok::PipeAssign},
      {"^=", Tok::CaretAssign},
      {"(", Tok::LParen},
      {")", Tok::RParen},
      {"{", Tok::LBrace},
      {"}", Tok::RBrace},
      {"[", Tok::LBracket},
      {"]", Tok::RBracket},
      {",", Tok::Comma},
      {":", Tok::Colon},
      {";", Tok::Semi},
      {".", Tok::Dot},
      {"+", Tok::Plus},
      {"-", Tok::Minus},
      {"*", Tok::Star},
      {"/", Tok::Slash},
      {"%", Tok::Percent},
      {"&", Tok::Amp},
      {"|", Tok::Pipe},
      {"^", Tok::Caret},
      {"~", Tok::Tilde},
      {"!", Tok::Bang},
      {"<", Tok::Lt},
      {"?", Tok::Question},
      {">", Tok::Gt},
      {"=", Tok::Assign},
  };
  for (const P &p : puncts) {
    size_t n = std::char_traits<char>::length(p.s);
    if (text_.compare(pos_, n, p.s) == 0) {
      tok.kind = p.k;
      tok.text = p.s;
      for (size_t i = 0; i < n; ++i)
        advance();
      return tok;
    }
  }
  std::string shown;
  if (std::isprint((unsigned char)c)) {
    shown = std::string("'") + c + "'";
  } else {
    static const char hex[] = "0123456789abcdef";
    shown = std::string("byte 0x") + hex[(unsigned char)c >> 4] + hex[(unsigned char)c & 15];
  }
  auto [what, hint] = unexpectedCharacter(c);
  diags_.error(tok.loc, "unexpected character " + shown + what, hint);
  tok.kind = Tok::Error;
  tok.text = std::string(1, c);
  advance();
  return tok;
}

/// A non-ASCII character outside a comment: named by its code point, with
/// what to write for the ones that copy-pasting from documents brings in
/// (typographic quotes and dashes, special spaces, math signs).
Token Lexer::lexNonAscii(Token tok) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(peek(i)); };
  unsigned char b0 = byte(0);
  size_t length = (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 1;
  uint32_t cp = length == 1 ? b0 : b0 & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) { // not UTF-8: name the byte
      length = 1;
      cp = b0;
      break;
    }
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  tok.text = text_.substr(pos_, length);
  char name[48];
  if (length == 1)
    std::snprintf(name, sizeof name, "byte 0x%02x", b0);
  else
    std::snprintf(name, sizeof name, "'%s' (U+%04X)", tok.text.c_str(), cp);
  std::string what = ": tile source is ASCII";
  std::string hint = "identifiers are ASCII letters, digits and '_'; non-ASCII text may appear "
                     "only in comments";
  auto is = [&](std::initializer_list<uint32_t> set) {
    return std::find(set.begin(), set.end(), cp) != set.end();
  };
  if (cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0x205F ||
      cp == 0x3000 || cp == 0xFEFF || cp == 0x2060) {
    what = ": a special or invisible space";
    hint = "replace it with an ordinary space (it often comes from copying code out of a "
           "document)";
  } else if (is({0x2018, 0x2019, 0x201A, 0x201B, 0x201C, 0x201D, 0x201E, 0x201F, 0x00AB,
                 0x00BB, 0x2032, 0x2033})) {
    what = ": a typographic quote";
    hint = "tile has no string or character literals; a quote usually comes from copying code "
           "out of a document";
  } else if (is({0x2212, 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0xFE63, 0xFF0D})) {
    what = ": a typographic dash";
    hint = "write the ASCII minus '-'";
  } else if (is({0x00D7, 0x22C5, 0x2219, 0x00B7})) {
    what = ": a multiplication sign";
    hint = "write '*'";
  } else if (cp == 0x00F7 || cp == 0x2215) {
    what = ": a division sign";
    hint = "write '/'";
  } else if (is({0x2264, 0x2265, 0x2260, 0x2190, 0x2192, 0x21D2, 0x2026})) {
    what = ": a math or arrow sign";
    hint = cp == 0x2264   ? "write '<='"
           : cp == 0x2265 ? "write '>='"
           : cp == 0x2260 ? "write '!='"
           : cp == 0x2026 ? "write '..' (a range) or '...'"
           : cp == 0x2192 ? "write '->'"
                          : "write the ASCII operator";
  }
  diags_.error(tok.loc, std::string("unexpected character ") + name + what, hint);
  tok.kind = Tok::Error;
  for (size_t k = 0; k < length; ++k)
    advance();
  return tok;
}

std::vector<Token> Lexer::tokenize() {
  std::vector<Token> toks;
  for (;;) {
    toks.push_back(next());
    if (toks.back().kind == Tok::Eof || toks.back().kind == Tok::Error)
      break;
  }
  if (toks.back().kind != Tok::Eof) {
    Token eof;
    eof.kind = Tok::Eof;
    eof.loc = here();
    toks.push_back(eof);
  }
  return toks;
}

} // namespace tile::frontend
