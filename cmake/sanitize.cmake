# AMPI_SANITIZE: the sanitizer build (docs/testing.md).
#
# Everything configured after this file is compiled and linked with the
# sanitizers: the runtime, the wrappers, the unit tests, and through the
# wrappers (wrapper_config.h) every program ampicc and ampicxx build, so the
# MPI tests run under them too.  Clang only: those programs are built by
# Clang, and one process must hold one sanitizer runtime.  The runtime is
# Clang's shared one (-shared-libsan), which libampi.so can link against
# (it keeps -Wl,--no-undefined) and which a rank's program copy under
# -privatize=pie does not duplicate.  Every report ends the program
# (-fno-sanitize-recover=all), so a test with one fails.
#
# Sets AMPI_SANITIZE_COMPILE_FLAGS, AMPI_SANITIZE_LINK_FLAGS and
# AMPI_SANITIZE_WRAP_FLAGS (lists, empty when off).
set(AMPI_SANITIZE_COMPILE_FLAGS "")
set(AMPI_SANITIZE_LINK_FLAGS "")
set(AMPI_SANITIZE_WRAP_FLAGS "")
if(NOT AMPI_SANITIZE)
  return()
endif()

if(NOT AMPI_SANITIZE MATCHES "^(address|undefined)(,(address|undefined))?$")
  message(FATAL_ERROR "AMPI_SANITIZE is '${AMPI_SANITIZE}'; use address, "
    "undefined or address,undefined")
endif()
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang" OR
   NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "AMPI_SANITIZE needs Clang as the C and C++ compiler "
    "(configure with CC=clang-19 CXX=clang++-19): the programs the wrappers "
    "build use Clang's sanitizer runtime")
endif()

# The shared runtime's directory, for the programs' run path.
if(AMPI_SANITIZE MATCHES "address")
  set(ampi_san_lib libclang_rt.asan-x86_64.so)
else()
  set(ampi_san_lib libclang_rt.ubsan_standalone-x86_64.so)
endif()
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${ampi_san_lib}
  OUTPUT_VARIABLE ampi_san_path OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_ABSOLUTE "${ampi_san_path}" OR NOT EXISTS "${ampi_san_path}")
  message(FATAL_ERROR "AMPI_SANITIZE: ${CMAKE_C_COMPILER} has no "
    "${ampi_san_lib}: install the Debian package libclang-rt-19-dev "
    "(scripts/setup.sh does)")
endif()
get_filename_component(ampi_san_dir "${ampi_san_path}" DIRECTORY)

set(AMPI_SANITIZE_COMPILE_FLAGS -fsanitize=${AMPI_SANITIZE}
  -fno-sanitize-recover=all -fno-omit-frame-pointer)
if(AMPI_SANITIZE MATCHES "address")
  # A rank's locals must stay on its own stack, which moves with it
  # (between processes, into checkpoints): no "fake stack" elsewhere for
  # the detection of uses after return.
  list(APPEND AMPI_SANITIZE_COMPILE_FLAGS
    -fsanitize-address-use-after-return=never)
endif()
set(AMPI_SANITIZE_LINK_FLAGS -fsanitize=${AMPI_SANITIZE} -shared-libsan
  -Wl,-rpath,${ampi_san_dir})
# What the wrappers add to a link besides: under AddressSanitizer the
# program's own malloc family goes to libampi's (start/alloc.c), so that a
# rank's blocks stay in its slot and move with it.
set(AMPI_SANITIZE_WRAP_FLAGS "")
if(AMPI_SANITIZE MATCHES "address")
  foreach(fn malloc calloc realloc reallocarray free posix_memalign
      aligned_alloc memalign valloc pvalloc malloc_usable_size strdup
      strndup)
    list(APPEND AMPI_SANITIZE_WRAP_FLAGS -Wl,--wrap=${fn})
  endforeach()
endif()
add_compile_options(${AMPI_SANITIZE_COMPILE_FLAGS})
add_link_options(${AMPI_SANITIZE_LINK_FLAGS})
message(STATUS "Sanitizers: ${AMPI_SANITIZE} (runtime in ${ampi_san_dir})")
