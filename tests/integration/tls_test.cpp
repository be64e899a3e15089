// HTTPS: lather-service with --tls-cert/--tls-key (a self-signed certificate made here with the
// openssl CLI), driven by lather-call, lather-stress and a small OpenSSL client; on both engines.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "common/tls.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"
#include "tests/integration/stress_run.h"

using lather::test::CallBinary;
using lather::test::CommandResult;
using lather::test::RunCommand;
using lather::test::ServiceBinary;
using lather::test::ReadJson;
using lather::test::ServiceProcess;
using lather::test::StressBinary;

namespace {

// A temporary folder with cert.pem/key.pem (EC P-256, CN and subjectAltName 127.0.0.1) and
// other-key.pem, a key that belongs to no certificate.
struct Certificate {
  Certificate() {
    char pattern[] = "/tmp/lather-tls-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    folder = pattern;
    cert = folder + "/cert.pem";
    key = folder + "/key.pem";
    other_key = folder + "/other-key.pem";
    const CommandResult made = RunCommand(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout " + key +
        " -out " + cert + " -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 && openssl genpkey -algorithm EC"
        " -pkeyopt ec_paramgen_curve:P-256 -out " + other_key);
    if (made.exit_code != 0) throw std::runtime_error("openssl failed: " + made.output);
  }
  ~Certificate() { (void)std::system(("rm -rf " + folder).c_str()); }

  std::vector<std::string> ServiceArgs() const { return {"--tls-cert", cert, "--tls-key", key}; }

  std::string folder, cert, key, other_key;
};

std::string HttpsUrl(const ServiceProcess& service) {
  return "https://127.0.0.1:" + std::to_string(service.port()) + "/soap";
}

int ConnectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect");
  }
  return fd;
}

// True when the peer closes `fd` within `seconds` (a bound for a hung test, not a measurement).
bool ClosedByPeer(int fd, int seconds) {
  char scratch[4096];
  for (int waited = 0; waited < seconds * 10; ++waited) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, scratch, sizeof scratch, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
  }
  return false;
}

// Sends `request` over TLS (no certificate check) on a blocking socket and returns everything
// read until the server closes.
std::string HttpsExchange(int port, const std::string& request) {
  std::unique_ptr<lather::TlsContext> context;
  REQUIRE(lather::TlsContext::ForClient(false, "", &context).ok());
  const int fd = ConnectTo(port);
  std::string answer;
  {
    auto session = lather::TlsSession::ForClient(*context, fd, "127.0.0.1");
    REQUIRE(session != nullptr);
    REQUIRE(session->Handshake() == lather::TlsSession::Result::kOk);
    size_t wrote = 0;
    for (size_t at = 0; at < request.size(); at += wrote) {
      REQUIRE(session->Write(request.data() + at, request.size() - at, &wrote) == lather::TlsSession::Result::kOk);
    }
    char buffer[16384];
    size_t got = 0;
    while (session->Read(buffer, sizeof buffer, &got) == lather::TlsSession::Result::kOk) answer.append(buffer, got);
  }
  ::close(fd);
  return answer;
}


size_t Lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("every operation answers over https, with the certificate trusted by --cacert and with --insecure",
          "[integration][tls]") {
  Certificate certificate;
  ServiceProcess service("", certificate.ServiceArgs());
  for (const std::string& trust : {"--cacert " + certificate.cert, std::string("--insecure")}) {
    INFO(trust);
    const std::string call = CallBinary() + " --url " + HttpsUrl(service) + " " + trust;
    CHECK(RunCommand(call + " increment 41").output == "42\n");
    CHECK(RunCommand(call + " --soap12 increment -1").output == "0\n");
    CHECK(RunCommand(call + " hello").output == "Hello World\n");
    CHECK(RunCommand(call + " inc-counter tls").exit_code == 0);
    CHECK(RunCommand(call + " get-counter tls").exit_code == 0);
    const CommandResult echo = RunCommand(call + " echo-samples --count 300 --depth 2");
    CHECK(echo.exit_code == 0);
    CHECK(echo.output.find("echoed 300 samples: equal") != std::string::npos);
    const CommandResult fault = RunCommand(call + " increment 2147483647");
    CHECK(fault.exit_code == 2);
  }
  CHECK(RunCommand(CallBinary() + " --url " + HttpsUrl(service) + " --insecure get-counter tls").output == "2\n");
}

TEST_CASE("lather-call refuses an untrusted certificate with one line and exit 3", "[integration][tls]") {
  Certificate certificate;
  ServiceProcess service("", certificate.ServiceArgs());
  const CommandResult untrusted = RunCommand(CallBinary() + " --url " + HttpsUrl(service) + " increment 1");
  INFO(untrusted.output);
  CHECK(untrusted.exit_code == 3);
  CHECK(Lines(untrusted.output) == 1);
  CHECK(untrusted.output.find("certificate verify failed") != std::string::npos);
  // The service logged the client's refusal and serves on.
  CHECK(RunCommand(CallBinary() + " --url " + HttpsUrl(service) + " --cacert " + certificate.cert + " increment 1")
            .output == "2\n");
}

TEST_CASE("plain HTTP sent to the TLS port is closed and the service still serves TLS", "[integration][tls]") {
  Certificate certificate;
  ServiceProcess service("", certificate.ServiceArgs());
  const lather::test::RawResponse plain = lather::test::SendRaw(
      service.port(), lather::test::SoapPost("text/xml; charset=utf-8", "<x/>"));
  CHECK(plain.status == 0);
  CHECK(plain.closed);
  CHECK(RunCommand(CallBinary() + " --url " + HttpsUrl(service) + " --insecure increment 7").output == "8\n");
  const std::string log = service.Log();
  INFO(log);
  CHECK(log.find("TLS handshake failed") != std::string::npos);
  // A plain http:// client on the TLS port gets a connection error, not a hang.
  const CommandResult http = RunCommand(CallBinary() + " --timeout 10 --url " + service.url() + " increment 1");
  CHECK(http.exit_code == 3);
}

TEST_CASE("a client that opens a TLS connection and stalls is cut off by the header deadline",
          "[integration][tls]") {
  Certificate certificate;
  std::vector<std::string> args = certificate.ServiceArgs();
  args.insert(args.end(), {"--header-timeout", "300"});
  ServiceProcess service("", args);
  const int silent = ConnectTo(service.port());
  const int partial = ConnectTo(service.port());
  // The first bytes of a ClientHello record, and then nothing.
  REQUIRE(::send(partial, "\x16\x03\x01\x00", 4, MSG_NOSIGNAL) == 4);
  CHECK(ClosedByPeer(silent, 15));
  CHECK(ClosedByPeer(partial, 15));
  ::close(silent);
  ::close(partial);
  const std::string log = service.Log();
  INFO(log);
  CHECK(log.find("the TLS handshake did not complete within 300 ms") != std::string::npos);
  CHECK(RunCommand(CallBinary() + " --url " + HttpsUrl(service) + " --insecure hello").output == "Hello World\n");
}

TEST_CASE("?wsdl over TLS names the https address", "[integration][tls]") {
  Certificate certificate;
  ServiceProcess service("", certificate.ServiceArgs());
  const std::string host = "127.0.0.1:" + std::to_string(service.port());
  const std::string answer =
      HttpsExchange(service.port(), "GET /soap?wsdl HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  CHECK(answer.rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(answer.find("location=\"https://" + host + "/soap\"") != std::string::npos);
}

TEST_CASE("lather-stress over https counts every call, and refuses an untrusted certificate with exit 3",
          "[integration][tls]") {
  Certificate certificate;
  ServiceProcess service("", certificate.ServiceArgs());
  const std::string json = certificate.folder + "/run.json";
  for (const std::string& trust : {"--cacert " + certificate.cert, std::string("--insecure")}) {
    INFO(trust);
    const CommandResult run = RunCommand(StressBinary() + " " + HttpsUrl(service) + " " + trust +
                                             " --op inc-counter --counter tls-stress -n 1000 -c 6 -t 2 --pipeline 2 --json " + json,
                                         120);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const auto calls = ReadJson(json)->getObject("calls");
    CHECK(calls->getValue<uint64_t>("ok") == 1000);
    CHECK(calls->getValue<uint64_t>("failed") == 0);
  }
  CHECK(RunCommand(CallBinary() + " --url " + HttpsUrl(service) + " --insecure get-counter tls-stress").output ==
        "2000\n");
  const CommandResult gsoap = RunCommand(StressBinary() + " " + HttpsUrl(service) + " --cacert " + certificate.cert +
                                             " --client gsoap -n 200 -c 2 --json " + json,
                                         120);
  INFO(gsoap.output);
  CHECK(gsoap.exit_code == 0);
  CHECK(ReadJson(json)->getObject("calls")->getValue<uint64_t>("ok") == 200);
  // Every connection spoke TLS, the server-CPU probe of /metrics included.
  CHECK(service.Log().find("TLS handshake failed") == std::string::npos);

  const CommandResult untrusted = RunCommand(StressBinary() + " " + HttpsUrl(service) + " -n 10 -c 1", 120);
  INFO(untrusted.output);
  CHECK(untrusted.exit_code == 3);
  CHECK(Lines(untrusted.output) == 1);
  CHECK(untrusted.output.find("certificate verify failed") != std::string::npos);
}

TEST_CASE("lather-service exits 1 with one line when the TLS certificate or key cannot be used", "[cli][tls]") {
  Certificate certificate;
  const std::string start = ServiceBinary() + " --listen 127.0.0.1:0 --store sqlite:" + certificate.folder + "/c.db";
  const CommandResult missing =
      RunCommand(start + " --tls-cert " + certificate.cert + " --tls-key " + certificate.folder + "/absent.pem");
  CHECK(missing.exit_code == 1);
  CHECK(Lines(missing.output) == 1);
  CHECK(missing.output.find("cannot load the TLS key " + certificate.folder + "/absent.pem") != std::string::npos);

  const CommandResult mismatched =
      RunCommand(start + " --tls-cert " + certificate.cert + " --tls-key " + certificate.other_key);
  CHECK(mismatched.exit_code == 1);
  CHECK(Lines(mismatched.output) == 1);
  CHECK(mismatched.output.find("does not match the certificate") != std::string::npos);

  const CommandResult not_a_cert = RunCommand(start + " --tls-cert " + certificate.key + " --tls-key " + certificate.key);
  CHECK(not_a_cert.exit_code == 1);
  CHECK(Lines(not_a_cert.output) == 1);
  CHECK(not_a_cert.output.find("cannot load the TLS certificate") != std::string::npos);

  const CommandResult alone = RunCommand(start + " --tls-cert " + certificate.cert);
  CHECK(alone.exit_code == 64);
  CHECK(alone.output == "lather-service: --tls-cert and --tls-key go together\n");
}

TEST_CASE("lather-call and lather-stress refuse an unreadable --cacert with one line and exit 64", "[cli][tls]") {
  const std::string absent = "/tmp/lather-no-such-ca.pem";
  const CommandResult call = RunCommand(CallBinary() + " --url https://127.0.0.1:1/soap --cacert " + absent + " hello");
  CHECK(call.exit_code == 64);
  CHECK(Lines(call.output) == 1);
  CHECK(call.output.find(absent) != std::string::npos);
  const CommandResult stress = RunCommand(StressBinary() + " https://127.0.0.1:1/soap --cacert " + absent + " -n 1");
  CHECK(stress.exit_code == 64);
  CHECK(Lines(stress.output) == 1);
  CHECK(stress.output.find("cannot load the CA file " + absent) != std::string::npos);
}
