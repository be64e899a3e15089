#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "service/admin/metrics.h"
#include "service/dispatch/request_router.h"
#include "service/soap/fault_envelope.h"
#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"

using lather::HttpResponse;
using lather::LoopMetrics;
using lather::Operations;
using lather::RequestRouter;
using lather::SoapEngine;
using lather::SoapEngineLimits;

TEST_CASE("a busy answer is the fault envelope of the request's SOAP version with the wait and the limit",
          "[service][dispatch]") {
  Operations operations(nullptr);
  SoapEngine engine(&operations, SoapEngineLimits(), true);
  LoopMetrics metrics;
  RequestRouter router(&engine, &metrics, "127.0.0.1:8080", 1 << 20);
  router.set_max_queue_wait(0.05);
  struct Case {
    const char* content_type;
    int version;
    double waited;
    const char* waited_text;
  };
  for (const Case& c : {Case{"text/xml; charset=utf-8", 1, 0.0734, "73"}, Case{"application/soap+xml", 2, 1.5, "1500"},
                        Case{"text/xml", 1, 12345.678, "12345678"}}) {
    INFO(c.content_type << ", waited " << c.waited);
    HttpResponse response;
    router.Busy(c.waited, c.version, true, std::chrono::steady_clock::now(), &response);
    std::string expected;
    lather::AppendFaultEnvelope(c.version, false,
                                std::string("the server is busy: this request waited ") + c.waited_text +
                                    " ms for its turn, over the limit of 50 ms; retry later",
                                &expected);
    CHECK(response.body == expected);
    CHECK(response.busy);
    CHECK_FALSE(response.close);
    CHECK(response.head.rfind("HTTP/1.1 503 ", 0) == 0);
    CHECK(response.head.find("Retry-After: 1\r\n") != std::string::npos);
    CHECK(response.head.find("Content-Length: " + std::to_string(expected.size()) + "\r\n") != std::string::npos);
    CHECK(response.head.find(c.version == 2 ? "application/soap+xml" : "text/xml") != std::string::npos);
  }
  CHECK(router.shedding());
}

namespace {

// A framed SOAP 1.1 HelloWorld POST to /soap, as the parser would hand it over.
lather::HttpRequest HelloWorldRequest(const std::string& body) {
  lather::HttpRequest request;
  request.method = "POST";
  request.path = "/soap";
  request.content_type = "text/xml; charset=utf-8";
  request.soap_action = "urn:lather:v1#HelloWorld";
  request.has_soap_action = true;
  request.host = "127.0.0.1:8080";
  request.body_framed = true;
  request.body = body;
  return request;
}

}  // namespace

TEST_CASE("shedding holds from a refusal through the requests served after it, and ends once the router has "
          "served for the hold without refusing", "[service][dispatch]") {
  Operations operations(nullptr);
  SoapEngine engine(&operations, SoapEngineLimits(), true);
  LoopMetrics metrics;
  RequestRouter router(&engine, &metrics, "127.0.0.1:8080", 1 << 20);
  router.set_max_queue_wait(0.05);
  const std::string body =
      "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:l=\"urn:lather:v1\">"
      "<soap:Body><l:HelloWorld/></soap:Body></soap:Envelope>";
  const lather::HttpRequest request = HelloWorldRequest(body);
  HttpResponse response;
  router.Route(request, true, 0.0, &response);
  REQUIRE(response.head.rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK_FALSE(router.shedding());
  router.Route(request, true, 0.2, &response);  // over the limit
  REQUIRE(response.busy);
  CHECK(router.shedding());
  // Served right after the refusal: still shedding (before, the first served request ended it, and the requests
  // read until the next refusal were judged by the kernel's merged receive stamps).
  for (int i = 0; i < 3; ++i) {
    router.Route(request, true, 0.0, &response);
    REQUIRE(response.head.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(router.shedding());
  }
  // Past the hold (the coarse clock's few milliseconds of resolution included) with no refusal: it ends at the next
  // served request. A busy machine only makes the sleep longer.
  std::this_thread::sleep_for(std::chrono::nanoseconds(RequestRouter::kSheddingHoldNanos) +
                              std::chrono::milliseconds(20));
  CHECK(router.shedding());  // nothing judged yet
  router.Route(request, true, 0.0, &response);
  REQUIRE(response.head.rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK_FALSE(router.shedding());
}
