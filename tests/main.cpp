// Catch2 entry point for lather_tests; the generated namespace table is defined here once.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "LatherSoap.nsmap"
