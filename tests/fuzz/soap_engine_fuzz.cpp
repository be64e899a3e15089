// libFuzzer target: the whole request path on a buffer. The input is a SOAP body handed to the
// SoapEngine (the checks in front of gSOAP, gSOAP's parser, the operations, the serializer) as the
// connection code would, over SOAP 1.1 and 1.2; nothing may crash, leak or read out of bounds, and
// every answer must be a response or a fault with a sane status.
#include <cstddef>
#include <cstdint>
#include <string>

#include "LatherSoap.nsmap"
#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // No store: counter operations are deferred, as on an event loop.
  static lather::Operations operations(nullptr);
  static lather::SoapEngine engine(&operations, lather::SoapEngineLimits{}, true);
  if (size == 0) return 0;
  lather::SoapCall call;
  call.content_type_version = (data[0] & 1) ? 2 : 1;
  call.body = std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string response;
  const lather::SoapOutcome outcome = engine.Serve(call, &response);
  if (outcome.http_status != 200 && outcome.http_status != 400 && outcome.http_status != 500) __builtin_trap();
  if (!outcome.deferred && response.empty()) __builtin_trap();
  return 0;
}
