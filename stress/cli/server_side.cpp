#include "stress/cli/server_side.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>

#include "stress/load/target_url.h"
#include "stress/verdict/component_judge.h"

namespace lather {
namespace {

bool IsName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                    c == '.';
    if (!ok) return false;
  }
  return true;
}

bool NumericIpv4(const std::string& host) {
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string::npos;
}

Status ParsePid(const std::string& name, const std::string& text, pid_t* pid) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value <= 0 || value > INT32_MAX) {
    return Status::InvalidArgument("--server-pid " + (name == "server" ? "" : name + "=") + text +
                                   ": not a process id (give PID or NAME=PID)");
  }
  if (kill(static_cast<pid_t>(value), 0) != 0 && errno == ESRCH) {
    return Status::InvalidArgument("--server-pid " + (name == "server" ? "" : name + "=") + text + ": no process " +
                                   text + " is running");
  }
  *pid = static_cast<pid_t>(value);
  return Status::Ok();
}

Status ParseMetrics(const std::string& name, const std::string& text, WatchedInstance* w) {
  TargetUrl url;
  Status s = ParseTargetUrl(text, &url);
  if (!s.ok()) return Status::InvalidArgument("--metrics-url " + text + ": " + s.message());
  if (!NumericIpv4(url.host)) {
    return Status::InvalidArgument("--metrics-url " + (name == "server" ? "" : name + "=") + text +
                                   ": give the host as a numeric IPv4 address");
  }
  w->metrics_host = url.host;
  w->metrics_port = url.port;
  w->metrics_tls = url.tls;
  return Status::Ok();
}

}  // namespace

void SplitNamed(const std::string& value, std::string* name, std::string* rest) {
  const size_t eq = value.find('=');
  if (eq != std::string::npos && IsName(value.substr(0, eq))) {
    *name = value.substr(0, eq);
    *rest = value.substr(eq + 1);
  } else {
    *name = "server";
    *rest = value;
  }
}

Status BuildServerSide(const std::vector<ServerSideValue>& values, const std::string& target_host, int target_port,
                       bool target_tls, ServerSide* out) {
  *out = ServerSide{};
  struct Group {
    std::string name;
    std::vector<std::string> pids, urls;
  };
  std::vector<Group> groups;
  for (const ServerSideValue& v : values) {
    std::string name, rest;
    SplitNamed(v.text, &name, &rest);
    Group* g = nullptr;
    for (Group& existing : groups) {
      if (existing.name == name) g = &existing;
    }
    if (g == nullptr) {
      groups.push_back(Group{name, {}, {}});
      g = &groups.back();
    }
    (v.is_pid ? g->pids : g->urls).push_back(rest);
  }
  const bool single = groups.empty() ||
                      (groups.size() == 1 && groups[0].name == "server" && groups[0].pids.size() <= 1 &&
                       groups[0].urls.size() <= 1);
  if (single) {
    WatchedInstance w;
    Status s;
    if (!groups.empty() && !groups[0].pids.empty() && !(s = ParsePid("server", groups[0].pids[0], &w.pid)).ok()) return s;
    if (!groups.empty() && !groups[0].urls.empty()) {
      if (!(s = ParseMetrics("server", groups[0].urls[0], &w)).ok()) return s;
    } else if (NumericIpv4(target_host)) {
      w.metrics_host = target_host;
      w.metrics_port = target_port;
      w.metrics_tls = target_tls;
    }
    out->instances.push_back(w);
    out->serving = "server";
    return Status::Ok();
  }
  out->farm = true;
  for (const Group& g : groups) {
    const size_t n = std::max(g.pids.size(), g.urls.size());
    for (size_t i = 0; i < n; ++i) {
      WatchedInstance w;
      w.component = g.name;
      Status s;
      if (i < g.pids.size() && !(s = ParsePid(g.name, g.pids[i], &w.pid)).ok()) return s;
      if (i < g.urls.size() && !(s = ParseMetrics(g.name, g.urls[i], &w)).ok()) return s;
      out->instances.push_back(w);
    }
  }
  for (const Group& g : groups) {
    if (RoleOf(g.name) == ComponentRole::kNode) {
      out->serving = g.name;
      break;
    }
  }
  if (out->serving.empty()) out->serving = groups[0].name;
  return Status::Ok();
}

}  // namespace lather
