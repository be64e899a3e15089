// The real lather-service, called through the typed client and with raw HTTP.
#include <catch2/catch.hpp>
#include <pugixml.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "service/store/counter_store.h"

#include "client/data_sample.h"
#include "client/soap_client.h"
#include "tests/integration/process_stats.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"
#include "tests/integration/soap_fixtures.h"

using lather::Client;
using lather::Status;
using lather::test::ElementText;
using lather::test::Envelope;
using lather::test::MakeClient;
using lather::test::MetricValue;
using lather::test::OpenFds;
using lather::test::RawResponse;
using lather::test::ResidentKiB;
using lather::test::SendRaw;
using lather::test::ServiceProcess;
using lather::test::SoapPost;
using lather::test::kEnv11;
using lather::test::kEnv12;
using lather::test::kSoap11Type;
using lather::test::kSoap12Type;

namespace {


int32_t IncrementOnce(const ServiceProcess& service) {
  Client client = MakeClient(service, false);
  int32_t result = 0;
  REQUIRE(client.Increment(1, &result).ok());
  return result;
}

int64_t Counter(const ServiceProcess& service, const std::string& name) {
  Client client = MakeClient(service, false);
  int64_t value = -1;
  REQUIRE(client.GetCounter(name, &value).ok());
  return value;
}

}  // namespace

TEST_CASE("every operation answers over SOAP 1.1 and SOAP 1.2 through the generated proxy",
          "[integration][service]") {
  ServiceProcess service;
  const bool soap12 = GENERATE(false, true);
  INFO("soap12 = " << soap12);
  Client client = MakeClient(service, soap12);

  int32_t result = 0;
  REQUIRE(client.Increment(41, &result).ok());
  CHECK(result == 42);
  REQUIRE(client.Increment(-1, &result).ok());
  CHECK(result == 0);

  const Status overflow = client.Increment(2147483647, &result);
  REQUIRE(overflow.kind() == Status::Kind::kFault);
  CHECK(overflow.fault_code() == (soap12 ? "SOAP-ENV:Sender" : "SOAP-ENV:Client"));
  CHECK(overflow.message().find("2147483647") != std::string::npos);

  std::string greeting;
  REQUIRE(client.HelloWorld(&greeting).ok());
  CHECK(greeting == "Hello World");

  const std::string name = soap12 ? "fresh-12" : "fresh-11";
  int64_t value = 0;
  REQUIRE(client.GetCounter(name, &value).ok());
  CHECK(value == 0);
  REQUIRE(client.IncCounter(name, &value).ok());
  CHECK(value == 1);
  REQUIRE(client.IncCounter(name, &value).ok());
  CHECK(value == 2);
  REQUIRE(client.GetCounter(name, &value).ok());
  CHECK(value == 2);

  lather::SampleShape shape;
  shape.count = 120;
  shape.depth = 3;
  const lather::SampleSet samples = lather::GenerateSamples(shape);
  lather::SampleSet echoed;
  REQUIRE(client.EchoDataSamples(samples, &echoed).ok());
  CHECK(lather::FirstDifference(samples, echoed).empty());
  REQUIRE(client.EchoDataSamples(lather::SampleSet(), &echoed).ok());
  CHECK(echoed.samples.empty());
  CHECK(service.Stop() == 0);
}

TEST_CASE("GET /soap?wsdl returns the contract with the address the client used", "[integration][wsdl]") {
  ServiceProcess service;
  for (const std::string& host : {std::string("127.0.0.1:") + std::to_string(service.port()),
                                 std::string("lather.example:8443")}) {
    INFO(host);
    const RawResponse r = SendRaw(service.port(), "GET /soap?wsdl HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    REQUIRE(r.status == 200);
    CHECK(r.Header("content-type").find("xml") != std::string::npos);
    pugi::xml_document doc;
    REQUIRE(doc.load_string(r.body.c_str()));
    const auto service_node = doc.select_node("/*[local-name()='definitions']/*[local-name()='service']");
    REQUIRE(service_node);
    CHECK(std::string(service_node.node().attribute("name").value()) == "LatherService");
    const auto addresses = doc.select_nodes("//*[local-name()='address']");
    REQUIRE(addresses.size() == 2);
    for (const auto& address : addresses) {
      CHECK(std::string(address.node().attribute("location").value()) == "http://" + host + "/soap");
    }
    CHECK(doc.select_nodes("//*[local-name()='binding' and @name]").size() == 2);
  }
  // Behind a proxy that terminates TLS, the address clients are told is https.
  const RawResponse proxied = SendRaw(service.port(),
      "GET /soap?wsdl HTTP/1.1\r\nHost: lather.example\r\nX-Forwarded-Proto: https\r\n\r\n");
  REQUIRE(proxied.status == 200);
  CHECK(proxied.body.find("location=\"https://lather.example/soap\"") != std::string::npos);
  CHECK(proxied.body.find("location=\"http://") == std::string::npos);
  const RawResponse health = SendRaw(service.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(health.status == 200);
  CHECK(health.body == "ok\n");
}

TEST_CASE("bad requests get the contract's status and fault, and the service keeps serving",
          "[integration][faults]") {
  ServiceProcess service;
  struct Case {
    const char* name;
    std::string content_type;
    std::string body;
    std::string action;
    int status;
    const char* fault_code;  // local part of the code, "" for HTTP-layer rejections checked by status
    bool soap12_fault;
  };
  const std::string inc = "<l:IncCounter><l:name>guarded</l:name></l:IncCounter>";
  const std::string billion_laughs =
      "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 "
      "\"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\"><!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;\">]>";
  std::string attributes, namespaces;
  for (int i = 0; i < 25000; ++i) attributes += " a" + std::to_string(i) + "=\"1\"";
  for (int i = 0; i < 50000; ++i) namespaces += " xmlns:p" + std::to_string(i) + "=\"urn:" + std::to_string(i) + "\"";
  // Baselines after one valid call (the first call allocates what every call reuses).
  CHECK(IncrementOnce(service) == 2);
  // (The service closes that call's connection when it sees the client's close: wait for it.)
  long fds_before = OpenFds(service.pid());
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const long now = OpenFds(service.pid());
    if (now == fds_before) break;
    fds_before = now;
  }
  const long rss_before = ResidentKiB(service.pid());
  const Case cases[] = {
      {"invalid UTF-8 (overlong)", kSoap11Type, Envelope(kEnv11, "<l:IncCounter><l:name>gu\xC0\xAF" "arded</l:name></l:IncCounter>"), "", 500, "Client", false},
      {"a lone continuation byte", kSoap12Type, Envelope(kEnv12, "<l:IncCounter><l:name>\x80guarded</l:name></l:IncCounter>"), "", 400, "Sender", true},
      {"&#0; in a value", kSoap11Type, Envelope(kEnv11, "<l:IncCounter><l:name>guarded&#0;</l:name></l:IncCounter>"), "", 500, "Client", false},
      {"an ISO-8859-1 declaration", kSoap11Type, Envelope(kEnv11, "<l:IncCounter><l:name>guarded</l:name></l:IncCounter>", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"), "", 500, "Client", false},
      {"25,000 attributes on one element", kSoap11Type, Envelope(kEnv11, "<l:IncCounter" + attributes + "><l:name>guarded</l:name></l:IncCounter>"), "", 500, "Client", false},
      {"50,000 namespace declarations", kSoap12Type, Envelope(kEnv12, "<l:IncCounter" + namespaces + "><l:name>guarded</l:name></l:IncCounter>"), "", 400, "Sender", true},
      {"Increment(2147483647) 1.1", kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>2147483647</l:value></l:Increment>"), "", 500, "Client", false},
      {"Increment(2147483647) 1.2", kSoap12Type, Envelope(kEnv12, "<l:Increment><l:value>2147483647</l:value></l:Increment>"), "", 400, "Sender", true},
      {"malformed XML 1.1", kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>1</l:valu></l:Increment>"), "", 500, "Client", false},
      {"malformed XML 1.2", kSoap12Type, Envelope(kEnv12, "<l:Increment><l:value>1</l:value>"), "", 400, "Sender", true},
      {"not XML at all", kSoap11Type, "this is not xml", "", 500, "Client", false},
      {"unknown operation", kSoap11Type, Envelope(kEnv11, "<l:Decrement><l:value>1</l:value></l:Decrement>"), "", 500, "Client", false},
      {"missing value", kSoap11Type, Envelope(kEnv11, "<l:Increment></l:Increment>"), "", 500, "Client", false},
      {"non-integer value", kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>forty-one</l:value></l:Increment>"), "", 500, "Client", false},
      {"value beyond xsd:int", kSoap12Type, Envelope(kEnv12, "<l:Increment><l:value>2147483648</l:value></l:Increment>"), "", 400, "Sender", true},
      // SOAP 1.2 part 1 appendix A: the binding and the envelope disagree: a SOAP 1.1 VersionMismatch.
      {"1.1 envelope as application/soap+xml", kSoap12Type, Envelope(kEnv11, inc), "", 500, "VersionMismatch", false},
      {"1.2 envelope as text/xml", kSoap11Type, Envelope(kEnv12, inc), "", 500, "VersionMismatch", false},
      {"billion laughs DTD", kSoap11Type, Envelope(kEnv11, inc, billion_laughs), "", 500, "Client", false},
      {"external entity DTD", kSoap12Type, Envelope(kEnv12, inc, "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"), "", 400, "Sender", true},
      {"action naming another operation", kSoap11Type, Envelope(kEnv11, inc), "urn:lather:v1#GetCounter", 500, "Client", false},
      {"unknown envelope namespace", kSoap11Type, Envelope("urn:not-soap", inc), "", 500, "VersionMismatch", false},
      {"document element not an Envelope", kSoap11Type, "<l:IncCounter xmlns:l=\"urn:lather:v1\"><l:name>guarded</l:name></l:IncCounter>", "", 500, "Client", false},
      {"two operations in one 1.1 Body", kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>" + inc), "", 500, "Client", false},
      {"an operation after another in a 1.2 Body", kSoap12Type, Envelope(kEnv12, inc + "<l:HelloWorld/>"), "", 400, "Sender", true},
      {"empty body", kSoap12Type, "", "", 400, "Sender", true},
      {"JSON media type", "application/json", "{\"name\":\"guarded\"}", "", 415, "Client", false},
      {"no Content-Type", "", Envelope(kEnv11, inc), "", 415, "Client", false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::string request;
    if (c.content_type.empty()) {
      request = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(c.body.size()) + "\r\n\r\n" + c.body;
    } else {
      request = SoapPost(c.content_type, c.body, c.action);
    }
    const RawResponse r = SendRaw(service.port(), request);
    CHECK(r.status == c.status);
    const std::string expected_type = c.soap12_fault ? "application/soap+xml" : "text/xml";
    CHECK(r.Header("content-type").find(expected_type) == 0);
    const std::string code = ElementText(r.body, c.soap12_fault ? "Value" : "faultcode");
    CHECK(code.substr(code.find(':') + 1) == c.fault_code);
    const std::string reason = ElementText(r.body, c.soap12_fault ? "Text" : "faultstring");
    CHECK_FALSE(reason.empty());
    CHECK(r.body.find("lollol") == std::string::npos);
    CHECK(r.body.find("root:") == std::string::npos);
  }
  // Nothing above may have incremented the guarded counter, and the service still answers.
  CHECK(Counter(service, "guarded") == 0);
  CHECK(IncrementOnce(service) == 2);
  // Every rejected connection is closed again, and memory is back near where it was.
  long fds_after = OpenFds(service.pid());
  for (int i = 0; i < 50 && fds_after > fds_before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    fds_after = OpenFds(service.pid());
  }
  CHECK(fds_after <= fds_before);
  const long rss_after = ResidentKiB(service.pid());
  INFO("RSS " << rss_before << " KiB before the bad requests, " << rss_after << " KiB after");
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kRssSlackKiB = 512 * 1024;  // ASan keeps freed memory in quarantine (256 MiB by default)
#else
  constexpr long kRssSlackKiB = 16 * 1024;   // measured: about 100 KiB
#endif
  CHECK(rss_after < rss_before + kRssSlackKiB);
  CHECK(service.Stop() == 0);
}

TEST_CASE("a chunked stream is cut off at the message limit, and huge chunk sizes are refused at once",
          "[integration][http][limits]") {
  // CVE-2017-9765 ("Devil's Ivy") was a > 2 GB message overflowing a counter: here nothing is counted past
  // --max-message, whatever the chunks announce.
  ServiceProcess service("", {"--max-message", "1048576"});
  const std::string head = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n";
  {
    lather::test::RawConnection connection(service.port());
    REQUIRE(connection.Send(head));
    const std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";  // 64 KiB each, never a last chunk
    for (int i = 0; i < 64; ++i) {  // 4 MiB offered; the service stops reading at 1 MiB
      if (!connection.Send(chunk)) break;
    }
    const RawResponse r = connection.Receive();
    CHECK(r.status == 413);
    CHECK(ElementText(r.body, "faultcode") == "SOAP-ENV:Client");
  }
  const RawResponse two_gib = SendRaw(service.port(), head + "80000000\r\nabcd");
  CHECK(two_gib.status == 413);
  const RawResponse twenty_digits = SendRaw(service.port(), head + "00000000000000000010\r\nabcd");
  CHECK(twenty_digits.status == 400);
  const RawResponse bad_digit = SendRaw(service.port(), head + "1g\r\nabcd");
  CHECK(bad_digit.status == 400);
  CHECK(IncrementOnce(service) == 2);
}

TEST_CASE("a client still sending a refused body gets the answer, not a reset", "[integration][http][limits]") {
  ServiceProcess service("", {"--max-message", "1000"});
  const std::string body(5 * 1024 * 1024, 'x');  // refused from its Content-Length, then sent in full anyway
  lather::test::RawConnection connection(service.port());
  REQUIRE(connection.Send("POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body));
  const RawResponse r = connection.Receive();
  CHECK(r.status == 413);
  CHECK(ElementText(r.body, "faultcode") == "SOAP-ENV:Client");
  CHECK(IncrementOnce(service) == 2);
}

TEST_CASE("mustUnderstand header blocks addressed to the service are refused, others are ignored",
          "[integration][faults]") {
  ServiceProcess service;
  struct Case {
    const char* name;
    int version;
    std::string header;
    bool refused;
  };
  const std::string mu11 = " xmlns:x=\"urn:x\" xmlns:e=\"" + std::string(kEnv11) + "\"";
  const std::string mu12 = " xmlns:x=\"urn:x\" xmlns:e=\"" + std::string(kEnv12) + "\"";
  const std::string role = "http://www.w3.org/2003/05/soap-envelope/role/";
  const Case cases[] = {
      {"1.1, no actor", 1, "<x:Trace" + mu11 + " e:mustUnderstand=\"1\">t</x:Trace>", true},
      {"1.1, actor next", 1, "<x:Trace" + mu11 + " e:mustUnderstand=\"1\" e:actor=\"http://schemas.xmlsoap.org/soap/actor/next\">t</x:Trace>", true},
      {"1.1, another actor", 1, "<x:Trace" + mu11 + " e:mustUnderstand=\"1\" e:actor=\"urn:elsewhere\">t</x:Trace>", false},
      {"1.1, mustUnderstand 0", 1, "<x:Trace" + mu11 + " e:mustUnderstand=\"0\">t</x:Trace>", false},
      {"1.2, no role", 2, "<x:Trace" + mu12 + " e:mustUnderstand=\"true\">t</x:Trace>", true},
      {"1.2, role ultimateReceiver", 2, "<x:Trace" + mu12 + " e:mustUnderstand=\"true\" e:role=\"" + role + "ultimateReceiver\">t</x:Trace>", true},
      {"1.2, role next", 2, "<x:Trace" + mu12 + " e:mustUnderstand=\"1\" e:role=\"" + role + "next\">t</x:Trace>", true},
      {"1.2, role none", 2, "<x:Trace" + mu12 + " e:mustUnderstand=\"true\" e:role=\"" + role + "none\">t</x:Trace>", false},
      {"1.2, another role", 2, "<x:Trace" + mu12 + " e:mustUnderstand=\"true\" e:role=\"urn:elsewhere\">t</x:Trace>", false},
      {"1.2, mustUnderstand false", 2, "<x:Trace" + mu12 + " e:mustUnderstand=\"false\">t</x:Trace>", false},
  };
  int64_t expected = 0;
  for (const Case& c : cases) {
    INFO(c.name);
    const char* env = c.version == 2 ? kEnv12 : kEnv11;
    const std::string body = std::string("<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"") + env +
                             "\" xmlns:l=\"urn:lather:v1\"><soap:Header>" + c.header + "</soap:Header><soap:Body>"
                             "<l:IncCounter><l:name>mu</l:name></l:IncCounter></soap:Body></soap:Envelope>";
    const RawResponse r = SendRaw(service.port(), SoapPost(c.version == 2 ? kSoap12Type : kSoap11Type, body));
    if (c.refused) {
      CHECK(r.status == 500);
      const std::string code = ElementText(r.body, c.version == 2 ? "Value" : "faultcode");
      CHECK(code.substr(code.find(':') + 1) == "MustUnderstand");
      if (c.version == 2) {
        CHECK(r.body.find("NotUnderstood qname=\"nu:Trace\" xmlns:nu=\"urn:x\"") != std::string::npos);
      }
    } else {
      CHECK(r.status == 200);
      CHECK(ElementText(r.body, "result") == std::to_string(++expected));
    }
  }
  CHECK(Counter(service, "mu") == expected);  // a refused request changed nothing
}

TEST_CASE("HTTP-layer rejections carry the right status, headers and a fault", "[integration][faults][http]") {
  ServiceProcess service;
  const RawResponse get = SendRaw(service.port(), "GET /soap HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(get.status == 405);
  CHECK(get.Header("allow") == "GET, HEAD, POST");  // the contract: the methods the resource /soap has
  CHECK(ElementText(get.body, "faultcode") == "SOAP-ENV:Client");

  const RawResponse put = SendRaw(service.port(), "PUT /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  CHECK(put.status == 405);

  const RawResponse no_length =
      SendRaw(service.port(), "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n\r\n");
  CHECK(no_length.status == 411);

  const RawResponse smuggle = SendRaw(service.port(),
      "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n");
  CHECK(smuggle.status == 400);
  CHECK(smuggle.closed);

  const RawResponse huge = SendRaw(service.port(),
      "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 3000000000\r\n\r\nabcd");
  CHECK(huge.status == 413);

  // gzip is decoded (hostile_input_test.cpp); other content codings are refused.
  std::string brotli_request = SoapPost(kSoap11Type, "x");
  brotli_request.insert(brotli_request.find("\r\n") + 2, "Content-Encoding: br\r\n");
  const RawResponse brotli = SendRaw(service.port(), brotli_request);
  CHECK(brotli.status == 415);
  CHECK(ElementText(brotli.body, "faultcode") == "SOAP-ENV:Client");

  const RawResponse not_found = SendRaw(service.port(), "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(not_found.status == 404);
  CHECK(IncrementOnce(service) == 2);
}

TEST_CASE("keep-alive and pipelined requests are answered in order on one connection",
          "[integration][http]") {
  ServiceProcess service;
  lather::test::RawConnection connection(service.port());
  std::string pipelined;
  for (int i = 0; i < 5; ++i) {
    pipelined += SoapPost(kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>" + std::to_string(i * 10) +
                                                            "</l:value></l:Increment>"));
  }
  REQUIRE(connection.Send(pipelined));
  for (int i = 0; i < 5; ++i) {
    const RawResponse r = connection.Receive();
    REQUIRE(r.status == 200);
    CHECK(ElementText(r.body, "result") == std::to_string(i * 10 + 1));
    CHECK_FALSE(r.closed);
  }
  // Quick calls and store calls (run on the pool) in one pipelined
  // batch: answered in the order sent, each after the ones before it.
  std::string mixed = SoapPost(kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>1</l:value></l:Increment>")) +
                      SoapPost(kSoap11Type, Envelope(kEnv11, "<l:IncCounter><l:name>piped</l:name></l:IncCounter>")) +
                      SoapPost(kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>2</l:value></l:Increment>")) +
                      SoapPost(kSoap11Type, Envelope(kEnv11, "<l:IncCounter><l:name>piped</l:name></l:IncCounter>")) +
                      SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>"));
  REQUIRE(connection.Send(mixed));
  for (const char* expected : {"2", "1", "3", "2", "Hello World"}) {
    const RawResponse r = connection.Receive();
    REQUIRE(r.status == 200);
    CHECK(ElementText(r.body, "result") == expected);
  }
  // An HTTP/1.0 keep-alive request (ApacheBench -k) gets its keep-alive announced and the connection kept.
  std::string http10 = SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>"));
  http10.replace(http10.find("HTTP/1.1"), 8, "HTTP/1.0");
  http10.insert(http10.find("\r\n") + 2, "Connection: Keep-Alive\r\n");
  REQUIRE(connection.Send(http10));
  const RawResponse kept = connection.Receive();
  CHECK(kept.status == 200);
  CHECK(kept.Header("connection") == "keep-alive");
  // A chunked request on the same connection.
  const std::string body = Envelope(kEnv11, "<l:HelloWorld/>");
  std::string chunked = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (size_t i = 0; i < body.size(); i += 7) {
    const std::string part = body.substr(i, 7);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", part.size());
    chunked += size + part + "\r\n";
  }
  chunked += "0\r\n\r\n";
  REQUIRE(connection.Send(chunked));
  const RawResponse hello = connection.Receive();
  CHECK(hello.status == 200);
  CHECK(ElementText(hello.body, "result") == "Hello World");
}

TEST_CASE("GET /metrics counts requests by operation and outcome, rejections, bytes and CPU",
          "[integration][metrics]") {
  ServiceProcess service;
  Client client = MakeClient(service, false);
  int32_t result = 0;
  for (int i = 0; i < 7; ++i) REQUIRE(client.Increment(i, &result).ok());
  CHECK(client.Increment(2147483647, &result).kind() == Status::Kind::kFault);
  std::string greeting;
  REQUIRE(client.HelloWorld(&greeting).ok());
  CHECK(SendRaw(service.port(), "PUT /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").status == 405);
  CHECK(SendRaw(service.port(), SoapPost("application/json", "{}")).status == 415);
  CHECK(SendRaw(service.port(), SoapPost(kSoap11Type, "<broken")).status == 500);

  const RawResponse r = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(r.status == 200);
  CHECK(r.Header("content-type").find("text/plain") == 0);
  const std::string& page = r.body;
  CHECK(MetricValue(page, "lather_requests_total{operation=\"Increment\",outcome=\"ok\"}") == 7);
  CHECK(MetricValue(page, "lather_requests_total{operation=\"Increment\",outcome=\"client_fault\"}") == 1);
  CHECK(MetricValue(page, "lather_requests_total{operation=\"HelloWorld\",outcome=\"ok\"}") == 1);
  CHECK(MetricValue(page, "lather_requests_total{operation=\"none\",outcome=\"client_fault\"}") == 1);
  CHECK(MetricValue(page, "lather_http_rejections_total{status=\"405\"}") == 1);
  CHECK(MetricValue(page, "lather_http_rejections_total{status=\"415\"}") == 1);
  CHECK(MetricValue(page, "lather_request_duration_seconds_count") == 10);
  CHECK(MetricValue(page, "lather_request_duration_seconds_bucket{le=\"+Inf\"}") == 10);
  CHECK(MetricValue(page, "lather_received_bytes_total") > 3000);
  CHECK(MetricValue(page, "lather_sent_bytes_total") > 3000);
  CHECK(MetricValue(page, "lather_open_connections") >= 1);  // the client's keep-alive connection and this one
  CHECK(MetricValue(page, "process_cpu_seconds_total") > 0);
  CHECK(MetricValue(page, "process_resident_memory_bytes") > 1e6);
  CHECK(MetricValue(page, "lather_cpu_cores") >= 1);

  // Every SOAP request that ran has its wait (arrival to execution) and its execution time measured;
  // store calls run on the pool, and their wait includes the pool's queue.
  int64_t value = 0;
  REQUIRE(client.IncCounter("metered", &value).ok());
  REQUIRE(client.GetCounter("metered", &value).ok());
  const std::string after = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  CHECK(MetricValue(after, "lather_queue_wait_seconds_count") == 12);
  CHECK(MetricValue(after, "lather_request_duration_seconds_count") == 12);
  CHECK(MetricValue(after, "lather_busy_answer_seconds_count") == 0);
  // ... and split into gSOAP's parsing (up to the operation) and serializing (after it).
  CHECK(MetricValue(after, "lather_parse_seconds_count") == 12);
  CHECK(MetricValue(after, "lather_serialize_seconds_count") == 12);
  CHECK(MetricValue(after, "lather_parse_seconds_sum") > 0);
  CHECK(MetricValue(after, "lather_parse_seconds_sum") + MetricValue(after, "lather_serialize_seconds_sum") <=
        MetricValue(after, "lather_request_duration_seconds_sum") + 1e-6);
  CHECK(MetricValue(after, "lather_requests_total{operation=\"IncCounter\",outcome=\"ok\"}") == 1);
  CHECK(MetricValue(after, "lather_requests_total{operation=\"GetCounter\",outcome=\"ok\"}") == 1);
  CHECK(MetricValue(after, "lather_requests_in_flight") == 0);
  // The store's writer: that IncCounter in one committed transaction, timed.
  CHECK(MetricValue(after, "lather_store_transactions_total{outcome=\"committed\"}") == 1);
  CHECK(MetricValue(after, "lather_store_transactions_total{outcome=\"failed\"}") == 0);
  CHECK(MetricValue(after, "lather_store_increments_total") == 1);
  CHECK(MetricValue(after, "lather_store_purged_message_ids_total") == 0);
  CHECK(MetricValue(after, "lather_store_transaction_seconds_count") == 1);
  CHECK(MetricValue(after, "lather_store_transaction_seconds_bucket{le=\"+Inf\"}") == 1);
  CHECK(MetricValue(after, "lather_store_transaction_seconds_sum") > 0);
}

TEST_CASE("a slow store delays only store calls, and a full pool queue answers 503 with Retry-After",
          "[integration][pool]") {
  // No queue-wait limit here: this test is about the queue's length (the next one is about its wait).
  ServiceProcess service("", {"--pool-threads", "1", "--pool-queue", "1", "--max-queue-wait", "0"});
  const std::string inc = Envelope(kEnv11, "<l:IncCounter><l:name>slow</l:name></l:IncCounter>");
  // Another writer holds the database: the store is slow (it waits up to its busy timeout).
  std::unique_ptr<lather::CounterStore> blocker;
  REQUIRE(lather::CounterStore::Open(service.store_uri(), &blocker).ok());
  REQUIRE(blocker->LockForTest().ok());

  lather::test::RawConnection first(service.port()), second(service.port()), third(service.port());
  REQUIRE(first.Send(SoapPost(kSoap11Type, inc)));   // taken by the pool's only thread, waits for the lock
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(second.Send(SoapPost(kSoap11Type, inc)));  // waits in the queue (1 place)
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(third.Send(SoapPost(kSoap11Type, inc)));   // no place left
  const RawResponse busy = third.Receive();
  CHECK(busy.status == 503);
  CHECK(busy.Header("retry-after") == "1");
  CHECK(ElementText(busy.body, "faultcode") == "SOAP-ENV:Server");
  const std::string queued = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  CHECK(MetricValue(queued, "lather_pool_queued") == 1);  // the second one

  // Quick calls are answered meanwhile.
  CHECK(IncrementOnce(service) == 2);

  REQUIRE(blocker->UnlockForTest().ok());
  const RawResponse a = first.Receive();
  const RawResponse b = second.Receive();
  CHECK(a.status == 200);
  CHECK(b.status == 200);
  CHECK(ElementText(a.body, "result") == "1");
  CHECK(ElementText(b.body, "result") == "2");
  CHECK(Counter(service, "slow") == 2);  // the refused request had no effect
}

TEST_CASE("a request that waited longer than --max-queue-wait is answered 503 with Retry-After and has no effect",
          "[integration][pool][limits]") {
  // The pool's semantics: the classic engine sends IncCounter to the pool. The event engine queues it to
  // the store's writer, where it waits for its commit without a limit (next test).
  const char* engine = std::getenv("LATHER_TEST_ENGINE");
  if (engine == nullptr || std::string(engine) != "classic") return;
  ServiceProcess service("", {"--pool-threads", "1", "--max-queue-wait", "200"});
  const std::string inc = Envelope(kEnv12, "<l:IncCounter><l:name>late</l:name></l:IncCounter>");
  std::unique_ptr<lather::CounterStore> blocker;
  REQUIRE(lather::CounterStore::Open(service.store_uri(), &blocker).ok());
  REQUIRE(blocker->LockForTest().ok());

  lather::test::RawConnection first(service.port()), second(service.port());
  REQUIRE(first.Send(SoapPost(kSoap12Type, inc)));   // taken at once by the pool's only thread
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE(second.Send(SoapPost(kSoap12Type, inc)));  // waits behind it for longer than 200 ms
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  REQUIRE(blocker->UnlockForTest().ok());

  const RawResponse a = first.Receive();
  CHECK(a.status == 200);
  CHECK(ElementText(a.body, "result") == "1");
  const RawResponse late = second.Receive();
  CHECK(late.status == 503);
  CHECK(late.Header("retry-after") == "1");
  CHECK(late.Header("content-type").find("application/soap+xml") == 0);
  CHECK(ElementText(late.body, "Value") == "env:Receiver");
  CHECK(late.body.find("over the limit of 200 ms") != std::string::npos);
  CHECK(late.Header("connection") != "close");  // a well-formed request: the connection stays usable

  REQUIRE(second.Send(SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>"))));
  CHECK(second.Receive().status == 200);
  CHECK(Counter(service, "late") == 1);  // the late request had no effect
  const std::string metrics = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  CHECK(MetricValue(metrics, "lather_http_rejections_total{status=\"503\"}") == 1);
  CHECK(MetricValue(metrics, "lather_busy_answer_seconds_count") == 1);
}

TEST_CASE("an IncCounter queued for the store's writer waits for its commit, a slow one included, and counts once",
          "[integration][pool][limits]") {
  // The event engine: the limit applies when the loop reads the request; queued for the writer, a call
  // waits through a slow commit (here the store's lock held 500 ms, over the 200 ms limit) and is answered.
  const char* engine = std::getenv("LATHER_TEST_ENGINE");
  if (engine != nullptr && std::string(engine) == "classic") return;
  ServiceProcess service("", {"--max-queue-wait", "200"});
  const std::string inc = Envelope(kEnv12, "<l:IncCounter><l:name>slow-commit</l:name></l:IncCounter>");
  std::unique_ptr<lather::CounterStore> blocker;
  REQUIRE(lather::CounterStore::Open(service.store_uri(), &blocker).ok());
  REQUIRE(blocker->LockForTest().ok());
  lather::test::RawConnection first(service.port()), second(service.port());
  REQUIRE(first.Send(SoapPost(kSoap12Type, inc)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE(second.Send(SoapPost(kSoap12Type, inc)));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  REQUIRE(blocker->UnlockForTest().ok());
  const RawResponse a = first.Receive(), b = second.Receive();
  CHECK(a.status == 200);
  CHECK(b.status == 200);
  std::set<std::string> values = {ElementText(a.body, "result"), ElementText(b.body, "result")};
  CHECK(values == std::set<std::string>{"1", "2"});
  CHECK(Counter(service, "slow-commit") == 2);
}

TEST_CASE("while shedding a pipelined request merged behind a newer one is judged from its own arrival not the newer one's stamp",
          "[integration][limits]") {
  // The kernel gives a queued request that a newer one was merged into the newer one's receive stamp
  // (tests/unit/common/stamped_receive_test.cpp): by its stamp alone, a request that waited 400 ms would look
  // 20 ms old. While the loop sheds load, a request with newer bytes behind it is judged from the earliest it can
  // have arrived (service/event/arrival_bounds.h); the newest keeps its own stamp.
  const char* engine = std::getenv("LATHER_TEST_ENGINE");
  if (engine != nullptr && std::string(engine) == "classic") return;  // the event engine's reads
  ServiceProcess service("", {"--threads", "1", "--max-queue-wait", "150"});
  const std::string hello = SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>"));
  lather::test::RawConnection shed(service.port()), pipelined(service.port());
  REQUIRE(shed.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));  // both accepted and idle before the stop
  REQUIRE(shed.Receive().status == 200);
  REQUIRE(pipelined.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  REQUIRE(pipelined.Receive().status == 200);

  REQUIRE(::kill(service.pid(), SIGSTOP) == 0);
  REQUIRE(lather::test::WaitAllThreadsStopped(service.pid()));
  REQUIRE(shed.Send(hello));        // waits 400 ms on its own: refused, and the loop is shedding
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(pipelined.Send(hello));   // the older request: waits 350 ms
  std::this_thread::sleep_for(std::chrono::milliseconds(330));
  REQUIRE(pipelined.Send(hello));   // the newer one, merged behind it: waits ~20 ms
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(::kill(service.pid(), SIGCONT) == 0);

  CHECK(shed.Receive().status == 503);
  const RawResponse older = pipelined.Receive();
  const RawResponse newer = pipelined.Receive();
  CHECK(older.status == 503);  // by its stamp alone (the newer one's) it would have been served
  CHECK(older.Header("retry-after") == "1");
  CHECK(newer.status == 200);  // the newest on its connection: its own stamp, under the limit
  CHECK(ElementText(newer.body, "result").find("Hello") != std::string::npos);
}

TEST_CASE("a request over --max-queue-wait is refused on its head: 503 before its body has come, the body dropped",
          "[integration][limits]") {
  // The event engine decides on the head (issue 20): the answer does not depend on the body, so it is not read
  // into memory, only dropped from the socket as it arrives, and the connection goes on with the next request.
  const char* engine = std::getenv("LATHER_TEST_ENGINE");
  if (engine != nullptr && std::string(engine) == "classic") return;  // the classic engine reads the body first
  // One loop thread: the refusal timing below is one thread's pieces of time (each loop also learns on its own that
  // it sheds load).
  ServiceProcess service("", {"--max-queue-wait", "100", "--threads", "1"});
  const std::string inc = Envelope(kEnv11, "<l:IncCounter><l:name>refused-on-head</l:name></l:IncCounter>");
  const std::string request = SoapPost(kSoap11Type, inc);
  const size_t head_end = request.find("\r\n\r\n") + 4;
  const std::string first_part = request.substr(0, head_end + 40), rest = request.substr(head_end + 40);
  lather::test::RawConnection keep_alive(service.port()), expecting(service.port());
  REQUIRE(keep_alive.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));  // both accepted before the stop
  REQUIRE(keep_alive.Receive().status == 200);
  REQUIRE(expecting.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  REQUIRE(expecting.Receive().status == 200);

  REQUIRE(::kill(service.pid(), SIGSTOP) == 0);  // the requests wait in their sockets, over the limit
  REQUIRE(lather::test::WaitAllThreadsStopped(service.pid()));
  REQUIRE(keep_alive.Send(first_part));
  std::string continue_head = first_part;
  continue_head.insert(continue_head.find("\r\n") + 2, "Expect: 100-continue\r\n");
  REQUIRE(expecting.Send(continue_head));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(::kill(service.pid(), SIGCONT) == 0);

  // Answered with most of the body still unsent (a service that waited for it would time out here).
  const RawResponse refused = keep_alive.Receive();
  CHECK(refused.status == 503);
  CHECK(refused.Header("retry-after") == "1");
  CHECK(refused.Header("connection") != "close");
  CHECK(refused.body.find("over the limit of 100 ms") != std::string::npos);
  // The rest of its body, in two pieces, then a pipelined request in the same write as the second piece.
  REQUIRE(keep_alive.Send(rest.substr(0, 10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(keep_alive.Send(rest.substr(10) + SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>"))));
  const RawResponse next = keep_alive.Receive();
  CHECK(next.status == 200);
  CHECK(ElementText(next.body, "result").find("Hello") != std::string::npos);

  // A client that expects 100-continue may never send the body: its 503 closes the connection.
  const RawResponse closing = expecting.Receive();
  CHECK(closing.status == 503);
  CHECK(closing.Header("connection") == "close");
  REQUIRE(expecting.Send(rest));  // read and dropped while the connection lingers, then closed
  CHECK(expecting.Receive().closed);

  CHECK(Counter(service, "refused-on-head") == 0);  // neither refused increment ran
  const std::string metrics = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  CHECK(MetricValue(metrics, "lather_http_rejections_total{status=\"503\"}") == 2);
  CHECK(MetricValue(metrics, "lather_busy_answer_seconds_count") == 2);

  // While the loop sheds load, every wake-up that answers only refusals is timed for /metrics: 24 refused requests
  // on their own connections book 23 or 24 (the first wake-up began before the loop knew it was shedding).
  std::vector<std::unique_ptr<lather::test::RawConnection>> shed;
  for (int i = 0; i < 24; ++i) {
    shed.push_back(std::make_unique<lather::test::RawConnection>(service.port()));
    REQUIRE(shed.back()->Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    REQUIRE(shed.back()->Receive().status == 200);
  }
  // (The 100-continue refusal above may have been timed: the figures below are the burst's own.)
  const std::string before = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  REQUIRE(::kill(service.pid(), SIGSTOP) == 0);
  REQUIRE(lather::test::WaitAllThreadsStopped(service.pid()));
  for (auto& c : shed) REQUIRE(c->Send(request));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto resumed = std::chrono::steady_clock::now();
  REQUIRE(::kill(service.pid(), SIGCONT) == 0);
  for (auto& c : shed) CHECK(c->Receive().status == 503);
  const double burst = std::chrono::duration<double>(std::chrono::steady_clock::now() - resumed).count();
  const std::string after = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  const auto delta = [&](const char* series) { return MetricValue(after, series) - MetricValue(before, series); };
  CHECK(MetricValue(after, "lather_busy_answer_seconds_count") == 2 + 24);
  CHECK(delta("lather_refusals_timed_total") <= 24);
  CHECK(delta("lather_refusals_timed_total") >= 23);
  CHECK(delta("lather_refusal_seconds_total") > 0);
  CHECK(delta("lather_refusal_seconds_total") < burst);  // one thread's pieces of time within it
}

TEST_CASE("the refusal time in /metrics books each wake-up's own work: its sum stays within the time the refusals took",
          "[integration][limits]") {
  // A connection whose answers were written reads its next requests at once (EdgeSocket's speculative read), and
  // the handling of what it read runs after the other connections' work queued on the loop. Timed from that read
  // to its write, each such wake-up booked the others' work as its own: in bench/overload's overload phase
  // 1,259 us per refusal (about 6 us each in truth). 300 connections x 48 pipelined requests refused (each over
  // the 1 KiB first read of a shedding loop: refused on its head, its body dropped; about 25 answers to a write, so
  // two wake-ups each, the second read at once after the first's write), on one loop thread: the booked times are
  // pieces of that thread's time and must sum to less than the burst. (By hand, 12-07: the previous service booked
  // 1.11 s in a burst of 52 ms; this one 35 ms in 59 ms.)
  const char* engine = std::getenv("LATHER_TEST_ENGINE");
  if (engine != nullptr && std::string(engine) == "classic") return;  // the classic engine does not shed on heads
  // A receive buffer that holds a connection's 77 KB while the service is stopped (the client's writes return).
  ServiceProcess service("", {"--max-queue-wait", "100", "--threads", "1", "--receive-buffer", "1048576"});
  const std::string request = SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>" + std::string(1200, ' ')));
  std::string pipelined;
  constexpr int kPerConnection = 48;
  for (int i = 0; i < kPerConnection; ++i) pipelined += request;
  std::vector<std::unique_ptr<lather::test::RawConnection>> connections;
  for (int i = 0; i < 300; ++i) {
    connections.push_back(std::make_unique<lather::test::RawConnection>(service.port()));
    REQUIRE(connections.back()->Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));  // accepted before the stop
    REQUIRE(connections.back()->Receive().status == 200);
  }
  REQUIRE(::kill(service.pid(), SIGSTOP) == 0);
  REQUIRE(lather::test::WaitAllThreadsStopped(service.pid()));
  for (auto& c : connections) REQUIRE(c->Send(pipelined));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto resumed = std::chrono::steady_clock::now();
  REQUIRE(::kill(service.pid(), SIGCONT) == 0);
  size_t refused = 0, served = 0;
  for (auto& c : connections) {
    for (int i = 0; i < kPerConnection; ++i) {
      const int status = c->Receive().status;
      refused += status == 503 ? 1 : 0;
      served += status == 200 ? 1 : 0;
    }
  }
  const double burst = std::chrono::duration<double>(std::chrono::steady_clock::now() - resumed).count();
  // Every request answered; most refused. A burst that refuses for more than two 100 ms intervals (a slow build:
  // 13,936 refused and 464 served under ASan beside other tests, 1.15 s) lets the StarvationGuard serve one in four
  // of the rest over the limit, as it is made to (service/dispatch/starvation_guard.h).
  REQUIRE(refused + served == 300 * kPerConnection);
  REQUIRE(served <= 300 * kPerConnection / 4);
  const std::string metrics = SendRaw(service.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body;
  // Nearly every refusal is in a timed wake-up: not the first's (it began before the loop knew it was shedding), nor
  // those answered from a write's completion (a wake-up's timing ends with its write); 52% before, one in 16 armed.
  CHECK(MetricValue(metrics, "lather_refusals_timed_total") >= 0.9 * static_cast<double>(refused));
  CHECK(MetricValue(metrics, "lather_refusal_seconds_total") > 0);
  CHECK(MetricValue(metrics, "lather_refusal_seconds_total") < burst);
}

TEST_CASE("one connection more than --max-connections is answered 503 and closed, and the others keep working",
          "[integration][limits]") {
  ServiceProcess service("", {"--max-connections", "3"});
  lather::test::RawConnection a(service.port()), b(service.port()), c(service.port());
  // Make sure the three are accepted before the fourth arrives.
  for (auto* connection : {&a, &b, &c}) {
    REQUIRE(connection->Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    REQUIRE(connection->Receive().status == 200);
  }
  const RawResponse refused = SendRaw(service.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(refused.status == 503);
  CHECK(refused.Header("retry-after") == "1");
  CHECK(ElementText(refused.body, "faultcode") == "SOAP-ENV:Server");
  REQUIRE(a.Send(SoapPost(kSoap11Type, Envelope(kEnv11, "<l:HelloWorld/>"))));
  CHECK(a.Receive().status == 200);
}

namespace {

// What ss shows of the service's side of the established connections on `port`, socket memory included.
std::string ServerSockets(int port) {
  return lather::test::RunCommand("ss -Htmn state established '( sport = :" + std::to_string(port) + " )'").output;
}

// The receive buffer ("rb" of ss's socket memory) of the first of them; -1 when ss shows none.
long ServerReceiveBuffer(int port) {
  const std::string sockets = ServerSockets(port);
  const size_t at = sockets.find(",rb");
  return at == std::string::npos ? -1 : std::stol(sockets.substr(at + 3));
}

}  // namespace

TEST_CASE("the service sets --receive-buffer on every client connection, in every server shape",
          "[integration][limits]") {
  const auto shape = GENERATE(as<std::vector<std::string>>{}, std::vector<std::string>{},
                              std::vector<std::string>{"--engine", "classic"}, std::vector<std::string>{"--workers", "1"});
  std::vector<std::string> args = shape;
  args.insert(args.end(), {"--receive-buffer", "1048576"});
  ServiceProcess service("", args);
  lather::test::RawConnection connection(service.port());
  REQUIRE(connection.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  REQUIRE(connection.Receive().status == 200);
  INFO(ServerSockets(service.port()));
  CHECK(ServerReceiveBuffer(service.port()) == 2 * 1048576);  // Linux reports twice the value asked
}

TEST_CASE("a --receive-buffer outside 0..2^30 is refused with one line naming the flag", "[integration][cli]") {
  const lather::test::CommandResult result =
      lather::test::RunCommand(lather::test::ServiceBinary() + " --listen 127.0.0.1:0 --receive-buffer -1");
  CHECK(result.exit_code != 0);
  CHECK(result.output.find("--receive-buffer") != std::string::npos);
}

TEST_CASE("responses bind each namespace prefix to its own namespace, in the request's SOAP version",
          "[integration][wsi]") {
  ServiceProcess service;
  for (const char* ns : {kEnv11, kEnv12}) {
    INFO(ns);
    const bool soap12 = std::string(ns) == kEnv12;
    const RawResponse r = SendRaw(service.port(), SoapPost(soap12 ? kSoap12Type : kSoap11Type,
                                                           Envelope(ns, "<l:Increment><l:value>1</l:value></l:Increment>")));
    REQUIRE(r.status == 200);
    pugi::xml_document doc;
    REQUIRE(doc.load_string(r.body.c_str()));
    const std::map<std::string, std::string> expected = {
        {"xmlns:SOAP-ENV", ns},
        {"xmlns:SOAP-ENC", soap12 ? "http://www.w3.org/2003/05/soap-encoding" : "http://schemas.xmlsoap.org/soap/encoding/"},
        {"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"},
        {"xmlns:xsd", "http://www.w3.org/2001/XMLSchema"},
        {"xmlns:l", "urn:lather:v1"}};
    for (const pugi::xml_attribute& a : doc.document_element().attributes()) {
      INFO(a.name());
      REQUIRE(expected.count(a.name()) == 1);
      CHECK(expected.at(a.name()) == a.value());
    }
  }
}

TEST_CASE("a request written one byte at a time is served", "[integration][http]") {
  ServiceProcess service;
  lather::test::RawConnection connection(service.port());
  const std::string request =
      SoapPost(kSoap11Type, Envelope(kEnv11, "<l:Increment><l:value>99</l:value></l:Increment>"));
  for (char c : request) REQUIRE(connection.Send(std::string(1, c)));
  const RawResponse r = connection.Receive();
  CHECK(r.status == 200);
  CHECK(ElementText(r.body, "result") == "100");
}
