#include "stress/cli/stress_cli.h"

#include "stress/cli/run_options.h"

#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "common/flag_parser.h"
#include "common/tls.h"
#include "service/auth/authenticator.h"
#include "stress/cli/embedded_service.h"
#include "stress/cli/server_side.h"
#include "stress/load/gsoap_runner.h"
#include "stress/load/operation_preset.h"
#include "stress/load/wsdl_preset.h"
#include "stress/load/target_url.h"
#include "stress/load/unloaded_probe.h"
#include "stress/report/report.h"
#include "stress/report/units.h"
#include "stress/measure/process_tree.h"
// Saved runs, HTML, .hgrm, --start-at and the live line (issue 17).
#include "stress/cli/saved_runs_cli.h"
#include "stress/cli/start_at.h"
#include "stress/report/hgrm.h"
#include "stress/report/progress_line.h"
#include "stress/report/run_html.h"

namespace lather {
namespace {

// This run's seed for ${uuid} (inc-counter's message ids): from the system's random source, so that no two
// runs, here or on another load host (`merge`), send the same ids.
uint64_t RunSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

int UsageError(const std::string& message) {
  std::fprintf(stderr, "lather-stress: %s\n", message.c_str());
  return kExitUsage;
}

namespace {

Status ParseDouble(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(*out) || *out < 0) {
    return Status::InvalidArgument("'" + text + "' is not a non-negative number");
  }
  return Status::Ok();
}

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  *ok = static_cast<bool>(in) || in.eof();
  return ss.str();
}

// Resolves the URL's host and makes one blocking connection (3 s) to fail early and clearly.
Status Resolve(const TargetUrl& url, sockaddr_storage* address, socklen_t* length) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(url.host.c_str(), std::to_string(url.port).c_str(), &hints, &list);
  if (rc != 0) return Status::IOError("cannot resolve " + url.host + ": " + gai_strerror(rc));
  std::memcpy(address, list->ai_addr, list->ai_addrlen);
  *length = list->ai_addrlen;
  freeaddrinfo(list);
  const int fd = socket(address->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int error = 0;
  if (connect(fd, reinterpret_cast<sockaddr*>(address), *length) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, 3000) != 1) {
        error = ETIMEDOUT;
      } else {
        socklen_t len = sizeof error;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
      }
    }
  }
  close(fd);
  if (error != 0) return Status::IOError("cannot connect to " + url.host_header + ": " + std::strerror(error));
  return Status::Ok();
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) cpus.push_back(i);
  }
  return cpus;
}

std::string CpuList(const std::vector<int>& cpus) {
  std::string s;
  for (int cpu : cpus) s += (s.empty() ? "" : ",") + std::to_string(cpu);
  return s;
}

// True if the two processes may run on a common core.
bool AffinityOverlaps(pid_t a, pid_t b) {
  cpu_set_t x, y, both;
  CPU_ZERO(&x);
  CPU_ZERO(&y);
  if (sched_getaffinity(a, sizeof x, &x) != 0 || sched_getaffinity(b, sizeof y, &y) != 0) return true;
  CPU_AND(&both, &x, &y);
  return CPU_COUNT(&both) > 0;
}

}  // namespace

void DefineFlags(FlagParser* f, StressOptions* o) {
  f->AddInt("threads", 't', "N", "load threads, one event loop each (default: one per client core)", 1, 256, &o->threads);
  f->AddInt("connections", 'c', "N", "concurrent keep-alive connections (default 50)", 1, 100000, &o->connections);
  f->AddValue("duration", 'd', "TIME", "measured time, e.g. 10s, 1m (default 10s; 8s with the embedded service)",
              [o](const std::string& v) { o->duration = v; o->duration_given = true; return Status::Ok(); });
  f->AddInt("requests", 'n', "N", "stop after N counted calls instead of a duration (ab's -n)", 1, INT64_MAX,
            &o->total_calls);
  f->AddValue("rate", 'R', "CALLS/S", "open model: send at this fixed rate; latency counts from the schedule",
              [o](const std::string& v) { return ParseDouble(v, &o->rate); });
  f->AddString("arrival", 0, "uniform|poisson", "open model: gaps between calls (default uniform)", &o->arrival);
  f->AddValue("warmup", 0, "TIME", "warm-up excluded from the figures (default 2s; 0 with -n)",
              [o](const std::string& v) { o->warmup = v; o->warmup_given = true; return Status::Ok(); });
  f->AddInt("pipeline", 0, "N", "calls in flight per connection (HTTP pipelining; default 1)", 1, 1024, &o->pipeline);
  f->AddBool("no-keepalive", 0, "open a new connection for every call", &o->no_keepalive);
  f->AddBool("keepalive", 'k', "keep-alive (the default; accepted as ab's -k)", &o->ab_keepalive);
  f->AddString("op", 0, "OP", "increment | hello | inc-counter | echo (default increment); with --wsdl: the "
               "operation as the WSDL names it", &o->op);
  f->AddString("wsdl", 0, "URL", "build the request for --op from this WSDL (http://, https:// or a file); the URL "
               "defaults to the port's soap:address (docs/wsdl.md)", &o->wsdl);
  f->AddString("port", 0, "NAME", "with --wsdl: the port (default: the first SOAP 1.1 port)", &o->wsdl_port);
  f->AddValue("set", 0, "PATH=VALUE", "with --wsdl: a field of the request (repeatable; a.b=1, items[2].sku=X, "
              "amount.@currency=EUR; ${n}, ${uuid} and random(A..B) vary per call); required fields not set get sample values",
              [o](const std::string& v) { o->sets.push_back(v); return Status::Ok(); });
  f->AddInt("validate", 0, "N", "with --wsdl: validate one response in N in full against the WSDL's XSD (libxml2), "
            "within 10% more client CPU per call", 1, INT64_MAX, &o->validate);
  f->AddInt("samples", 0, "N", "echo: samples per call (default 100)", 0, 1000000, &o->samples);
  f->AddBool("soap12", 0, "send SOAP 1.2 envelopes (application/soap+xml)", &o->soap12);
  f->AddString("counter", 0, "NAME", "inc-counter: the counter to increment (default stress-PID)", &o->counter);
  f->AddBool("no-message-id", 0,
             "inc-counter: no wsa:MessageID header (by default every call carries a fresh random urn:uuid, as WCF "
             "and CXF clients send, so a retried call counts once and the counter can be checked exactly)",
             &o->no_message_id);
  f->AddString("body", 0, "FILE", "send this envelope instead of --op; ${n} becomes the call number, ${uuid} a random UUID of its own (e.g. a wsa:MessageID)", &o->body_file);
  f->AddValue("header", 'H', "'NAME: VALUE'", "add a request header (repeatable; with --body)",
              [o](const std::string& v) { o->headers.push_back(v); return Status::Ok(); });
  f->AddString("expect", 0, "XPATH", "with --body: a call succeeds when XPATH is true ($n, $n1 = n + 1)", &o->expect);
  f->AddString("client", 0, "raw|gsoap",
               "raw: prebuilt bytes, one event loop per thread (default); gsoap: the generated proxy, a thread per connection",
               &o->client);
  f->AddString("timeout", 0, "TIME", "a call without a response by then is a timeout (default 10s)", &o->timeout);
  f->AddBool("receive-stamps", 0,
             "also time each answer at the kernel's receipt of its last bytes (SO_TIMESTAMPNS; raw client, plain "
             "http): what the server and the network took, without this harness's own late reads",
             &o->receive_stamps);
  f->AddString("link", 0, "RATE", "the link's capacity, e.g. 100Mbit, 1Gbit (default: assume 1Gbit)", &o->link);
  f->AddBool("half-duplex", 0, "the link carries one direction at a time (default: full duplex, --link each way)",
             &o->half_duplex);
  f->AddBool("no-probe", 0,
             "no 1-connection probe during the warm-up (it measures the unloaded latency that tells a server "
             "that serializes its calls)", &o->no_probe);
  f->AddValue("server-pid", 0, "[NAME=]PID",
              "read the server's CPU (the process and its descendants) and its threads' from /proc/PID, against its "
              "budget (affinity, capped by its cgroup's CPU quota). Repeatable: NAME=PID names a component of a "
              "farm, and PIDs under one NAME are its instances (e.g. node=PID node=PID haproxy=PID postgres=PID); "
              "the verdict then names the saturated component",
              [o](const std::string& v) { o->server_side.push_back({true, v}); return Status::Ok(); });
  f->AddValue("metrics-url", 0, "[NAME=]URL",
              "read the server's CPU from this /metrics when no PID is given, and Lather's timings (e.g. its "
              "--admin-listen address; default: the target's host and port). Repeatable like --server-pid: the "
              "i-th URL of a NAME is the same instance as its i-th PID",
              [o](const std::string& v) { o->server_side.push_back({false, v}); return Status::Ok(); });
  f->AddString("user", 0, "NAME", "send HTTP Basic credentials (Authorization header) as user NAME with every call",
               &o->user);
  f->AddString("password", 0, "PW", "the password for --user (default: the environment variable LATHER_PASSWORD)",
               &o->password);
  f->AddInt("server-threads", 0, "N", "embedded service: event-loop threads (default: one per server core)", 1, 64,
            &o->server_threads);
  f->AddBool("no-pin", 0, "embedded service: do not give server and client separate cores", &o->no_pin);
  f->AddString("json", 0, "FILE", "write every figure as JSON, with the full histograms (schema lather-stress/2)",
               &o->json_file);
  f->AddString("series", 0, "FILE.csv", "write per-second calls, p50, p99, errors, bytes, CPU", &o->series_file);
  f->AddBool("quiet", 'q', "print nothing but errors and failed thresholds", &o->quiet);
  f->AddString("max-p99", 0, "TIME", "exit 1 if p99 latency is above this", &o->max_p99);
  f->AddValue("min-rate", 0, "CALLS/S", "exit 1 if successful calls/s are below this",
              [o](const std::string& v) { return ParseDouble(v, &o->min_rate); });
  f->AddInt("max-errors", 0, "N", "exit 1 if more calls than this failed", 0, INT64_MAX, &o->max_errors);
  f->AddString("cacert", 0, "FILE", "https: also trust the CA certificates in FILE (PEM) besides the system store",
               &o->ca_file);
  f->AddBool("insecure", 0, "https: do not check the server's certificate (chain and host name)", &o->insecure);
  f->AddString("html", 0, "FILE", "write the run as one self-contained HTML page with plots", &o->html_file);
  f->AddString("hgrm", 0, "FILE", "write the latency histogram as HdrHistogram's percentile distribution (.hgrm, ms)",
               &o->hgrm_file);
  f->AddString("start-at", 0, "TIME",
               "wait until TIME before the warm-up, so harnesses on several hosts begin together: RFC 3339 "
               "(2024-05-01T12:00:00Z), Unix seconds or +SECONDS", &o->start_at);
  f->AddBool("help", 'h', "print this help", &o->help);
}

namespace {

constexpr char kHelpTail[] =
    "\nWith no URL, lather-stress starts its own lather-service on a free loopback port (server and\n"
    "client on separate cores when there are two or more) and runs a short benchmark of Increment.\n"
    "\nexamples:\n"
    "  lather-stress\n"
    "  lather-stress http://127.0.0.1:8080/soap -c 100 -d 30s --op inc-counter\n"
    "  lather-stress http://127.0.0.1:8080/soap -R 20000 --arrival poisson -d 1m --series run.csv\n"
    "  lather-stress https://127.0.0.1:8443/soap --cacert ca.pem -n 100000   (TLS; --insecure skips the checks)\n"
    "  lather-stress --wsdl http://host/Shop.asmx?WSDL --op PlaceOrder --set order.id='${n}' -c 20 -d 30s\n"
    "  lather-stress http://host:8080/Service.asmx --body req.xml -H 'Content-Type: text/xml' \\\n"
    "      -H 'SOAPAction: \"urn:x#Op\"' --expect \"//*[local-name()='result'] = $n1\"\n"
    "\nsubcommands (each with its own --help):\n"
    "  lather-stress compare NAME=URL NAME=URL ...   the targets in interleaved rounds, one table\n"
    "  lather-stress sweep URL [--slo p99=10ms]      connections 1, 2, 4, ... (or rates with -R) to the knee\n"
    "  lather-stress report RUN.json ... --html FILE the HTML page of saved runs (--json files)\n"
    "  lather-stress merge A.json B.json ...         runs of several load hosts merged exactly\n"
    "\nexit codes: 0 ok, 1 a threshold failed, 2 every call failed, 3 cannot connect, 64 bad usage\n";

}  // namespace

int PlanRun(StressOptions* options, RunPlan* plan) {
  StressOptions& o = *options;
  Status s;
  if (o.client != "raw" && o.client != "gsoap") return UsageError("--client must be raw or gsoap");
  if (o.client == "gsoap" && (!o.body_file.empty() || o.rate > 0 || o.pipeline > 1 || o.no_keepalive)) {
    return UsageError("--client gsoap is a closed-model typed client: no --body, -R, --pipeline or --no-keepalive");
  }
  if (o.arrival != "uniform" && o.arrival != "poisson") return UsageError("--arrival must be uniform or poisson");
  if (!o.user.empty() && o.password.empty()) {
    const char* env = std::getenv("LATHER_PASSWORD");
    if (env == nullptr) return UsageError("--user needs --password or the environment variable LATHER_PASSWORD");
    o.password = env;
  }
  if (o.user.empty() && !o.password.empty()) return UsageError("--password needs --user");

  // A foreign WSDL: the request, the success test and the default endpoint come from it.
  OperationPreset& preset = plan->preset;
  if (!o.wsdl.empty()) {
    if (!o.body_file.empty() || !o.expect.empty()) return UsageError("--wsdl builds the request: no --body or --expect");
    if (o.soap12) return UsageError("--wsdl: the port decides the SOAP version (pick a SOAP 1.2 port with --port)");
    if (o.client != "raw") return UsageError("--wsdl goes with --client raw");
    WsdlPresetRequest request;
    request.wsdl_url = o.wsdl;
    request.port = o.wsdl_port;
    request.operation = o.op;
    request.sets = o.sets;
    request.validate_every = static_cast<uint64_t>(o.validate);
    request.fetch.ca_file = o.ca_file;
    request.fetch.insecure = o.insecure;
    WsdlPresetResult result;
    s = MakeWsdlPreset(request, &preset, &result);
    if (s.kind() == Status::Kind::kIOError || s.kind() == Status::Kind::kTimeout) {
      std::fprintf(stderr, "lather-stress: --wsdl %s\n", s.message().c_str());
      return kExitConnect;
    }
    if (!s.ok()) return UsageError(s.message());
    if (!result.filled.empty() && !o.quiet) {
      std::string filled;
      for (const std::string& f : result.filled) filled += (filled.empty() ? "" : ", ") + f;
      std::fprintf(stderr, "lather-stress: required fields not set, sent with sample values: %s\n", filled.c_str());
    }
    if (o.url.empty()) o.url = result.endpoint;
    if (o.url.empty()) return UsageError("--wsdl: the port has no soap:address; give the URL");
    o.soap12 = result.soap_version == 2;
    for (const std::string& h : o.headers) preset.headers.push_back(h);
  } else if (!o.wsdl_port.empty() || !o.sets.empty() || o.validate > 0) {
    return UsageError("--port, --set and --validate go with --wsdl");
  }

  // Settings.
  const bool embedded = o.url.empty();
  plan->embedded = embedded;
  plan->client_cores = static_cast<int>(AllowedCpus().size());
  double& duration = plan->duration;
  double& warmup = plan->warmup;
  double& timeout = plan->timeout;
  double& max_p99 = plan->max_p99;
  double& link = plan->link;
  if (embedded && !o.duration_given) o.duration = "8s";
  if (o.total_calls > 0 && !o.warmup_given) o.warmup = "0";
  if (!(s = ParseDuration(o.duration, &duration)).ok() || duration <= 0) return UsageError("-d: " + s.message());
  if (!(s = ParseDuration(o.warmup, &warmup)).ok()) return UsageError("--warmup: " + s.message());
  if (!(s = ParseDuration(o.timeout, &timeout)).ok() || timeout <= 0) return UsageError("--timeout: " + s.message());
  if (!o.max_p99.empty() && !(s = ParseDuration(o.max_p99, &max_p99)).ok()) return UsageError("--max-p99: " + s.message());
  if (!o.link.empty() && !(s = ParseBitRate(o.link, &link)).ok()) return UsageError("--link: " + s.message());
  if (!o.expect.empty() && o.body_file.empty()) return UsageError("--expect goes with --body");
  int64_t& start_at_ns = plan->start_at_ns;
  if (!o.start_at.empty() && !(s = ParseStartAt(o.start_at, UnixNanosNow(), &start_at_ns)).ok()) {
    return UsageError("--start-at: " + s.message());
  }

  // The request.
  if (!o.wsdl.empty()) {
    // built above
  } else if (!o.body_file.empty()) {
    bool ok = false;
    preset.body = ReadFile(o.body_file, &ok);
    if (!ok) return UsageError("cannot read --body " + o.body_file);
    preset.headers = o.headers;
    bool has_type = false;
    for (const std::string& h : o.headers) has_type = has_type || strncasecmp(h.c_str(), "content-type:", 13) == 0;
    if (!has_type) preset.headers.push_back(o.soap12 ? "Content-Type: application/soap+xml; charset=utf-8"
                                                     : "Content-Type: text/xml; charset=utf-8");
    if (!o.expect.empty()) {
      preset.expectation.kind = Expectation::Kind::kXPath;
      preset.expectation.xpath = o.expect;
    }
    preset.request_payload_bytes = RequestPayloadBytes(preset.body);
    preset.payload_placeholders = BodyPlaceholders(preset.body);
  } else {
    PresetRequest request;
    request.op = o.op;
    request.soap_version = o.soap12 ? 2 : 1;
    request.samples = static_cast<size_t>(o.samples);
    request.counter_name = o.counter.empty() ? "stress-" + std::to_string(getpid()) : o.counter;
    request.message_ids = !o.no_message_id;
    if (!(s = MakeOperationPreset(request, &preset)).ok()) return UsageError(s.message());
    for (const std::string& h : o.headers) preset.headers.push_back(h);
  }
  if (!o.user.empty()) preset.headers.push_back("Authorization: " + BasicAuthorization(o.user, o.password));
  return 0;
}

int ExecuteRun(StressOptions o, const RunPlan& plan, RunReport* out) {
  Status s;
  const double duration = plan.duration, warmup = plan.warmup, timeout = plan.timeout, link = plan.link;
  const OperationPreset& preset = plan.preset;
  const bool embedded = plan.embedded;
  const std::string& placement = plan.placement;
  RunReport& report = *out;
  const int client_cores = plan.client_cores;
  if (o.threads == 0) o.threads = client_cores;
  if (o.connections < o.threads) o.threads = o.connections;

  TargetUrl url;
  if (!(s = ParseTargetUrl(o.url, &url)).ok()) return UsageError(s.message());
  if (o.receive_stamps && (o.client != "raw" || url.tls)) {
    return UsageError("--receive-stamps goes with the raw client over plain http (a TLS record's stamp is not the answer's)");
  }
  LoadOptions load;
  std::unique_ptr<TlsContext> tls;
  if (url.tls) {
    if (!(s = TlsContext::ForClient(!o.insecure, o.ca_file, &tls)).ok()) return UsageError(s.message());
    load.tls = tls.get();
    load.tls_verify = !o.insecure;
    load.tls_ca_file = o.ca_file;
    load.tls_host = url.host;
  }
  if (!(s = Resolve(url, &load.address, &load.address_length)).ok()) {
    std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
    return kExitConnect;
  }

  RequestTemplate request_template;
  if (!(s = RequestTemplate::Create(url, preset.headers, preset.body, !o.no_keepalive, &request_template,
                                    RunSeed())).ok()) {
    return UsageError(s.message());
  }
  {  // The expectation must compile before the run starts.
    std::unique_ptr<ResponseChecker> probe;
    if (!(s = ResponseChecker::Create(preset.expectation, &probe)).ok()) return UsageError(s.message());
  }

  load.request = &request_template;
  load.expectation = preset.expectation;
  load.request_payload_bytes = preset.request_payload_bytes;
  load.payload_placeholders = preset.payload_placeholders;
  load.threads = static_cast<int>(o.threads);
  load.connections = static_cast<int>(o.connections);
  load.duration_seconds = duration;
  load.total_calls = static_cast<uint64_t>(o.total_calls);
  load.warmup_seconds = warmup;
  load.rate = o.rate;
  load.poisson = o.arrival == "poisson";
  load.pipeline = static_cast<int>(o.pipeline);
  load.keep_alive = !o.no_keepalive;
  load.timeout_seconds = timeout;
  load.receive_stamps = o.receive_stamps;
  load.series = !o.series_file.empty() || !o.json_file.empty() || !o.html_file.empty();  // ~30 KB a thread a second
  load.first_call_number = static_cast<uint64_t>(getpid()) % 1000 * 1000000;

  // The server side: one server, or a farm's components. /metrics gives a server's CPU when there is no
  // PID, and Lather's own timings in any case.
  ServerSide side;
  if (!(s = BuildServerSide(o.server_side, url.host, url.port, url.tls, &side)).ok()) return UsageError(s.message());
  std::unique_ptr<TlsContext> metrics_tls;
  for (const WatchedInstance& w : side.instances) {
    if (w.metrics_tls && !url.tls && !metrics_tls &&
        !(s = TlsContext::ForClient(!o.insecure, o.ca_file, &metrics_tls)).ok()) {
      return UsageError(s.message());
    }
  }
  ResourceSampler sampler(side.instances, side.serving, InterfaceFor(load.address, load.address_length));
  sampler.set_metrics_tls(url.tls ? tls.get() : metrics_tls.get());

  report.settings.url = url.ToString();
  report.settings.op = o.body_file.empty() ? o.op : "body " + o.body_file;
  report.settings.client = o.client;
  report.settings.soap_version = o.soap12 ? 2 : 1;
  report.settings.samples = o.op == "echo" ? static_cast<size_t>(o.samples) : 0;
  report.settings.threads = load.threads;
  report.settings.connections = load.connections;
  report.settings.pipeline = load.pipeline;
  report.settings.duration_seconds = duration;
  report.settings.total_calls = load.total_calls;
  report.settings.warmup_seconds = warmup;
  report.settings.rate = o.rate;
  report.settings.poisson = load.poisson;
  report.settings.keep_alive = load.keep_alive;
  report.settings.embedded = embedded;
  report.settings.placement = placement;
  report.interface_name = sampler.interface_name();
  report.client_cores = client_cores;
  report.server_cores = 0;
  bool serving_budget_known = true;
  for (const WatchedInstance& w : side.instances) {
    const double budget = w.pid > 0 ? BudgetCores(w.pid) : 0;
    if (side.farm) report.instance_budget_cores.push_back(budget);
    if (w.component != side.serving) continue;
    serving_budget_known = serving_budget_known && budget > 0;
    report.server_cores += budget;
  }
  if (!serving_budget_known) report.server_cores = 0;
  if (side.farm && !CgroupCpuVisible()) {
    std::fprintf(stderr, "lather-stress: warning: no cgroup cpu hierarchy is visible here (under `ip netns exec`, "
                         "/sys is private): CPU quotas cannot be read, so each component's budget is its affinity; "
                         "enter the namespace with nsenter --net instead\n");
  }
  if (side.farm) {
    report.instances = side.instances;
    report.serving = side.serving;
  }
  const pid_t server_pid = side.farm ? 0 : side.instances.front().pid;
  report.link_bits_per_second = link;
  report.link_declared = !o.link.empty();
  report.half_duplex = o.half_duplex;
  report.shared_cores = report.interface_name == "lo" &&
                        (server_pid > 0 ? AffinityOverlaps(0, server_pid) : true);
  report.context.machine = TakeMachineInfo();
  report.context.start_at = o.start_at;

  const bool progress = !o.quiet && isatty(STDERR_FILENO);
  ResourceSnapshot last;
  LoadObserver observer;
  // The server's detail is read outside the counted window, so its /metrics request is not in the bytes.
  observer.on_window_start = [&] {
    report.server_before = sampler.TakeServerDetail();
    report.before = last = sampler.Take();
    report.context.window_start_unix_ns = UnixNanosNow();
  };
  observer.on_tick = [&](double seconds, uint64_t ok, uint64_t failed, uint64_t recent_p99_ns) {
    const ResourceSnapshot now = sampler.Take();
    const double dt = static_cast<double>(now.at_ns - last.at_ns) / 1e9;
    const double client = dt > 0 ? (now.client_cpu_seconds - last.client_cpu_seconds) / dt : 0;
    const double server = dt > 0 && now.server_cpu_seconds >= 0 && last.server_cpu_seconds >= 0
                              ? (now.server_cpu_seconds - last.server_cpu_seconds) / dt : -1;
    report.cpu_per_second.emplace_back(client, server);
    last = now;
    if (progress) {
      const ProgressFigures figures{seconds, load.total_calls > 0 ? 0 : duration, load.total_calls, ok, failed,
                                    recent_p99_ns, client, server};
      std::fprintf(stderr, "%s%s", kEraseLine, ProgressLine(figures, TerminalColumns(STDERR_FILENO)).c_str());
    }
  };
  observer.on_window_end = [&] {
    report.after = sampler.Take();
    report.context.window_end_unix_ns = UnixNanosNow();
    report.server_after = sampler.TakeServerDetail();
  };

  const int64_t start_at_ns = plan.start_at_ns;
  if (start_at_ns > 0) {  // --start-at: every harness begins its warm-up at the same time
    const double wait = static_cast<double>(start_at_ns - UnixNanosNow()) / 1e9;
    if (!o.quiet) std::fprintf(stderr, "lather-stress: waiting %.1f s until %s (--start-at)\n", std::max(0.0, wait),
                               Rfc3339(start_at_ns).c_str());
    SleepUntilUnixNs(start_at_ns);
  }

  // The unloaded latency: a short run at one connection, out of the warm-up (closed model only).
  if (!o.no_probe && o.client == "raw" && o.rate <= 0 && load.connections * load.pipeline >= 2 && warmup >= 0.5) {
    const double probe_seconds = std::min(1.0, warmup / 2);
    if (progress) std::fprintf(stderr, "%s  probing the unloaded latency at 1 connection (%.1f s of the warm-up)", kEraseLine, probe_seconds);
    if (!(s = ProbeUnloadedLatency(load, probe_seconds, &report.unloaded_latency_seconds)).ok()) {
      std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
      return s.kind() == Status::Kind::kIOError ? kExitConnect : kExitUsage;
    }
    load.warmup_seconds -= probe_seconds;
  }

  if (o.client == "gsoap") {
    GsoapLoadOptions g;
    g.url = url.ToString();
    g.soap12 = o.soap12;
    g.op = o.op;
    g.counter_name = o.counter.empty() ? "stress-" + std::to_string(getpid()) : o.counter;
    g.samples = static_cast<size_t>(o.samples);
    g.connections = load.connections;
    g.duration_seconds = duration;
    g.total_calls = load.total_calls;
    g.warmup_seconds = warmup;
    g.timeout_seconds = timeout;
    g.first_call_number = load.first_call_number;
    g.user = o.user;
    g.password = o.password;
    g.ca_file = o.ca_file;
    g.insecure = o.insecure;
    report.settings.threads = load.connections;  // one blocking thread per connection
    s = RunGsoapLoad(g, observer, &report.load);
  } else {
    LoadRunner runner(load);
    s = runner.Run(observer, &report.load);
  }
  if (progress) std::fprintf(stderr, "%s", kEraseLine);  // the report starts on a clean line
  if (!s.ok()) {
    std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
    return s.kind() == Status::Kind::kIOError ? kExitConnect : kExitUsage;
  }
  report.server_cpu_source = sampler.server_cpu_source();
  if (report.server_cores == 0 && report.after.server_cores > 0) report.server_cores = report.after.server_cores;
  Conclude(&report);
  return 0;
}

int StressMain(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "compare") == 0) return CompareMain(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "sweep") == 0) return SweepMain(argc - 1, argv + 1);
  if (argc > 1 && IsSavedRunsCommand(argv[1])) return SavedRunsMain(argc - 1, argv + 1);  // report, merge
  StressOptions o;
  FlagParser flags("lather-stress [flags] [URL]");
  DefineFlags(&flags, &o);
  std::vector<std::string> positional;
  Status s = flags.Parse(argc, argv, &positional);
  if (o.help) {
    std::printf("%s%s", flags.Usage().c_str(), kHelpTail);
    return 0;
  }
  if (!s.ok()) return UsageError(s.message());
  if (positional.size() > 1) return UsageError("more than one URL given");
  if (!positional.empty()) o.url = positional[0];
  RunPlan plan;
  if (const int code = PlanRun(&o, &plan); code != 0) return code;
  const bool embedded = plan.embedded;
  const double max_p99 = plan.max_p99;
  // The embedded service is forked before any thread exists.
  EmbeddedService service;
  std::string& placement = plan.placement;
  const std::vector<int> cpus = AllowedCpus();
  std::vector<int> client_cpus = cpus, server_cpus;
  if (embedded) {
    if (cpus.size() >= 2 && !o.no_pin) {
      server_cpus.assign(cpus.begin(), cpus.begin() + static_cast<long>(cpus.size() / 2));
      client_cpus.assign(cpus.begin() + static_cast<long>(cpus.size() / 2), cpus.end());
      placement = "server on cpu " + CpuList(server_cpus) + ", client on cpu " + CpuList(client_cpus);
    }
    const int server_threads = o.server_threads > 0 ? static_cast<int>(o.server_threads)
                                                    : static_cast<int>(server_cpus.empty() ? cpus.size() : server_cpus.size());
    s = service.Start(server_cpus, server_threads);
    if (!s.ok()) {
      std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
      return kExitConnect;
    }
    o.url = service.url();
    o.server_side.push_back({true, std::to_string(service.pid())});
    if (!server_cpus.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int cpu : client_cpus) CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
    }
  }
  plan.client_cores = static_cast<int>(client_cpus.size());
  RunReport report;
  if (const int code = ExecuteRun(o, plan, &report); code != 0) return code;

  if (!o.quiet) {
    PrintReport(report, stdout);
    PrintApacheBenchBlock(report, stdout);
  }
  if (const ValidationPlan* v = plan.preset.expectation.validation.get(); v != nullptr && !o.quiet) {
    const uint64_t validated = v->validated.load();
    std::printf("XSD validation: %llu responses validated in full (1 in %llu), %llu invalid, %llu skipped to keep "
                "it within 10%% of the client's CPU; %.1f us each\n",
                static_cast<unsigned long long>(validated), static_cast<unsigned long long>(v->every),
                static_cast<unsigned long long>(v->invalid.load()), static_cast<unsigned long long>(v->skipped.load()),
                validated > 0 ? static_cast<double>(v->cpu_ns.load()) / 1e3 / static_cast<double>(validated) : 0.0);
  }
  if (!o.json_file.empty()) {
    std::ofstream out(o.json_file);
    out << ReportJson(report);
    if (!out) std::fprintf(stderr, "lather-stress: cannot write --json %s\n", o.json_file.c_str());
  }
  if (!o.series_file.empty() && !(s = WriteSeriesCsv(report, o.series_file)).ok()) {
    std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
  }
  if (!o.html_file.empty() && !(s = WriteRunsHtml({report}, o.html_file)).ok()) {
    std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
  }
  if (!o.hgrm_file.empty() && !(s = WriteHgrm(report.load.total.latency, o.hgrm_file)).ok()) {
    std::fprintf(stderr, "lather-stress: %s\n", s.message().c_str());
  }
  if (embedded) {
    const int code = service.Stop();
    if (code != 0) std::fprintf(stderr, "lather-stress: the embedded service exited with %d\n", code);
  }

  // Thresholds for CI use.
  const ThreadStats& t = report.load.total;
  int exit_code = 0;
  if (max_p99 >= 0 && t.latency.count() > 0 && static_cast<double>(t.latency.ValueAtPercentile(99)) > max_p99 * 1e9) {
    std::fprintf(stderr, "lather-stress: threshold failed: p99 %s > --max-p99 %s\n",
                 FormatNanos(static_cast<double>(t.latency.ValueAtPercentile(99))).c_str(), o.max_p99.c_str());
    exit_code = kExitThreshold;
  }
  if (o.min_rate >= 0 && report.calls_per_second() < o.min_rate) {
    std::fprintf(stderr, "lather-stress: threshold failed: %s calls/s < --min-rate %s\n",
                 WithThousands(report.calls_per_second()).c_str(), WithThousands(o.min_rate).c_str());
    exit_code = kExitThreshold;
  }
  if (o.max_errors >= 0 && t.failures() > static_cast<uint64_t>(o.max_errors)) {
    std::fprintf(stderr, "lather-stress: threshold failed: %llu failed calls > --max-errors %lld\n",
                 static_cast<unsigned long long>(t.failures()), static_cast<long long>(o.max_errors));
    exit_code = kExitThreshold;
  }
  if (exit_code == 0 && t.calls_ok() == 0 && t.failures() > 0) {
    std::fprintf(stderr, "lather-stress: every call failed (first: %s)\n", t.first_failure.c_str());
    exit_code = kExitAllFailed;
  }
  return exit_code;
}

}  // namespace lather
