# predatar's own cuRAND and cuBLAS (src/libraries): include() this file from
# the top-level CMakeLists.txt after cudart.cmake.
#
#   lib/libcurand.so.10   SONAME libcurand.so.10, symbols in node libcurand.so.10
#   lib/libcublas.so.13   SONAME libcublas.so.13, symbols in node libcublas.so.13
#   lib/libcublasLt.so.13 SONAME libcublasLt.so.13, symbols in node libcublasLt.so.13
#   lib/libcusparse.so.12 SONAME libcusparse.so.12, symbols in node libcusparse.so.12
#
# `predatar run` puts lib/ first on the program's library path, so programs
# linked with -lcurand / -lcublas load these instead of NVIDIA's (which run
# their own runtime on the driver API, refused by lib/libcuda.so.1). Their
# kernels are the committed PTX beside their .cu sources, embedded at build
# time (no nvcc needed; regenerate_ptx.sh --check compares when it is there).
set(predatar_libraries_dir ${CMAKE_CURRENT_LIST_DIR})

function(predatar_embed_ptx ptx symbol out)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DPTX=${ptx} -DOUT=${out} -DNAME=${symbol} -P ${predatar_libraries_dir}/EmbedPtx.cmake
    DEPENDS ${ptx} ${predatar_libraries_dir}/EmbedPtx.cmake
    COMMENT "Embedding ${ptx}")
endfunction()

# One library: lib/lib<name>.so.<soversion> from src/libraries/<name>/.
function(predatar_cuda_library name soversion kernels symbol)
  set(dir ${predatar_libraries_dir}/${name})
  set(embedded ${CMAKE_BINARY_DIR}/libraries/${kernels}Ptx.cpp)
  predatar_embed_ptx(${dir}/${kernels}.ptx ${symbol} ${embedded})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  add_library(predatar_${name} SHARED ${sources} ${embedded} ${predatar_libraries_dir}/EmbeddedModule.cpp)
  target_include_directories(predatar_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(predatar_${name} PRIVATE predatar_cudart_runtime absl::strings)
  predatar_replacement_library(predatar_${name} ${name} ${soversion} ${soversion} ${dir}/lib${name}.map)
endfunction()

predatar_cuda_library(curand 10 CurandKernels kCurandKernelsPtx)
predatar_cuda_library(cublas 13 CublasKernels kCublasKernelsPtx)
predatar_cuda_library(cusparse 12 CusparseKernels kCusparseKernelsPtx)

# lib/libcublasLt.so.13: cublasLtMatmul over predatar's cuBLAS (its gemm), with
# the epilogue kernel of cuBLAS's PTX, embedded again (its symbols are local).
set(predatar_cublaslt_ptx ${CMAKE_BINARY_DIR}/libraries/CublasLtKernelsPtx.cpp)
predatar_embed_ptx(${predatar_libraries_dir}/cublas/CublasKernels.ptx kCublasKernelsPtx ${predatar_cublaslt_ptx})
file(GLOB predatar_cublaslt_sources CONFIGURE_DEPENDS ${predatar_libraries_dir}/cublasLt/*.cpp)
add_library(predatar_cublasLt SHARED ${predatar_cublaslt_sources} ${predatar_cublaslt_ptx}
            ${predatar_libraries_dir}/EmbeddedModule.cpp)
target_include_directories(predatar_cublasLt PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(predatar_cublasLt PRIVATE predatar_cublas predatar_cudart_runtime absl::strings)
predatar_replacement_library(predatar_cublasLt cublasLt 13 13 ${predatar_libraries_dir}/cublasLt/libcublasLt.map)

# lib/libnvrtc.so.13: NVIDIA's NVRTC, forwarded to (it compiles on the CPU),
# with machine-code requests answered with PTX the emulator runs (nvrtc/Nvrtc.cpp).
add_library(predatar_nvrtc SHARED ${predatar_libraries_dir}/nvrtc/Nvrtc.cpp)
target_include_directories(predatar_nvrtc PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(predatar_nvrtc PRIVATE predatar_cudart_runtime ${CMAKE_DL_LIBS})
predatar_replacement_library(predatar_nvrtc nvrtc 13 13 ${predatar_libraries_dir}/nvrtc/libnvrtc.map)
