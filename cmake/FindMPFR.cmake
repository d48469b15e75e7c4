# find_package(MPFR): the imported target MPFR::MPFR (see ShloFindCLibrary.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/ShloFindCLibrary.cmake)
shlo_find_c_library(MPFR mpfr.h mpfr)
