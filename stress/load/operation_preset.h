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
  size_t payload_placeholders = 0;   // ${n} inside the Body's text (not in the Header's message id)
};

struct PresetRequest {
  std::string op = "increment";  // increment | hello | inc-counter | echo
  int soap_version = 1;
  size_t samples = 100;          // echo: samples per call
  std::string counter_name;      // inc-counter: the counter all calls increment
  // inc-counter: a fresh wsa:MessageID with every call ("urn:uuid:${uuid}": random-looking, as real clients'
  // ids are, different in every call and every run), so a retried call (a proxy's, a client's) counts once and
  // the counter can be checked exactly; false: no header (--no-message-id).
  bool message_ids = true;
};

// InvalidArgument for an unknown operation.
Status MakeOperationPreset(const PresetRequest& request, OperationPreset* preset);

// The text bytes inside the SOAP Body of a body template (parsed once with n = 0); the whole document's
// when it has no Body.
size_t RequestPayloadBytes(const std::string& body_template);

// The ${n} placeholders of a body template inside its SOAP Body (after the Body's start tag).
size_t BodyPlaceholders(const std::string& body_template);

}  // namespace lather
