#include "ptx/Lexer.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace predatar::ptx::detail {

// ---------------------------------------------------------------- lexer

namespace {

bool identStart(char c) { return std::isalpha(uint8_t(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool identChar(char c) { return std::isalnum(uint8_t(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }

// Whole-text unsigned integer in `base`; false on junk, empty or overflow.
bool parseUnsigned(std::string_view t, int base, uint64_t& out) {
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out, base);
  return ec == std::errc() && p == t.data() + t.size();
}

// Fills tok.kind/bits/f64 from tok.text as ptxas reads numbers: 0fXXXXXXXX and
// 0dXXXXXXXXXXXXXXXX raw floats, decimal floats, hex/binary/octal/decimal
// integers with an optional U suffix. False when the text is not a valid number
// (a malformed literal, `09`, an out-of-range value): never throws.
bool numberToken(Token& tok) {
  std::string_view t = tok.text;
  bool prefixed = t.size() > 1 && t[0] == '0';
  char p = prefixed ? char(std::tolower(uint8_t(t[1]))) : 0;
  if (p == 'f' || p == 'd') {  // raw IEEE bits: exactly 8 or 16 hex digits
    tok.kind = Tok::Float;
    tok.f64 = p == 'd';
    std::string_view hex = t.substr(2);
    return hex.size() == (tok.f64 ? 16u : 8u) && parseUnsigned(hex, 16, tok.bits);
  }
  if (p != 'x' && t.find_first_of(".eE") != std::string_view::npos) {
    tok.kind = Tok::Float;
    tok.f64 = true;
    std::string text(t);
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    // Underflow to a denormal or zero is what ptxas does too; overflow is an error.
    if (end != text.c_str() + text.size() || !std::isfinite(d)) return false;
    std::memcpy(&tok.bits, &d, 8);
    return true;
  }
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.remove_suffix(1);
  if (p == 'x') return parseUnsigned(t.substr(2), 16, tok.bits);
  if (p == 'b') return parseUnsigned(t.substr(2), 2, tok.bits);
  if (t.size() > 1 && t[0] == '0') return parseUnsigned(t.substr(1), 8, tok.bits);
  return parseUnsigned(t, 10, tok.bits);
}

}  // namespace

absl::Status lex(std::string_view s, const std::string& src, std::vector<Token>& out) {
  uint32_t line = 1;
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace(uint8_t(c))) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') ++line; ++i; }
      i += 2;
      continue;
    }
    size_t b = i;
    if (c == '"') {
      ++i;
      while (i < n && s[i] != '"') ++i;
      out.push_back({Tok::String, s.substr(b + 1, i - b - 1), line});
      ++i;
      continue;
    }
    if (c == '@' && i + 1 < n && s[i + 1] == '@') {  // @@DWARF line: skip
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (std::isdigit(uint8_t(c))) {
      while (i < n && (std::isalnum(uint8_t(s[i])) || s[i] == '.' ||
                       ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E') &&
                        !(s[b] == '0' && b + 1 < n && (s[b + 1] == 'x' || s[b + 1] == 'X' || s[b + 1] == 'f' ||
                                                         s[b + 1] == 'F' || s[b + 1] == 'd' || s[b + 1] == 'D')))))
        ++i;
      Token tok{Tok::Int, s.substr(b, i - b), line};
      if (!numberToken(tok))
        return absl::InvalidArgumentError(src + ":" + std::to_string(line) + ": bad number '" +
                                          std::string(tok.text) + "'");
      out.push_back(tok);
      continue;
    }
    if (identStart(c)) {
      while (i < n && identChar(s[i])) ++i;
      // PTX modifiers such as .L1::evict_last or .L2::cache_hint contain "::".
      while (i + 2 < n && s[i] == ':' && s[i + 1] == ':' && identChar(s[i + 2])) {
        i += 2;
        while (i < n && identChar(s[i])) ++i;
      }
      out.push_back({Tok::Ident, s.substr(b, i - b), line});
      continue;
    }
    out.push_back({Tok::Punct, s.substr(i, 1), line});
    ++i;
  }
  out.push_back({Tok::End, {}, line});
  return absl::OkStatus();
}

}  // namespace predatar::ptx::detail
