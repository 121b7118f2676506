//===- KernelInfoJson.cpp - kernel info read from JSON ---------------------===//
//
// A small hand-written JSON reader for the form toJson writes
// (KernelInfoJsonWrite.cpp; docs/runtime.md, "The kernel-info file"): every
// object is checked against its table of tile/kernel_info_schema.h, integers
// are read exactly as 64-bit values, and every error names the JSON path it
// concerns.
//===----------------------------------------------------------------------===//
#include "tile/kernel_info.h"
#include "tile/kernel_info_schema.h"
#include "tile/target.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <tuple>

namespace tile {

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  std::string text; // Number: as written; String: decoded
  std::vector<Json> items;
  std::map<std::string, Json> fields;
};

class Parser {
public:
  explicit Parser(const std::string &s) : s_(s) {}
  Json parseDocument() {
    Json v = value(0);
    skip();
    if (i_ != s_.size())
      fail("unexpected text after the JSON value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string &why) {
    size_t line = 1, col = 1;
    for (size_t k = 0; k < i_ && k < s_.size(); ++k, ++col)
      if (s_[k] == '\n')
        ++line, col = 0;
    throw std::invalid_argument("kernel info JSON, line " + std::to_string(line) + " column " +
                                std::to_string(col) + ": " + why);
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c))
      fail(std::string("expected '") + c + "'");
  }
  Json value(int depth) {
    if (depth > 200)
      fail("nested too deeply");
    skip();
    if (i_ >= s_.size())
      fail("unexpected end of input");
    Json v;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Json::Object;
      if (eat('}'))
        return v;
      do {
        skip();
        std::string key = string();
        expect(':');
        v.fields[key] = value(depth + 1);
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Json::Array;
      if (eat(']'))
        return v;
      do
        v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::String;
      v.text = string();
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 5, "false") == 0) {
      v.kind = Json::Bool;
      v.boolean = s_[i_] == 't';
      i_ += v.boolean ? 4 : 5;
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Json::Number;
      size_t start = i_++;
      while (i_ < s_.size() && std::string("0123456789.eE+-").find(s_[i_]) != std::string::npos)
        ++i_;
      v.text = s_.substr(start, i_ - start);
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }
  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"')
      fail("expected a string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size())
        break;
      char e = s_[i_++];
      switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        if (i_ + 4 > s_.size())
          fail("bad \\u escape");
        unsigned code = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
        i_ += 4;
        if (code < 0x80) {
          out += static_cast<char>(code);
        } else if (code < 0x800) {
          out += static_cast<char>(0xC0 | (code >> 6));
          out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (code >> 12));
          out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default:
        out += e;
        break;
      }
    }
    if (i_ >= s_.size())
      fail("unterminated string");
    ++i_;
    return out;
  }
  const std::string &s_;
  size_t i_ = 0;
};

/// The (isPointer, scalar) whose KernelParamInfo::typeName() is `name`: the
/// type field of a scalar or pointer parameter is read as one of the names the
/// writer gives, not taken apart.
std::optional<std::pair<bool, ScalarType>> paramTypeFromName(const std::string &name) {
  for (int t = static_cast<int>(ScalarType::I1); t <= static_cast<int>(ScalarType::E5M2); ++t)
    for (bool pointer : {false, true}) {
      KernelParamInfo p;
      p.isPointer = pointer;
      p.scalar = static_cast<ScalarType>(t);
      if (p.typeName() == name)
        return std::pair{pointer, p.scalar};
    }
  return std::nullopt;
}

/// Typed access with errors naming the JSON path.
struct Reader {
  [[noreturn]] static void fail(std::string_view path, const std::string &why) {
    throw std::invalid_argument("kernel info: " + std::string(path) + ": " + why);
  }
  // The accessors that return a reference into the document take the path and
  // the key by value (std::string_view): a reference parameter bound to a
  // temporary (`path + ".x"`, a literal converted to std::string) would let
  // the returned reference look as if it could point into that temporary
  // (GCC's -Wdangling-reference), and a caller binding the result to a
  // reference would then rely on that not being so.
  static const Json &field(const Json &o, std::string_view path, std::string_view key) {
    if (o.kind != Json::Object)
      fail(path, "expected an object");
    auto it = o.fields.find(std::string(key));
    if (it == o.fields.end())
      fail(path, "missing \"" + std::string(key) + "\"");
    return it->second;
  }
  static const std::vector<Json> &array(const Json &v, std::string_view path) {
    if (v.kind != Json::Array)
      fail(path, "expected an array");
    return v.items;
  }
  static const std::string &string(const Json &v, std::string_view path) {
    if (v.kind != Json::String)
      fail(path, "expected a string");
    return v.text;
  }
  static bool boolean(const Json &v, const std::string &path) {
    if (v.kind != Json::Bool)
      fail(path, "expected true or false");
    return v.boolean;
  }
  static int64_t integer(const Json &v, const std::string &path, int64_t lo, int64_t hi) {
    if (v.kind != Json::Number)
      fail(path, "expected an integer");
    size_t used = 0;
    long long x = 0;
    try {
      x = std::stoll(v.text, &used, 10);
    } catch (const std::exception &) {
      fail(path, "'" + v.text + "' is not a 64-bit integer");
    }
    if (used != v.text.size())
      fail(path, "'" + v.text + "' is not an integer");
    if (x < lo || x > hi)
      fail(path, std::to_string(x) + " is out of range (" + std::to_string(lo) + " to " +
                     std::to_string(hi) + ")");
    return x;
  }
  static double real(const Json &v, const std::string &path) {
    if (v.kind == Json::String && (v.text == "nan" || v.text == "inf" || v.text == "-inf"))
      return v.text == "nan" ? std::nan("") : v.text == "inf" ? HUGE_VAL : -HUGE_VAL;
    if (v.kind != Json::Number)
      fail(path, "expected a number");
    return std::strtod(v.text.c_str(), nullptr);
  }
  static ScalarType scalar(const Json &v, const std::string &path) {
    const std::string &name = string(v, path);
    auto t = scalarTypeFromName(name);
    if (!t)
      fail(path, "unknown type '" + name + "'");
    return *t;
  }
  static std::array<unsigned, 3> dims(const Json &v, const std::string &path) {
    const auto &items = array(v, path);
    if (items.size() != 3)
      fail(path, "expected 3 dimensions");
    std::array<unsigned, 3> d{};
    for (size_t i = 0; i < 3; ++i)
      d[i] = static_cast<unsigned>(
          integer(items[i], path + "[" + std::to_string(i) + "]", 1, 0x7fffffff));
    return d;
  }

  static SizeExpr expr(const Json &v, const std::string &path, size_t params, int depth) {
    if (depth > 200)
      fail(path, "nested too deeply");
    checkObject(v, schema::kExpr, path);
    SizeExpr e;
    const std::string &opName = string(field(v, path, "op"), path + ".op");
    auto op = sizeOpFromName(opName);
    if (!op)
      fail(path + ".op", "unknown operation '" + opName + "'");
    e.op = *op;
    e.type = scalar(field(v, path, "type"), path + ".type");
    size_t arity = 2;
    if (e.op == SizeExpr::Op::Literal) {
      const Json &value = field(v, path, "value");
      if (isFloatType(e.type))
        e.fvalue = real(value, path + ".value");
      else
        e.value = integer(value, path + ".value", INT64_MIN, INT64_MAX);
      arity = 0;
    } else if (e.op == SizeExpr::Op::Param) {
      e.param = static_cast<int>(
          integer(field(v, path, "param"), path + ".param", 0, static_cast<int64_t>(params) - 1));
      arity = 0;
    } else if (e.op == SizeExpr::Op::Neg || e.op == SizeExpr::Op::Not ||
               e.op == SizeExpr::Op::BitNot || e.op == SizeExpr::Op::Cast) {
      arity = 1;
    }
    if (arity) {
      const auto &items = array(field(v, path, "operands"), path + ".operands");
      if (items.size() != arity)
        fail(path + ".operands", "'" + opName + "' takes " + std::to_string(arity) +
                                     " operand(s), found " + std::to_string(items.size()));
      for (size_t i = 0; i < arity; ++i)
        e.operands.push_back(
            expr(items[i], path + ".operands[" + std::to_string(i) + "]", params, depth + 1));
    }
    return e;
  }

  /// `v` is an object of `schema`'s fields (tile/kernel_info_schema.h): none
  /// unknown, the required ones present, each of its JSON type.
  static void checkObject(const Json &v, const schema::Object &o, const std::string &path) {
    if (v.kind != Json::Object)
      fail(path, std::string("expected an object (") + o.what + ")");
    for (const auto &[key, value] : v.fields) {
      const schema::Field *f = o.find(key.c_str());
      if (!f)
        fail(path + "." + key, std::string("unknown field of ") + o.what);
      if (value.kind == Json::Null && f->nullable)
        continue;
      bool ok = false;
      switch (f->kind) {
      case schema::Kind::String:
        ok = value.kind == Json::String;
        break;
      case schema::Kind::Integer:
        ok = value.kind == Json::Number;
        break;
      case schema::Kind::Number:
        ok = value.kind == Json::Number || value.kind == Json::String;
        break;
      case schema::Kind::Bool:
        ok = value.kind == Json::Bool;
        break;
      case schema::Kind::Array:
      case schema::Kind::Dims:
        ok = value.kind == Json::Array;
        break;
      case schema::Kind::Object:
        ok = value.kind == Json::Object;
        break;
      }
      static const char *names[] = {"a string", "an integer", "a number", "true or false",
                                    "an array", "an object", "3 dimensions"};
      if (!ok)
        fail(path + "." + key, std::string("expected ") + names[static_cast<int>(f->kind)] +
                                   (f->nullable ? " or null" : ""));
    }
    for (size_t i = 0; i < o.count; ++i)
      if (o.fields[i].required && !v.fields.count(o.fields[i].name))
        fail(path, std::string("missing \"") + o.fields[i].name + "\"");
  }

  static const Json *optionalField(const Json &o, const std::string &key) {
    auto it = o.fields.find(key);
    return it == o.fields.end() || it->second.kind == Json::Null ? nullptr : &it->second;
  }

  static TensorParamInfo tensor(const Json &v, const std::string &path, size_t params) {
    checkObject(v, schema::kTensor, path);
    TensorParamInfo t;
    t.element = scalar(field(v, path, "element"), path + ".element");
    if (t.element == ScalarType::I1)
      fail(path + ".element", "a tensor of i1 cannot be moved by TMA");
    const auto &extents = array(field(v, path, "extents"), path + ".extents");
    if (extents.empty() || extents.size() > 5)
      fail(path + ".extents",
           std::to_string(extents.size()) + " extents; a tensor has rank 1 to 5");
    for (size_t i = 0; i < extents.size(); ++i) {
      const std::string epath = path + ".extents[" + std::to_string(i) + "]";
      checkObject(extents[i], schema::kExtent, epath);
      TensorParamInfo::Extent e;
      if (const Json *lit =
              extents[i].kind == Json::Object ? optionalField(extents[i], "literal") : nullptr) {
        e.literal = integer(*lit, epath + ".literal", 1, INT64_MAX);
      } else {
        e.name = string(field(extents[i], epath, "name"), epath + ".name");
        if (e.name.empty())
          fail(epath + ".name", "an extent is a literal or a non-empty name");
        e.hiddenParam =
            static_cast<int>(integer(field(extents[i], epath, "hidden"), epath + ".hidden", 0,
                                     static_cast<int64_t>(params) - 1));
      }
      t.extents.push_back(std::move(e));
    }
    const auto &box = array(field(v, path, "box"), path + ".box");
    if (!box.empty() && box.size() != extents.size())
      fail(path + ".box", "the box has " + std::to_string(box.size()) +
                              " dimensions but the tensor " + std::to_string(extents.size()) +
                              " (one per dimension, or none when nothing is copied)");
    for (size_t i = 0; i < box.size(); ++i)
      t.box.push_back(static_cast<unsigned>(
          integer(box[i], path + ".box[" + std::to_string(i) + "]", 1, 0xffffffff)));
    const int64_t swizzle = integer(field(v, path, "swizzle"), path + ".swizzle", 0, 128);
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
      fail(path + ".swizzle", std::to_string(swizzle) + " is not a swizzle (0, 32, 64, 128)");
    t.swizzle = static_cast<TmaSwizzle>(swizzle);
    const int64_t l2 = integer(field(v, path, "l2Promotion"), path + ".l2Promotion", 0, 256);
    if (l2 != 0 && l2 != 64 && l2 != 128 && l2 != 256)
      fail(path + ".l2Promotion", std::to_string(l2) + " is not an L2 promotion (0, 64, 128, 256)");
    t.l2Promotion = static_cast<TmaL2Promotion>(l2);
    t.oobZeroFill = boolean(field(v, path, "oobZeroFill"), path + ".oobZeroFill");
    if (const Json *sym = optionalField(v, "symmetric"))
      t.symmetric = boolean(*sym, path + ".symmetric");
    return t;
  }

  static HiddenExtentInfo hidden(const Json &v, const std::string &path, size_t params) {
    checkObject(v, schema::kHidden, path);
    HiddenExtentInfo h;
    h.tensorParam = static_cast<int>(
        integer(field(v, path, "tensor"), path + ".tensor", 0, static_cast<int64_t>(params) - 1));
    h.dim = static_cast<unsigned>(integer(field(v, path, "dim"), path + ".dim", 0, 4));
    return h;
  }

  static SemaphoreParamInfo semaphore(const Json &v, const std::string &path, size_t params) {
    checkObject(v, schema::kSemaphore, path);
    SemaphoreParamInfo s;
    const std::string cpath = path + ".count";
    const Json &count = field(v, path, "count");
    checkObject(count, schema::kExtent, cpath);
    if (const Json *lit = count.kind == Json::Object ? optionalField(count, "literal") : nullptr) {
      s.count.literal = integer(*lit, cpath + ".literal", 1, INT32_MAX);
    } else {
      s.count.name = string(field(count, cpath, "name"), cpath + ".name");
      if (s.count.name.empty())
        fail(cpath + ".name", "a semaphore count is a literal or a non-empty name");
      s.count.hiddenParam = static_cast<int>(integer(
          field(count, cpath, "hidden"), cpath + ".hidden", 0, static_cast<int64_t>(params) - 1));
    }
    return s;
  }

  static HiddenPeerInfo peer(const Json &v, const std::string &path, size_t params) {
    checkObject(v, schema::kPeer, path);
    HiddenPeerInfo h;
    const std::string &kind = string(field(v, path, "kind"), path + ".kind");
    auto k = hiddenPeerKindFromName(kind);
    if (!k)
      fail(path + ".kind", "unknown peer parameter kind '" + kind + "'");
    h.kind = *k;
    h.param = static_cast<int>(
        integer(field(v, path, "param"), path + ".param", -1, static_cast<int64_t>(params) - 1));
    return h;
  }

  /// A peer parameter's type and the parameter it belongs to agree with its kind.
  static void checkPeerParam(const KernelInfo &k, const KernelParamInfo &p,
                             const std::string &ppath) {
    using Kind = HiddenPeerInfo::Kind;
    const HiddenPeerInfo &h = *p.peer;
    const bool isI32 =
        h.kind == Kind::SemaphoreCount || h.kind == Kind::DeviceRank || h.kind == Kind::DeviceCount;
    if (p.isPointer || p.tensor || p.semaphore || p.hidden ||
        p.scalar != (isI32 ? ScalarType::I32 : ScalarType::U64) || p.size != (isI32 ? 4u : 8u))
      fail(ppath + ".type", std::string("a ") + hiddenPeerKindName(h.kind) + " parameter is " +
                                (isI32 ? "an i32 of 4 bytes" : "a u64 of 8 bytes"));
    if (h.kind == Kind::DeviceRank || h.kind == Kind::DeviceCount) {
      if (h.param != -1)
        fail(ppath + ".peer.param", std::string("a ") + hiddenPeerKindName(h.kind) +
                                        " parameter belongs to no parameter (-1)");
      return;
    }
    const bool wantsTensor = h.kind == Kind::PeerPointers || h.kind == Kind::PeerMaps;
    const KernelParamInfo *src = h.param >= 0 ? &k.params[h.param] : nullptr;
    if (wantsTensor ? !(src && src->tensor && src->tensor->symmetric) : !(src && src->semaphore))
      fail(ppath + ".peer.param", "parameter " + std::to_string(h.param) + " is not a " +
                                      (wantsTensor ? "symmetric tensor" : "semaphore") +
                                      " parameter");
  }

  /// The tensor and hidden fields agree with each other and with the types:
  /// a launch relies on every index.
  static void checkTensorParams(const KernelInfo &k, const std::string &path) {
    bool seenHidden = false;
    for (size_t i = 0; i < k.params.size(); ++i) {
      const KernelParamInfo &p = k.params[i];
      const std::string ppath = path + ".params[" + std::to_string(i) + "]";
      if (p.peer) {
        seenHidden = true;
        checkPeerParam(k, p, ppath);
      } else if (p.hidden) {
        seenHidden = true;
        const HiddenExtentInfo &h = *p.hidden;
        const KernelParamInfo &src = k.params[h.tensorParam];
        if (p.isPointer || p.scalar != ScalarType::I32 || p.size != 4)
          fail(ppath + ".type", "a hidden extent parameter is an i32 of 4 bytes");
        if (!src.tensor || src.hidden)
          fail(ppath + ".hidden.tensor",
               "parameter " + std::to_string(h.tensorParam) + " is not a tensor parameter");
        if (h.dim >= src.tensor->extents.size())
          fail(ppath + ".hidden.dim", "dimension " + std::to_string(h.dim) + " of a rank-" +
                                          std::to_string(src.tensor->extents.size()) + " tensor");
      } else if (seenHidden) {
        fail(ppath, "a declared parameter after a hidden one (hidden parameters come last)");
      }
      if (p.semaphore) {
        if (p.isPointer || p.scalar != ScalarType::U64 || p.size != 8 || p.align != 8)
          fail(ppath + ".size", "a semaphore parameter is a u64 of 8 bytes at alignment 8");
        const TensorParamInfo::Extent &c = p.semaphore->count;
        if (!c.literal) {
          const KernelParamInfo &h = k.params[c.hiddenParam];
          if (!h.peer || h.peer->kind != HiddenPeerInfo::Kind::SemaphoreCount ||
              h.peer->param != static_cast<int>(i))
            fail(ppath + ".semaphore.count.hidden",
                 "parameter " + std::to_string(c.hiddenParam) +
                     " is not this semaphore's semaphoreCount parameter");
        }
      }
      if (!p.tensor)
        continue;
      if (p.size != 128 || p.align != 64)
        fail(ppath + ".size", "a tensor parameter is 128 bytes at alignment 64 (a CUtensorMap)");
      for (size_t d = 0; d < p.tensor->extents.size(); ++d) {
        const TensorParamInfo::Extent &e = p.tensor->extents[d];
        if (e.literal)
          continue;
        const KernelParamInfo &h = k.params[e.hiddenParam];
        if (!h.hidden)
          fail(ppath + ".tensor.extents[" + std::to_string(d) + "].hidden",
               "parameter " + std::to_string(e.hiddenParam) + " is not a hidden extent");
      }
    }
  }

  static KernelParamInfo param(const Json &v, const std::string &path, size_t params) {
    checkObject(v, schema::kParam, path);
    KernelParamInfo p;
    p.name = string(field(v, path, "name"), path + ".name");
    if (const Json *t = optionalField(v, "tensor")) {
      p.tensor = tensor(*t, path + ".tensor", params);
      p.scalar = p.tensor->element;
      p.size = static_cast<size_t>(integer(field(v, path, "size"), path + ".size", 1, 32764));
      p.align = static_cast<size_t>(integer(field(v, path, "align"), path + ".align", 1, 4096));
      const std::string &type = string(field(v, path, "type"), path + ".type");
      if (type != p.typeName())
        fail(path + ".type",
             "'" + type + "' does not match its tensor field ('" + p.typeName() + "')");
      return p;
    }
    if (const Json *s = optionalField(v, "semaphore")) {
      p.semaphore = semaphore(*s, path + ".semaphore", params);
      p.scalar = ScalarType::U64;
      p.size = static_cast<size_t>(integer(field(v, path, "size"), path + ".size", 1, 32764));
      p.align = static_cast<size_t>(integer(field(v, path, "align"), path + ".align", 1, 4096));
      const std::string &type = string(field(v, path, "type"), path + ".type");
      if (type != p.typeName())
        fail(path + ".type",
             "'" + type + "' does not match its semaphore field ('" + p.typeName() + "')");
      return p;
    }
    if (const Json *h = optionalField(v, "hidden"))
      p.hidden = hidden(*h, path + ".hidden", params);
    if (const Json *h = optionalField(v, "peer"))
      p.peer = peer(*h, path + ".peer", params);
    // A scalar or a global pointer: one of the names typeName() gives them.
    const std::string &type = string(field(v, path, "type"), path + ".type");
    auto t = paramTypeFromName(type);
    if (!t)
      fail(path + ".type", "unknown type '" + type + "'");
    p.isPointer = t->first;
    p.scalar = t->second;
    p.size = static_cast<size_t>(integer(field(v, path, "size"), path + ".size", 1, 32764));
    p.align = static_cast<size_t>(integer(field(v, path, "align"), path + ".align", 1, 4096));
    if (const Json *a = optionalField(v, "addressAlign")) {
      if (!p.isPointer)
        fail(path + ".addressAlign", "only a pointer parameter has an address alignment");
      p.addressAlign = static_cast<size_t>(integer(*a, path + ".addressAlign", 1, 16));
      if (p.addressAlign & (p.addressAlign - 1))
        fail(path + ".addressAlign", "must be a power of two");
    }
    return p;
  }

  static KernelInfo kernel(const Json &v, const std::string &path) {
    checkObject(v, schema::kKernel, path);
    KernelInfo k;
    k.name = string(field(v, path, "name"), path + ".name");
    if (v.kind == Json::Object && v.fields.count("sourceName")) { // template instances only
      k.sourceName = string(field(v, path, "sourceName"), path + ".sourceName");
      const auto &args = array(field(v, path, "templateArgs"), path + ".templateArgs");
      for (size_t i = 0; i < args.size(); ++i) {
        const std::string apath = path + ".templateArgs[" + std::to_string(i) + "]";
        checkObject(args[i], schema::kTemplateArg, apath);
        k.templateArgs.push_back(
            {string(field(args[i], apath, "name"), apath + ".name"),
             integer(field(args[i], apath, "value"), apath + ".value", INT64_MIN, INT64_MAX)});
      }
      if (v.fields.count("typeArgs")) { // instances of kernels with type parameters
        const auto &types = array(field(v, path, "typeArgs"), path + ".typeArgs");
        for (size_t i = 0; i < types.size(); ++i) {
          const std::string apath = path + ".typeArgs[" + std::to_string(i) + "]";
          checkObject(types[i], schema::kTypeArg, apath);
          const std::string &type = string(field(types[i], apath, "type"), apath + ".type");
          if (!scalarTypeFromName(type))
            fail(apath + ".type", "unknown type '" + type + "'");
          k.typeArgs.push_back({string(field(types[i], apath, "name"), apath + ".name"), type});
        }
      }
    }
    const auto &params = array(field(v, path, "params"), path + ".params");
    for (size_t i = 0; i < params.size(); ++i)
      k.params.push_back(
          param(params[i], path + ".params[" + std::to_string(i) + "]", params.size()));
    checkTensorParams(k, path);
    const Json &cluster = field(v, path, "cluster");
    checkObject(cluster, schema::kCluster, path + ".cluster");
    const std::string &kind =
        string(field(cluster, path + ".cluster", "kind"), path + ".cluster.kind");
    if (kind == "none") {
      k.cluster = KernelInfo::Cluster::None;
    } else if (kind == "launch") {
      k.cluster = KernelInfo::Cluster::Launch;
    } else if (kind == "fixed") {
      k.cluster = KernelInfo::Cluster::Fixed;
      k.clusterDims = dims(field(cluster, path + ".cluster", "dims"), path + ".cluster.dims");
    } else {
      fail(path + ".cluster.kind", "unknown cluster kind '" + kind + "' (none, fixed, launch)");
    }
    const Json &threads = field(v, path, "threads");
    if (threads.kind != Json::Null)
      k.threads = dims(threads, path + ".threads");
    // Launch bounds (absent in files written before they existed: none).
    for (auto [key, slot, limit] :
         {std::tuple{"maxThreads", &k.maxThreads, int64_t(target::kMaxThreadsPerBlock)},
          std::tuple{"minBlocks", &k.minBlocks, int64_t(target::kMaxBlocksPerSM)}}) {
      auto it = v.fields.find(key);
      if (it != v.fields.end() && it->second.kind != Json::Null)
        *slot = static_cast<unsigned>(integer(it->second, path + "." + key, 1, limit));
    }
    k.staticSharedBytes = static_cast<size_t>(
        integer(field(v, path, "staticSharedBytes"), path + ".staticSharedBytes", 0, INT64_MAX));
    // Multi-GPU fields (absent: a single-GPU kernel).
    if (const Json *spins = optionalField(v, "spinsOnPeers"))
      k.spinsOnPeers = boolean(*spins, path + ".spinsOnPeers");
    if (const Json *exit = optionalField(v, "exitSemaphore")) {
      k.exitSemaphore = static_cast<int>(
          integer(*exit, path + ".exitSemaphore", 0, static_cast<int64_t>(k.params.size()) - 1));
      if (!k.params[k.exitSemaphore].semaphore)
        fail(path + ".exitSemaphore",
             "parameter " + std::to_string(k.exitSemaphore) + " is not a semaphore parameter");
    }
    const std::string dpath = path + ".dynamicShared";
    const Json &dyn = field(v, path, "dynamicShared");
    checkObject(dyn, schema::kDynamicShared, dpath);
    k.dynamicSharedAlignment =
        static_cast<size_t>(integer(field(dyn, dpath, "alignment"), dpath + ".alignment", 1, 4096));
    const auto &arrays = array(field(dyn, dpath, "arrays"), dpath + ".arrays");
    for (size_t i = 0; i < arrays.size(); ++i) {
      const std::string apath = dpath + ".arrays[" + std::to_string(i) + "]";
      checkObject(arrays[i], schema::kSharedArray, apath);
      DynamicSharedArray a;
      a.name = string(field(arrays[i], apath, "name"), apath + ".name");
      a.element = scalar(field(arrays[i], apath, "element"), apath + ".element");
      a.elementSize = static_cast<size_t>(
          integer(field(arrays[i], apath, "elementSize"), apath + ".elementSize", 1, 16));
      a.distributed = boolean(field(arrays[i], apath, "distributed"), apath + ".distributed");
      a.count = expr(field(arrays[i], apath, "count"), apath + ".count", k.params.size(), 0);
      k.dynamicShared.push_back(std::move(a));
    }
    if (const Json *counts = optionalField(v, "mbarrierCounts")) {
      const auto &list = array(*counts, path + ".mbarrierCounts");
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string mpath = path + ".mbarrierCounts[" + std::to_string(i) + "]";
        checkObject(list[i], schema::kMBarrierCount, mpath);
        MBarrierCount m;
        m.name = string(field(list[i], mpath, "name"), mpath + ".name");
        m.count = expr(field(list[i], mpath, "count"), mpath + ".count", k.params.size(), 0);
        if (m.count.type != ScalarType::I32)
          fail(mpath + ".count", std::string("an mbarrier count is an i32 rule, not ") +
                                     scalarTypeName(m.count.type));
        k.mbarrierCounts.push_back(std::move(m));
      }
    }
    return k;
  }
};

} // namespace

ModuleInfo moduleInfoFromJson(const std::string &json) {
  Json doc = Parser(json).parseDocument();
  Reader::checkObject(doc, schema::kModule, "(top)");
  const Json &format = Reader::field(doc, "(top)", "format");
  if (Reader::string(format, "format") != "tilec-kernel-info")
    Reader::fail("format", "expected \"tilec-kernel-info\", found \"" + format.text + "\"");
  int64_t version =
      Reader::integer(Reader::field(doc, "(top)", "version"), "version", 0, INT64_MAX);
  if (version != 1)
    Reader::fail("version", "version " + std::to_string(version) +
                                " is not understood by this runtime (it reads version 1)");
  ModuleInfo info;
  info.arch = Reader::string(Reader::field(doc, "(top)", "arch"), "arch");
  if (const Json *hash = Reader::optionalField(doc, "ptxHash")) {
    info.ptxHash = Reader::string(*hash, "ptxHash");
    if (info.ptxHash.size() != 16 ||
        info.ptxHash.find_first_not_of("0123456789abcdef") != std::string::npos)
      Reader::fail("ptxHash", "'" + info.ptxHash + "' is not 16 lowercase hex digits");
  }
  const auto &kernels = Reader::array(Reader::field(doc, "(top)", "kernels"), "kernels");
  for (size_t i = 0; i < kernels.size(); ++i)
    info.kernels.push_back(Reader::kernel(kernels[i], "kernels[" + std::to_string(i) + "]"));
  return info;
}

} // namespace tile
