# find_package(GMP): the imported target GMP::GMP (see ShloFindCLibrary.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/ShloFindCLibrary.cmake)
shlo_find_c_library(GMP gmp.h gmp)
