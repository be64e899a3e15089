// lather-service: serves the Lather SOAP contract (wsdl/lather.wsdl) over HTTP on /soap.

#include <csignal>
#include <cstdio>
#include <pthread.h>

#include "LatherSoap.nsmap"
#include "common/flag_parser.h"
#include "common/log.h"
#include "common/tls.h"
#include "service/auth/authenticator.h"
#include "service/memory/memory_return.h"
#include "service/server_start.h"

namespace {

// Exit codes: 0 after a clean stop, 1 runtime failure (address in use, store), 64 bad usage.
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 64;

lather::Status ParseOptions(int argc, char** argv, lather::ServerOptions* options, bool* help,
                            std::string* port_file, std::string* auth_file, std::string* tls_cert,
                            std::string* tls_key, std::string* usage) {
  lather::FlagParser flags("lather-service [flags]");
  int64_t threads = 0, max_body = static_cast<int64_t>(options->http.max_body_bytes);
  int64_t pool_threads = options->pool_threads, pool_queue = static_cast<int64_t>(options->pool_queue);
  flags.AddString("listen", 'l', "HOST:PORT", "address to serve on; port 0 picks a free one (default 127.0.0.1:8080)",
                  &options->listen);
  flags.AddString("store", 's', "sqlite:PATH", "counter store (default sqlite:lather.db)", &options->store);
  flags.AddInt("threads", 't', "N", "event-loop threads (default: one per core)", 0, 256, &threads);
  flags.AddInt("max-message", 0, "BYTES", "largest request body accepted (default 67108864)", 1,
               int64_t{1} << 31, &max_body);
  flags.AddInt("pool-threads", 0, "N", "threads for store calls and large echoes (default 16)", 1, 1024, &pool_threads);
  flags.AddInt("pool-queue", 0, "N", "requests that may wait for them; beyond: 503 (default 4096)", 1, 1 << 20,
               &pool_queue);
  int64_t max_connections = options->max_connections;
  flags.AddInt("max-connections", 0, "N", "connections open at once; one more gets 503 (default 16000)", 1, 1 << 24,
               &max_connections);
  std::string engine = "event";
  flags.AddValue("engine", 'e', "event|classic",
                 "event: event loops, one per core (default); classic: one thread per connection", [&](const std::string& v) {
                   if (v != "event" && v != "classic") {
                     return lather::Status::InvalidArgument("--engine must be event or classic, not '" + v + "'");
                   }
                   engine = v;
                   return lather::Status::Ok();
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
  flags.AddInt("max-depth", 0, "N", "deepest XML nesting accepted; deeper: fault (default 500, at most 65535; thread stacks grow with it)", 10, lather::kMaxXmlDepth, &max_depth);
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
                     return lather::Status::InvalidArgument("--echo-codec must be lather or gsoap, not '" + v + "'");
                   }
                   options->soap.sample_codec = v == "lather";
                   return lather::Status::Ok();
                 });
  int64_t queue_wait_ms = options->max_queue_wait.count();
  flags.AddInt("max-queue-wait", 0, "MS",
               "a SOAP request that waited longer than MS since it arrived gets 503 + Retry-After instead of "
               "running; 0: no limit (default 1000)", 0, 86400000, &queue_wait_ms);
  flags.AddString("auth-file", 0, "FILE",
                  "require credentials (HTTP Basic or a WS-Security UsernameToken) checked against FILE: "
                  "user:HASH lines, HASH a crypt(3) string (yescrypt $y$, bcrypt $2b$, sha512crypt $6$; "
                  "e.g. mkpasswd -m yescrypt); default: no authentication", auth_file);
  bool auth_given = false;
  flags.AddValue("auth", 0, "inc-counter|all",
                 "with --auth-file, which operations need credentials: inc-counter (IncCounter, the one that "
                 "changes state; default) or all", [options, &auth_given](const std::string& v) {
                   if (v != "inc-counter" && v != "all") {
                     return lather::Status::InvalidArgument("--auth must be inc-counter or all, not '" + v + "'");
                   }
                   options->soap.auth_scope = v == "all" ? lather::AuthScope::kAll : lather::AuthScope::kIncCounter;
                   auth_given = true;
                   return lather::Status::Ok();
                 });
  flags.AddString("admin-listen", 0, "HOST:PORT",
                  "serve /metrics and /healthz on this separate address; /metrics on --listen then answers 404 "
                  "(default: /metrics on --listen)", &options->admin_listen);
  int64_t idempotency_window = options->idempotency_window.count();
  flags.AddInt("idempotency-window", 0, "SECONDS",
               "an IncCounter's wsa:MessageID is remembered this long: a repeat counts once and answers the "
               "first value; 0: the header is ignored (default 86400)", 0, int64_t{10} * 365 * 86400,
               &idempotency_window);
  flags.AddString("tls-cert", 0, "FILE", "serve HTTPS (TLS 1.2+) with this PEM certificate (chain); needs --tls-key",
                  tls_cert);
  flags.AddString("tls-key", 0, "FILE", "the PEM private key of --tls-cert", tls_key);
  flags.AddString("port-file", 0, "FILE", "write the bound port to FILE once listening", port_file);
  flags.AddBool("help", 'h', "print this help", help);
  *usage = flags.Usage();
  std::vector<std::string> positional;
  lather::Status s = flags.Parse(argc, argv, &positional);
  if (!s.ok()) return s;
  if (!positional.empty()) return lather::Status::InvalidArgument("unexpected argument '" + positional[0] + "'");
  if (auth_given && auth_file->empty()) return lather::Status::InvalidArgument("--auth needs --auth-file");
  if (tls_cert->empty() != tls_key->empty()) {
    return lather::Status::InvalidArgument("--tls-cert and --tls-key go together");
  }
  options->threads = static_cast<int>(threads);
  options->max_connections = static_cast<int>(max_connections);
  options->pool_threads = static_cast<int>(pool_threads);
  options->pool_queue = static_cast<size_t>(pool_queue);
  options->http.max_body_bytes = static_cast<size_t>(max_body);
  options->engine = engine == "classic" ? lather::Engine::kClassic : lather::Engine::kEvent;
  options->header_timeout = std::chrono::milliseconds(header_ms);
  options->max_queue_wait = std::chrono::milliseconds(queue_wait_ms);
  options->body_timeout = std::chrono::milliseconds(body_ms);
  options->idle_timeout = std::chrono::milliseconds(idle_ms);
  options->soap.max_xml_depth = static_cast<int>(max_depth);
  options->soap.max_occurs = static_cast<size_t>(max_occurs);
  options->idempotency_window = std::chrono::seconds(idempotency_window);
  options->soap.read_message_id = idempotency_window > 0;
  options->soap.max_string = static_cast<size_t>(max_string);
  return lather::Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  lather::SetLogProgramName("lather-service");
  lather::ServerOptions options;
  bool help = false;
  std::string port_file, auth_file, tls_cert, tls_key, usage;
  lather::Status s = ParseOptions(argc, argv, &options, &help, &port_file, &auth_file, &tls_cert, &tls_key, &usage);
  if (help) {
    std::fputs(usage.c_str(), stdout);
    return 0;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "lather-service: %s\n", s.message().c_str());
    return kExitUsage;
  }
  std::unique_ptr<lather::Authenticator> authenticator;
  if (!auth_file.empty()) {
    s = lather::Authenticator::Load(auth_file, &authenticator);
    if (!s.ok()) {
      std::fprintf(stderr, "lather-service: %s\n", s.message().c_str());
      return s.kind() == lather::Status::Kind::kInvalidArgument ? kExitUsage : kExitFailure;
    }
    options.soap.authenticator = authenticator.get();
    lather::LogLine("authentication: " + std::to_string(authenticator->user_count()) + " user(s) from " + auth_file +
                    "; required for " + (options.soap.auth_scope == lather::AuthScope::kAll ? "every operation" : "IncCounter"));
    if (tls_cert.empty()) {
      lather::LogLine("warning: --auth-file without TLS: passwords cross the network in clear text (HTTP Basic, "
                      "UsernameToken PasswordText); serve over TLS (--tls-cert) or behind a TLS-terminating proxy");
    }
  }

  if (!tls_cert.empty()) {
    std::unique_ptr<lather::TlsContext> tls;
    s = lather::TlsContext::ForServer(tls_cert, tls_key, &tls);
    if (!s.ok()) {
      lather::LogLine("cannot start: " + s.message());
      return kExitFailure;
    }
    options.tls = std::move(tls);
  }

  // SIGINT/SIGTERM are taken by sigwait() below; every thread started later inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  // Large buffers and echo objects stay in a few shared arenas between requests and go back to the
  // system once large requests stop (service/memory/memory_return.h).
  lather::ConfigureAllocator();

  std::unique_ptr<lather::Server> server;
  s = lather::StartServer(options, &server);
  if (!s.ok()) {
    lather::LogLine("cannot start: " + s.message());
    return s.kind() == lather::Status::Kind::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  lather::LogLine(std::string("listening on ") + (options.tls ? "https://" : "http://") + server->address() + "/soap (engine " +
                  (options.engine == lather::Engine::kClassic ? "classic" : "event") + ", store " + options.store + ")");
  if (!server->admin_address().empty()) {
    lather::LogLine("admin listener on http://" + server->admin_address() + " (/metrics, /healthz)");
  }
  if (!port_file.empty()) {
    FILE* f = std::fopen(port_file.c_str(), "w");
    if (f == nullptr || std::fprintf(f, "%u\n", server->port()) < 0 || std::fclose(f) != 0) {
      lather::LogLine("cannot write --port-file " + port_file);
      return kExitFailure;
    }
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  lather::LogLine(std::string("stopping on ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM"));
  server->Stop();
  server->Wait();
  lather::LogLine("stopped");
  return 0;
}
