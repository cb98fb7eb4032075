#include <cstddef>
#include "TypesLayout.h"
#include "cudart/runtime/CudaTypes.h"
#include "cudart/runtime/GraphTypes.h"
std::vector<size_t> predatarLayout() {
  return {
#define PREDATAR_SIZE(type) sizeof(type),
#define PREDATAR_FIELD(type, field) offsetof(type, field),
#include "LayoutFields.inc"
  };
}
