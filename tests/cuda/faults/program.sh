# Sourced by the CLI tests that run the fault program (with root and tmp
# set): sets fp to it, built from fault_program.cu into $tmp when nvcc is
# installed (so the tests check the source as it is now), else the committed
# binary in bin/ (rebuild it with: nvcc -cudart shared -lineinfo -arch=sm_75
# -o tests/cuda/faults/bin/fault_program tests/cuda/faults/fault_program.cu).
fp=$root/tests/cuda/faults/bin/fault_program
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$nvcc" ]; then
  "$nvcc" -cudart shared -lineinfo -arch=sm_75 -o "$tmp/fault_program" "$root/tests/cuda/faults/fault_program.cu" ||
    { echo "FAIL: nvcc could not build tests/cuda/faults/fault_program.cu"; exit 1; }
  fp=$tmp/fault_program
fi
