# Python 3 with NumPy and Debian's pybind11, for the shlo_oracle module (python/). The system
# interpreter (/usr/bin/python3, which has python3-numpy) comes first: another python3 earlier
# on PATH (pyenv, a venv) usually lacks NumPy. -DPython3_EXECUTABLE=... picks another one.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "the Python interpreter the module is built for")
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
find_package(pybind11 CONFIG QUIET)
if(SHLO_SANITIZE)
  # An ASan-built extension cannot load into an uninstrumented interpreter.
  set(SHLO_PYTHON_FOUND OFF)
  message(STATUS "Python: the shlo_oracle module is not built under SHLO_SANITIZE")
elseif(Python3_FOUND AND Python3_NumPy_FOUND AND pybind11_FOUND)
  set(SHLO_PYTHON_FOUND ON)
  message(STATUS "Python: building the shlo_oracle module for ${Python3_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
else()
  set(SHLO_PYTHON_FOUND OFF)
  message(STATUS "Python: the shlo_oracle module is not built (needs Python 3 with NumPy and pybind11: "
                 "scripts/setup-deps.sh installs python3-dev, python3-numpy and pybind11-dev)")
endif()
