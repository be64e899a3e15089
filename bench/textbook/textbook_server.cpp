// lather-textbook-server: the reference "textbook" gSOAP server for the benchmarks, written the way
// the gSOAP user guide's multi-threaded stand-alone server is: bind, an accept loop, one thread per
// connection with a copy of the service (soap_copy), serve() with gSOAP's own HTTP layer and
// keep-alive. It answers Increment, HelloWorld and EchoDataSamples from the same generated code as
// lather-service (the counters are a fault here); no Lather code runs in it. Not a product: the
// point of comparison that engine-vs-floor measures lather-service against.
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <boost/thread/thread.hpp>

#include "LatherSoap.nsmap"
#include "soapLatherSoapService.h"

namespace {

// The generated table without the header-only namespaces (wsse, which wsdl/typemap.dat imports for
// lather-service's authentication): gSOAP declares every entry in each response, and the reference's
// responses must stay what they were, with the contract's namespaces only.
std::vector<Namespace> ContractNamespaces() {
  std::vector<Namespace> table;
  for (const Namespace* ns = namespaces; ns->id != nullptr; ++ns) {
    const std::string id = ns->id;
    if (id == "SOAP-ENV" || id == "SOAP-ENC" || id == "xsi" || id == "xsd" || id == "l") table.push_back(*ns);
  }
  table.push_back(Namespace{nullptr, nullptr, nullptr, nullptr});
  return table;
}

class TextbookService : public LatherSoapService {
 public:
  explicit TextbookService(soap_mode mode) : LatherSoapService(mode) {}
  // As the generated copy() does, for this subclass: a new context with the same engine state.
  LatherSoapService* copy() override {
    auto* dup = new TextbookService(SOAP_IO_DEFAULT);
    soap_done(dup->soap);
    soap_copy_context(dup->soap, soap);
    return dup;
  }

  // The generated init, which dispatch() runs before every request, with ContractNamespaces().
  void LatherSoapService_init(soap_mode imode, soap_mode omode) override {
    static const std::vector<Namespace> kNamespaces = ContractNamespaces();
    soap_imode(soap, imode);
    soap_omode(soap, omode);
    soap_set_namespaces(soap, kNamespaces.data());
  }

  int Increment(_l__Increment* request, _l__IncrementResponse& response) override {
    if (request->value == 2147483647) return soap_senderfault("value + 1 overflows xsd:int", nullptr);
    response.result = request->value + 1;
    return SOAP_OK;
  }
  int HelloWorld(_l__HelloWorld*, _l__HelloWorldResponse& response) override {
    response.result = "Hello, World!";
    return SOAP_OK;
  }
  int IncCounter(_l__IncCounter*, _l__IncCounterResponse&) override { return NoCounters(); }
  int GetCounter(_l__GetCounter*, _l__GetCounterResponse&) override { return NoCounters(); }
  int EchoDataSamples(_l__EchoDataSamples* request, _l__EchoDataSamplesResponse& response) override {
    response.samples = request->samples;
    return SOAP_OK;
  }
  int Increment_(_l__Increment* q, _l__IncrementResponse& r) override { return Increment(q, r); }
  int HelloWorld_(_l__HelloWorld* q, _l__HelloWorldResponse& r) override { return HelloWorld(q, r); }
  int IncCounter_(_l__IncCounter* q, _l__IncCounterResponse& r) override { return IncCounter(q, r); }
  int GetCounter_(_l__GetCounter* q, _l__GetCounterResponse& r) override { return GetCounter(q, r); }
  int EchoDataSamples_(_l__EchoDataSamples* q, _l__EchoDataSamplesResponse& r) override {
    return EchoDataSamples(q, r);
  }

 private:
  int NoCounters() { return soap_receiverfault("the textbook reference server keeps no counters", nullptr); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
    std::fprintf(stderr, "usage: lather-textbook-server PORT [PORT-FILE]   (port 0 picks a free one)\n");
    return argc < 2 ? 64 : 0;
  }
  TextbookService service(SOAP_IO_KEEPALIVE);
  service.soap->bind_flags = SO_REUSEADDR;
  service.soap->recv_timeout = 60;  // seconds, as the guide's examples set them
  service.soap->send_timeout = 60;
  if (!soap_valid_socket(service.bind("127.0.0.1", std::atoi(argv[1]), 1024))) {
    service.soap_stream_fault(std::cerr);
    return 1;
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  getsockname(service.soap->master, reinterpret_cast<sockaddr*>(&bound), &length);
  const unsigned port = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (argc > 2) {
    FILE* f = std::fopen(argv[2], "w");
    if (f == nullptr) return 1;
    std::fprintf(f, "%u\n", port);
    std::fclose(f);
  }
  std::fprintf(stderr, "lather-textbook-server: listening on http://127.0.0.1:%u/soap\n", port);
  for (;;) {
    if (!soap_valid_socket(service.accept())) {
      service.soap_stream_fault(std::cerr);
      continue;
    }
    LatherSoapService* copy = service.copy();  // soap_copy: a context of its own for the thread
    boost::thread([copy] {
      copy->serve();  // keep-alive: serves the connection's requests until it closes
      copy->destroy();
      delete copy;
    }).detach();
  }
}
