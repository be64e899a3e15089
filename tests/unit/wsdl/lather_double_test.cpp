// The xsd:double writer of wsdl/lather_double.cpp: shortest round-trip digits, gSOAP's layout.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "soapH.h"
#include "wsdl/soap_runtime.h"

#include <catch2/catch.hpp>

namespace {

std::string Spelled(double value) {
  lather::InitSoapRuntime();
  struct soap* soap = soap_new();
  const std::string text = soap_xsd__double2s(soap, value);
  soap_free(soap);
  return text;
}

}  // namespace

TEST_CASE("xsd:double values are written with the fewest digits that read back the same", "[wsdl][double]") {
  CHECK(Spelled(0.1) == "0.1");  // gSOAP's %.17lG: 0.10000000000000001
  CHECK(Spelled(106638.33) == "106638.33");
  CHECK(Spelled(2.0 / 3) == "0.6666666666666666");
  CHECK(Spelled(30000000000.0) == "30000000000");  // plain up to exponent 16, as %G
  CHECK(Spelled(1e16) == "10000000000000000");
  CHECK(Spelled(1e17) == "1E+17");
  CHECK(Spelled(1e-5) == "1E-05");
  CHECK(Spelled(0.0001) == "0.0001");
  CHECK(Spelled(-1.5e300) == "-1.5E+300");
  CHECK(Spelled(0.0) == "0");
  CHECK(Spelled(-0.0) == "-0");
  CHECK(Spelled(std::numeric_limits<double>::denorm_min()) == "5E-324");
  CHECK(Spelled(std::numeric_limits<double>::max()) == "1.7976931348623157E+308");
  CHECK(Spelled(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(Spelled(std::numeric_limits<double>::infinity()) == "INF");
  CHECK(Spelled(-std::numeric_limits<double>::infinity()) == "-INF");
}

TEST_CASE("random xsd:double bit patterns read back bit for bit, in the notation gSOAP chose", "[wsdl][double]") {
  lather::InitSoapRuntime();
  struct soap* soap = soap_new();
  std::mt19937_64 random(7);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = random();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isfinite(value)) continue;
    const std::string text = soap_xsd__double2s(soap, value);
    double back = 0;
    REQUIRE(soap_s2xsd__double(soap, text.c_str(), &back) == SOAP_OK);
    REQUIRE(std::memcmp(&back, &value, sizeof value) == 0);
    char gsoap[64];
    std::snprintf(gsoap, sizeof gsoap, "%.17lG", value);
    REQUIRE((std::strchr(gsoap, 'E') != nullptr) == (text.find('E') != std::string::npos));
  }
  soap_free(soap);
}
