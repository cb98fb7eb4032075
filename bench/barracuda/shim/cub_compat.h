// Our stand-ins for what the CUB of 2016 gave the Barracuda suite's CUB examples (their
// test_util.h) and today's CUB (CUDA 13's CCCL, which they are built against) no longer has.
// build_barracuda.sh pre-includes this header; the examples themselves are not edited.
#pragma once
#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
