# The replacement CUDA runtime (src/cudart): include() this file from the
# top-level CMakeLists.txt after the predatar_module() libraries are defined.
#
#   predatar_cudart          static: fat binary reader, program check, launch report
#                            (used by the CLI, the tests and the shared library)
#   predatar_cudart_runtime  shared: lib/libcudart.so.13 (SONAME libcudart.so.13,
#                            symbols versioned libcudart.so.13 like NVIDIA's)
find_package(zstd REQUIRED)

predatar_module(cudart predatar_report predatar_ptx absl::status absl::statusor absl::strings nlohmann_json::nlohmann_json
                zstd::libzstd_shared)

file(GLOB predatar_cudart_runtime_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/runtime/*.cpp)
add_library(predatar_cudart_runtime SHARED ${predatar_cudart_runtime_sources}
            ${CMAKE_CURRENT_LIST_DIR}/generated/Stubs.cpp)
target_include_directories(predatar_cudart_runtime PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(predatar_cudart_runtime PRIVATE predatar_cudart predatar_sim predatar_analysis
                      predatar_report nlohmann_json::nlohmann_json)

# A replacement library in lib/ (this runtime, the driver, libraries.cmake's):
# lib<output>.so.<soversion>, file version <version>, symbols hidden but for
# what its version script `map` exports (none given: its default-visible
# ones), and no symbol left undefined at link time.
function(predatar_replacement_library target output version soversion map)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output}
    VERSION ${version}
    SOVERSION ${soversion}
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(map)
    set_target_properties(${target} PROPERTIES LINK_DEPENDS ${map})
    target_link_options(${target} PRIVATE -Wl,--version-script=${map})
  endif()
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
endfunction()

predatar_replacement_library(predatar_cudart_runtime cudart 13.0.0 13 ${CMAKE_CURRENT_LIST_DIR}/runtime/libcudart.map)
# _exit, _Exit and quick_exit exported with libc's versions, so a program's calls bind to ours
# (runtime/ExitWithoutHandlers.cpp); libc's base version is per architecture.
set(predatar_libc_exit_map ${CMAKE_CURRENT_LIST_DIR}/runtime/libc_exit.${CMAKE_SYSTEM_PROCESSOR}.map)
if(EXISTS ${predatar_libc_exit_map})
  set_property(TARGET predatar_cudart_runtime APPEND PROPERTY LINK_DEPENDS ${predatar_libc_exit_map})
  target_link_options(predatar_cudart_runtime PRIVATE -Wl,--version-script=${predatar_libc_exit_map})
else()
  message(WARNING "no libc_exit map for ${CMAKE_SYSTEM_PROCESSOR}: a program ending with _exit, _Exit or quick_exit right after "
                  "a launch it never waited for loses that launch's races")
endif()

# The static libraries linked into the shared one must be position independent.
function(predatar_cudart_make_pic target)
  if(NOT TARGET ${target})
    return()
  endif()
  get_target_property(type ${target} TYPE)
  get_target_property(imported ${target} IMPORTED)
  if(imported OR NOT type STREQUAL "STATIC_LIBRARY")
    return()
  endif()
  get_target_property(done ${target} POSITION_INDEPENDENT_CODE)
  if(done)
    return()
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  get_target_property(deps ${target} LINK_LIBRARIES)
  if(deps)
    foreach(dep IN LISTS deps)
      predatar_cudart_make_pic(${dep})
    endforeach()
  endif()
endfunction()
foreach(dep predatar_cudart predatar_sim predatar_analysis predatar_report)
  predatar_cudart_make_pic(${dep})
endforeach()

# lib/libcuda.so.1: the CUDA driver API (driver/Driver.h) on the runtime:
# contexts, modules loaded at run time, cuLaunchKernel, the PTX linker,
# memory, streams and events; every other entry point refuses by name
# (driver/generated/Stubs.cpp), naming the library that called it.
file(GLOB predatar_cuda_driver_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/driver/*.cpp)
add_library(predatar_cuda_driver SHARED ${predatar_cuda_driver_sources}
            ${CMAKE_CURRENT_LIST_DIR}/driver/generated/Stubs.cpp)
target_include_directories(predatar_cuda_driver PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(predatar_cuda_driver PRIVATE predatar_cudart_runtime ${CMAKE_DL_LIBS})
predatar_replacement_library(predatar_cuda_driver cuda 1 1 "")
