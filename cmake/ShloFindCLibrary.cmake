# shlo_find_c_library(NAME HEADER LIBRARY): finds a C library that ships no CMake or pkg-config
# files of its own (GMP, MPFR, MPFI on Debian) and defines the imported target NAME::NAME.
# The cache variables NAME_INCLUDE_DIR and NAME_LIBRARY can point at another installation.
include(FindPackageHandleStandardArgs)
function(shlo_find_c_library name header library)
  find_path(${name}_INCLUDE_DIR ${header})
  find_library(${name}_LIBRARY ${library})
  find_package_handle_standard_args(${name} REQUIRED_VARS ${name}_LIBRARY ${name}_INCLUDE_DIR)
  set(${name}_FOUND ${${name}_FOUND} PARENT_SCOPE)
  if(${name}_FOUND AND NOT TARGET ${name}::${name})
    add_library(${name}::${name} UNKNOWN IMPORTED)
    set_target_properties(${name}::${name} PROPERTIES IMPORTED_LOCATION "${${name}_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${${name}_INCLUDE_DIR}")
  endif()
endfunction()
