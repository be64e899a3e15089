// WsdlPreset: lather-stress's request for one operation of a foreign WSDL: the envelope built once from
// the schema (values from --set, which may hold ${n} and random(a..b); required fields not set get
// sample values), SOAPAction and Content-Type from the binding, and success judged by the output's
// schema (the response's element and its required children), with --validate N checking one response
// in N in full against the XSD. Functions; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/http_fetch.h"
#include "common/status.h"
#include "stress/load/operation_preset.h"

namespace lather {

struct WsdlPresetRequest {
  std::string wsdl_url;            // --wsdl
  std::string port;                // --port; empty: the first SOAP 1.1 port
  std::string operation;           // --op, as the WSDL names it
  std::vector<std::string> sets;   // --set path=value
  uint64_t validate_every = 0;     // --validate N
  wsdl::FetchOptions fetch;
};

struct WsdlPresetResult {
  std::string endpoint;             // the port's soap:address
  int soap_version = 1;
  std::vector<std::string> filled;  // "path=value" of the required fields given sample values
};

// IOError/Timeout when the WSDL does not answer; InvalidArgument naming what is wrong (the WSDL, a port
// or operation that is not there, a field or value the schema refuses).
Status MakeWsdlPreset(const WsdlPresetRequest& request, OperationPreset* preset, WsdlPresetResult* result);

}  // namespace lather
