# The CUDA architectures a build holds, when CMAKE_CUDA_ARCHITECTURES is not
# given (docs/architectures.md says why these):
#   PB_CUDA_ARCH set      that list as it is (e.g. 90: today's one-architecture
#                         development build; CI's main build is one too);
#   a GPU visible         `native`: each visible GPU's architecture (SASS and
#                         its PTX), resolved here to numbers so that the
#                         build's provenance names them;
#   no GPU visible        the release list: SASS for every major architecture
#                         CUDA 13 builds (Turing to Blackwell) and PTX of the
#                         newest, which later GPUs compile at load.
# Whether a GPU is visible is what nvcc's own `-arch=native` asks:
# __nvcc_device_query beside nvcc, which fails without a device or driver.
#
# Script mode, for the test (tests/scripts/cuda_archs.sh):
#   cmake -DQUERY=TOOL [-DEXPLICIT=LIST] -P cmake/cuda_archs.cmake  -> prints the list
set(PB_CUDA_RELEASE_ARCHS "75-real;80-real;86-real;89-real;90-real;100-real;120")

# pb_cuda_archs(OUT EXPLICIT QUERY): OUT is EXPLICIT when not empty, else the
# architectures QUERY reports (native), else the release list.
function(pb_cuda_archs out explicit query)
  if(NOT explicit STREQUAL "")
    set(${out} "${explicit}" PARENT_SCOPE)
    return()
  endif()
  set(archs "${PB_CUDA_RELEASE_ARCHS}")
  if(query AND EXISTS "${query}")
    execute_process(COMMAND "${query}" OUTPUT_VARIABLE o RESULT_VARIABLE rc
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(REGEX MATCHALL "[0-9]+" found "${o}")
    if(rc EQUAL 0 AND found)
      list(REMOVE_DUPLICATES found)
      list(SORT found COMPARE NATURAL)
      set(archs "${found}")
    endif()
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# pb_cuda_code_lists(ARCHS SASS PTX): the SASS and PTX architectures of a
# CMAKE_CUDA_ARCHITECTURES list, comma-separated ("90" is both, "90-real"
# SASS only, "90-virtual" PTX only).
function(pb_cuda_code_lists archs sass_out ptx_out)
  set(sass "")
  set(ptx "")
  foreach(a IN LISTS archs)
    if(a MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
      if(NOT CMAKE_MATCH_2 STREQUAL "-virtual")
        list(APPEND sass ${CMAKE_MATCH_1})
      endif()
      if(NOT CMAKE_MATCH_2 STREQUAL "-real")
        list(APPEND ptx ${CMAKE_MATCH_1})
      endif()
    elseif(NOT a STREQUAL "")
      list(APPEND sass ${a}) # native, all, all-major: CMake's words
    endif()
  endforeach()
  string(REPLACE ";" "," sass "${sass}")
  string(REPLACE ";" "," ptx "${ptx}")
  set(${sass_out} "${sass}" PARENT_SCOPE)
  set(${ptx_out} "${ptx}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT DEFINED EXPLICIT)
    set(EXPLICIT "")
  endif()
  pb_cuda_archs(archs "${EXPLICIT}" "${QUERY}")
  pb_cuda_code_lists("${archs}" sass ptx)
  message("${archs} | sass ${sass} | ptx ${ptx}")
endif()
