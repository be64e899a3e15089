# Finds every external dependency (all from Debian 12 packages; scripts/bootstrap installs them).
find_package(PkgConfig REQUIRED)
pkg_check_modules(GSOAP REQUIRED IMPORTED_TARGET gsoap++)

find_program(LATHER_SOAPCPP2 soapcpp2 REQUIRED)
find_program(LATHER_WSDL2H wsdl2h REQUIRED)
get_filename_component(_gsoap_bin "${LATHER_SOAPCPP2}" DIRECTORY)
find_path(LATHER_GSOAP_IMPORT_DIR soap12.h
  HINTS "${_gsoap_bin}/../share/gsoap/import" /usr/share/gsoap/import
  NO_DEFAULT_PATH REQUIRED)

# libpq (libpq-dev) for the PostgreSQL counter store: its statements are prepared once per connection
# (PQprepare), which Poco's PostgreSQL connector does not do (it prepared and deallocated every statement).
find_library(LATHER_LIBPQ pq REQUIRED)
find_path(LATHER_LIBPQ_INCLUDE_DIR libpq-fe.h PATH_SUFFIXES postgresql REQUIRED)
if(NOT TARGET PostgreSQL::client)
  add_library(PostgreSQL::client UNKNOWN IMPORTED)
  set_target_properties(PostgreSQL::client PROPERTIES IMPORTED_LOCATION "${LATHER_LIBPQ}"
                        INTERFACE_INCLUDE_DIRECTORIES "${LATHER_LIBPQ_INCLUDE_DIR}")
endif()
# SQLite's own API for the counter store's statements compiled once (libsqlite3-dev; CMake's FindSQLite3).
find_package(SQLite3 REQUIRED)
find_package(Poco REQUIRED COMPONENTS Foundation Util Net NetSSL Crypto JSON Data DataSQLite)
# libxml2: XSD validation of responses against a foreign WSDL's schemas (lather-stress --validate).
find_package(LibXml2 REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS thread chrono)
find_package(pugixml REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED)
