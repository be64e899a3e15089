// GsoapRunner: the --client gsoap mode of lather-stress: what a typical typed SOAP client costs.
// Each connection is a blocking thread with its own lather::Client (the gSOAP-generated proxy,
// keep-alive); closed model only. Figures land in the same ThreadStats as the raw engine's, so the
// report, JSON and verdict are the same. Request and response bytes are counted as a whole (the
// proxy does not split head from body).
#pragma once

#include <string>

#include "common/status.h"
#include "stress/load/load_runner.h"

namespace lather {

struct GsoapLoadOptions {
  std::string url;
  bool soap12 = false;
  std::string op = "increment";  // increment | hello | inc-counter | echo
  std::string counter_name;
  size_t samples = 100;
  int connections = 10;
  double duration_seconds = 10;
  uint64_t total_calls = 0;
  double warmup_seconds = 2;
  double timeout_seconds = 10;
  uint64_t first_call_number = 0;
  std::string user, password;  // HTTP Basic credentials when user is not empty
  std::string ca_file;    // https: extra trusted CAs (PEM)
  bool insecure = false;  // https: no certificate checks
};

// Runs the load; InvalidArgument for an operation the typed client does not have.
Status RunGsoapLoad(const GsoapLoadOptions& options, const LoadObserver& observer, LoadResult* result);

}  // namespace lather
