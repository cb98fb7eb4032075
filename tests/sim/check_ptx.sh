#!/bin/sh
# Usage: check_ptx.sh NVCC DIR [--update]
# Recompiles every DIR/*.cu with `nvcc -arch=sm_75 -lineinfo --ptx` (from DIR,
# so paths are relative) and checks that the committed .ptx beside it matches,
# ignoring what depends on where the checkout is: `.file` lines, the debug
# sections, and the path hash in internal names (_INTERNAL_<hash>_).
# With --update, rewrites the committed PTX instead.
nvcc="$1"; dir="$2"; update="$3"
status=0
tmp=$(mktemp -d)
for cu in "$dir"/*.cu; do
  base=$(basename "$cu" .cu)
  (cd "$dir" && "$nvcc" -arch=sm_75 -lineinfo --ptx "$base.cu" -o "$tmp/$base.ptx") || { echo "nvcc failed: $cu"; status=1; continue; }
  if [ "$update" = "--update" ]; then
    cp "$tmp/$base.ptx" "$dir/$base.ptx"
    continue
  fi
  normalize() { sed -e '/^\s*\.section/,$d' -e '/\.file/d' -e 's/_INTERNAL_[0-9a-f]*_/_INTERNAL_/g' "$1"; }
  normalize "$tmp/$base.ptx" > "$tmp/a"
  normalize "$dir/$base.ptx" > "$tmp/b" 2>/dev/null
  if ! cmp -s "$tmp/a" "$tmp/b"; then
    echo "stale PTX: $dir/$base.ptx (regenerate: $0 $nvcc $dir --update)"
    status=1
  fi
done
rm -rf "$tmp"
exit $status
