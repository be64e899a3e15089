#include "service/soap/fast_path.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"

using lather::FastRequest;
using lather::ReadFastRequest;

namespace {

const std::string kEnv11 = "http://schemas.xmlsoap.org/soap/envelope/";
const std::string kEnv12 = "http://www.w3.org/2003/05/soap-envelope";

std::string Envelope(const std::string& env, const std::string& content, const std::string& decl = "",
                     const std::string& extra = "") {
  return decl + "<soap:Envelope xmlns:soap=\"" + env + "\" xmlns:l=\"urn:lather:v1\"" + extra + "><soap:Body>" + content +
         "</soap:Body></soap:Envelope>";
}

}  // namespace

TEST_CASE("the fast path reads the common shapes of the hot operations", "[service][fastpath]") {
  FastRequest r;
  REQUIRE(ReadFastRequest(Envelope(kEnv11, "<l:Increment><l:value>41</l:value></l:Increment>",
                                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"), &r));
  CHECK(r.soap_version == 1);
  CHECK(r.operation == 0);
  CHECK(r.value == 41);
  REQUIRE(ReadFastRequest(Envelope(kEnv12, "<l:Increment><l:value>-2147483648</l:value></l:Increment>"), &r));
  CHECK(r.soap_version == 2);
  CHECK(r.value == -2147483648);
  REQUIRE(ReadFastRequest(Envelope(kEnv11, "<l:HelloWorld/>"), &r));
  CHECK(r.operation == 1);
  const std::string inc = Envelope(kEnv11, "<l:IncCounter><l:name>orders.2024</l:name></l:IncCounter>");
  REQUIRE(ReadFastRequest(inc, &r));  // r.name points into the body: keep it alive
  CHECK(r.operation == 2);
  CHECK(r.name == "orders.2024");
  REQUIRE(ReadFastRequest(Envelope(kEnv11, "<l:GetCounter>\n  <l:name>a</l:name>\n</l:GetCounter>"), &r));
  CHECK(r.operation == 3);
  // .NET's shape: a default namespace on the operation, xsi and xsd declared.
  REQUIRE(ReadFastRequest("<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope xmlns:soap=\"" + kEnv11 +
                              "\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                              "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body><Increment "
                              "xmlns=\"urn:lather:v1\"><value>7</value></Increment></soap:Body></soap:Envelope>",
                          &r));
  CHECK(r.value == 7);
  // zeep's: single quotes in the declaration, the prefix on the operation.
  REQUIRE(ReadFastRequest("<?xml version=\"1.0\"?>\n<soap-env:Envelope xmlns:soap-env='" + kEnv12 +
                              "'><soap-env:Body><ns0:HelloWorld xmlns:ns0='urn:lather:v1'/></soap-env:Body></soap-env:Envelope>",
                          &r));
  CHECK(r.operation == 1);
  CHECK_FALSE(r.empty_header);
  // suds's: an empty Header, and the Body under a second prefix of the envelope's namespace.
  REQUIRE(ReadFastRequest("<SOAP-ENV:Envelope xmlns:ns0=\"urn:lather:v1\" xmlns:ns1=\"" + kEnv11 +
                              "\" xmlns:SOAP-ENV=\"" + kEnv11 + "\"><SOAP-ENV:Header/><ns1:Body><ns0:Increment>"
                              "<ns0:value>3</ns0:value></ns0:Increment></ns1:Body></SOAP-ENV:Envelope>",
                          &r));
  CHECK(r.empty_header);
  CHECK(r.value == 3);
}

TEST_CASE("the fast path declines whatever gSOAP must decide", "[service][fastpath]") {
  FastRequest r;
  const std::vector<std::string> declined = {
      Envelope(kEnv11, "<l:Increment><l:value>007</l:value></l:Increment>"),        // not canonical
      Envelope(kEnv11, "<l:Increment><l:value>-0</l:value></l:Increment>"),
      Envelope(kEnv11, "<l:Increment><l:value>+5</l:value></l:Increment>"),
      Envelope(kEnv11, "<l:Increment><l:value> 5</l:value></l:Increment>"),
      Envelope(kEnv11, "<l:Increment><l:value>2147483648</l:value></l:Increment>"),  // out of range
      Envelope(kEnv11, "<l:Increment><l:value>&#52;</l:value></l:Increment>"),       // a reference
      Envelope(kEnv11, "<l:Increment><l:value>4</l:value><!-- c --></l:Increment>"), // a comment
      Envelope(kEnv11, "<l:Increment><l:value>4</l:value></l:Increment>") + "<!-- after -->",
      Envelope(kEnv11, "<l:IncCounter><l:name>a&amp;b</l:name></l:IncCounter>"),
      Envelope(kEnv11, "<l:IncCounter><l:name>a b</l:name></l:IncCounter>"),
      Envelope(kEnv11, "<l:IncCounter><l:name></l:name></l:IncCounter>"),
      Envelope(kEnv11, "<l:IncCounter><l:name>" + std::string(65, 'x') + "</l:name></l:IncCounter>"),
      Envelope(kEnv11, "<l:EchoDataSamples><l:samples/></l:EchoDataSamples>"),       // not a fast operation
      Envelope(kEnv11, "<l:Increment xsi:type=\"x\"><l:value>1</l:value></l:Increment>"),
      Envelope(kEnv11, "<l:HelloWorld/>", "", " soap:encodingStyle=\"x\""),           // an attribute not xmlns
      Envelope(kEnv11, "<l:HelloWorld/>", "<?xml version=\"1.1\"?>"),
      Envelope(kEnv11, "<l:HelloWorld/>", "\xEF\xBB\xBF"),                              // a BOM
      Envelope("urn:not:soap", "<l:HelloWorld/>"),
      "<soap:Envelope xmlns:soap=\"" + kEnv11 + "\" xmlns:l=\"urn:lather:v1\"><soap:Header><l:x/></soap:Header>"
          "<soap:Body><l:HelloWorld/></soap:Body></soap:Envelope>",                    // a Header with a block
      "<soap:Envelope xmlns:soap=\"" + kEnv11 + "\" xmlns:l=\"urn:lather:v1\"><soap:Header a=\"1\"/><soap:Body>"
          "<l:HelloWorld/></soap:Body></soap:Envelope>",
      "<soap:Envelope xmlns:soap=\"" + kEnv11 + "\" xmlns:e=\"" + kEnv12 + "\" xmlns:l=\"urn:lather:v1\"><e:Body>"
          "<l:HelloWorld/></e:Body></soap:Envelope>",                                  // a Body of the other version
      "<soap:Envelope xmlns:soap=\"" + kEnv11 + "\" xmlns:l=\"URN:LATHER:V1\"><soap:Body><l:HelloWorld/>"
          "</soap:Body></soap:Envelope>",                                              // gSOAP matches case-blind
      "<soap:Envelope xmlns:soap=\"" + kEnv11 + "\"><soap:Body><HelloWorld/></soap:Body></soap:Envelope>",  // no ns
      Envelope(kEnv11, "<l:HelloWorld/><l:HelloWorld/>"),
      Envelope(kEnv11, "<l:HelloWorld/>").substr(0, 90),                              // cut short
  };
  for (const std::string& body : declined) {
    INFO(body);
    CHECK_FALSE(ReadFastRequest(body, &r));
  }
}

TEST_CASE("the fast path's answers are gSOAP's own bytes, and it steps aside for actions and auth",
          "[service][fastpath]") {
  lather::Operations operations(nullptr);
  lather::SoapEngineLimits fast_limits, slow_limits;
  fast_limits.fast_path = true;  // also when the suite runs with LATHER_NO_FAST_PATH=1
  slow_limits.fast_path = false;
  lather::SoapEngine fast(&operations, fast_limits, true), slow(&operations, slow_limits, true);
  for (int version : {1, 2}) {
    const std::string& env = version == 2 ? kEnv12 : kEnv11;
    for (const std::string& content : {std::string("<l:Increment><l:value>41</l:value></l:Increment>"),
                                       std::string("<l:Increment><l:value>2147483647</l:value></l:Increment>"),
                                       std::string("<l:HelloWorld/>")}) {
      INFO("SOAP " << version << ": " << content);
      const std::string body = Envelope(env, content);
      for (const char* action : {"", "urn:lather:v1#Increment", "urn:lather:v1#HelloWorld", "urn:x#Y"}) {
        INFO("action " << action);
        lather::SoapCall call;
        call.body = body;
        call.content_type_version = version;
        call.action = action;
        std::string a, b;
        const lather::SoapOutcome x = fast.Serve(call, &a), y = slow.Serve(call, &b);
        CHECK(a == b);
        CHECK(x.http_status == y.http_status);
        CHECK(x.operation == y.operation);
        CHECK_FALSE(y.fast_path);
        // A fault (2147483647, or an action naming another operation) is gSOAP's.
        if (x.http_status != 200) CHECK_FALSE(x.fast_path);
      }
    }
    // An empty Header, which gSOAP echoes: the answer comes from the template captured with one.
    for (const char* op : {"<l:HelloWorld/>", "<l:Increment><l:value>5</l:value></l:Increment>"}) {
      const std::string with_header = "<soap:Envelope xmlns:soap=\"" + env + "\" xmlns:l=\"urn:lather:v1\"><soap:Header/>"
                                      "<soap:Body>" + std::string(op) + "</soap:Body></soap:Envelope>";
      lather::SoapCall call;
      call.body = with_header;
      call.content_type_version = version;
      std::string a, b;
      const lather::SoapOutcome x = fast.Serve(call, &a);
      slow.Serve(call, &b);
      CHECK(x.fast_path);
      CHECK(a == b);
      CHECK(a.find("Header></SOAP-ENV:Header>") != std::string::npos);
    }
    // A SOAP 1.2 envelope on the SOAP 1.1 binding: gSOAP's VersionMismatch.
    lather::SoapCall mismatch;
    const std::string body = Envelope(env, "<l:HelloWorld/>");
    mismatch.body = body;
    mismatch.content_type_version = 3 - version;
    std::string a, b;
    const lather::SoapOutcome x = fast.Serve(mismatch, &a);
    slow.Serve(mismatch, &b);
    CHECK_FALSE(x.fast_path);
    CHECK(a == b);
  }
  lather::SoapCall ok;
  const std::string body = Envelope(kEnv11, "<l:Increment><l:value>1</l:value></l:Increment>");
  ok.body = body;
  ok.content_type_version = 1;
  std::string out;
  CHECK(fast.Serve(ok, &out).fast_path);
}
