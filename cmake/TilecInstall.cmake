# Installs the CMake package `tilec` (find_package(tilec) -> tilec::runtime,
# tilec::compiler). Include once, at the end of the top-level CMakeLists.txt, after
# every target of the export set `tilecTargets` has been declared:
#   include(${PROJECT_SOURCE_DIR}/cmake/TilecInstall.cmake)
# Targets join the package with
#   install(TARGETS <tgt> EXPORT tilecTargets ...)  +  EXPORT_NAME <runtime|compiler>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILEC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilec CACHE STRING
    "Where tilecConfig.cmake is installed (relative to the prefix)")
# Values baked into tilecConfig.cmake.
set(TILEC_CONFIG_HAS_COMPILER ${TILEC_ENABLE_COMPILER})
if(TILEC_ENABLE_COMPILER AND DEFINED MLIR_DIR)
  set(TILEC_CONFIG_MLIR_DIR ${MLIR_DIR})
else()
  set(TILEC_CONFIG_MLIR_DIR "")
endif()

install(EXPORT tilecTargets
  NAMESPACE tilec::
  FILE tilecTargets.cmake
  DESTINATION ${TILEC_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/tilecConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/tilecConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/tilecConfigVersion.cmake
  DESTINATION ${TILEC_INSTALL_CMAKEDIR})
