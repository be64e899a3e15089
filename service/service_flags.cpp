#include "service/service_flags.h"

#include <cstdlib>

#include "common/flag_parser.h"

namespace lather {

Status ParseServiceFlags(int argc, char** argv, ServiceFlags* out) {
  ServerOptions* options = &out->server;
  bool* help = &out->help;
  std::string* port_file = &out->port_file;
  std::string* auth_file = &out->auth_file;
  std::string* tls_cert = &out->tls_cert;
  std::string* tls_key = &out->tls_key;
  std::string* usage = &out->usage;
  FlagParser flags("lather-service [flags]\n       lather-service reload --pid-file FILE");
  int64_t threads = 0, max_body = static_cast<int64_t>(options->http.max_body_bytes);
  int64_t pool_threads = options->pool_threads, pool_queue = static_cast<int64_t>(options->pool_queue);
  flags.AddString("listen", 'l', "HOST:PORT", "address to serve on; port 0 picks a free one (default 127.0.0.1:8080)",
                  &options->listen);
  flags.AddString("store", 's', "URI",
                  "counter store: sqlite:PATH or postgresql://USER@HOST:PORT/DB (default sqlite:lather.db); an "
                  "unreachable PostgreSQL answers 503 and is reconnected", &options->store);
  flags.AddInt("threads", 't', "N", "event-loop threads (default: one per core)", 0, 256, &threads);
  flags.AddInt("max-message", 0, "BYTES", "largest request body accepted (default 67108864)", 1,
               int64_t{1} << 31, &max_body);
  flags.AddInt("pool-threads", 0, "N", "threads for store reads, large echoes and (classic engine) increments (default 16)", 1, 1024, &pool_threads);
  flags.AddInt("pool-queue", 0, "N", "requests that may wait for them, and increments for the store's writer; beyond: 503 (default 4096)", 1, 1 << 20,
               &pool_queue);
  int64_t max_connections = options->max_connections;
  flags.AddInt("max-connections", 0, "N", "connections open at once; one more gets 503 (default 16000)", 1, 1 << 24,
               &max_connections);
  std::string engine = "event";
  flags.AddValue("engine", 'e', "event|classic",
                 "event: event loops, one per core (default); classic: one thread per connection", [&](const std::string& v) {
                   if (v != "event" && v != "classic") {
                     return Status::InvalidArgument("--engine must be event or classic, not '" + v + "'");
                   }
                   engine = v;
                   return Status::Ok();
                 });
  int64_t header_ms = options->header_timeout.count(), body_ms = options->body_timeout.count();
  int64_t idle_ms = options->idle_timeout.count();
  flags.AddInt("header-timeout", 0, "MS", "a request head must arrive within MS of its first byte, else 408 (default 10000)",
               1, 86400000, &header_ms);
  flags.AddInt("body-timeout", 0, "MS", "a request body must arrive within MS of its head, else 408 (default 30000)", 1,
               86400000, &body_ms);
  flags.AddInt("idle-timeout", 0, "MS", "an idle keep-alive connection is closed after MS (default 60000)", 1, 86400000,
               &idle_ms);
  int64_t max_depth = options->soap.max_xml_depth, max_occurs = static_cast<int64_t>(options->soap.max_occurs);
  flags.AddInt("max-depth", 0, "N", "deepest XML nesting accepted; deeper: fault (default 500, at most 65535; thread stacks grow with it)", 10, kMaxXmlDepth, &max_depth);
  flags.AddInt("max-occurs", 0, "N", "most repetitions of one element (samples); more: fault (default 100000)", 1,
               100000000, &max_occurs);
  int64_t max_string = static_cast<int64_t>(options->soap.max_string);
  flags.AddInt("max-string", 0, "CHARS", "longest string value accepted; longer: fault (default 1048576)", 1,
               int64_t{1} << 31, &max_string);
  flags.AddValue("echo-codec", 0, "lather|gsoap",
                 "who reads and writes EchoDataSamples' samples: lather (the service's own one-pass codec; default) or "
                 "gsoap (gSOAP's generated serializers, for comparison: about 4x the CPU, and no id/ref graphs)",
                 [options](const std::string& v) {
                   if (v != "lather" && v != "gsoap") {
                     return Status::InvalidArgument("--echo-codec must be lather or gsoap, not '" + v + "'");
                   }
                   options->soap.sample_codec = v == "lather";
                   return Status::Ok();
                 });
  flags.AddValue("no-fast-path", 0, "",
                 "read every SOAP request with gSOAP: no one-pass fast path for the commonest Increment, HelloWorld, "
                 "IncCounter and GetCounter envelopes (the environment variable LATHER_NO_FAST_PATH=1 does the same)",
                 [options](const std::string&) {
                   options->soap.fast_path = false;
                   return Status::Ok();
                 });
  int64_t queue_wait_ms = options->max_queue_wait.count();
  flags.AddInt("max-queue-wait", 0, "MS",
               "a SOAP request that waited longer than MS since it arrived gets 503 + Retry-After instead of "
               "running; 0: no limit (default 1000)", 0, 86400000, &queue_wait_ms);
  int64_t receive_buffer = 0;
  flags.AddInt("receive-buffer", 0, "BYTES",
               "each client connection's kernel receive buffer (SO_RCVBUF; fixed, no longer autotuned); larger "
               "lets an overloaded service refuse a pipelining client's requests in fewer wake-ups (1048576 in "
               "bench/overload); 0: the kernel's default (default 0)", 0, int64_t{1} << 30, &receive_buffer);
  flags.AddString("auth-file", 0, "FILE",
                  "require credentials (HTTP Basic or a WS-Security UsernameToken) checked against FILE: "
                  "user:HASH lines, HASH a crypt(3) string (yescrypt $y$, bcrypt $2b$, sha512crypt $6$; "
                  "e.g. mkpasswd -m yescrypt); default: no authentication", auth_file);
  bool auth_given = false;
  flags.AddValue("auth", 0, "inc-counter|all",
                 "with --auth-file, which operations need credentials: inc-counter (IncCounter, the one that "
                 "changes state; default) or all", [options, &auth_given](const std::string& v) {
                   if (v != "inc-counter" && v != "all") {
                     return Status::InvalidArgument("--auth must be inc-counter or all, not '" + v + "'");
                   }
                   options->soap.auth_scope = v == "all" ? AuthScope::kAll : AuthScope::kIncCounter;
                   auth_given = true;
                   return Status::Ok();
                 });
  flags.AddString("admin-listen", 0, "HOST:PORT",
                  "serve /metrics and /healthz on this separate address; /metrics on --listen then answers 404 "
                  "(default: /metrics on --listen)", &options->admin_listen);
  int64_t idempotency_window = options->idempotency_window.count();
  flags.AddInt("idempotency-window", 0, "SECONDS",
               "an IncCounter's wsa:MessageID is remembered this long: a repeat counts once and answers the "
               "first value; 0: the header is ignored (default 86400)", 0, int64_t{10} * 365 * 86400,
               &idempotency_window);
  flags.AddValue("store-checkpoint", 0, "background|commit",
                 "SQLite: copy the log back into the database file on a thread of the store's own, a little at a "
                 "time (background: IncCounter's p99 2-5x lower with random message ids), or SQLite's own way, "
                 "1,000 pages at once inside the commit that fills them (commit: no extra syncs; about 7% more "
                 "IncCounter calls/s at saturation with --workers 2) (default background)",
                 [options](const std::string& v) {
                   if (v != "background" && v != "commit") {
                     return Status::InvalidArgument("--store-checkpoint must be background or commit, not '" + v +
                                                    "'");
                   }
                   options->background_checkpoints = v == "background";
                   return Status::Ok();
                 });
  flags.AddString("tls-cert", 0, "FILE", "serve HTTPS (TLS 1.2+) with this PEM certificate (chain); needs --tls-key",
                  tls_cert);
  flags.AddString("tls-key", 0, "FILE", "the PEM private key of --tls-cert", tls_key);
  flags.AddString("port-file", 0, "FILE", "write the bound port to FILE once listening", port_file);
  int64_t workers = 0, hang_ms = out->hang_timeout.count(), drain_ms = -1;
  flags.AddInt("workers", 'w', "N",
               "run N worker processes under a supervisor that owns the sockets, replaces crashed or hung workers "
               "and swaps the binary on SIGHUP (docs/operations.md); 0: one process (default)", 0, 256, &workers);
  flags.AddInt("hang-timeout", 0, "MS",
               "with --workers: a worker whose loops or calls make no progress for MS is killed and replaced "
               "(default 10000)", 100, 86400000, &hang_ms);
  flags.AddString("pid-file", 0, "FILE", "with --workers: write the supervisor's PID to FILE (for reload)",
                  &out->pid_file);
  flags.AddInt("drain-idle", 0, "MS",
               "on a graceful stop, keep idle keep-alive connections MS for one last request (answered with "
               "Connection: close) instead of closing them at once (default 0; 1000 in --workers workers)",
               0, 600000, &drain_ms);
  flags.AddBool("fault-injection", 0,
                "honour the X-Lather-Fault request header (crash, hang, leak): for tests and demos only",
                &options->fault_injection);
  flags.AddBool("help", 'h', "print this help", help);
  *usage = flags.Usage();
  std::vector<std::string> positional;
  Status s = flags.Parse(argc, argv, &positional);
  if (!s.ok()) return s;
  if (!positional.empty()) return Status::InvalidArgument("unexpected argument '" + positional[0] + "'");
  if (auth_given && auth_file->empty()) return Status::InvalidArgument("--auth needs --auth-file");
  if (tls_cert->empty() != tls_key->empty()) {
    return Status::InvalidArgument("--tls-cert and --tls-key go together");
  }
  options->threads = static_cast<int>(threads);
  options->max_connections = static_cast<int>(max_connections);
  options->pool_threads = static_cast<int>(pool_threads);
  options->pool_queue = static_cast<size_t>(pool_queue);
  options->http.max_body_bytes = static_cast<size_t>(max_body);
  options->engine = engine == "classic" ? Engine::kClassic : Engine::kEvent;
  options->header_timeout = std::chrono::milliseconds(header_ms);
  options->max_queue_wait = std::chrono::milliseconds(queue_wait_ms);
  options->receive_buffer = static_cast<int>(receive_buffer);
  options->body_timeout = std::chrono::milliseconds(body_ms);
  options->idle_timeout = std::chrono::milliseconds(idle_ms);
  options->soap.max_xml_depth = static_cast<int>(max_depth);
  options->soap.max_occurs = static_cast<size_t>(max_occurs);
  options->idempotency_window = std::chrono::seconds(idempotency_window);
  options->soap.read_message_id = idempotency_window > 0;
  options->soap.max_string = static_cast<size_t>(max_string);
  out->workers = static_cast<int>(workers);
  out->hang_timeout = std::chrono::milliseconds(hang_ms);
  out->drain_idle_given = drain_ms >= 0;
  options->drain_idle = std::chrono::milliseconds(drain_ms >= 0 ? drain_ms : 0);
  if (!out->pid_file.empty() && workers == 0) return Status::InvalidArgument("--pid-file goes with --workers");
  return Status::Ok();
}

std::vector<std::string> WorkerArguments(int argc, char** argv) {
  // The supervisor's own flags, each followed by its value unless given as --flag=value.
  static const char* const kSupervisorOnly[] = {"--workers", "-w", "--hang-timeout", "--pid-file", "--port-file",
                                                "--admin-listen"};
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    bool skip = false;
    for (const char* flag : kSupervisorOnly) {
      const std::string name = flag;
      if (arg == name) {
        skip = true;
        ++i;  // and its value
      } else if (arg.rfind(name + "=", 0) == 0) {
        skip = true;
      }
    }
    if (!skip) args.push_back(arg);
  }
  args.push_back("--admin-listen");  // each worker's private /metrics, summed by the supervisor
  args.push_back("127.0.0.1:0");
  return args;
}

}  // namespace lather
