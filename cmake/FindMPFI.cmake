# find_package(MPFI): the imported target MPFI::MPFI (see ShloFindCLibrary.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/ShloFindCLibrary.cmake)
shlo_find_c_library(MPFI mpfi.h mpfi)
