// lather-call --wsdl: any SOAP service from its WSDL alone. `list` prints every port's operations with
// their fields; `OPERATION path=value ...` builds the request from the schema (values checked before
// anything is sent), posts it and prints the answer as a tree or JSON, or the fault.
// Stateless; runs one command and returns lather-call's exit code.
#pragma once

#include <string>
#include <vector>

#include "client/wsdl/http_fetch.h"

namespace lather {

// Exit codes of the --wsdl commands (lather-call's, plus 4).
constexpr int kWsdlExitMismatch = 1;    // an answer that is not SOAP, or an HTTP error without a fault
constexpr int kWsdlExitFault = 2;       // a SOAP fault came back
constexpr int kWsdlExitConnection = 3;  // the WSDL or the service did not answer
constexpr int kWsdlExitUnusable = 4;    // the WSDL or its schemas cannot be used (named, with the line)
constexpr int kWsdlExitUsage = 64;      // bad usage, or a value the schema refuses (nothing sent)

struct WsdlCallOptions {
  std::string wsdl_url;        // --wsdl
  std::string port;            // --port; empty: the first SOAP 1.1 port
  std::string endpoint;        // --url given: overrides the port's soap:address
  std::string input_file;      // -f FILE.json: the whole input
  bool json = false;           // --json: list and answers as JSON
  wsdl::FetchOptions fetch;    // timeouts, TLS
};

// `args`: {"list"} or {OPERATION, "path=value", ...}. Prints to stdout (errors: one line on stderr).
int RunWsdlCommand(const WsdlCallOptions& options, const std::vector<std::string>& args);

}  // namespace lather
