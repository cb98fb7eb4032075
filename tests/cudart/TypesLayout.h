// The layout of the CUDA structs the runtime fills, as one translation unit
// sees them: sizes and field offsets in LayoutFields.inc order.
#pragma once
#include <cstddef>
#include <vector>
std::vector<size_t> predatarLayout();   // from src/cudart/runtime/CudaTypes.h
std::vector<size_t> nvidiaLayout();     // from CUDA's driver_types.h
