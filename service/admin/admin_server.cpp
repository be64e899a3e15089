#include "service/admin/admin_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <exception>

#include "common/log.h"
#include "service/http/http_request_parser.h"
#include "service/http/http_response.h"
#include "service/http/listener.h"
#include "service/soap/fault_envelope.h"

namespace lather {
namespace {

constexpr int kPollMillis = 200;                         // how often the accept loop looks at the stop flag
constexpr std::chrono::milliseconds kRequestDeadline{5000};  // a whole request must arrive within this
constexpr size_t kMaxRequestBytes = 16 * 1024;

// A complete response: `status`, a SOAP 1.1 Fault body saying `reason` (as the public port answers).
std::string FaultResponse(int status, const std::string& reason, std::string_view extra_headers) {
  std::string body, out;
  AppendFaultEnvelope(1, status < 500, reason, &body);
  AppendResponseHead(status, kSoap11ContentType, body.size(), false, extra_headers, &out);
  return out + body;
}

void SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

Status AdminServer::Start(const std::string& listen, std::function<std::string()> render_metrics,
                          std::unique_ptr<AdminServer>* out) {
  AdminHandlers handlers;
  handlers.render_metrics = std::move(render_metrics);
  return Start(listen, std::move(handlers), out);
}

Status AdminServer::Start(const std::string& listen, AdminHandlers handlers, std::unique_ptr<AdminServer>* out) {
  std::unique_ptr<AdminServer> admin(new AdminServer());
  admin->handlers_ = std::move(handlers);
  Status s = Listen(listen, &admin->acceptor_, &admin->port_, &admin->address_);
  if (!s.ok()) {
    return s.kind() == Status::Kind::kInvalidArgument ? Status::InvalidArgument("--admin-listen: " + s.message())
                                                      : Status::IOError("--admin-listen: " + s.message());
  }
  boost::system::error_code ignored;
  admin->acceptor_.non_blocking(true, ignored);
  AdminServer* raw = admin.get();
  admin->thread_ = boost::thread([raw] { raw->Run(); });
  *out = std::move(admin);
  return Status::Ok();
}

AdminServer::~AdminServer() { Stop(); }

void AdminServer::Stop() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

void AdminServer::Run() {
  const int listen_fd = acceptor_.native_handle();
  while (!stopping_.load()) {
    pollfd p{listen_fd, POLLIN, 0};
    if (::poll(&p, 1, kPollMillis) <= 0) continue;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    try {
      Serve(fd);
    } catch (const std::exception& e) {
      LogLine(std::string("admin listener: unexpected exception: ") + e.what());
    } catch (...) {
      LogLine("admin listener: unexpected exception");
    }
    ::close(fd);
  }
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

void AdminServer::Serve(int fd) {
  HttpLimits limits;
  limits.max_body_bytes = 0;
  HttpRequestParser parser(limits);
  std::string in;
  const auto deadline = std::chrono::steady_clock::now() + kRequestDeadline;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return SendAll(fd, FaultResponse(408, "the request did not arrive in time", ""));
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return;
    in.append(chunk, static_cast<size_t>(n));
    const HttpRequestParser::Result result = parser.Parse(in);
    if (result == HttpRequestParser::Result::kError) {
      return SendAll(fd, FaultResponse(parser.error_status(), parser.error_reason(), ""));
    }
    if (result == HttpRequestParser::Result::kComplete) break;
    if (in.size() > kMaxRequestBytes) return SendAll(fd, FaultResponse(431, "the request is too large", ""));
  }
  const HttpRequest& request = parser.request();
  const bool get = request.method == "GET", head = request.method == "HEAD";
  std::string response;
  if (request.path == "/metrics" && get) {
    const std::string body = handlers_.render_metrics();
    AppendResponseHead(200, "text/plain; version=0.0.4; charset=utf-8", body.size(), false, "", &response);
    response += body;
  } else if (request.path == "/healthz" && (get || head)) {
    const auto [status, body] = handlers_.health ? handlers_.health() : std::pair<int, std::string>(200, "ok\n");
    AppendResponseHead(status, "text/plain; charset=utf-8", body.size(), false, "", &response);
    if (get) response += body;
  } else if (request.path == "/reload" && handlers_.reload && request.method == "POST") {
    const std::string body = handlers_.reload();
    AppendResponseHead(202, "text/plain; charset=utf-8", body.size(), false, "", &response);
    response += body;
  } else if (request.path == "/metrics" || request.path == "/healthz") {
    response = FaultResponse(405, "method " + std::string(request.method) + " is not allowed on " +
                                      std::string(request.path) + " (use GET)", "Allow: GET\r\n");
  } else {
    response = FaultResponse(404, "no resource at " + std::string(request.path) +
                                      " (the admin listener serves /metrics and /healthz)", "");
  }
  SendAll(fd, response);
  ::shutdown(fd, SHUT_WR);
}

}  // namespace lather
