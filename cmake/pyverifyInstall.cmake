# Installs the C++ library for `find_package(pyverify)`:
#
#   <prefix>/include/pyverify/**           every header and .def table
#   <prefix>/lib/libpyverify<Layer>.a      one static library per layer
#   <prefix>/lib/cmake/pyverify/           pyverifyConfig.cmake, its version
#                                          file and pyverifyTargets*.cmake
#
# The export set pyverifyTargets holds pyverify::options (usage requirements
# shared by every layer), the layers pyverify::pyverify<Layer> (registered by
# pyverify_add_component in lib/CMakeLists.txt) and pyverify::pyverify, the
# one target users link. Everything goes in the COMPONENT pyverify_dev, so
# `cmake --install <build> --component pyverify_dev` installs just this.
#
# The package is relocatable: the exported files name only paths relative to
# the prefix and the imported target LLVMSupport, which pyverifyConfig.cmake
# gets with find_dependency(LLVM 14). The one absolute path is the system's
# libz3 that lib/SMT links privately (a static library's private link
# dependencies are exported), as LLVM's own LLVMSupport export names it too.
include(CMakePackageConfigHelpers)

set(PYVERIFY_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/pyverify CACHE
    STRING "Where pyverifyConfig.cmake is installed, relative to the prefix")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pyverify
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT pyverify_dev
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")

install(TARGETS pyverify_options pyverify_all EXPORT pyverifyTargets
        COMPONENT pyverify_dev)
install(EXPORT pyverifyTargets NAMESPACE pyverify::
        DESTINATION ${PYVERIFY_INSTALL_CMAKEDIR} COMPONENT pyverify_dev)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/pyverifyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/pyverifyConfig.cmake
  INSTALL_DESTINATION ${PYVERIFY_INSTALL_CMAKEDIR}
  NO_SET_AND_CHECK_MACRO)
# 0.x: a minor release may change the API, so 0.1 accepts 0.1.* only.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/pyverifyConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/pyverifyConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/pyverifyConfigVersion.cmake
        DESTINATION ${PYVERIFY_INSTALL_CMAKEDIR} COMPONENT pyverify_dev)
