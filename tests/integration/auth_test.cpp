// Authentication (--auth-file, --auth) and the admin listener (--admin-listen) of the real
// lather-service, over raw HTTP and through lather-call; tagged [integration] so that both
// engines run them.
#include <catch2/catch.hpp>
#include <crypt.h>
#include <stdlib.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "service/auth/authenticator.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"
#include "tests/integration/soap_fixtures.h"

using lather::test::CallBinary;
using lather::test::CommandResult;
using lather::test::ElementText;
using lather::test::RawResponse;
using lather::test::RunCommand;
using lather::test::SendRaw;
using lather::test::ServiceBinary;
using lather::test::ServiceProcess;
using lather::test::kEnv11;
using lather::test::kEnv12;

namespace {

constexpr char kWsse[] = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
constexpr char kPasswordText[] =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText";
constexpr char kPasswordDigest[] =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest";

// A folder with an auth file whose users are made by libxcrypt: alice (yescrypt) and bob
// (sha512crypt), passwords "wonderland" and "builder". Removed at the end.
class AuthFile {
 public:
  AuthFile() {
    char pattern[] = "/tmp/lather-auth-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    folder_ = pattern;
    path_ = folder_ + "/users";
    std::ofstream out(path_);
    out << "# test users\n\nalice:" << Hash("wonderland", "$y$") << "\nbob:" << Hash("builder", "$6$") << "\n";
  }
  ~AuthFile() { std::filesystem::remove_all(folder_); }
  const std::string& path() const { return path_; }
  const std::string& folder() const { return folder_; }

  static std::string Hash(const std::string& password, const char* prefix) {
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    REQUIRE(crypt_gensalt_rn(prefix, 0, nullptr, 0, setting, sizeof setting) != nullptr);
    crypt_data data{};
    const char* hash = crypt_rn(password.c_str(), setting, &data, sizeof data);
    REQUIRE(hash != nullptr);
    return hash;
  }

 private:
  std::string folder_, path_;
};

// A POST /soap of `body_content` in a SOAP `version` envelope with an optional SOAP Header and
// HTTP Authorization header.
std::string Post(int version, const std::string& body_content, const std::string& authorization = "",
                 const std::string& header = "") {
  const std::string envelope = std::string("<s:Envelope xmlns:s=\"") + (version == 2 ? kEnv12 : kEnv11) +
                               "\" xmlns:l=\"urn:lather:v1\">" +
                               (header.empty() ? "" : "<s:Header>" + header + "</s:Header>") + "<s:Body>" +
                               body_content + "</s:Body></s:Envelope>";
  std::string request = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: " +
                        std::string(version == 2 ? "application/soap+xml; charset=utf-8" : "text/xml; charset=utf-8") +
                        "\r\nContent-Length: " + std::to_string(envelope.size()) + "\r\n";
  if (!authorization.empty()) request += "Authorization: " + authorization + "\r\n";
  return request + "\r\n" + envelope;
}

std::string IncCounter(const std::string& name) { return "<l:IncCounter><l:name>" + name + "</l:name></l:IncCounter>"; }

// A wsse:Security header block with a UsernameToken.
std::string Security(const std::string& user, const std::string& password, const std::string& type = kPasswordText,
                     const std::string& must_understand = "1") {
  return "<wsse:Security xmlns:wsse=\"" + std::string(kWsse) + "\" s:mustUnderstand=\"" + must_understand +
         "\"><wsse:UsernameToken><wsse:Username>" + user + "</wsse:Username><wsse:Password Type=\"" + type + "\">" +
         password + "</wsse:Password></wsse:UsernameToken></wsse:Security>";
}

// The counter's value through GetCounter (open under the default --auth inc-counter).
long Counter(int port, const std::string& name) {
  const RawResponse r = SendRaw(port, Post(1, "<l:GetCounter><l:name>" + name + "</l:name></l:GetCounter>"));
  REQUIRE(r.status == 200);
  return std::stol(ElementText(r.body, "result"));
}

// Checks a refusal for credentials: 401, the Basic challenge, a Client/Sender fault of `version`.
void CheckRefused(const RawResponse& r, int version, const std::string& reason_part) {
  INFO(r.body);
  CHECK(r.status == 401);
  CHECK(r.Header("www-authenticate") == "Basic realm=\"lather\"");
  if (version == 2) {
    CHECK(r.Header("content-type").rfind("application/soap+xml", 0) == 0);
    CHECK(r.body.find(kEnv12) != std::string::npos);
    CHECK(ElementText(r.body, "Value").find("Sender") != std::string::npos);
    CHECK(ElementText(r.body, "Text").find(reason_part) != std::string::npos);
  } else {
    CHECK(r.Header("content-type").rfind("text/xml", 0) == 0);
    CHECK(ElementText(r.body, "faultstring").find(reason_part) != std::string::npos);
  }
}

// The admin listener's port, from the service's log line "admin listener on http://HOST:PORT".
int AdminPort(const ServiceProcess& service) {
  std::smatch m;
  const std::string log = service.Log();
  REQUIRE(std::regex_search(log, m, std::regex("admin listener on http://127\\.0\\.0\\.1:([0-9]+)")));
  return std::stoi(m[1]);
}

}  // namespace

TEST_CASE("IncCounter needs the right HTTP Basic credentials and a refusal changes nothing",
          "[integration][auth]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path()});
  const int port = service.port();
  const std::string alice = lather::BasicAuthorization("alice", "wonderland");

  CheckRefused(SendRaw(port, Post(1, IncCounter("c"))), 1, "IncCounter needs credentials");
  CHECK(ElementText(SendRaw(port, Post(1, IncCounter("c"))).body, "faultcode").find("Client") != std::string::npos);
  CheckRefused(SendRaw(port, Post(2, IncCounter("c"))), 2, "IncCounter needs credentials");
  CHECK(Counter(port, "c") == 0);
  CheckRefused(SendRaw(port, Post(1, IncCounter("c"), lather::BasicAuthorization("alice", "wrong"))), 1,
               "wrong user name or password");
  CheckRefused(SendRaw(port, Post(1, IncCounter("c"), lather::BasicAuthorization("mallory", "wonderland"))), 1,
               "wrong user name or password");
  CheckRefused(SendRaw(port, Post(1, IncCounter("c"), lather::BasicAuthorization("bob", "wonderland"))), 1,
               "wrong user name or password");
  CheckRefused(SendRaw(port, Post(2, IncCounter("c"), "Bearer abc")), 2, "not hold HTTP Basic credentials");
  CHECK(Counter(port, "c") == 0);

  RawResponse ok = SendRaw(port, Post(1, IncCounter("c"), alice));
  CHECK(ok.status == 200);
  CHECK(ElementText(ok.body, "result") == "1");
  ok = SendRaw(port, Post(2, IncCounter("c"), alice));  // now from the cache of verified pairs
  CHECK(ok.status == 200);
  CHECK(ElementText(ok.body, "result") == "2");
  ok = SendRaw(port, Post(1, IncCounter("c"), lather::BasicAuthorization("bob", "builder")));
  CHECK(ElementText(ok.body, "result") == "3");
  // A cached good pair does not make a wrong password good.
  CheckRefused(SendRaw(port, Post(1, IncCounter("c"), lather::BasicAuthorization("alice", "wonderland!"))), 1,
               "wrong user name or password");
  CHECK(Counter(port, "c") == 3);

  // The operations that change nothing stay open under the default --auth inc-counter.
  const RawResponse increment = SendRaw(port, Post(1, "<l:Increment><l:value>41</l:value></l:Increment>"));
  CHECK(increment.status == 200);
  CHECK(ElementText(increment.body, "result") == "42");
  CHECK(SendRaw(port, Post(2, "<l:HelloWorld/>")).status == 200);
  CHECK(service.Log().find("warning: --auth-file without TLS") != std::string::npos);
  CHECK(service.Stop() == 0);  // a clean exit (under ASan: no leak)
}

TEST_CASE("the Body decides which operation is protected and a 401 keeps the connection usable",
          "[integration][auth]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path()});
  const int port = service.port();
  // A SOAPAction naming an open operation does not open IncCounter: a mismatch is a fault.
  std::string request = Post(1, IncCounter("b"));
  request.insert(request.find("\r\n") + 2, "SOAPAction: \"urn:lather:v1#GetCounter\"\r\n");
  CHECK(SendRaw(port, request).status == 500);
  CHECK(Counter(port, "b") == 0);

  lather::test::RawConnection connection(port);
  REQUIRE(connection.Send(Post(1, IncCounter("b"))));
  const RawResponse refused = connection.Receive();
  CHECK(refused.status == 401);
  CHECK_FALSE(refused.closed);
  REQUIRE(connection.Send(Post(1, IncCounter("b"), lather::BasicAuthorization("alice", "wonderland"))));
  const RawResponse ok = connection.Receive();
  CHECK(ok.status == 200);
  CHECK(ElementText(ok.body, "result") == "1");
}

TEST_CASE("a WS-Security UsernameToken authenticates IncCounter and a digest password is refused",
          "[integration][auth]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path()});
  const int port = service.port();

  for (int version : {1, 2}) {
    INFO("SOAP 1." << (version == 2 ? 2 : 1));
    const std::string name = "w" + std::to_string(version);
    // mustUnderstand="1" on a header we process: understood, not a MustUnderstand fault.
    RawResponse r = SendRaw(port, Post(version, IncCounter(name), "", Security("alice", "wonderland")));
    CHECK(r.status == 200);
    CHECK(ElementText(r.body, "result") == "1");
    CHECK(r.body.find("wonderland") == std::string::npos);  // the request's Security block is never echoed
    CHECK(r.body.find("Security") == std::string::npos);

    r = SendRaw(port, Post(version, IncCounter(name), "", Security("alice", "nope")));
    CHECK(r.body.find("<wsse:Password") == std::string::npos);
    CheckRefused(r, version, "wrong user name or password");
    if (version == 2) {
      CHECK(r.body.find("FailedAuthentication") != std::string::npos);  // the env:Subcode
      CHECK(r.body.find("xmlns:wsse=\"" + std::string(kWsse) + "\"") != std::string::npos);
    } else {
      CHECK(ElementText(r.body, "faultcode") == "wsse:FailedAuthentication");
      CHECK(r.body.find("xmlns:wsse=\"" + std::string(kWsse) + "\"") != std::string::npos);
    }
    r = SendRaw(port, Post(version, IncCounter(name), "", Security("alice", "d2hhdGV2ZXI=", kPasswordDigest)));
    CheckRefused(r, version, "PasswordDigest cannot be checked");
    CHECK(r.body.find("UnsupportedSecurityToken") != std::string::npos);
    r = SendRaw(port, Post(version, IncCounter(name), "",
                           "<wsse:Security xmlns:wsse=\"" + std::string(kWsse) +
                               "\"><wsse:UsernameToken><wsse:Username>alice</wsse:Username></wsse:UsernameToken>"
                               "</wsse:Security>"));
    CheckRefused(r, version, "needs a wsse:Username and a wsse:Password");
    CHECK(Counter(port, name) == 1);

    // A token without a Type is PasswordText (the profile's default); unknown children are skipped.
    r = SendRaw(port, Post(version, IncCounter(name), "",
                           "<wsse:Security xmlns:wsse=\"" + std::string(kWsse) +
                               "\"><wsse:UsernameToken><wsse:Username>bob</wsse:Username><wsse:Password>builder"
                               "</wsse:Password><wsse:Nonce>abc</wsse:Nonce></wsse:UsernameToken></wsse:Security>"));
    CHECK(r.status == 200);
    CHECK(ElementText(r.body, "result") == "2");
    // Nor is it echoed in a fault raised after it was read (another mustUnderstand header block).
    r = SendRaw(port, Post(version, IncCounter(name), "",
                           Security("alice", "wonderland") + "<x:Other xmlns:x=\"urn:x\" s:mustUnderstand=\"1\"/>"));
    CHECK(r.status == 500);
    CHECK(r.body.find("MustUnderstand") != std::string::npos);
    CHECK(r.body.find("wonderland") == std::string::npos);
    // A response to a request without WS-Security does not declare the wsse namespace.
    CHECK(SendRaw(port, Post(version, "<l:HelloWorld/>")).body.find("wsse") == std::string::npos);
  }
  CHECK(service.Stop() == 0);
}

TEST_CASE("with --auth all every operation needs credentials", "[integration][auth]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path(), "--auth", "all"});
  const int port = service.port();
  const std::string increment = "<l:Increment><l:value>1</l:value></l:Increment>";
  CheckRefused(SendRaw(port, Post(1, increment)), 1, "Increment needs credentials");
  CheckRefused(SendRaw(port, Post(2, "<l:HelloWorld/>")), 2, "HelloWorld needs credentials");
  CheckRefused(SendRaw(port, Post(1, "<l:GetCounter><l:name>a</l:name></l:GetCounter>")), 1,
               "GetCounter needs credentials");
  CheckRefused(SendRaw(port, Post(1, increment, lather::BasicAuthorization("alice", "x"))), 1, "wrong user name");
  for (int i = 0; i < 3; ++i) {  // the first check is deferred to the pool, the next ones are cached
    const RawResponse r = SendRaw(port, Post(1, increment, lather::BasicAuthorization("alice", "wonderland")));
    CHECK(r.status == 200);
    CHECK(ElementText(r.body, "result") == "2");
  }
  const RawResponse hello = SendRaw(port, Post(2, "<l:HelloWorld/>", "", Security("bob", "builder")));
  CHECK(hello.status == 200);
  CHECK(ElementText(hello.body, "result") == "Hello World");
}

TEST_CASE("a mustUnderstand wsse:Security header without --auth-file is a MustUnderstand fault",
          "[integration][auth]") {
  ServiceProcess service;
  const RawResponse r = SendRaw(service.port(), Post(2, IncCounter("m"), "", Security("alice", "wonderland")));
  CHECK(r.status == 500);
  CHECK(r.body.find("MustUnderstand") != std::string::npos);
  CHECK(r.body.find("NotUnderstood") != std::string::npos);
  // Without mustUnderstand it is an optional header: ignored.
  CHECK(SendRaw(service.port(), Post(1, IncCounter("m"), "", Security("a", "b", kPasswordText, "0"))).status == 200);
}

TEST_CASE("lather-call sends --user and --password as Basic or --wsse and exits 2 on a wrong password",
          "[integration][auth]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path()});
  const std::string call = CallBinary() + " --url " + service.url();
  CHECK(RunCommand(call + " --user alice --password wonderland inc-counter k").output == "1\n");
  CHECK(RunCommand("env LATHER_PASSWORD=wonderland " + call + " --user alice --soap12 inc-counter k").output == "2\n");
  CHECK(RunCommand(call + " --user bob --password builder --wsse inc-counter k").output == "3\n");
  CHECK(RunCommand(call + " --user bob --password builder --wsse --soap12 inc-counter k").output == "4\n");

  const CommandResult wrong = RunCommand(call + " --user alice --password nope inc-counter k");
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.output.rfind("fault: SOAP-ENV:Client: wrong user name or password", 0) == 0);
  const CommandResult wrong_wsse = RunCommand(call + " --user alice --password nope --wsse inc-counter k");
  CHECK(wrong_wsse.exit_code == 2);
  CHECK(wrong_wsse.output.rfind("fault: wsse:FailedAuthentication: wrong user name or password", 0) == 0);
  const CommandResult none = RunCommand(call + " inc-counter k");
  CHECK(none.exit_code == 2);
  CHECK(RunCommand(call + " get-counter k").output == "4\n");
  const CommandResult no_password = RunCommand("env -u LATHER_PASSWORD " + call + " --user alice inc-counter k");
  CHECK(no_password.exit_code == 64);
}

TEST_CASE("a malformed or unreadable auth file stops lather-service with one line naming it",
          "[integration][auth]") {
  AuthFile users;
  const std::string bad = users.folder() + "/bad";
  std::ofstream(bad) << "# users\nalice:" << AuthFile::Hash("x", "$6$") << "\nbob $6$abc\n";
  const std::string start = ServiceBinary() + " --listen 127.0.0.1:0 --store sqlite:" + users.folder() + "/c.db";
  CommandResult r = RunCommand(start + " --auth-file " + bad);
  CHECK(r.exit_code == 64);
  CHECK(r.output == "lather-service: " + bad + ":3: expected user:HASH, found no ':'\n");
  r = RunCommand(start + " --auth-file " + users.folder() + "/missing");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(users.folder() + "/missing") != std::string::npos);
  r = RunCommand(start + " --auth-file " + users.path() + " --auth some");
  CHECK(r.exit_code == 64);
  r = RunCommand(start + " --auth all");
  CHECK(r.exit_code == 64);
  CHECK(r.output == "lather-service: --auth needs --auth-file\n");
}

TEST_CASE("with --admin-listen /metrics and /healthz are served there and /metrics on the public port is 404",
          "[integration][admin]") {
  ServiceProcess service("", {"--admin-listen", "127.0.0.1:0"});
  const int admin = AdminPort(service);
  REQUIRE(admin != service.port());
  CHECK(SendRaw(service.port(), Post(1, "<l:Increment><l:value>1</l:value></l:Increment>")).status == 200);

  const RawResponse metrics = SendRaw(admin, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(metrics.status == 200);
  CHECK(metrics.Header("content-type").rfind("text/plain", 0) == 0);
  CHECK(metrics.body.find("lather_requests_total{operation=\"Increment\",outcome=\"ok\"} 1") != std::string::npos);
  CHECK(metrics.body.find("process_cpu_seconds_total") != std::string::npos);
  const RawResponse health = SendRaw(admin, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(health.status == 200);
  CHECK(health.body == "ok\n");
  const RawResponse other = SendRaw(admin, "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  CHECK(other.status == 404);
  CHECK(other.body.find("Fault") != std::string::npos);

  const RawResponse public_metrics = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(public_metrics.status == 404);
  CHECK(public_metrics.body.find("Fault") != std::string::npos);
  CHECK(SendRaw(service.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").status == 200);
  CHECK(service.Stop() == 0);
}

TEST_CASE("without --admin-listen /metrics stays on the public port", "[integration][admin]") {
  ServiceProcess service;
  CHECK(SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").status == 200);
  CHECK(service.Log().find("admin listener") == std::string::npos);
}

TEST_CASE("lather-stress sends --user credentials and reads the server CPU from --metrics-url",
          "[integration][auth][admin][stress]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path(), "--admin-listen", "127.0.0.1:0"});
  const std::string json = users.folder() + "/run.json";
  const std::string stress = lather::test::StressBinary() + " " + service.url() + " --op inc-counter --counter s";
  const CommandResult refused = RunCommand(stress + " -n 200 -c 2 -t 1", 120);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);  // every call failed: no credentials
  CHECK(Counter(service.port(), "s") == 0);

  const CommandResult run =
      RunCommand("env LATHER_PASSWORD=wonderland " + stress + " --user alice -n 1000 -c 4 -t 1 --json " + json +
                     " --metrics-url http://127.0.0.1:" + std::to_string(AdminPort(service)) + "/metrics",
                 120);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("from /metrics") != std::string::npos);
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto report = Poco::JSON::Parser().parse(text).extract<Poco::JSON::Object::Ptr>();
  CHECK(report->getObject("calls")->getValue<uint64_t>("ok") == 1000);
  CHECK(report->getObject("cpu")->getValue<std::string>("server_cpu_source") == "/metrics");
  CHECK(Counter(service.port(), "s") == 1000);
}

TEST_CASE("a large gzip-encoded IncCounter decoded on the pool keeps its HTTP Basic credentials",
          "[integration][auth][gzip]") {
  AuthFile users;
  ServiceProcess service("", {"--auth-file", users.path()});
  // Over 4 KiB compressed (lather::kInlineGzipBytes), so the pool decodes it: padding that does not compress away.
  const std::string padding = lather::test::IncompressibleText(8000, 4242);
  const std::string envelope = std::string("<s:Envelope xmlns:s=\"") + kEnv11 + "\" xmlns:l=\"urn:lather:v1\"><!-- " +
                               padding + " --><s:Body>" + IncCounter("zipped") + "</s:Body></s:Envelope>";
  const std::string compressed = lather::test::Gzip(envelope);
  REQUIRE(compressed.size() > 4096);
  std::string request = lather::test::EncodedPost("text/xml; charset=utf-8", compressed, "gzip");
  request.insert(request.find("\r\n") + 2, "SOAPAction: \"urn:lather:v1#IncCounter\"\r\n");
  CheckRefused(SendRaw(service.port(), request), 1, "IncCounter needs credentials");
  request.insert(request.find("\r\n") + 2,
                 "Authorization: " + lather::BasicAuthorization("alice", "wonderland") + "\r\n");
  const RawResponse r = SendRaw(service.port(), request);
  INFO(r.body);
  CHECK(r.status == 200);
  CHECK(ElementText(r.body, "result") == "1");
  CHECK(Counter(service.port(), "zipped") == 1);
}
