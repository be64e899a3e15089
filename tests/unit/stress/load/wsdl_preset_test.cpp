#include "stress/load/wsdl_preset.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "stress/load/operation_preset.h"
#include "stress/load/response_checker.h"

using lather::Expectation;
using lather::MakeOperationPreset;
using lather::MakeWsdlPreset;
using lather::OperationPreset;
using lather::PresetRequest;
using lather::Status;
using lather::WsdlPresetRequest;
using lather::WsdlPresetResult;

namespace {

const char kLatherWsdl[] = LATHER_TESTS_DIR "/../wsdl/lather.wsdl";

WsdlPresetRequest Request(const std::string& operation, const std::vector<std::string>& sets,
                          const std::string& port = "") {
  WsdlPresetRequest r;
  r.wsdl_url = kLatherWsdl;
  r.port = port;
  r.operation = operation;
  r.sets = sets;
  return r;
}

OperationPreset FromWsdl(const WsdlPresetRequest& request, WsdlPresetResult* result) {
  OperationPreset preset;
  const Status s = MakeWsdlPreset(request, &preset, result);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return preset;
}

OperationPreset Builtin(const std::string& op, int soap_version) {
  PresetRequest request;
  request.op = op;
  request.soap_version = soap_version;
  OperationPreset preset;
  REQUIRE(MakeOperationPreset(request, &preset).ok());
  return preset;
}

void SameRequest(const OperationPreset& from_wsdl, const OperationPreset& builtin) {
  CHECK(from_wsdl.body == builtin.body);
  CHECK(from_wsdl.headers == builtin.headers);
  CHECK(from_wsdl.request_payload_bytes == builtin.request_payload_bytes);
  CHECK(from_wsdl.payload_placeholders == builtin.payload_placeholders);
}

}  // namespace

TEST_CASE(
    "a --wsdl preset on Lather's WSDL sends Increment exactly as --op increment does, in SOAP 1.1 and 1.2",
    "[wsdl][stress][preset]") {
  WsdlPresetResult result;
  const OperationPreset soap11 = FromWsdl(Request("Increment", {"value=${n}"}), &result);
  SameRequest(soap11, Builtin("increment", 1));
  CHECK(result.endpoint == "http://127.0.0.1:8080/soap");
  CHECK(result.soap_version == 1);
  CHECK(result.filled.empty());

  WsdlPresetResult result12;
  const OperationPreset soap12 = FromWsdl(Request("Increment", {"value=${n}"}, "LatherSoap12"), &result12);
  SameRequest(soap12, Builtin("increment", 2));
  CHECK(result12.soap_version == 2);
  CHECK(result12.filled.empty());
}

TEST_CASE("a --wsdl preset on Lather's WSDL sends HelloWorld exactly as --op hello does",
          "[wsdl][stress][preset]") {
  WsdlPresetResult result;
  SameRequest(FromWsdl(Request("HelloWorld", {}), &result), Builtin("hello", 1));
  CHECK(result.filled.empty());
  WsdlPresetResult result12;
  SameRequest(FromWsdl(Request("HelloWorld", {}, "LatherSoap12"), &result12), Builtin("hello", 2));
}

TEST_CASE("a --wsdl preset judges success by the output element and its required children",
          "[wsdl][stress][preset]") {
  WsdlPresetResult result;
  const OperationPreset preset = FromWsdl(Request("Increment", {"value=${n}"}), &result);
  const Expectation& e = preset.expectation;
  CHECK(e.kind == Expectation::Kind::kSchema);
  CHECK(e.element_local == "IncrementResponse");
  CHECK(e.element_ns == "urn:lather:v1");
  CHECK(e.required == (std::vector<std::string>{"result"}));
  CHECK(e.validation == nullptr);

  const OperationPreset echo = FromWsdl(Request("EchoDataSamples", {}), &result);
  CHECK(echo.expectation.element_local == "EchoDataSamplesResponse");
  CHECK(echo.expectation.required == (std::vector<std::string>{"samples"}));
}

TEST_CASE("a --wsdl preset fills a required field that no --set gave and says so", "[wsdl][stress][preset]") {
  WsdlPresetResult result;
  const OperationPreset preset = FromWsdl(Request("Increment", {}), &result);
  CHECK(result.filled == (std::vector<std::string>{"value=0"}));
  CHECK(preset.body.find("<l:value>0</l:value>") != std::string::npos);
  CHECK(preset.payload_placeholders == 0);

  WsdlPresetResult counter;
  FromWsdl(Request("IncCounter", {}), &counter);
  CHECK(counter.filled == (std::vector<std::string>{"name=sample"}));
}

TEST_CASE(
    "a --wsdl preset refuses a --set on an unknown field, a bad value, and an unknown operation or port",
    "[wsdl][stress][preset]") {
  OperationPreset preset;
  WsdlPresetResult result;
  Status s = MakeWsdlPreset(Request("Increment", {"nope=1"}), &preset, &result);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::StartsWith("--set nope: no field 'nope'"));
  CHECK_THAT(s.message(), Catch::Contains("(fields of Increment: value)"));

  s = MakeWsdlPreset(Request("Increment", {"value=2147483648"}), &preset, &result);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("outside the range of xsd:int"));

  s = MakeWsdlPreset(Request("Increment", {"value"}), &preset, &result);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("is not path=value"));

  s = MakeWsdlPreset(Request("Decrement", {}), &preset, &result);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(),
             Catch::Contains("operations: Increment, HelloWorld, IncCounter, GetCounter, EchoDataSamples"));

  s = MakeWsdlPreset(Request("Increment", {}, "LatherSoap13"), &preset, &result);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("ports: LatherSoap, LatherSoap12"));

  WsdlPresetRequest missing = Request("Increment", {});
  missing.wsdl_url = std::string(kLatherWsdl) + ".missing";
  s = MakeWsdlPreset(missing, &preset, &result);
  CHECK(s.kind() == Status::Kind::kIOError);
}

TEST_CASE("a --wsdl preset with --validate N compiles Lather's schema into the expectation",
          "[wsdl][stress][preset]") {
  WsdlPresetRequest request = Request("Increment", {"value=${n}"});
  request.validate_every = 10;
  WsdlPresetResult result;
  const OperationPreset preset = FromWsdl(request, &result);
  REQUIRE(preset.expectation.validation != nullptr);
  CHECK(preset.expectation.validation->every == 10);
  REQUIRE(preset.expectation.validation->validator != nullptr);
  const std::string good =
      "<soap:Envelope "
      "xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><l:IncrementResponse "
      "xmlns:l=\"urn:lather:v1\"><l:result>6</l:result></l:IncrementResponse></soap:Body></soap:Envelope>";
  CHECK(preset.expectation.validation->validator->Validate(good.data(), good.size()).ok());
}
