#include "sim/KernelArgs.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace predatar::sim {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep, size_t maxParts = SIZE_MAX) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < maxParts) {
    size_t p = s.find(sep);
    if (p == std::string_view::npos) break;
    out.push_back(s.substr(0, p));
    s.remove_prefix(p + 1);
  }
  out.push_back(s);
  return out;
}

absl::StatusOr<uint64_t> parseUnsigned(std::string_view s, std::string_view what) {
  uint64_t v = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { s.remove_prefix(2); base = 16; }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    return absl::InvalidArgumentError("bad " + std::string(what) + " '" + std::string(s) + "'");
  return v;
}

bool isFloatType(ElementType t) { return t == ElementType::F32 || t == ElementType::F64; }
bool isSignedType(ElementType t) {
  return t == ElementType::I8 || t == ElementType::I16 || t == ElementType::I32 || t == ElementType::I64;
}

// Encodes `text` as a value of type t into out (elementBytes(t) bytes).
absl::Status encodeValue(std::string_view text, ElementType t, uint8_t* out) {
  std::string s(text);
  try {
    size_t used = 0;
    if (isFloatType(t)) {
      double d = std::stod(s, &used);
      if (used != s.size()) throw std::invalid_argument(s);
      if (t == ElementType::F32) { float f = float(d); std::memcpy(out, &f, 4); }
      else std::memcpy(out, &d, 8);
    } else if (isSignedType(t)) {
      long long v = std::stoll(s, &used, 0);
      if (used != s.size()) throw std::invalid_argument(s);
      std::memcpy(out, &v, elementBytes(t));
    } else {
      if (!s.empty() && s[0] == '-') {
        long long v = std::stoll(s, &used, 0);
        if (used != s.size()) throw std::invalid_argument(s);
        std::memcpy(out, &v, elementBytes(t));
      } else {
        unsigned long long v = std::stoull(s, &used, 0);
        if (used != s.size()) throw std::invalid_argument(s);
        std::memcpy(out, &v, elementBytes(t));
      }
    }
  } catch (...) {
    return absl::InvalidArgumentError("bad " + std::string(toString(t)) + " value '" + s + "'");
  }
  return absl::OkStatus();
}

void storeNumber(uint8_t* out, ElementType t, double fv, uint64_t iv) {
  switch (t) {
    case ElementType::F32: { float f = float(fv); std::memcpy(out, &f, 4); break; }
    case ElementType::F64: std::memcpy(out, &fv, 8); break;
    default: std::memcpy(out, &iv, elementBytes(t)); break;
  }
}

// "0a00ff" -> {0x0a, 0x00, 0xff}.
absl::StatusOr<std::vector<uint8_t>> parseHexBytes(std::string_view hex) {
  if (hex.size() % 2) return absl::InvalidArgumentError("'" + std::string(hex) + "' has an odd number of hex digits");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    auto [p, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, out[i], 16);
    if (ec != std::errc() || p != hex.data() + 2 * i + 2)
      return absl::InvalidArgumentError("'" + std::string(hex.substr(2 * i, 2)) + "' in '" + std::string(hex) +
                                        "' is not a byte in hex");
  }
  return out;
}

}  // namespace

uint32_t elementBytes(ElementType t) {
  switch (t) {
    case ElementType::I8: case ElementType::U8: return 1;
    case ElementType::I16: case ElementType::U16: return 2;
    case ElementType::I32: case ElementType::U32: case ElementType::F32: return 4;
    default: return 8;
  }
}

const char* toString(ElementType t) {
  static const char* names[] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"};
  return names[static_cast<int>(t)];
}

absl::StatusOr<ElementType> parseElementType(std::string_view n) {
  struct { const char* name; ElementType t; } table[] = {
      {"i8", ElementType::I8}, {"s8", ElementType::I8}, {"char", ElementType::I8}, {"int8", ElementType::I8},
      {"u8", ElementType::U8}, {"uchar", ElementType::U8}, {"byte", ElementType::U8}, {"uint8", ElementType::U8},
      {"i16", ElementType::I16}, {"s16", ElementType::I16}, {"short", ElementType::I16}, {"int16", ElementType::I16},
      {"u16", ElementType::U16}, {"ushort", ElementType::U16}, {"uint16", ElementType::U16},
      {"i32", ElementType::I32}, {"s32", ElementType::I32}, {"int", ElementType::I32}, {"int32", ElementType::I32},
      {"u32", ElementType::U32}, {"uint", ElementType::U32}, {"unsigned", ElementType::U32}, {"uint32", ElementType::U32},
      {"i64", ElementType::I64}, {"s64", ElementType::I64}, {"long", ElementType::I64}, {"int64", ElementType::I64},
      {"u64", ElementType::U64}, {"ulong", ElementType::U64}, {"uint64", ElementType::U64},
      {"f32", ElementType::F32}, {"float", ElementType::F32}, {"f64", ElementType::F64}, {"double", ElementType::F64}};
  for (auto& e : table)
    if (n == e.name) return e.t;
  return absl::InvalidArgumentError("unknown element type '" + std::string(n) +
                                    "' (use i8 u8 i16 u16 i32 u32 i64 u64 f32 f64)");
}

absl::StatusOr<Dim3> parseDim3(std::string_view text) {
  auto parts = split(text, ',');
  if (parts.empty() || parts.size() > 3) return absl::InvalidArgumentError("bad dimensions '" + std::string(text) + "'");
  uint32_t v[3] = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i) {
    auto n = parseUnsigned(parts[i], "dimension");
    if (!n.ok()) return n.status();
    if (*n == 0 || *n > UINT32_MAX) return absl::InvalidArgumentError("dimension out of range in '" + std::string(text) + "'");
    v[i] = uint32_t(*n);
  }
  return Dim3{v[0], v[1], v[2]};
}

namespace {

template <typename Bad>
absl::StatusOr<ArgSpec> parseBytesSpec(ArgSpec& a, const std::vector<std::string_view>& parts, const Bad& bad) {
  if (parts.size() < 2 || parts.size() > 3) return bad("bytes takes a size and, optionally, its bytes in hex");
  a.kind = ArgSpec::Kind::Bytes;
  auto size = parseUnsigned(parts[1], "byte count");
  if (!size.ok()) return bad(std::string(size.status().message()));
  if (*size == 0 || *size > 32764) return bad("a parameter holds 1 to 32764 bytes (CUDA's limit for all of them)");
  a.count = *size;
  if (parts.size() == 3) {
    auto bytes = parseHexBytes(parts[2]);
    if (!bytes.ok()) return bad(std::string(bytes.status().message()));
    if (bytes->size() > a.count)
      return bad(std::to_string(bytes->size()) + " bytes given for a parameter of " + std::to_string(a.count));
    a.bytes = std::move(*bytes);
  }
  return a;
}

}  // namespace

absl::StatusOr<ArgSpec> parseArgSpec(std::string_view spec) {
  ArgSpec a;
  a.text = std::string(spec);
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError("bad argument '" + std::string(spec) + "': " + why +
                                      " (expected buf:TYPE:COUNT[:zeros|iota|random[:SEED]|fill:V|file:PATH] or "
                                      "scalar:TYPE:VALUE or bytes:SIZE[:HEX])");
  };
  auto parts = split(spec, ':', 5);
  if (parts[0] == "bytes") return parseBytesSpec(a, parts, bad);
  if (parts.size() < 3) return bad("too few fields");
  auto type = parseElementType(parts[1]);
  if (!type.ok()) return bad(std::string(type.status().message()));
  a.type = *type;
  if (parts[0] == "scalar") {
    if (parts.size() != 3) return bad("a scalar takes one value");
    a.kind = ArgSpec::Kind::Scalar;
    a.value = std::string(parts[2]);
    uint8_t tmp[8];
    if (auto st = encodeValue(a.value, a.type, tmp); !st.ok()) return bad(std::string(st.message()));
    return a;
  }
  if (parts[0] != "buf" && parts[0] != "buffer") return bad("unknown kind '" + std::string(parts[0]) + "'");
  auto count = parseUnsigned(parts[2], "element count");
  if (!count.ok()) return bad(std::string(count.status().message()));
  a.count = *count;
  if (parts.size() == 3) return a;
  std::string_view init = parts[3];
  std::string_view arg = parts.size() > 4 ? parts[4] : std::string_view();
  if (init == "zeros" || init == "zero") a.init = ArgSpec::Init::Zeros;
  else if (init == "iota") a.init = ArgSpec::Init::Iota;
  else if (init == "random") {
    a.init = ArgSpec::Init::Random;
    if (!arg.empty()) {
      auto s = parseUnsigned(arg, "seed");
      if (!s.ok()) return bad(std::string(s.status().message()));
      a.seed = *s;
    }
    return a;
  } else if (init == "fill") {
    a.init = ArgSpec::Init::Fill;
    a.value = std::string(arg);
    uint8_t tmp[8];
    if (auto st = encodeValue(a.value, a.type, tmp); !st.ok()) return bad(std::string(st.message()));
    return a;
  } else if (init == "file") {
    a.init = ArgSpec::Init::File;
    a.path = std::string(arg);
    if (a.path.empty()) return bad("missing file path");
    return a;
  } else return bad("unknown initializer '" + std::string(init) + "'");
  if (!arg.empty()) return bad("unexpected field '" + std::string(arg) + "'");
  return a;
}

absl::StatusOr<KernelArgs> KernelArgs::build(const KernelSignature& kernel, const std::vector<ArgSpec>& specs,
                                             DeviceMemory& memory) {
  if (specs.size() != kernel.params.size())
    return absl::InvalidArgumentError("kernel '" + kernel.name + "' takes " + std::to_string(kernel.params.size()) +
                                      " arguments, " + std::to_string(specs.size()) + " given");
  KernelArgs out;
  out.values_.resize(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec& s = specs[i];
    const KernelParam& p = kernel.params[i];
    auto& bytes = out.values_[i];
    bytes.assign(std::max<uint32_t>(p.bytes, 8), 0);
    std::string where = "argument " + std::to_string(i + 1) + " ('" + s.text + "') for parameter " + p.name;
    // (a parameter that is not 1, 2, 4 or 8 bytes is a struct passed by value)
    std::string structHint = p.bytes != 1 && p.bytes != 2 && p.bytes != 4 && p.bytes != 8
                                 ? " (a struct by value: pass bytes:" + std::to_string(p.bytes) + "[:HEX])"
                                 : "";
    if (s.kind == ArgSpec::Kind::Bytes) {
      if (s.count != p.bytes)
        return absl::InvalidArgumentError(where + ": " + std::to_string(s.count) + " bytes given, the parameter is " +
                                          std::to_string(p.bytes));
      std::copy(s.bytes.begin(), s.bytes.end(), bytes.begin());
      continue;
    }
    if (s.kind == ArgSpec::Kind::Scalar) {
      if (elementBytes(s.type) != p.bytes)
        return absl::InvalidArgumentError(where + ": a " + toString(s.type) + " is " +
                                          std::to_string(elementBytes(s.type)) + " bytes, the parameter is " +
                                          std::to_string(p.bytes) + structHint);
      if (auto st = encodeValue(s.value, s.type, bytes.data()); !st.ok()) return st;
      continue;
    }
    if (p.bytes != 8)
      return absl::InvalidArgumentError(where + ": a buffer needs a 64-bit pointer parameter, this one is " +
                                        std::to_string(p.bytes) + " bytes" + structHint);
    uint32_t eb = elementBytes(s.type);
    uint64_t size = s.count * eb;
    uint64_t addr = memory.allocate(size, p.name);
    if (!addr) return absl::ResourceExhaustedError(where + ": cannot allocate " + std::to_string(size) + " bytes");
    auto* data = reinterpret_cast<uint8_t*>(addr);
    switch (s.init) {
      case ArgSpec::Init::Zeros: break;
      case ArgSpec::Init::Iota:
        for (uint64_t k = 0; k < s.count; ++k) storeNumber(data + k * eb, s.type, double(k), k);
        break;
      case ArgSpec::Init::Random: {
        std::mt19937_64 rng(s.seed);
        std::uniform_real_distribution<double> real(0.0, 1.0);
        for (uint64_t k = 0; k < s.count; ++k) storeNumber(data + k * eb, s.type, real(rng), rng() % 1000);
        break;
      }
      case ArgSpec::Init::Fill: {
        uint8_t v[8];
        if (auto st = encodeValue(s.value, s.type, v); !st.ok()) return st;
        for (uint64_t k = 0; k < s.count; ++k) std::memcpy(data + k * eb, v, eb);
        break;
      }
      case ArgSpec::Init::File: {
        std::ifstream f(s.path, std::ios::binary | std::ios::ate);
        if (!f) return absl::NotFoundError(where + ": cannot open '" + s.path + "'");
        uint64_t fsize = uint64_t(f.tellg());
        if (fsize != size)
          return absl::InvalidArgumentError(where + ": '" + s.path + "' holds " + std::to_string(fsize) +
                                            " bytes, expected " + std::to_string(size));
        f.seekg(0);
        f.read(reinterpret_cast<char*>(data), std::streamsize(size));
        break;
      }
    }
    std::memcpy(bytes.data(), &addr, 8);
    out.buffers_.push_back(Buffer{i, p.name, s.type, s.count, addr});
  }
  for (auto& v : out.values_) out.pointers_.push_back(v.data());
  return out;
}

std::string KernelArgs::format(const Buffer& b, size_t maxElements) {
  std::ostringstream os;
  os << b.name << " (param " << b.param << ") " << toString(b.type) << "[" << b.count << "]:";
  const auto* data = reinterpret_cast<const uint8_t*>(b.address);
  uint32_t eb = elementBytes(b.type);
  uint64_t n = std::min<uint64_t>(b.count, maxElements);
  os.precision(9);
  for (uint64_t k = 0; k < n; ++k) {
    const uint8_t* p = data + k * eb;
    os << ' ';
    switch (b.type) {
      case ElementType::I8: { int8_t v; std::memcpy(&v, p, 1); os << int(v); break; }
      case ElementType::U8: { uint8_t v; std::memcpy(&v, p, 1); os << unsigned(v); break; }
      case ElementType::I16: { int16_t v; std::memcpy(&v, p, 2); os << v; break; }
      case ElementType::U16: { uint16_t v; std::memcpy(&v, p, 2); os << v; break; }
      case ElementType::I32: { int32_t v; std::memcpy(&v, p, 4); os << v; break; }
      case ElementType::U32: { uint32_t v; std::memcpy(&v, p, 4); os << v; break; }
      case ElementType::I64: { int64_t v; std::memcpy(&v, p, 8); os << v; break; }
      case ElementType::U64: { uint64_t v; std::memcpy(&v, p, 8); os << v; break; }
      case ElementType::F32: { float v; std::memcpy(&v, p, 4); os << v; break; }
      case ElementType::F64: { double v; std::memcpy(&v, p, 8); os << v; break; }
    }
  }
  if (n < b.count) os << " ...";
  return os.str();
}

std::string KernelArgs::dump(size_t maxElements) const {
  std::string s;
  for (auto& b : buffers_) s += format(b, maxElements) + "\n";
  return s;
}

absl::Status KernelArgs::writeBinary(const Buffer& b, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return absl::PermissionDeniedError("cannot write '" + path + "'");
  f.write(reinterpret_cast<const char*>(b.address), std::streamsize(b.count * elementBytes(b.type)));
  return f ? absl::OkStatus() : absl::DataLossError("short write to '" + path + "'");
}

}  // namespace predatar::sim
