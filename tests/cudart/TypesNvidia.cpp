#include <cstddef>
#include <cuda_runtime_api.h>
#include "TypesLayout.h"
std::vector<size_t> nvidiaLayout() {
  return {
#define PREDATAR_SIZE(type) sizeof(type),
#define PREDATAR_FIELD(type, field) offsetof(type, field),
#include "LayoutFields.inc"
  };
}
