// OperationPreset: the request body, headers and response expectation for each --op of
// lather-stress against a Lather service, in SOAP 1.1 or 1.2; or for a user's --body file.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "stress/load/response_checker.h"

namespace lather {

struct OperationPreset {
  std::string body;                  // with ${n} where the call number goes
  std::vector<std::string> headers;  // "Name: value"
  Expectation expectation;
  size_t request_payload_bytes = 0;  // text bytes inside the Body for a 1-digit call number
};

struct PresetRequest {
  std::string op = "increment";  // increment | hello | inc-counter | echo
  int soap_version = 1;
  size_t samples = 100;          // echo: samples per call
  std::string counter_name;      // inc-counter: the counter all calls increment
};

// InvalidArgument for an unknown operation.
Status MakeOperationPreset(const PresetRequest& request, OperationPreset* preset);

// Computes request_payload_bytes for a body (parsed once with n = 0).
size_t RequestPayloadBytes(const std::string& body_template);

}  // namespace lather
