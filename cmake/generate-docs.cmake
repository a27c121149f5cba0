# Writes rlsim's manual page (rlsim.1 and rlsim.1.gz) and its bash completion script
# (rlsim.bash-completion) into OUT_DIR by running the built program: `rlsim man` and
# `rlsim completion bash` render the same command line as --help (src/app/cli.h), so the installed
# files cannot drift from it. Run after every link of rlsim (CMakeLists.txt).
# Usage: cmake -DRLSIM=<path of rlsim> -DOUT_DIR=<dir> -P generate-docs.cmake
foreach(arg RLSIM OUT_DIR)
  if(NOT DEFINED ${arg})
    message(FATAL_ERROR "generate-docs.cmake needs -D${arg}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY "${OUT_DIR}")

function(run_rlsim output)
  execute_process(COMMAND "${RLSIM}" ${ARGN} OUTPUT_FILE "${OUT_DIR}/${output}"
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "rlsim ${ARGN} failed (${status}): ${errors}")
  endif()
endfunction()

run_rlsim(rlsim.1 man)
run_rlsim(rlsim.bash-completion completion bash)
# -n: no name or time stamp in the header, so the same page gives the same bytes (a reproducible
# package); -k keeps rlsim.1 for `man -l`.
execute_process(COMMAND gzip -9nkf "${OUT_DIR}/rlsim.1" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip ${OUT_DIR}/rlsim.1 failed (${status})")
endif()
