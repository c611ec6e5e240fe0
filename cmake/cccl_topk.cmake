# Where the CCCL headers with CUB's top-k (cub/device/device_topk.cuh,
# CCCL 3.3 or later) are, for the gpu-cub-topk module (algorithms/topk/cub_topk.cu).
# The toolkit's CCCL may be older (CUDA 13.0 ships 3.0); PB_CCCL_ROOT points
# the build at a newer one, only for that module's file.
#
# PB_CCCL_ROOT may be laid out as
#   a CCCL checkout or archive   ROOT/cub/cub, ROOT/thrust/thrust, ROOT/libcudacxx/include
#   one include folder           ROOT/cub, ROOT/thrust, ROOT/cuda (the toolkit's
#                                include/cccl, an install's include, the offline
#                                bundle's .bundle/cccl)
#   an install prefix            ROOT/include/cub, ...
#
# Script mode, for the test (tests/scripts/cccl_topk.sh):
#   cmake -DROOT=DIR -DTOOLKIT=DIRS -P cmake/cccl_topk.cmake
# prints "found VERSION INCLUDES" or "missing WHY".

# pb_cccl_version(OUT DIR): the CCCL version of the include folder DIR that
# holds cub/version.cuh ("3.6.0" from CUB_VERSION 300600), or "unknown".
function(pb_cccl_version out dir)
  set(v "unknown")
  if(EXISTS "${dir}/cub/version.cuh")
    file(STRINGS "${dir}/cub/version.cuh" line REGEX "^#define CUB_VERSION [0-9]+")
    if(line MATCHES "CUB_VERSION ([0-9]+)")
      math(EXPR major "${CMAKE_MATCH_1} / 100000")
      math(EXPR minor "${CMAKE_MATCH_1} / 100 % 1000")
      math(EXPR patch "${CMAKE_MATCH_1} % 100")
      set(v "${major}.${minor}.${patch}")
    endif()
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# pb_cccl_topk(FOUND INCLUDES VERSION WHY ROOT TOOLKIT_DIRS): FOUND is ON
# when ROOT (or, without ROOT, one of the toolkit's include folders) has
# cub/device/device_topk.cuh; INCLUDES the folders to put first on the
# module's include path (empty for the toolkit's own), VERSION the CCCL
# version found; otherwise WHY says what is missing, in one line.
function(pb_cccl_topk found includes version why root toolkit_dirs)
  set(inc "")
  set(cub_dir "")
  set(need "needs CCCL 3.3+ headers with cub/device/device_topk.cuh")
  if(NOT root STREQUAL "")
    if(EXISTS "${root}/cub/cub/device/device_topk.cuh")
      set(cub_dir "${root}/cub")
      set(inc "${root}/cub;${root}/thrust;${root}/libcudacxx/include")
    elseif(EXISTS "${root}/cub/device/device_topk.cuh")
      set(cub_dir "${root}")
      set(inc "${root}")
    elseif(EXISTS "${root}/include/cub/device/device_topk.cuh")
      set(cub_dir "${root}/include")
      set(inc "${root}/include")
    endif()
    set(missing "${need}, and PB_CCCL_ROOT = ${root} has none")
  else()
    set(seen "")
    foreach(d IN LISTS toolkit_dirs)
      foreach(c "${d}" "${d}/cccl")
        if(cub_dir STREQUAL "" AND EXISTS "${c}/cub/device/device_topk.cuh")
          set(cub_dir "${c}")
        elseif(seen STREQUAL "" AND EXISTS "${c}/cub/version.cuh")
          set(seen "${c}")
        endif()
      endforeach()
    endforeach()
    set(have "no CCCL")
    if(NOT seen STREQUAL "")
      pb_cccl_version(v "${seen}")
      set(have "CCCL ${v}")
    endif()
    set(missing "${need}, the toolkit has ${have}: set PB_CCCL_ROOT")
  endif()
  if(cub_dir STREQUAL "")
    set(${found} OFF PARENT_SCOPE)
    set(${why} "${missing}" PARENT_SCOPE)
    return()
  endif()
  pb_cccl_version(v "${cub_dir}")
  set(${found} ON PARENT_SCOPE)
  set(${includes} "${inc}" PARENT_SCOPE)
  set(${version} "${v}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  pb_cccl_topk(f inc v why "${ROOT}" "${TOOLKIT}")
  if(f)
    message("found ${v} ${inc}")
  else()
    message("missing ${why}")
  endif()
endif()
