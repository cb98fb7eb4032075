// Texture fetches (PTX tex.1d/2d/3d, layered a1d/a2d, cube and acube through texture objects) with CUDA's
// sampling rules: normalized coordinates, wrap/clamp/mirror/border addressing
// (wrap and mirror need normalized coordinates, else they clamp), point
// sampling, linear filtering with 8-bit fractional weights as the hardware
// computes them, and element-type or normalized-float reads. Texture reads
// are not memory events: textures are read-only while a kernel runs.
#include "sim/Texture.h"

#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

#include "sim/Exec.h"

namespace predatar::sim {

namespace {

using CornerWeights = std::array<uint32_t, 8>;

struct Registry {
  std::mutex mutex;
  std::map<uint64_t, TextureObject> objects;
  uint64_t next = 1;
  uint64_t destroyed = 0;
};
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

// One channel of a texel as read (raw integer value or float).
double channelValue(const TextureObject& t, const uint8_t* texel, uint32_t c) {
  const uint8_t* p = texel + c * t.channelBytes;
  switch (t.kind) {
    case TextureObject::Kind::Float: {
      if (t.channelBytes == 4) { float f; std::memcpy(&f, p, 4); return f; }
      return 0;  // half-float channels are refused when the texture is created
    }
    case TextureObject::Kind::Unsigned: {
      uint32_t v = 0;
      std::memcpy(&v, p, t.channelBytes);
      return t.normalizedFloat ? double(v) / double((1ull << (8 * t.channelBytes)) - 1) : double(v);
    }
    case TextureObject::Kind::Signed: {
      int64_t v = 0;
      if (t.channelBytes == 1) v = int8_t(*p);
      else if (t.channelBytes == 2) { int16_t s; std::memcpy(&s, p, 2); v = s; }
      else { int32_t s; std::memcpy(&s, p, 4); v = s; }
      if (!t.normalizedFloat) return double(v);
      double scale = double((1ull << (8 * t.channelBytes - 1)) - 1);
      return std::max(double(v) / scale, -1.0);
    }
  }
  return 0;
}

// Resolves integer texel index `i` in [0, n) under an address mode; false: border.
bool resolveIndex(int64_t& i, uint64_t n, TextureObject::Address mode, bool normalized) {
  int64_t size = int64_t(n);
  if (!normalized && (mode == TextureObject::Address::Wrap || mode == TextureObject::Address::Mirror))
    mode = TextureObject::Address::Clamp;
  switch (mode) {
    case TextureObject::Address::Clamp: i = std::clamp<int64_t>(i, 0, size - 1); return true;
    case TextureObject::Address::Border: return i >= 0 && i < size;
    case TextureObject::Address::Wrap: i = ((i % size) + size) % size; return true;
    case TextureObject::Address::Mirror: {
      int64_t period = 2 * size, m = ((i % period) + period) % period;
      i = m < size ? m : period - 1 - m;
      return true;
    }
  }
  return true;
}

struct Texel {
  double v[4] = {0, 0, 0, 0};
};

Texel readTexel(const TextureObject& t, int64_t x, int64_t y, int64_t z) {
  Texel out;
  int64_t idx[3] = {x, y, z};
  uint64_t size[3] = {t.width, t.height, t.depth};
  for (int d = 0; d < 3; ++d)
    if (!resolveIndex(idx[d], size[d], t.address[d], t.normalizedCoords)) {
      for (int c = 0; c < 4; ++c) out.v[c] = t.border[c];
      return out;
    }
  uint64_t texelBytes = uint64_t(t.channels) * t.channelBytes;
  const uint8_t* p = t.data + (uint64_t(idx[2]) * t.height + uint64_t(idx[1])) * t.pitch + uint64_t(idx[0]) * texelBytes;
  for (uint32_t c = 0; c < t.channels; ++c) out.v[c] = channelValue(t, p, c);
  if (t.channels < 4) out.v[3] = (t.kind == TextureObject::Kind::Float || t.normalizedFloat) ? 1.0 : 0.0;
  return out;
}

// Texel coordinate along one dimension: normalized coordinates scale by the
// size; wrap and mirror keep the fractional part first.
double texelCoordinate(const TextureObject& t, double x, uint64_t size) {
  if (!t.normalizedCoords) return x;
  return x * double(size);
}

// The weights of a linear fetch's corners (corner k takes the upper texel
// along dimension d when bit d of k is set), in 1/256, from the fractions
// `frac` (in 1/256). The hardware rounds each weight to 1/256 and keeps
// their sum exactly 1: measured on an H200 (bench/native/RESULTS.md, round
// 48), a 2D fetch's four weights are round-half-up(a*b) for the upper-upper
// corner and the rest by difference (a - it, b - it, 1 - a - b + it), at all
// 65,536 pairs of fractions. A 3D fetch repeats that rule on x and z, then
// splits each weight between the lower and upper y by rounding the upper
// part half down: 5,690 of the 5,832 measured weight sets (every one to
// 1/256; the others differ by 1/256 at ties).
CornerWeights cornerWeights(const uint32_t* frac, uint32_t dims) {
  CornerWeights w{};
  if (dims == 1) {
    w[0] = 256 - frac[0];
    w[1] = frac[0];
    return w;
  }
  uint32_t a = frac[0], b = frac[dims == 3 ? 2 : 1];
  uint32_t both = (a * b + 128) >> 8;
  uint32_t plane[4] = {256 - a - b + both, a - both, b - both, both};  // (lo,lo) (hi,lo) (lo,hi) (hi,hi)
  if (dims == 2) {
    for (int k = 0; k < 4; ++k) w[k] = plane[k];
    return w;
  }
  for (uint32_t k = 0; k < 4; ++k) {  // k: bit 0 x, bit 1 z
    uint32_t upperY = (plane[k] * frac[1] + 127) >> 8;
    uint32_t x = k & 1, z = (k >> 1) & 1;
    w[x + 2 + 4 * z] = upperY;
    w[x + 4 * z] = plane[k] - upperY;
  }
  return w;
}

// Samples at `coord` (its first `dims` components); a 1D or 2D fetch reads
// slice `slice` (a layer or cube face), which is never filtered across.
Texel sampleSlice(const TextureObject& t, const double* coord, uint32_t dims, int64_t slice) {
  uint64_t size[3] = {t.width, t.height, t.depth};
  double u[3] = {0, 0, 0};
  for (uint32_t d = 0; d < dims; ++d) u[d] = texelCoordinate(t, coord[d], size[d]);
  if (!t.linearFilter) {
    int64_t i[3] = {0, 0, 0};
    for (uint32_t d = 0; d < dims; ++d) i[d] = int64_t(std::floor(u[d]));
    if (dims < 3) i[2] = slice;
    return readTexel(t, i[0], i[1], i[2]);
  }
  // Linear: weights from the 8-bit fraction of u - 0.5 (the hardware's 1.8 fixed point).
  int64_t base[3] = {0, 0, slice};
  uint32_t frac[3] = {0, 0, 0};  // in 1/256
  for (uint32_t d = 0; d < dims; ++d) {
    double b = u[d] - 0.5;
    base[d] = int64_t(std::floor(b));
    frac[d] = uint32_t(std::round((b - std::floor(b)) * 256.0));
  }
  CornerWeights w = cornerWeights(frac, dims);
  Texel out;
  for (uint32_t k = 0; k < (1u << dims); ++k) {
    if (w[k] == 0) continue;
    int64_t i[3] = {0, 0, base[2]};
    for (uint32_t d = 0; d < dims; ++d) i[d] = base[d] + ((k >> d) & 1);
    Texel v = readTexel(t, i[0], i[1], i[2]);
    for (int c = 0; c < 4; ++c) out.v[c] += (w[k] / 256.0) * v.v[c];
  }
  return out;
}

// A cube fetch's direction as a face (the slice within its cube) and normalized
// face coordinates s, t: the major axis (largest magnitude; ties go to z, then
// y) picks the face, the other two components divided by it give s and t as
// the CUDA programming guide's cubemap table defines them.
struct CubeFace {
  uint32_t face;
  double s, t;
};
CubeFace cubeFace(double x, double y, double z) {
  double ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  auto at = [](uint32_t f, double a, double b, double m) {
    return m == 0 ? CubeFace{f, 0.5, 0.5} : CubeFace{f, (a + m) / (2 * m), (b + m) / (2 * m)};
  };
  if (az >= ax && az >= ay) return z >= 0 ? at(4, x, -y, az) : at(5, -x, -y, az);
  if (ay >= ax) return y >= 0 ? at(2, x, z, ay) : at(3, x, -z, ay);
  return x >= 0 ? at(0, -z, -y, ax) : at(1, z, -y, ax);
}

// One lane's fetch: `coord` holds the layer (layered geometries) and then the
// coordinates as the instruction gives them.
Texel fetch(const TextureObject& t, uint8_t geometry, const double* coord, bool floatCoords) {
  uint32_t dims = geometry & ptx::kTexDims;
  int64_t slice = 0;
  if (geometry & ptx::kTexLayered) {  // the layer index is clamped to the layers there are
    uint64_t perLayer = (geometry & ptx::kTexCube) ? 6 : 1;
    int64_t layers = int64_t(std::max<uint64_t>(t.depth / perLayer, 1));
    slice = std::clamp<int64_t>(int64_t(coord[0]), 0, layers - 1) * int64_t(perLayer);
    ++coord;
  }
  if (geometry & ptx::kTexCube) {  // a face of the cube, sampled in 2D and clamped to its edges
    CubeFace f = cubeFace(coord[0], coord[1], coord[2]);
    TextureObject face = t;
    face.normalizedCoords = true;
    face.address[0] = face.address[1] = TextureObject::Address::Clamp;
    double st[3] = {f.s, f.t, 0};
    return sampleSlice(face, st, 2, slice + f.face);
  }
  if (t.linearMemory) {  // tex1Dfetch: an element index, zero outside
    int64_t i = floatCoords ? int64_t(std::floor(coord[0])) : int64_t(coord[0]);
    return i >= 0 && uint64_t(i) < t.width ? readTexel(t, i, 0, 0) : Texel{};
  }
  if (!floatCoords) {  // integer coordinates: texel indices
    int64_t i[3] = {int64_t(coord[0]), dims > 1 ? int64_t(coord[1]) : 0, dims > 2 ? int64_t(coord[2]) : slice};
    return readTexel(t, i[0], i[1], i[2]);
  }
  return sampleSlice(t, coord, dims, slice);
}

void execTex(Ctx& x, const ptx::Instr& in, uint32_t m) {
  const uint64_t* handle = S(x, in.addr.ref);
  uint32_t count = (in.mode & ptx::kTexDims) + ((in.mode & ptx::kTexLayered) ? 1 : 0);
  bool layered = in.mode & ptx::kTexLayered;
  bool floatCoords = in.type2 == ptx::Type::F32;
  bool floatResult = in.type == ptx::Type::F32;
  forLanes(m, [&](uint32_t l) {
    if (x.faulted) return;
    std::optional<TextureObject> t = findTexture(handle[l]);
    if (!t) {
      x.L->fault(*x.W, l, x.pc, "tex through " + hex(handle[l]) + ", which is not a live texture object");
      x.faulted = true;
      return;
    }
    double coord[4] = {0, 0, 0, 0};
    for (uint32_t d = 0; d < count; ++d) {
      uint32_t raw = uint32_t(S(x, in.src[d])[l]);
      bool isFloat = floatCoords && !(layered && d == 0);
      coord[d] = isFloat ? double(std::bit_cast<float>(raw)) : double(int32_t(raw));
    }
    Texel v = fetch(*t, in.mode, coord, floatCoords);
    for (int c = 0; c < 4; ++c) {
      if (in.dst[c] == ptx::kNoRef) continue;
      uint64_t bits = floatResult ? std::bit_cast<uint32_t>(float(v.v[c]))
                                  : uint64_t(uint32_t(int32_t(int64_t(v.v[c]))));
      D(x, in.dst[c])[l] = bits;
    }
  });
}

// suld/sust.b: x in bytes, y and z in rows and slices; out of range: trap
// (fault), clamp (to the nearest element) or zero (loads 0, stores dropped).
void execSurface(Ctx& x, const ptx::Instr& in, uint32_t m) {
  const uint64_t* handle = S(x, in.src[0]);
  uint32_t dims = in.mode & 0xF, range = in.mode >> 4;
  uint32_t size = ptx::typeBytes(in.type), bytes = size * in.vec;
  bool load = in.op == ptx::Op::SurfLoad;
  forLanes(m, [&](uint32_t l) {
    if (x.faulted) return;
    std::optional<TextureObject> t = findTexture(handle[l]);
    if (!t || !t->surface) {
      x.L->fault(*x.W, l, x.pc, std::string(load ? "suld" : "sust") + " through " + hex(handle[l]) +
                                    ", which is not a live surface object");
      x.faulted = true;
      return;
    }
    uint64_t element = uint64_t(t->channels) * t->channelBytes;
    int64_t c[3] = {0, 0, 0};
    int64_t limit[3] = {int64_t(t->width * element), int64_t(t->height), int64_t(t->depth)};
    bool inside = true;
    for (uint32_t d = 0; d < dims; ++d) {
      c[d] = int32_t(uint32_t(S(x, in.src[1 + d])[l]));
      int64_t last = d == 0 ? limit[0] - int64_t(bytes) : limit[d] - 1;
      if (c[d] < 0 || c[d] > last) {
        inside = false;
        if (range == 1) {
          c[d] = std::clamp<int64_t>(c[d], 0, std::max<int64_t>(last, 0));
          if (d == 0) c[d] -= c[d] % int64_t(element);
        }
      }
    }
    if (!inside && range == 0) {
      x.L->fault(*x.W, l, x.pc, std::string(load ? "suld" : "sust") + " outside the surface (x " +
                                    std::to_string(c[0]) + " bytes, y " + std::to_string(c[1]) + ")");
      x.faulted = true;
      return;
    }
    uint8_t* p = const_cast<uint8_t*>(t->data) + (uint64_t(c[2]) * t->height + uint64_t(c[1])) * t->pitch +
                 uint64_t(c[0]);
    bool skip = !inside && range == 2;
    for (uint32_t k = 0; k < in.vec; ++k) {
      if (load) {
        uint64_t v = 0;
        if (!skip) std::memcpy(&v, p + k * size, size);
        if (in.dst[k] != ptx::kNoRef) D(x, in.dst[k])[l] = v;
      } else if (!skip) {
        uint64_t v = S(x, in.dst[k])[l];
        std::memcpy(p + k * size, &v, size);
      }
    }
  });
}

}  // namespace

uint64_t createTexture(const TextureObject& texture) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  uint64_t h = r.next++;
  r.objects[h] = texture;
  return h;
}

bool destroyTexture(uint64_t handle) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  bool erased = r.objects.erase(handle) > 0;
  r.destroyed += erased;
  return erased;
}

TextureMemory textureMemory() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  TextureMemory m;
  m.generation = r.next + (r.destroyed << 32);
  for (const auto& [handle, t] : r.objects) {
    uint64_t texel = uint64_t(t.channels) * t.channelBytes;
    uint64_t rows = t.height * t.depth;
    if (t.data == nullptr || rows == 0) continue;
    m.ranges.emplace_back(t.data, (rows - 1) * t.pitch + t.width * texel);
  }
  return m;
}

std::optional<TextureObject> findTexture(uint64_t handle) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.objects.find(handle);
  if (it == r.objects.end()) return std::nullopt;
  return it->second;
}

ExecFn selectTexture(const ptx::Instr& in, std::string& error) {
  if (in.op == ptx::Op::SurfLoad || in.op == ptx::Op::SurfStore) return &execSurface;
  bool dstOk = in.type == ptx::Type::F32 || in.type == ptx::Type::S32 || in.type == ptx::Type::U32;
  bool coordOk = in.type2 == ptx::Type::F32 || in.type2 == ptx::Type::S32;
  if (!dstOk || !coordOk) {
    error = std::string("unsupported texture fetch tex.v4.") + ptx::toString(in.type) + "." + ptx::toString(in.type2);
    return nullptr;
  }
  return &execTex;
}

}  // namespace predatar::sim
