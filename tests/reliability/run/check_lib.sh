# Shared by the check_*.sh scripts that run a program of run/ under
# `predatar run`: sourced after `p` (predatar) and `dir` (tests/reliability)
# are set. Gives $tmp (removed at exit), pass/fail counters with ok and bad,
# run (a command's exit code; its output in $tmp/out and $tmp/err), and
# app_binary NAME [NVCC FLAGS]: run/NAME.cu built as it is now when nvcc is
# installed, else the committed run/bin/NAME (rebuild it with the command in
# NAME.cu).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }
app_binary() {
  local nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  if [ -x "$nvcc" ]; then
    "$nvcc" "${@:2}" -cudart shared -lineinfo -arch=sm_75 -o "$tmp/$1" "$dir/run/$1.cu" ||
      { echo "FAIL: nvcc could not build run/$1.cu" >&2; exit 1; }
    echo "$tmp/$1"
  else
    echo "$dir/run/bin/$1"
  fi
}
