// GPUVerify's specification annotations, as nothing: its test kernels state
// pre- and postconditions, loop invariants and assertions for its verifier
// (__requires, __invariant, __assert, ...), which nvcc does not know. A
// dynamic run checks the execution it has, so each annotation is dropped
// with its arguments (which name only more annotation functions:
// __implies, __write_offset_bytes, __enabled, ...). Passed to nvcc with
// -include by run_gpuverify.py; our own text, no GPUVerify source.
#pragma once

#define __requires(...) ((void)0)
#define __ensures(...) ((void)0)
#define __assert(...) ((void)0)
#define __assume(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __global_requires(...) ((void)0)
#define __global_ensures(...) ((void)0)
#define __global_assert(...) ((void)0)
#define __axiom(...)
#define __requires_fresh_array(...) ((void)0)
#define __function_wide_invariant(...) ((void)0)
#define __function_wide_candidate_invariant(...) ((void)0)
#define __candidate_invariant(...) ((void)0)
#define __candidate_global_invariant(...) ((void)0)
#define __non_temporal(...) ((void)0)
#define __barrier_invariant(...) ((void)0)
#define __barrier_invariant_binary(...) ((void)0)

// The warp vote CUDA 9 removed (its tests predate it), as its _sync form over
// the whole warp, which is what it meant for a converged warp.
#define __all(p) __all_sync(0xffffffffu, (p))
#define __any(p) __any_sync(0xffffffffu, (p))

// The free synchronize(group) of cooperative groups' first API, which later
// CUDA dropped for group.sync().
#ifdef _COOPERATIVE_GROUPS_H_
namespace cooperative_groups {
template <class Group>
__device__ void synchronize(Group& group) { group.sync(); }
}  // namespace cooperative_groups
#endif
