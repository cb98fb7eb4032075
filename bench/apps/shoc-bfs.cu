// shoc-bfs: level-synchronous breadth-first search on a graph in CSR form
// (after the SHOC benchmark's BFS). One thread per vertex; per level, one
// kernel expands the frontier (marks unvisited neighbours for the next
// level) and a second one turns the marks into the new frontier, sets their
// level and tells the host whether to go on.
// -DRACEY writes as SHOC does: plain stores of the same value by several
// threads to the neighbour's mark and level, and to the "go on" flag.
#include "common.h"

#define BLOCK 64
#define UNVISITED 0x7fffffff

__global__ void expand(const int* offsets, const int* edges, const int* frontier, const int* level, int* mark,
                       int* cost, int n, int depth) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !frontier[v]) return;
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
    int u = edges[e];
    if (level[u] != UNVISITED) continue;
#ifdef RACEY
    mark[u] = 1;  // RACE: bfs-mark
    cost[u] = depth + 1;  // RACE: bfs-level
#else
    atomicExch(&mark[u], 1);
    atomicMin(&cost[u], depth + 1);
#endif
  }
}

__global__ void advance(int* frontier, int* level, int* mark, const int* cost, int* more, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  frontier[v] = mark[v];
  if (!mark[v]) return;
  level[v] = cost[v];
  mark[v] = 0;
#ifdef RACEY
  *more = 1;  // RACE: bfs-more
#else
  atomicExch(more, 1);
#endif
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 512, 8192, 65536), degree = 4;
  int* offsets = new int[n + 1];
  int* edges = new int[n * degree];
  Lcg rng(21);
  // A ring (so that every vertex is reachable) plus random edges.
  for (int v = 0; v < n; ++v) {
    offsets[v] = v * degree;
    edges[v * degree] = (v + 1) % n;
    for (int k = 1; k < degree; ++k) edges[v * degree + k] = int(rng.next() % unsigned(n));
  }
  offsets[n] = n * degree;
  int *level = new int[n], *frontier = new int[n], *ref = new int[n];
  for (int v = 0; v < n; ++v) level[v] = ref[v] = UNVISITED, frontier[v] = 0;
  level[0] = ref[0] = 0;
  frontier[0] = 1;
  int *queue = new int[n], head = 0, tail = 0;
  queue[tail++] = 0;
  while (head < tail) {
    int v = queue[head++];
    for (int e = offsets[v]; e < offsets[v + 1]; ++e)
      if (ref[edges[e]] == UNVISITED) ref[edges[e]] = ref[v] + 1, queue[tail++] = edges[e];
  }
  int *d_offsets, *d_edges, *d_frontier, *d_level, *d_mark, *d_cost, *d_more;
  CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_edges, n * degree * sizeof(int)));
  CHECK(cudaMalloc(&d_frontier, n * sizeof(int)));
  CHECK(cudaMalloc(&d_level, n * sizeof(int)));
  CHECK(cudaMalloc(&d_mark, n * sizeof(int)));
  CHECK(cudaMalloc(&d_cost, n * sizeof(int)));
  CHECK(cudaMalloc(&d_more, sizeof(int)));
  CHECK(cudaMemcpy(d_offsets, offsets, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_edges, edges, n * degree * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_frontier, frontier, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_level, level, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_cost, level, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_mark, 0, n * sizeof(int)));
  int blocks = (n + BLOCK - 1) / BLOCK, depth = 0, more = 1;
  for (; more && depth < n; ++depth) {
    more = 0;
    CHECK(cudaMemcpy(d_more, &more, sizeof(int), cudaMemcpyHostToDevice));
    expand<<<blocks, BLOCK>>>(d_offsets, d_edges, d_frontier, d_level, d_mark, d_cost, n, depth);
    advance<<<blocks, BLOCK>>>(d_frontier, d_level, d_mark, d_cost, d_more, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&more, d_more, sizeof(int), cudaMemcpyDeviceToHost));
  }
  CHECK(cudaMemcpy(level, d_level, n * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = std::memcmp(level, ref, n * sizeof(int)) == 0;
  char detail[96];
  std::snprintf(detail, sizeof detail, "vertices=%d edges=%d levels=%d", n, n * degree, depth);
  CHECK(cudaFree(d_offsets));
  CHECK(cudaFree(d_edges));
  CHECK(cudaFree(d_frontier));
  CHECK(cudaFree(d_level));
  CHECK(cudaFree(d_mark));
  CHECK(cudaFree(d_cost));
  CHECK(cudaFree(d_more));
  delete[] offsets;
  delete[] edges;
  delete[] level;
  delete[] frontier;
  delete[] ref;
  delete[] queue;
  return verdict("shoc-bfs", ok, detail);
}
