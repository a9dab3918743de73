# A pkg-config file installed with the libraries.
#
#   cml_pkg_config(<name> <template.pc.in>)
#
# installs <name>.pc into ${CMAKE_INSTALL_LIBDIR}/pkgconfig. The file is
# written at INSTALL time, from the template, so that its prefix is the one
# really installed into: `cmake --install build --prefix /opt/x` (what
# `make install PREFIX=/opt/x` runs) gives prefix=/opt/x whatever
# CMAKE_INSTALL_PREFIX was at configure time. DESTDIR (a staging root) is
# not part of the prefix, as for every other installed file; to use a staged
# tree, point pkg-config at it with PKG_CONFIG_SYSROOT_DIR=$DESTDIR.
#
# The template's variables: @CML_PC_PREFIX@, @CML_PC_LIBDIR@ and
# @CML_PC_INCLUDEDIR@ (${prefix}/lib, ... or the absolute directories given
# to GNUInstallDirs), @PROJECT_VERSION@, @CML_PC_LIBS@ (after the library in
# Libs) and @CML_PC_LIBS_PRIVATE@. The model needs libm; with only the
# static library installed it goes in Libs (pkg-config --libs does not print
# Libs.private), with the shared one in Libs.private.

function(cml_pkg_config name template)
  # Paths in the .pc file: relative to ${prefix} unless given absolute.
  foreach(_d LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${_d}}")
      set(CML_PC_${_d} "${CMAKE_INSTALL_${_d}}")
    else()
      set(CML_PC_${_d} "\${prefix}/${CMAKE_INSTALL_${_d}}")
    endif()
  endforeach()
  if(CUMEMLAB_MODEL_SHARED)
    set(CML_PC_LIBS "")
    set(CML_PC_LIBS_PRIVATE "-lm")
  else()
    set(CML_PC_LIBS "-lm")
    set(CML_PC_LIBS_PRIVATE "")
  endif()
  # Stage 1, now: everything but the prefix, which stays @CML_PC_PREFIX@.
  set(CML_PC_PREFIX "@CML_PC_PREFIX@")
  set(_stage "${CMAKE_BINARY_DIR}/pkgconfig/${name}.pc.in")
  set(_out "${CMAKE_BINARY_DIR}/pkgconfig/${name}.pc")
  configure_file("${template}" "${_stage}" @ONLY)
  # Stage 2, at install time: the prefix installed into.
  install(CODE "set(CML_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
configure_file(\"${_stage}\" \"${_out}\" @ONLY)")
  install(FILES "${_out}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endfunction()
