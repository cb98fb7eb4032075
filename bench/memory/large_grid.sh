#!/usr/bin/env bash
# Peak RSS and CPU time of one launch of a large, nearly idle grid
# (large_grid.cu, 256 threads a block) under predatar builds side by side:
#   large_grid.sh PREDATAR [PREDATAR...]   (each a copy with its lib/ beside it)
# BLOCKS (default "262144 1048576 4194304") sets the grid sizes. Built with
# nvcc when it is installed, else the committed bin/large_grid.
set -u
here=$(cd "$(dirname "$0")" && pwd)
app=$here/bin/large_grid
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if command -v nvcc >/dev/null; then
  nvcc -cudart shared -lineinfo -arch=sm_75 -o "$tmp/large_grid" "$here/large_grid.cu" && app=$tmp/large_grid
fi
echo "| predatar | blocks | threads | verdict | peak RSS (MiB) | CPU s |"
echo "|---|---:|---:|---|---:|---:|"
for blocks in ${BLOCKS:-262144 1048576 4194304}; do
  for predatar in "$@"; do
    out=$( (ulimit -d $((8 << 20)); /usr/bin/time -f "TIME %M %U %S" "$predatar" run -d gwcp --progress 0 \
             --output /dev/null -- "$app" "$blocks") 2>&1)
    read -r _ kb user sys <<<"$(grep '^TIME' <<<"$out")"
    verdict=$(grep -q "no error, out = 1" <<<"$out" && echo PASS || echo "FAIL: $(grep -m1 'predatar: ' <<<"$out" | cut -c1-80)")
    printf '| %s | %d | %d | %s | %d | %.1f |\n' "$predatar" "$blocks" $((blocks * 256)) "$verdict" $((kb / 1024)) \
      "$(echo "$user + $sys" | bc)"
  done
done
