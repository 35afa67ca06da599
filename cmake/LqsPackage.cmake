# The Debian package (cpack -G DEB; docs/packages.md): lqsd, the lqs CLI,
# the libraries with their headers and CMake package config, the shared C
# library (liblqs_c.so) with a pkg-config file, the Python module for
# Debian's python3, and lqsd.service with its configuration in /etc/lqs.
#
# The service files go in the "service" component, left out of a plain
# `cmake --install` (EXCLUDE_FROM_ALL): they have absolute destinations
# (/etc, /lib/systemd) that an install into a prefix must not write. CPack
# installs both into its staging tree (CPACK_INSTALL_CMAKE_PROJECTS).

set(LQS_PACKAGING_DIR ${PROJECT_SOURCE_DIR}/packaging/deb)
install(FILES ${LQS_PACKAGING_DIR}/lqsd.service
        DESTINATION /lib/systemd/system COMPONENT service EXCLUDE_FROM_ALL)
install(FILES ${LQS_PACKAGING_DIR}/lqsd.env ${LQS_PACKAGING_DIR}/queues.json
        DESTINATION /etc/lqs COMPONENT service EXCLUDE_FROM_ALL)
install(FILES README.md LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
# Everything a plain install has, plus the service component.
set(CPACK_INSTALL_CMAKE_PROJECTS
    "${PROJECT_BINARY_DIR};lqs;ALL;/" "${PROJECT_BINARY_DIR};lqs;service;/")
set(CPACK_PACKAGE_NAME lqs)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "lqs")
set(CPACK_PACKAGE_CONTACT "lqs maintainers <lqs@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Local Queue Service: an embedded, persistent queue with Amazon SQS semantics")
set(CPACK_PACKAGE_DESCRIPTION
    "lqs is an embedded message queue on RocksDB with the semantics of Amazon SQS. \
This package has lqsd (an SQS endpoint speaking the JSON and query protocols, run \
as lqsd.service), the lqs command-line tool, the C and C++ libraries with their \
headers, and the Python module for python3.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# adduser for the service's user; the Python module is built for one
# python3 minor version (its extension's ABI tag).
get_property(_lqs_py GLOBAL PROPERTY LQS_PYTHON_VERSION)
if(_lqs_py MATCHES "^([0-9]+)\\.([0-9]+)$")
  math(EXPR _lqs_py_next "${CMAKE_MATCH_2} + 1")
  set(_lqs_py_dep ", python3 (>= ${_lqs_py}), python3 (<< ${CMAKE_MATCH_1}.${_lqs_py_next})")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser${_lqs_py_dep}")
# What find_package(lqs) needs to build against the static C++ libraries.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "cmake, librocksdb-dev, libflatbuffers-dev, libabsl-dev, libssl-dev, libboost-dev, \
nlohmann-json3-dev, python3-boto3, awscli")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${LQS_PACKAGING_DIR}/conffiles ${LQS_PACKAGING_DIR}/postinst
    ${LQS_PACKAGING_DIR}/prerm ${LQS_PACKAGING_DIR}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_STRIP_FILES TRUE)
include(CPack)
