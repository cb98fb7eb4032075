#!/usr/bin/env bash
# Every function NVIDIA's libcudart.so.13 exports (src/cudart/generated/exports.txt)
# is exported by ours, at version libcudart.so.13: a program built against
# NVIDIA's must load. Five entry points of nvcc --default-stream per-thread
# (cudaMemcpy_ptds, cudaStreamSynchronize_ptsz, ...) were defined hidden, so
# such programs stopped with "symbol lookup error" before main.
# usage: check_exports.sh LIBCUDART EXPORTS_TXT
set -euo pipefail
library="${1:?usage: check_exports.sh LIBCUDART EXPORTS_TXT}"
exports="${2:?usage: check_exports.sh LIBCUDART EXPORTS_TXT}"
command -v nm >/dev/null || { echo "check_exports.sh: needs nm (binutils)"; exit 2; }
missing="$(comm -23 <(grep -v '^#' "$exports" | sed '/^$/d' | sort -u) \
                    <(nm -D --defined-only "$library" | awk '$3 ~ /@@libcudart.so.13$/ {sub(/@.*/, "", $3); print $3}' | sort -u))"
if [ -n "$missing" ]; then
  echo "FAIL: $(echo "$missing" | wc -l) functions of NVIDIA's runtime are not exported by $library:"
  echo "$missing" | sed 's/^/  /'
  exit 1
fi
echo "ok: all $(grep -cv '^#' "$exports") exports of NVIDIA's libcudart.so.13 are exported"
