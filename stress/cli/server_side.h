// What lather-stress watches on the server side, from its repeatable --server-pid and --metrics-url
// values: a plain PID or URL is the one "server"; NAME=PID and NAME=URL name a component of a farm, and
// values under one name are its instances (the i-th PID and the i-th URL of a name are one instance).
// Decides which component serves the calls (the one named like a node, else "server", else the first).
// Pure parsing; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "stress/measure/resource_sampler.h"

namespace lather {

// One --server-pid or --metrics-url value as given.
struct ServerSideValue {
  bool is_pid = false;  // --server-pid (else --metrics-url)
  std::string text;
};

// "node=1234" -> {"node", "1234"}; a value without a NAME= prefix (or whose text before '=' is not a
// name: letters, digits, '-', '_', '.') -> {"server", value}.
void SplitNamed(const std::string& value, std::string* name, std::string* rest);

struct ServerSide {
  std::vector<WatchedInstance> instances;
  std::string serving;  // the component whose sum is the server
  bool farm = false;    // named components, or several instances: judged per component
};

// Builds the instances. Without any value, or with one plain PID and/or URL, the server is the one instance
// of "server" and its /metrics defaults to `target_host`:`target_port` (when `target_host` is a numeric
// IPv4 address). PIDs must name running processes and URLs must be http(s)://IPV4:PORT[/...]; a clear
// error otherwise.
Status BuildServerSide(const std::vector<ServerSideValue>& values, const std::string& target_host, int target_port,
                       bool target_tls, ServerSide* out);

}  // namespace lather
