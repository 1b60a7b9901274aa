# paritylab_core_module(NAME [EXCLUDE prefix] [DEPS target...])
# One static library per core/ floor (paritylab_<NAME>), built from every .cpp in that folder and
# its role folders (except those whose name starts with EXCLUDE's prefix: built apart, behind an
# option).
# Each folder builds and tests on its own, so work on one floor never breaks the build of another.
function(paritylab_core_module name)
  cmake_parse_arguments(ARG "" "EXCLUDE" "DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(ARG_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "/${ARG_EXCLUDE}[^/]*$")
  endif()
  if(sources)
    add_library(paritylab_${name} STATIC ${sources})
    set(scope PUBLIC)
  else()  # a floor with headers only (so far)
    add_library(paritylab_${name} INTERFACE)
    set(scope INTERFACE)
  endif()
  target_include_directories(paritylab_${name} ${scope} ${PROJECT_SOURCE_DIR})
  target_link_libraries(paritylab_${name} ${scope} ${ARG_DEPS})
  target_compile_definitions(paritylab_${name} ${scope} PARITYLAB_VERSION="${PROJECT_VERSION}")
  if(sources)
    # The core's kernels (rounding, pooling, batch norm, im2col, optimizers) are written to be
    # auto-vectorised; GCC 12 at -O2 uses its very-cheap cost model and silently leaves some of
    # them scalar (the copy-rounding loop ran 5x slower after a harmless refactor). -O3 is still
    # IEEE: no fast-math, no contraction, and floating-point reductions are never reordered.
    target_compile_options(paritylab_${name} PRIVATE -O3)
  endif()
  add_library(paritylab::${name} ALIAS paritylab_${name})
endfunction()

# paritylab_test_area(NAME [DEPS target...] [ENV var=value...])
# One GoogleTest executable per tests/ folder (test_<NAME>), registered with CTest test by test.
function(paritylab_test_area name)
  cmake_parse_arguments(ARG "RECURSE" "TIMEOUT" "DEPS;ENV" ${ARGN})
  if(ARG_RECURSE)  # tests in folders mirroring the floor's role folders
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  endif()
  add_executable(test_${name} ${sources})
  target_link_libraries(test_${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(test_${name} PRIVATE
    PARITYLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    PARITYLAB_REFERENCE_DIR="${PROJECT_SOURCE_DIR}/resources/reference")
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  gtest_discover_tests(test_${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS ${name} ENVIRONMENT "${ARG_ENV}")
endfunction()
