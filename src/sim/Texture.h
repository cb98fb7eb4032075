// Texture objects as the emulator samples them: the runtime registers a
// description of the texels (CUDA array, linear or pitched memory) and the
// sampling state, and kernels fetch through the returned handle (PTX `tex`).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace predatar::sim {

struct TextureObject {
  enum class Kind : uint8_t { Signed, Unsigned, Float };
  enum class Address : uint8_t { Wrap, Clamp, Mirror, Border };
  // Texels: `channels` components of `channelBytes` each, rows `pitch` bytes
  // apart, `height` rows per slice of `depth`. A layered texture's slices are
  // its layers (a 1D layered one has height 1); a cubemap's are its faces,
  // six per cube (+x, -x, +y, -y, +z, -z), so depth is 6 x layers.
  const uint8_t* data = nullptr;
  Kind kind = Kind::Float;
  uint32_t channels = 1, channelBytes = 4;
  uint64_t width = 1, height = 1, depth = 1, pitch = 0;
  bool layered = false, cubemap = false;
  bool linearMemory = false;      // cudaResourceTypeLinear: tex1Dfetch by integer index
  Address address[3] = {Address::Wrap, Address::Wrap, Address::Wrap};
  bool linearFilter = false;
  bool normalizedFloat = false;   // cudaReadModeNormalizedFloat
  bool normalizedCoords = false;
  float border[4] = {0, 0, 0, 0};
  bool surface = false;           // a surface object (suld/sust; data is writable)
};

// The handle kernels receive (never 0); the object is copied. Texture and
// surface objects share the handle space.
uint64_t createTexture(const TextureObject& texture);
bool destroyTexture(uint64_t handle);
std::optional<TextureObject> findTexture(uint64_t handle);
// The texels of every live object (CUDA arrays live outside DeviceMemory),
// and a number that changes whenever an object is created or destroyed.
struct TextureMemory {
  uint64_t generation = 0;
  std::vector<std::pair<const uint8_t*, uint64_t>> ranges;  // start, bytes
};
TextureMemory textureMemory();

}  // namespace predatar::sim
