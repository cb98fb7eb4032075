// PTX lexer: splits a PTX text into tokens (identifiers, numbers, strings,
// punctuation). Internal to the ptx module (used by the parser only).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace predatar::ptx::detail {

enum class Tok : uint8_t { Ident, Int, Float, String, Punct, End };

struct Token {
  Tok kind;
  std::string_view text;
  uint32_t line;
  uint64_t bits = 0;  // Int: value; Float: raw bits
  bool f64 = false;   // Float: 0d / decimal
};

// Appends the tokens of `s` to `out`, ending with a Tok::End token; `src`
// names the text in error messages.
absl::Status lex(std::string_view s, const std::string& src, std::vector<Token>& out);

}  // namespace predatar::ptx::detail
