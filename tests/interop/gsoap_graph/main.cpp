// lather-gsoap-graph-client: a stock gSOAP client in SOAP_XML_GRAPH mode (issue 7, object identity).
// It builds a DataSample graph with the generated types, where samples are shared (one l__DataSample*
// at several places) and cyclic (a sample among its own descendants), sends it with the generated
// proxy's EchoDataSamples over SOAP 1.1 or 1.2, and checks that the echo gSOAP reads back has the
// same shape: the same places hold the same object, no two places share an object the request did not
// share, and every field is equal (strings byte for byte, doubles bit for bit). It prints one line and
// exits 0 when the echo matches, 1 on a fault, a transport error or the first difference, 2 on bad usage.
// It can keep the exact XML it sent and received (--dump, --dump-response).
// Single-threaded: one struct soap.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "LatherSoap.nsmap"
#include "soapLatherSoapProxy.h"

namespace {

constexpr char kUsage[] =
    "usage: lather-gsoap-graph-client URL [--soap12] [--small | --tree] [--dump FILE] [--dump-response FILE]\n"
    "  Sends EchoDataSamples with gSOAP in SOAP_XML_GRAPH mode (shared and cyclic samples as id/ref) and\n"
    "  checks that the echo keeps every sample's identity and fields. Exit 0: echoed intact, 1: a fault,\n"
    "  an error or a difference (one line says which), 2: bad usage.\n"
    "  URL                   the service's SOAP endpoint, e.g. http://127.0.0.1:8080/soap\n"
    "  --soap12              send SOAP 1.2 (application/soap+xml) instead of SOAP 1.1\n"
    "  --small               two samples A, B: Body list [A, B], B's children [A, B] (A shared, B its own\n"
    "                        child); default: four samples A, B, C, D: list [A, B, C, B], C's children\n"
    "                        [A, D], D's children [C] (B twice, A shared, the cycle C -> D -> C)\n"
    "  --tree                three samples, nothing shared: list [A, B], B's children [C] (gSOAP then\n"
    "                        writes no id/ref, and the echo must be a tree too)\n"
    "  --dump FILE           write the request's XML (the HTTP body gSOAP sent) to FILE\n"
    "  --dump-response FILE  write the response's XML (the HTTP body received) to FILE\n"
    "  --help                this text\n";

// Envelope namespaces for each SOAP version to send; both read either version in a response.
const Namespace kNamespaces11[] = {
    {"SOAP-ENV", "http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/*/soap-envelope", nullptr},
    {"SOAP-ENC", "http://schemas.xmlsoap.org/soap/encoding/", "http://www.w3.org/*/soap-encoding", nullptr},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", nullptr},
    {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", nullptr},
    {"l", "urn:lather:v1", nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr}};
const Namespace kNamespaces12[] = {
    {"SOAP-ENV", "http://www.w3.org/2003/05/soap-envelope", "http://schemas.xmlsoap.org/soap/envelope/", nullptr},
    {"SOAP-ENC", "http://www.w3.org/2003/05/soap-encoding", "http://schemas.xmlsoap.org/soap/encoding/", nullptr},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", nullptr},
    {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", nullptr},
    {"l", "urn:lather:v1", nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr}};

struct Options {
  std::string url;
  bool soap12 = false;
  enum class Graph { kDefault, kSmall, kTree } graph = Graph::kDefault;
  std::string dump;           // file for the request XML; empty: none
  std::string dump_response;  // file for the response XML; empty: none
};

// The bytes gSOAP sent and received (HTTP headers included), taken from its I/O callbacks.
struct Wire {
  std::string sent;
  std::string received;
  int (*send)(struct soap*, const char*, size_t) = nullptr;
  size_t (*recv)(struct soap*, char*, size_t) = nullptr;
};

int SendAndKeep(struct soap* soap, const char* data, size_t n) {
  Wire* wire = static_cast<Wire*>(soap->user);
  wire->sent.append(data, n);
  return wire->send(soap, data, n);
}

size_t ReceiveAndKeep(struct soap* soap, char* data, size_t n) {
  Wire* wire = static_cast<Wire*>(soap->user);
  const size_t got = wire->recv(soap, data, n);
  wire->received.append(data, got);
  return got;
}

// The body of an HTTP message (after the blank line; de-chunked if chunked), or "" if there is none.
std::string HttpBody(const std::string& message) {
  const size_t end = message.find("\r\n\r\n");
  if (end == std::string::npos) return "";
  std::string head = message.substr(0, end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string body = message.substr(end + 4);
  if (head.find("transfer-encoding: chunked") == std::string::npos) return body;
  std::string plain;
  size_t at = 0;
  while (at < body.size()) {
    const size_t line_end = body.find("\r\n", at);
    if (line_end == std::string::npos) break;
    const size_t size = std::stoul(body.substr(at, line_end - at), nullptr, 16);
    if (size == 0) break;
    plain.append(body, line_end + 2, size);
    at = line_end + 2 + size + 2;
  }
  return plain;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

// Field values of one sample; every field is set, with non-ASCII text, markup characters and edge values.
struct SampleValues {
  const char* firstname;
  const char* lastname;
  const char* city;
  unsigned int zip;
  std::vector<std::string> contact_nos;
  int experience;
  double salary;
  std::vector<std::string> companies;
  const char* date_of_birth;
  bool is_married;
};

const SampleValues kValues[] = {
    {"Jürgen", "Ørsted", "Zürich", 4294967295U, {"+41 44 000 00 00"}, -1, -0.0,
     {"東京電力", "Müller & Söhne <GmbH>"}, "1980-02-29T13:45:30.123456+02:00", true},
    {"Taro", "山田", "東京", 1000001U, {"03-0000-0000", "090-0000-0000"}, 2147483647, 0.1, {},
     "2012-12-31T23:59:59.999999+09:00", false},
    {"Åsa", "Ærøskøbing-Møller", "Ærøskøbing", 0U, {""}, -2147483647 - 1, 1234.5678, {"\"quoted\" 'apos'"},
     "2015-01-02T03:04:05.25Z", true},
    {"Hanako", "山田 🌸", "大阪", 5970U, {}, 0, 3e10, {"a\tb"}, "1975-07-01T00:00:00-05:30", false},
};

l__StringList* NewList(struct soap* soap, const std::vector<std::string>& items) {
  l__StringList* list = soap_new_l__StringList(soap);
  list->item = items;
  return list;
}

// A new sample with the values of kValues[index] and an empty children list.
l__DataSample* NewSample(struct soap* soap, size_t index) {
  const SampleValues& v = kValues[index];
  l__DataSample* s = soap_new_l__DataSample(soap);
  s->firstname = v.firstname;
  s->lastname = v.lastname;
  s->city = v.city;
  s->zip = v.zip;
  s->email = std::string(v.firstname) + "@example.org";
  s->contactNos = NewList(soap, v.contact_nos);
  s->designation = "Senior <Engineer> & \"Architect\"";
  s->experience = v.experience;
  s->salary = v.salary;
  s->companiesWorkedFor = NewList(soap, v.companies);
  s->dateOfBirth = v.date_of_birth;
  s->isMarried = v.is_married;
  s->children = soap_new_l__DataSampleList(soap);
  return s;
}

// The request's sample list: the default graph, --small's or --tree's (see kUsage).
l__DataSampleList* BuildGraph(struct soap* soap, Options::Graph graph) {
  l__DataSampleList* top = soap_new_l__DataSampleList(soap);
  l__DataSample* a = NewSample(soap, 0);
  l__DataSample* b = NewSample(soap, 1);
  if (graph == Options::Graph::kSmall) {
    top->sample = {a, b};
    b->children->sample = {a, b};
    return top;
  }
  l__DataSample* c = NewSample(soap, 2);
  if (graph == Options::Graph::kTree) {
    top->sample = {a, b};
    b->children->sample = {c};
    return top;
  }
  l__DataSample* d = NewSample(soap, 3);
  top->sample = {a, b, c, b};
  c->children->sample = {a, d};
  d->children->sample = {c};
  return top;
}

bool SameDouble(double x, double y) {
  uint64_t bx = 0, by = 0;
  std::memcpy(&bx, &x, sizeof x);
  std::memcpy(&by, &y, sizeof y);
  return bx == by;
}

// Compares a request graph with its echo: a one-to-one map between the request's and the response's
// sample objects that every place in both graphs follows, with equal fields.
class GraphComparer {
 public:
  // Checks `got` (the echo at `where`) against `want`; false with error() set on the first difference.
  bool Same(const l__DataSample* want, const l__DataSample* got, const std::string& where) {
    if (got == nullptr) return Fail(where + " is missing (a null pointer)");
    if (const auto seen = forward_.find(want); seen != forward_.end()) {
      if (seen->second != got) {
        return Fail(where + " (" + want->firstname + ") is a different object than its first occurrence " +
                    first_place_[want] + ": identity lost");
      }
      return true;
    }
    if (const auto taken = backward_.find(got); taken != backward_.end()) {
      return Fail(where + " (" + want->firstname + ") is the same object as " + first_place_[taken->second] +
                  " (" + taken->second->firstname + "), which the request did not share");
    }
    forward_[want] = got;
    backward_[got] = want;
    first_place_[want] = where;
    return SameFields(*want, *got, where) && SameList(want->children, got->children, where + ".children");
  }

  // Checks two sample lists place by place.
  bool SameList(const l__DataSampleList* want, const l__DataSampleList* got, const std::string& where) {
    if (got == nullptr) return Fail(where + " is missing");
    if (want->sample.size() != got->sample.size()) {
      return Fail(where + " has " + std::to_string(got->sample.size()) + " samples, sent " +
                  std::to_string(want->sample.size()));
    }
    for (size_t i = 0; i < want->sample.size(); ++i) {
      if (!Same(want->sample[i], got->sample[i], where + "[" + std::to_string(i) + "]")) return false;
    }
    return true;
  }

  size_t objects() const { return forward_.size(); }
  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& text) {
    error_ = text;
    return false;
  }

  bool SameStrings(const l__StringList* want, const l__StringList* got, const std::string& where) {
    if (got == nullptr) return Fail(where + " is missing");
    if (want->item != got->item) return Fail(where + " differs (" + std::to_string(got->item.size()) + " items)");
    return true;
  }

  bool SameFields(const l__DataSample& w, const l__DataSample& g, const std::string& where) {
    const auto text = [&](const char* name, const std::string& a, const std::string& b) {
      return a == b || Fail(where + "." + name + " is '" + b + "', sent '" + a + "'");
    };
    return text("firstname", w.firstname, g.firstname) && text("lastname", w.lastname, g.lastname) &&
           text("city", w.city, g.city) &&
           (w.zip == g.zip || Fail(where + ".zip is " + std::to_string(g.zip) + ", sent " + std::to_string(w.zip))) &&
           text("email", w.email, g.email) && SameStrings(w.contactNos, g.contactNos, where + ".contactNos") &&
           text("designation", w.designation, g.designation) &&
           (w.experience == g.experience ||
            Fail(where + ".experience is " + std::to_string(g.experience) + ", sent " + std::to_string(w.experience))) &&
           (SameDouble(w.salary, g.salary) || Fail(where + ".salary differs (bit for bit)")) &&
           SameStrings(w.companiesWorkedFor, g.companiesWorkedFor, where + ".companiesWorkedFor") &&
           text("dateOfBirth", w.dateOfBirth, g.dateOfBirth) &&
           (w.isMarried == g.isMarried || Fail(where + ".isMarried differs"));
  }

  std::map<const l__DataSample*, const l__DataSample*> forward_;   // request object -> echo object
  std::map<const l__DataSample*, const l__DataSample*> backward_;  // echo object -> request object
  std::map<const l__DataSample*, std::string> first_place_;        // request object -> where first seen
  std::string error_;
};

// gSOAP's error after a failed call, on one line: the fault's code and reason, or the transport error.
std::string CallError(struct soap* soap) {
  if (soap_fault_string(soap) == nullptr) soap_set_fault(soap);  // a transport error: gSOAP's words for it
  const char** code = soap_faultcode(soap);
  const char* subcode = soap->version == 2 ? soap_fault_subcode(soap) : nullptr;  // 1.1 answers the code again
  const char* reason = soap_fault_string(soap);
  const char* detail = soap_fault_detail(soap);
  std::string line = soap->status >= 100 && soap->status < 600 ? "HTTP " + std::to_string(soap->status) + ", " : "";
  line += "gSOAP error " + std::to_string(soap->error);
  if (code != nullptr && *code != nullptr) line += ", fault " + std::string(*code);
  if (subcode != nullptr) line += "/" + std::string(subcode);
  line += ": " + std::string(reason != nullptr ? reason : "(no reason)");
  if (detail != nullptr && *detail != '\0') line += " (" + std::string(detail) + ")";
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

int Run(const Options& options) {
  const char* version = options.soap12 ? "SOAP 1.2" : "SOAP 1.1";
  LatherSoapProxy proxy;
  struct soap* soap = proxy.soap;
  // Graphs both ways (id/ref), UTF-8 std::string both ways, strict validation of the response.
  soap_set_mode(soap, SOAP_XML_GRAPH | SOAP_C_UTFSTRING);
  soap_set_imode(soap, SOAP_XML_STRICT);
  soap_set_namespaces(soap, options.soap12 ? kNamespaces12 : kNamespaces11);
  soap->connect_timeout = soap->send_timeout = soap->recv_timeout = 30;
  Wire wire;
  wire.send = soap->fsend;
  wire.recv = soap->frecv;
  soap->user = &wire;
  soap->fsend = SendAndKeep;
  soap->frecv = ReceiveAndKeep;

  _l__EchoDataSamples request;
  request.soap_default(soap);
  request.samples = BuildGraph(soap, options.graph);
  _l__EchoDataSamplesResponse response;
  // The SOAP 1.2 binding's operation (LatherSoap12) for 1.2; the same message either way.
  const int rc = options.soap12 ? proxy.EchoDataSamples_(options.url.c_str(), nullptr, &request, response)
                                : proxy.EchoDataSamples(options.url.c_str(), nullptr, &request, response);
  const std::string sent = HttpBody(wire.sent), received = HttpBody(wire.received);
  int exit_code = 0;
  if (!options.dump.empty() && !WriteFile(options.dump, sent)) {
    std::printf("lather-gsoap-graph-client: cannot write %s\n", options.dump.c_str());
    exit_code = 1;
  } else if (!options.dump_response.empty() && !WriteFile(options.dump_response, received)) {
    std::printf("lather-gsoap-graph-client: cannot write %s\n", options.dump_response.c_str());
    exit_code = 1;
  } else if (rc != SOAP_OK) {
    std::printf("FAIL %s EchoDataSamples: %s\n", version, CallError(soap).c_str());
    exit_code = 1;
  } else {
    GraphComparer comparer;
    if (!comparer.SameList(request.samples, response.samples, "samples")) {
      std::printf("FAIL %s EchoDataSamples echo: %s\n", version, comparer.error().c_str());
      exit_code = 1;
    } else {
      std::printf("PASS %s EchoDataSamples echoed a %zu-sample %s with identity and fields intact (request XML %zu "
                  "bytes, response XML %zu bytes)\n",
                  version, comparer.objects(), options.graph == Options::Graph::kTree ? "tree" : "shared and cyclic graph",
                  sent.size(), received.size());
    }
  }
  proxy.destroy();
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--soap12") {
      options.soap12 = true;
    } else if (arg == "--small") {
      options.graph = Options::Graph::kSmall;
    } else if (arg == "--tree") {
      options.graph = Options::Graph::kTree;
    } else if ((arg == "--dump" || arg == "--dump-response") && i + 1 < argc) {
      (arg == "--dump" ? options.dump : options.dump_response) = argv[++i];
    } else if (arg.rfind("--", 0) != 0 && options.url.empty()) {
      options.url = arg;
    } else {
      std::fprintf(stderr, "lather-gsoap-graph-client: unexpected argument '%s' (see --help)\n", arg.c_str());
      return 2;
    }
  }
  if (options.url.empty()) {
    std::fputs("lather-gsoap-graph-client: no URL given (see --help)\n", stderr);
    return 2;
  }
  return Run(options);
}
