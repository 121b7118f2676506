//===- SemaTemplates.cpp - kernel instances: -D, value and type parameters ===//
//
// A template kernel `kernel k<P: i32, T: type>` is parsed again for each
// instance (Parser::parseKernelAgain) with its type parameters bound, so
// every type written with T is the instance's type and every check sees it;
// its value parameters are constants. Instances come from -D (NAME=V,...,
// KERNEL.NAME=V,..., 'KERNEL<V1, V2>'); each is an ordinary kernel named
// k$T<type>...$P<value>... in PTX (tile::mangledKernelName). A value of the
// wrong kind for its parameter is reported at the parameter's declaration.
//
//===----------------------------------------------------------------------===//
#include "CudaNames.h"
#include "NearestNames.h"
#include "SemaImpl.h"
#include "tile/kernel_info.h"
#include "tilec/frontend/Parser.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace tile::frontend {

namespace {
constexpr size_t kMaxInstancesPerKernel = 256;

/// A -D value is a value of the parameter's type (`-D N=200` for `N: u8`,
/// not for `N: i8`; `-D N=-1` not for a u32), hex and binary ones too.
bool fitsIn(int64_t v, ScalarKind k) {
  if (k == ScalarKind::I1)
    return v == 0 || v == 1;
  unsigned bits = bitWidth(k);
  if (isUnsignedKind(k))
    return v >= 0 && (bits >= 64 || v < (int64_t(1) << bits));
  if (bits >= 64)
    return true;
  return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1));
}

/// The range `fitsIn` accepts, for the error's hint.
std::string rangeText(ScalarKind k) {
  if (k == ScalarKind::I1)
    return "0 or 1 (false or true)";
  unsigned bits = bitWidth(k);
  if (isUnsignedKind(k))
    return "0 to " + std::to_string(bits >= 64 ? uint64_t(INT64_MAX) : (uint64_t(1) << bits) - 1);
  return "-" + std::to_string(uint64_t(1) << (bits - 1)) + " to " +
         std::to_string((uint64_t(1) << (bits - 1)) - 1);
}

/// One parsed `-D` text. A value is an integer, true/false or a scalar
/// type's name; which one a parameter takes is checked against the
/// parameter (instantiateTemplates), so that the error can point at it.
struct Define {
  std::string text;
  std::string kernel;              // "" = every kernel with the parameter
  std::string name;                // "" for an instance `k<...>`
  std::vector<std::string> values; // NAME=: alternatives; instance: positional
};

std::string trimmed(std::string s) {
  while (!s.empty() && s.front() == ' ')
    s.erase(s.begin());
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  return s;
}

/// A -D value: true/false, or an integer written as in the source: decimal,
/// 0x hex or 0b binary, `_` between digits, with an optional sign. A leading 0 is not C's octal (an
/// error, as in the source: `-D N=010` is not silently 8 or 10); `why` says what is wrong with a
/// value that looks like a number.
bool parseValue(const std::string &t, int64_t &v, std::string *why = nullptr) {
  std::string s = trimmed(t);
  if (s == "true" || s == "false") {
    v = s == "true";
    return true;
  }
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  bool negative = i == 1 && s[0] == '-';
  if (i >= s.size() || !std::isdigit((unsigned char)s[i]))
    return false;
  int base = 10;
  if (s.compare(i, 2, "0x") == 0 || s.compare(i, 2, "0X") == 0) {
    base = 16;
    i += 2;
  } else if (s.compare(i, 2, "0b") == 0 || s.compare(i, 2, "0B") == 0) {
    base = 2;
    i += 2;
  } else if (s[i] == '0' && i + 1 < s.size()) {
    if (why)
      *why = "'" + s + "' starts with 0, which C reads as octal; tile has no octal values: " +
             "write it in decimal or 0x hex";
    return false;
  }
  if (i >= s.size())
    return false;
  uint64_t magnitude = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_' && i + 1 < s.size() && std::isxdigit((unsigned char)s[i - 1]) &&
        std::isxdigit((unsigned char)s[i + 1]))
      continue; // a separator between digits, as in the source: 1_000_000
    unsigned d = std::isdigit((unsigned char)c)                   ? unsigned(c - '0')
                 : base == 16 && std::isxdigit((unsigned char)c) ? unsigned(std::tolower(c) - 'a' + 10)
                                                                   : 99u;
    if (d >= unsigned(base))
      return false;
    if (magnitude > (UINT64_MAX - d) / unsigned(base)) {
      if (why)
        *why = "'" + s + "' does not fit in 64 bits";
      return false;
    }
    magnitude = magnitude * unsigned(base) + d;
  }
  if (negative ? magnitude > (uint64_t(1) << 63) : magnitude >= (uint64_t(1) << 63)) {
    if (why)
      *why = "'" + s + "' is outside -2^63 .. 2^63 - 1, the range of compile-time values (the "
             "kernel info and the instance names hold them as i64: a u64 parameter takes 0 .. "
             "9223372036854775807)";
    return false;
  }
  v = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
  return true;
}

/// The values of a list, split at the commas outside `<...>` (so that a
/// written type such as `vec<f32, 4>` stays one value and is reported as one).
std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    depth += c == '<' ? 1 : c == '>' ? -1 : 0;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string notAValue(const std::string &v) {
  return "'" + trimmed(v) +
         "' is neither an integer (or true/false) nor a scalar type name (f16, bf16, f32, e4m3, "
         "i32, ...)";
}

bool isIdent(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

/// `d` from `text`, or false with `why`; `d` then still holds the kernel and
/// parameter names read before the mistake (for the error's location).
bool parseDefine(const std::string &text, Define &d, std::string &why) {
  d.text = text;
  // KERNEL<...> when a '<' comes before any '=' (a value may be written with '<').
  if (size_t lt = text.find('<'); lt != std::string::npos && lt < text.find('=')) {
    if (text.back() != '>') {
      why = "an instance is written KERNEL<V1, V2, ...>";
      return false;
    }
    d.kernel = text.substr(0, lt);
    if (!isIdent(d.kernel)) {
      why = "'" + d.kernel + "' is not a kernel name";
      return false;
    }
    for (const std::string &v : splitList(text.substr(lt + 1, text.size() - lt - 2))) {
      int64_t x;
      std::string numberWhy;
      if (!parseValue(v, x, &numberWhy) && !isIdent(trimmed(v))) {
        why = numberWhy.empty() ? notAValue(v) : numberWhy;
        return false;
      }
      d.values.push_back(trimmed(v));
    }
    return true;
  }
  size_t eq = text.find('=');
  if (eq == std::string::npos) {
    why = "write NAME=VALUE, KERNEL.NAME=VALUE or KERNEL<V1, V2, ...>";
    return false;
  }
  std::string lhs = text.substr(0, eq);
  if (size_t dot = lhs.find('.'); dot != std::string::npos) {
    d.kernel = lhs.substr(0, dot);
    lhs = lhs.substr(dot + 1);
    if (!isIdent(d.kernel)) {
      why = "'" + d.kernel + "' is not a kernel name";
      return false;
    }
  }
  if (!isIdent(lhs)) {
    why = "'" + lhs + "' is not a parameter name";
    return false;
  }
  d.name = lhs;
  for (const std::string &v : splitList(text.substr(eq + 1))) {
    int64_t x;
    std::string numberWhy;
    if (!parseValue(v, x, &numberWhy) && !isIdent(trimmed(v))) {
      why = numberWhy.empty() ? notAValue(v) : numberWhy;
      return false;
    }
    d.values.push_back(trimmed(v));
  }
  return true;
}

} // namespace

void Sema::instantiateTemplates(ModuleAST &module) {
  std::vector<Define> defines;
  size_t errorsBeforeDefines = diags_.numErrors();
  for (const std::string &text : opts_.defines) {
    std::string why;
    Define d;
    if (parseDefine(text, d, why)) {
      defines.push_back(d);
      continue;
    }
    // At what it defines, when the source has it: the parameter, or the
    // kernel of an instance.
    Location at;
    for (auto &k : module.kernels) {
      if (!d.kernel.empty() && d.kernel != k->name)
        continue;
      if (d.name.empty() && !d.kernel.empty() && at.line == 0)
        at = k->loc;
      for (auto &p : k->templateParams)
        if (!d.name.empty() && p.name == d.name && at.line == 0)
          at = p.loc;
    }
    error(at, "invalid -D '" + text + "': " + why,
          "write -D NAME=VALUE, -D KERNEL.NAME=VALUE or -D 'KERNEL<V1, V2>'");
  }
  // A parameter given twice with different values (`-D N=3 -D N=4`): which
  // one was meant is not known (the last is not "the" value, and both would
  // be `-D N=3,4`), so neither is taken silently.
  for (size_t i = 0; i < defines.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (!defines[i].name.empty() && defines[i].name == defines[j].name &&
          defines[i].kernel == defines[j].kernel && defines[i].values != defines[j].values) {
        std::string all;
        for (const Define *d : {&defines[j], &defines[i]})
          for (const std::string &v : d->values)
            all += (all.empty() ? "" : ",") + v;
        error({}, "-D " + defines[i].text + " gives '" + defines[i].name + "' again, after -D " +
                      defines[j].text,
              "give each parameter once: -D " +
                  (defines[i].kernel.empty() ? "" : defines[i].kernel + ".") + defines[i].name +
                  "=" + all + " for an instance per value, or the one value you mean");
        break;
      }
  // Every define must name something.
  std::set<std::string> templateNames;
  for (auto &k : module.kernels)
    if (!k->templateParams.empty())
      templateNames.insert(k->name);
  // The kernels whose instances -D 'k<...>' lists: a NAME= value is not one
  // of theirs.
  std::map<std::string, std::string> listedInstances;
  for (const Define &d : defines)
    if (d.name.empty() && !d.kernel.empty())
      listedInstances.emplace(d.kernel, d.text);
  for (const Define &d : defines) {
    bool used = false;
    // A parameter's value that no instance takes: every kernel with that
    // parameter has its instances listed (the first such kernel).
    const KernelAST *overridden = nullptr;
    bool taken = false;
    for (auto &k : module.kernels) {
      if (!d.kernel.empty() && d.kernel != k->name)
        continue;
      if (!d.kernel.empty() && k->templateParams.empty()) {
        error({}, "-D " + d.text + ": kernel '" + k->name + "' has no compile-time parameters",
              "only kernels declared `kernel NAME<P: T, ...>(...)` are instantiated");
        used = true;
        taken = true;
        continue;
      }
      for (auto &p : k->templateParams) {
        used = used || d.name.empty() || p.name == d.name;
        if (d.name.empty() || p.name != d.name)
          continue;
        if (listedInstances.count(k->name))
          overridden = overridden ? overridden : k.get();
        else
          taken = true;
      }
    }
    if (used && !d.name.empty() && !taken && overridden) {
      std::string other = listedInstances[overridden->name];
      error(overridden->loc,
            "-D " + d.text + " gives no instance: kernel '" + overridden->name +
                "' has the instances of -D '" + other + "' only",
            "an instance list gives every value of its kernel: add the instances meant "
            "(-D '" + overridden->name + "<...>' for each), or give the kernel's parameters by "
            "name (-D " + overridden->name + "." + d.name + "=...) without the list");
      continue;
    }
    if (used)
      continue;
    // What there is instead: the kernels with compile-time parameters, or
    // the parameters (of the kernel named, or of every kernel), the nearest
    // first.
    std::string what, looked = d.name;
    std::vector<std::string> known;
    bool noKernel = !d.kernel.empty() && !templateNames.count(d.kernel);
    if (noKernel) {
      what = "there is no kernel '" + d.kernel + "'";
      looked = d.kernel;
      known.assign(templateNames.begin(), templateNames.end());
    } else {
      what = d.kernel.empty()
                 ? "no kernel has a compile-time parameter '" + d.name + "'"
                 : "kernel '" + d.kernel + "' has no compile-time parameter '" + d.name + "'";
      for (auto &k : module.kernels)
        if (d.kernel.empty() || d.kernel == k->name)
          for (auto &p : k->templateParams)
            if (std::find(known.begin(), known.end(), p.name) == known.end())
              known.push_back(p.name);
    }
    std::string hint =
        "the kernels with compile-time parameters are declared `kernel NAME<P: T, ...>(...)`";
    if (!known.empty()) {
      std::string list;
      for (const std::string &n : known)
        list += (list.empty() ? "'" : ", '") + n + "'";
      hint = (noKernel           ? "the kernels with compile-time parameters: "
              : d.kernel.empty()   ? "the kernels' compile-time parameters: "
                                   : "its compile-time parameters: ") +
             list;
      std::vector<std::string> near =
          nearestAmong(looked, known, 3, std::max<size_t>(1, looked.size() / 3));
      for (size_t i = 0; i < near.size(); ++i)
        hint += (i == 0 ? "; did you mean '" : i + 1 == near.size() ? " or '" : ", '") +
                near[i] + "'" + (i + 1 == near.size() ? "?" : "");
    }
    error({}, "-D " + d.text + ": " + what, hint);
  }

  // A -D that failed (malformed, naming nothing, given twice) may be the
  // one meant for a kernel without an instance: its error says why, and a
  // "no instance" warning after it would blame the source.
  bool defineFailed = diags_.numErrors() > errorsBeforeDefines;
  std::vector<std::unique_ptr<KernelAST>> out;
  for (auto &k : module.kernels) {
    if (k->templateParams.empty()) {
      out.push_back(std::move(k));
      continue;
    }
    const auto &params = k->templateParams;
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].isType && !params[i].type.type.isInteger())
        error(params[i].type.loc,
              "compile-time parameter '" + params[i].name + "' must be an integer or i1, not " +
                  params[i].type.type.str(),
              "write `P: i32` (or another integer type), or `P: type` for a type parameter");
      for (size_t j = 0; j < i; ++j)
        if (params[j].name == params[i].name)
          error(params[i].loc, "duplicate compile-time parameter '" + params[i].name + "'",
                "give every parameter a distinct name");
    }
    // The instances: explicit k<...> ones, else the cross product of the
    // NAME= / k.NAME= values (k.NAME wins over NAME). `origin` is the -D
    // text that gave each instance, for the note on its diagnostics.
    std::vector<std::vector<std::string>> instances;
    std::vector<std::string> origins;
    bool explicitInstances = false;
    for (const Define &d : defines) {
      if (d.kernel != k->name || !d.name.empty())
        continue;
      explicitInstances = true;
      if (d.values.size() != params.size()) {
        error({},
              "-D " + d.text + ": kernel '" + k->name + "' has " + std::to_string(params.size()) +
                  " compile-time parameter(s), found " + std::to_string(d.values.size()) +
                  " value(s)",
              "give one value per parameter, in order");
        continue;
      }
      instances.push_back(d.values);
      origins.push_back("-D '" + d.text + "'");
    }
    std::vector<std::string> paramOrigin(params.size()); // NAME=: the -D of each parameter
    std::vector<std::vector<std::string>> choices(params.size()); // NAME=: its values
    if (!explicitInstances) {
      std::string origin;
      bool complete = true;
      for (size_t i = 0; i < params.size(); ++i) {
        const Define *global = nullptr, *specific = nullptr;
        for (const Define &d : defines) {
          if (d.name != params[i].name)
            continue;
          if (d.kernel == k->name)
            specific = &d;
          else if (d.kernel.empty())
            global = &d;
        }
        const Define *use = specific ? specific : global;
        if (!use) {
          complete = false;
          continue;
        }
        choices[i] = use->values;
        paramOrigin[i] = "-D " + use->text;
        origin += (origin.empty() ? "" : " ") + paramOrigin[i];
      }
      if (complete) {
        instances.push_back({});
        for (auto &c : choices) {
          std::vector<std::vector<std::string>> next;
          for (auto &partial : instances)
            for (const std::string &v : c) {
              next.push_back(partial);
              next.back().push_back(v);
            }
          instances = std::move(next);
          if (instances.size() > kMaxInstancesPerKernel)
            break;
        }
        origins.assign(instances.size(), origin);
      }
    }
    if (instances.size() > kMaxInstancesPerKernel) {
      error(k->loc,
            "kernel '" + k->name + "' has more than " + std::to_string(kMaxInstancesPerKernel) +
                " instances",
            "give fewer values with -D");
      continue;
    }
    // Each value against its parameter's kind, reported once per parameter
    // and value at the parameter's declaration.
    std::set<std::pair<size_t, std::string>> reported;
    auto bad = [&](size_t i, const std::string &v, const std::string &origin,
                   const std::string &msg, const std::string &hint) {
      if (reported.insert({i, v}).second)
        error(params[i].loc, (explicitInstances ? origin : paramOrigin[i]) + ": " + msg, hint);
    };
    // One value of parameter i, from the -D `origin`: its int or type, or
    // false after an error.
    auto checkValue = [&](size_t i, const std::string &v, const std::string &origin,
                          int64_t &value, ScalarKind &type) -> bool {
      int64_t x = 0;
      bool isInt = parseValue(v, x);
      std::optional<ScalarKind> t = isInt ? std::nullopt : scalarFromName(v);
      std::string of = "compile-time parameter '" + params[i].name + "' of kernel '" + k->name + "'";
      if (params[i].isType) {
        if (!t) {
          bad(i, v, origin,
              isInt ? "type parameter '" + params[i].name + "' of kernel '" + k->name +
                          "' needs a type, found the value " + v
                    : "unknown type '" + v + "' for type parameter '" + params[i].name +
                          "' of kernel '" + k->name + "'" +
                          (cTypeName(v) && !cTypeName(v)->empty()
                               ? "; C's " + v + " is " + *cTypeName(v)
                               : std::string()),
              "give a scalar type: i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, "
              "f64, e4m3, e5m2");
          return false;
        }
        type = *t;
        return true;
      }
      if (!isInt) {
        bad(i, v, origin,
            t ? "'" + params[i].name + "' of kernel '" + k->name + "' is a value parameter (" +
                    params[i].type.type.str() + "), but '" + v + "' is a type"
              : "'" + v + "' is not an integer (or true/false) for " + of,
            t ? "declare it `" + params[i].name + ": type` to take a type, or give a value"
              : "give a value of the parameter's type with -D");
        return false;
      }
      // As in the source: `true`/`false` are i1's values and an integer is
      // no i1 (`let b: i1 = 1` is an error), so neither stands for the other.
      bool isBool = trimmed(v) == "true" || trimmed(v) == "false";
      bool wantsBool = params[i].type.type.scalar == ScalarKind::I1;
      if (isBool != wantsBool) {
        bad(i, v, origin,
            wantsBool ? "the integer " + trimmed(v) + " is no value of i1 for " + of
                      : "'" + trimmed(v) + "' is an i1 value, not " + params[i].type.type.str() +
                            ", for " + of,
            wantsBool ? "give true or false for an i1 parameter (as `let b: i1 = true`)"
                      : "give an integer for the " + params[i].type.type.str() +
                            " parameter (1 or 0 for true or false), or declare it `" +
                            params[i].name + ": i1`");
        return false;
      }
      value = x;
      if (params[i].type.type.isInteger() && !fitsIn(x, params[i].type.type.scalar)) {
        if (reported.insert({i, v}).second)
          error(params[i].loc,
                "value " + std::to_string(x) + " of " + of + " does not fit in " +
                    params[i].type.type.str(),
                "give a value of the parameter's type with -D: " +
                    params[i].type.type.str() + " holds " +
                    rangeText(params[i].type.type.scalar));
        return false;
      }
      return true;
    };
    if (instances.empty()) {
      std::string names;
      for (auto &p : params)
        names += (names.empty() ? "" : ", ") + p.name;
      // Some parameters given and others not is a -D that missed one: name
      // what is missing.
      bool someGiven = false;
      std::string missing, firstMissing;
      for (size_t i = 0; i < params.size(); ++i) {
        if (!paramOrigin[i].empty()) {
          someGiven = true;
          continue;
        }
        missing += (missing.empty() ? "" : ", ") + params[i].name;
        if (firstMissing.empty())
          firstMissing = params[i].name;
      }
      // The values given are still checked: a -D that does not fit is an
      // error whether or not the others complete an instance.
      bool valuesOk = true;
      for (size_t i = 0; i < params.size(); ++i)
        for (const std::string &v : choices[i]) {
          int64_t value = 0;
          ScalarKind type = ScalarKind::I32;
          valuesOk = checkValue(i, v, paramOrigin[i], value, type) && valuesOk;
        }
      if (defineFailed || !valuesOk)
        continue;
      if (!explicitInstances && someGiven)
        diags_.warning(k->loc,
                       "kernel '" + k->name + "' has compile-time parameters (" + names +
                           ") and no instance: no -D gives " + missing +
                           ", so no PTX is emitted for it",
                       "give every parameter a value: `-D " + k->name + "." + firstMissing +
                           "=...`");
      else if (!explicitInstances)
        diags_.warning(k->loc,
                       "kernel '" + k->name + "' has compile-time parameters (" + names +
                           ") and no instance: no PTX is emitted for it",
                       "instantiate it with `tilec -D " + params[0].name +
                           "=...` (each parameter), "
                           "`-D " +
                           k->name + "." + params[0].name + "=...` or `-D '" + k->name + "<...>'`");
      continue;
    }
    std::set<std::vector<std::string>> seen;
    for (size_t n = 0; n < instances.size(); ++n) {
      const std::vector<std::string> &values = instances[n];
      if (!seen.insert(values).second)
        continue; // the same instance asked twice
      bool ok = true;
      std::vector<int64_t> ints(params.size(), 0);
      std::vector<ScalarKind> types(params.size(), ScalarKind::I32);
      for (size_t i = 0; i < params.size(); ++i)
        ok = checkValue(i, values[i], origins[n], ints[i], types[i]) && ok;
      if (!ok)
        continue;
      std::vector<std::pair<std::string, ScalarKind>> typeArgs;
      for (size_t i = 0; i < params.size(); ++i)
        if (params[i].isType)
          typeArgs.push_back({params[i].name, types[i]});
      std::unique_ptr<KernelAST> inst = Parser::parseKernelAgain(k->tokens, diags_, typeArgs);
      if (!inst) { // a type the syntax does not take (vec<f32, 8>): name the instance
        std::string args;
        Location at = k->loc;
        bool atType = false;
        for (size_t i = 0; i < params.size(); ++i) {
          args += (i ? ", " : "") + params[i].name + " = " +
                  (params[i].isType ? std::string(scalarName(types[i])) : std::to_string(ints[i]));
          if (params[i].isType && !atType) {
            at = params[i].loc;
            atType = true;
          }
        }
        diags_.note(at, "in the instance " + k->name + "<" + args + "> of kernel '" + k->name +
                            "' (from " + origins[n] + ")");
        continue;
      }
      inst->sourceName = k->name;
      inst->templateTypeArgs = typeArgs;
      inst->instanceOrigin = origins[n];
      ::tile::TypeArgs mangledTypes;
      for (size_t i = 0; i < params.size(); ++i) {
        auto d = std::make_unique<Decl>();
        d->name = params[i].name;
        d->loc = params[i].loc;
        if (params[i].isType) {
          d->kind = DeclKind::TypeParam;
          d->type = Type::invalid();
          d->typeValue = types[i];
          mangledTypes.push_back({params[i].name, scalarName(types[i])});
        } else {
          inst->templateArgs.push_back({params[i].name, ints[i]});
          d->kind = DeclKind::Const;
          d->type = params[i].type.type.isInteger() ? params[i].type.type : Type::i32();
          d->constInt = ints[i];
        }
        inst->templateDecls.push_back(std::move(d));
      }
      // k$Tf16$BM128: the runtime finds it by the same rule (kernel_info.h).
      inst->name = ::tile::mangledKernelName(k->name, inst->templateArgs, mangledTypes);
      inst->tokens.clear();
      out.push_back(std::move(inst));
    }
  }
  module.kernels = std::move(out);
}

//===----------------------------------------------------------------------===//
// Compile-time type queries and `if const`
//===----------------------------------------------------------------------===//

namespace {
/// The type a name in an expression stands for: a bound type parameter, or
/// a scalar type's name that no declaration shadows.
std::optional<ScalarKind> typeNamed(const ExprAST &e, Decl *decl) {
  auto *v = e.as<VarRefExpr>();
  if (!v || v->ringStageTile)
    return std::nullopt;
  if (decl)
    return decl->kind == DeclKind::TypeParam ? std::optional<ScalarKind>(decl->typeValue)
                                             : std::nullopt;
  return scalarFromName(v->name);
}
} // namespace

bool Sema::resolveTypeQuery(ExprPtr &e) {
  auto typeOf = [&](const ExprPtr &x) -> std::optional<ScalarKind> {
    auto *v = x ? x->as<VarRefExpr>() : nullptr;
    return v ? typeNamed(*v, lookup(v->name)) : std::nullopt;
  };
  auto replace = [&](ExprPtr lit) {
    lit->depth = e->depth;
    e = std::move(lit);
    return true;
  };
  if (auto *b = e->as<BinaryExpr>()) {
    std::optional<ScalarKind> l = typeOf(b->lhs), r = typeOf(b->rhs);
    if (!l && !r)
      return false;
    const char *hint = "compare a type with a type: `T == f16`, `T != e4m3`; ask `size_of(T)`, "
                       "`is_float(T)` or `is_int(T)` for its kind";
    auto *v = (l ? b->lhs : b->rhs)->as<VarRefExpr>();
    if (l && r && (b->op == BinaryOp::Eq || b->op == BinaryOp::Ne))
      return replace(std::make_unique<BoolLiteralExpr>(b->loc, (*l == *r) == (b->op == BinaryOp::Eq)));
    if (l && r)
      error(b->loc, std::string("types compare only with `==` and `!=`, not `") +
                        binaryOpSpelling(b->op) + "`",
            "order them by size: `size_of(T) < size_of(U)`");
    else if (b->op == BinaryOp::Eq || b->op == BinaryOp::Ne)
      error(v->loc,
            "'" + v->name + "' is a type" +
                (scalarFromName(v->name) ? std::string()
                                         : std::string(" parameter (here ") +
                                               scalarName(l ? *l : *r) + ")") +
                ", compared with a value",
            hint);
    else
      return false; // `T + 1`: resolveName says a type is not a value
    v->typeAsValueReported = true;
    return replace(std::make_unique<BoolLiteralExpr>(b->loc, false));
  }
  auto *c = e->as<CallExpr>();
  if (!c || !isTypeQueryName(c->callee) ||
      functions_.count(c->callee) || lookup(c->callee))
    return false;
  bool isSize = c->callee == "size_of";
  std::string form = c->callee + "(T)";
  std::optional<ScalarKind> t =
      c->args.size() == 1 && c->namedArgs.empty() && c->typeArgs.empty() ? typeOf(c->args[0])
                                                                         : std::nullopt;
  if (!t) {
    Location at = c->args.size() == 1 ? c->args[0]->loc : c->loc;
    error(at,
          "'" + c->callee + "' takes one scalar type" +
              (c->args.size() == 1 ? std::string(", not a value") : std::string()),
          "write `" + form + "` with a type parameter or a scalar type (`" + c->callee +
              "(f16)`); for a value x declared `x: T`, ask about T");
    if (isSize)
      return replace(std::make_unique<IntLiteralExpr>(c->loc, 1));
    return replace(std::make_unique<BoolLiteralExpr>(c->loc, false));
  }
  if (isSize) {
    auto lit = std::make_unique<IntLiteralExpr>(c->loc, (int64_t)byteSize(*t));
    lit->magnitude = byteSize(*t);
    lit->query = "size_of(" + c->args[0]->as<VarRefExpr>()->name + ")";
    return replace(std::move(lit));
  }
  bool v = c->callee == "is_float" ? isFloatKind(*t) : isIntegerKind(*t);
  return replace(std::make_unique<BoolLiteralExpr>(c->loc, v));
}

void Sema::checkConstIf(IfStmt &s) {
  Type b = Type::i1();
  bool ok = !checkValue(s.cond, &b, "condition of 'if const'",
                        "compare explicitly, e.g. `size_of(T) == 1`")
                 .isInvalid() &&
            // `1 / 0`, `1 << 40` have no value to pick a branch with (the
            // run-time rule would pick one silently); the statement's own
            // check never sees the condition, replaced below.
            checkConstantOps(*s.cond) && !reportUndefinedConstantStep(*s.cond);
  std::optional<ConstValue> c = ok ? evalConstant(*s.cond) : std::nullopt;
  // Also a constant: a `let` of one, a function's parameter whose argument
  // is one (calls are inlined), an unrolled loop's variable where every
  // copy gives one value.
  bool overflow = false;
  std::optional<std::vector<int64_t>> every =
      ok && !c ? foldEveryCopy(*s.cond, overflow) : std::nullopt;
  if (every && !overflow &&
      std::all_of(every->begin(), every->end(), [&](int64_t v) { return v == every->front(); })) {
    c = ConstValue{};
    c->i = every->front();
  } else if (every && !overflow)
    error(s.cond->loc,
          "the condition of `if const` is a constant in each copy of an unrolled loop, not "
          "one constant: the loop's body is checked once for all its copies",
          "write `if` without `const`: each copy folds its condition and emits one branch "
          "(both branches are checked)");
  else if (ok && !c)
    error(s.cond->loc, "the condition of `if const` is not a compile-time constant",
          "build it from literals, constants, compile-time parameters and type queries "
          "(`T == e4m3`, `size_of(T) == 2`, `is_float(T)`); for a condition known only when "
          "the kernel runs, write `if` without `const`");
  // Only the taken branch is checked and emitted; the other was parsed
  // only. Every later pass and MLIRGen see `if true { taken }`.
  Block taken;
  if (c) {
    taken = std::move(c->i != 0 ? s.thenBody : s.elseBody);
    checkDeadBranchNames(c->i != 0 ? s.elseBody : s.thenBody, s.cond->loc); // SemaDeadBranch.cpp
  }
  s.constFailed = !c; // neither branch checked: not "may fall off the end" too
  s.thenBody = std::move(taken);
  s.elseBody.clear();
  s.hasElse = false;
  Location at = s.cond->loc;
  s.cond = std::make_unique<BoolLiteralExpr>(at, true);
  s.cond->type = Type::i1();
  pushScope();
  checkBlock(s.thenBody, false);
  popScope();
}

} // namespace tile::frontend
