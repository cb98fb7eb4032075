# Sourced by run.sh and run_sanitized.sh. has_needs NAME: whether the NVIDIA
# libraries NAME.needs lists (one per line, e.g. libnvrtc.so.13: NVRTC
# compiles with NVIDIA's own) are installed, in CUDA's lib64 (CUDA_HOME, else
# /usr/local/cuda) or the system's; true without a NAME.needs. When not, it
# prints the skip line.
has_needs() {
  [ -f "$here/$1.needs" ] || return 0
  local lib
  while read -r lib; do
    [ -n "$lib" ] || continue
    if ! [ -e "${CUDA_HOME:-/usr/local/cuda}/lib64/$lib" ] && ! [ -e "/usr/lib/x86_64-linux-gnu/$lib" ]; then
      echo "skip: $1 (needs $(tr '\n' ' ' < "$here/$1.needs"))"
      return 1
    fi
  done < "$here/$1.needs"
}
