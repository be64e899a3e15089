#include <catch2/catch.hpp>

#include <string>

#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"

using lather::Operations;
using lather::SoapCall;
using lather::SoapEngine;
using lather::SoapEngineLimits;
using lather::SoapOutcome;
using lather::Status;

namespace {

std::string IncCounterEnvelope(int version, const std::string& header) {
  const std::string ns =
      version == 2 ? "http://www.w3.org/2003/05/soap-envelope" : "http://schemas.xmlsoap.org/soap/envelope/";
  return "<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"" + ns + "\" xmlns:l=\"urn:lather:v1\">" + header +
         "<soap:Body><l:IncCounter><l:name>orders</l:name></l:IncCounter></soap:Body></soap:Envelope>";
}

}  // namespace

TEST_CASE("an IncCounter answer written from the engine's capture is the bytes the call served again gives",
          "[service][soap]") {
  Operations operations(nullptr);
  SoapEngine engine(&operations, SoapEngineLimits(), true);  // a loop's engine
  engine.set_increments_to_writer(true);
  for (int version : {1, 2}) {
    INFO("SOAP version " << version);
    const std::string request = IncCounterEnvelope(version, "");
    SoapCall call;
    call.body = request;
    call.content_type_version = version;
    std::string first;
    const SoapOutcome deferred = engine.Serve(call, &first);
    REQUIRE(deferred.deferred);
    REQUIRE(deferred.increment);
    CHECK(engine.pending_increment().name == "orders");
    CHECK(engine.pending_increment().plain_version == version);  // no Header: the capture may answer it

    for (int64_t value : {int64_t{1}, int64_t{42}, int64_t{9007199254740993}}) {
      engine.InjectIncrement(Status::Ok(), value);
      std::string served;
      const SoapOutcome again = engine.Serve(call, &served);
      REQUIRE(again.http_status == 200);
      std::string written;
      REQUIRE(engine.WriteIncrementAnswer(version, value, &written));
      CHECK(written == served);
      CHECK(served.find(">" + std::to_string(value) + "<") != std::string::npos);
    }
  }
  std::string none;
  CHECK_FALSE(engine.WriteIncrementAnswer(0, 1, &none));
  CHECK(none.empty());
}

TEST_CASE("an IncCounter with a SOAP Header is read again for its answer, not written from the capture",
          "[service][soap]") {
  Operations operations(nullptr);
  SoapEngine engine(&operations, SoapEngineLimits(), true);
  engine.set_increments_to_writer(true);
  const std::string request = IncCounterEnvelope(
      1, "<soap:Header><wsa:MessageID xmlns:wsa=\"http://www.w3.org/2005/08/addressing\">urn:uuid:1</wsa:MessageID>"
         "</soap:Header>");
  SoapCall call;
  call.body = request;
  std::string first;
  REQUIRE(engine.Serve(call, &first).increment);
  CHECK(engine.pending_increment().message_id == "urn:uuid:1");
  CHECK(engine.pending_increment().plain_version == 0);
}
