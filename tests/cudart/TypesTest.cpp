// The structs declared in CudaTypes.h (so PreDataR builds without CUDA) have
// CUDA 13's layout. Built only where the CUDA headers are installed.
#include <gtest/gtest.h>
#include "TypesLayout.h"
TEST(CudaTypes, LayoutMatchesNvidiasHeaders) {
  auto ours = predatarLayout();
  auto theirs = nvidiaLayout();
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], theirs[i]) << "entry " << i << " of LayoutFields.inc";
}
