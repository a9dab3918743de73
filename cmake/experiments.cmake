# Experiments come as folders: src/experiments/NAME/ holds everything of
# one experiment (NAME.c with its row, NAME.h, NAME.cu and NAME_kernels.h,
# satellites such as NAME_model.c or NAME_gpu.c). The build lists no file of
# theirs: it takes every folder, and every source in it.
#
#   cml_experiment_folder(<target> <folder>)
#
# adds the experiment in <folder> to <target>: its .c files, and with CUDA
# its .cu files. A file NAME_none.c stands in for the .cu side in a build
# without CUDA (what host code calls even on the model-only path, see
# src/gpu/launcher.h), so it is compiled only there. A folder that needs
# more of the build (a generated table, say) says so in its own
# experiment.cmake, included here with CML_EXPERIMENT_TARGET and
# CML_EXPERIMENT_DIR set. The real experiments and the engine test's own
# (tests/engine/tiny) go through this same function.
function(cml_experiment_folder target folder)
  get_filename_component(_dir "${folder}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  file(GLOB _src CONFIGURE_DEPENDS ${_dir}/*.c)
  file(GLOB _none CONFIGURE_DEPENDS ${_dir}/*_none.c)
  if(CML_WITH_CUDA)
    if(_none)
      list(REMOVE_ITEM _src ${_none})
    endif()
    file(GLOB _cu CONFIGURE_DEPENDS ${_dir}/*.cu)
    list(APPEND _src ${_cu})
  endif()
  target_sources(${target} PRIVATE ${_src})
  if(EXISTS ${_dir}/experiment.cmake)
    set(CML_EXPERIMENT_TARGET ${target})
    set(CML_EXPERIMENT_DIR ${_dir})
    include(${_dir}/experiment.cmake)
  endif()
endfunction()

# Every folder under <root> (src/experiments), sorted: the experiments the
# build knows. Which of them the program offers, and in what order, is the
# registry's business (src/experiments/registry.c).
function(cml_experiment_folders out root)
  file(GLOB _entries LIST_DIRECTORIES true CONFIGURE_DEPENDS ${root}/*)
  set(_dirs "")
  foreach(_e ${_entries})
    if(IS_DIRECTORY ${_e})
      list(APPEND _dirs ${_e})
    endif()
  endforeach()
  list(SORT _dirs)
  set(${out} ${_dirs} PARENT_SCOPE)
endfunction()
