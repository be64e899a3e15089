#include "stress/load/operation_preset.h"

#include <catch2/catch.hpp>

#include <string>

using lather::BodyPlaceholders;
using lather::MakeOperationPreset;
using lather::OperationPreset;
using lather::PresetRequest;
using lather::RequestPayloadBytes;

TEST_CASE("inc-counter sends a fresh wsa:MessageID per call unless --no-message-id", "[stress][preset]") {
  PresetRequest request;
  request.op = "inc-counter";
  request.counter_name = "orders";
  OperationPreset preset;
  REQUIRE(MakeOperationPreset(request, &preset).ok());  // message ids by default
  CHECK(preset.body.find("<soap:Header><wsa:MessageID xmlns:wsa=\"http://www.w3.org/2005/08/addressing\">"
                         "urn:uuid:${uuid}</wsa:MessageID></soap:Header><soap:Body>") != std::string::npos);
  // The id is envelope, not payload: the payload is the counter's name, and no ${n} is in the Body.
  CHECK(preset.request_payload_bytes == 6);
  CHECK(preset.payload_placeholders == 0);

  request.message_ids = false;
  REQUIRE(MakeOperationPreset(request, &preset).ok());
  CHECK(preset.body.find("MessageID") == std::string::npos);
  CHECK(preset.body.find("<soap:Header>") == std::string::npos);
}

TEST_CASE("payload bytes and placeholders count the SOAP Body only, whatever its prefix and attributes",
          "[stress][preset]") {
  const std::string body =
      "<e:Envelope xmlns:e=\"http://schemas.xmlsoap.org/soap/envelope/\"><e:Header><h>${n}</h></e:Header>"
      "<e:Body xmlns:x=\"urn:x\"><x:Add><x:a>${n}</x:a><x:b>12</x:b></x:Add></e:Body></e:Envelope>";
  CHECK(BodyPlaceholders(body) == 1);
  CHECK(RequestPayloadBytes(body) == 3);  // "0" for ${n}, then "12"
  CHECK(RequestPayloadBytes("<Envelope><Body><id>${uuid}</id></Body></Envelope>") == 36);  // a UUID's 36 characters
  CHECK(BodyPlaceholders("<Envelope><Body>${n}${n}</Body></Envelope>") == 2);
  CHECK(BodyPlaceholders("no envelope ${n}") == 1);  // no Body: every placeholder counts
}
