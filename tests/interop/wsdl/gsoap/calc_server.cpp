// The gSOAP server of calc.h for tests/interop/wsdl (servers.py start_peers builds it at test time):
//   soapcpp2 -S -L -x -d DIR calc.h
//   g++ -I DIR calc_server.cpp DIR/soapC.cpp DIR/soapServer.cpp -lgsoap++ -pthread -o calc_server
// Usage: calc_server
// Binds 127.0.0.1 on a free port, prints "listening PORT" once it accepts connections, and serves each
// connection on its own thread with HTTP keep-alive (gSOAP's default of at most 100 requests per
// connection, then Connection: close). Every POST appends "PATH CONTENT-TYPE | SOAPACTION" to
// $LATHER_WSDL_LOG (when set), as the other services of tests/interop/wsdl do (SOAPACTION is empty: the
// generated WSDL declares soapAction=""). Ends on SIGTERM (the default action).
//   add(a, b) = a + b; divide(dividend, divisor) = dividend / divisor (truncated), divisor 0 = a Client
//   fault "Division by zero" with detail <ns:DivisionByZero><ns:dividend>N</ns:dividend>; area(box) =
//   boxInfo{area, width, height, label = the lower corner's label or "box"}, no box = a Client fault;
//   concat(first, second) = first + second.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "soapH.h"
#include "calc.nsmap"

namespace {

std::mutex log_mutex;
FILE* log_file = nullptr;
int (*gsoap_parse)(struct soap*) = nullptr;
int (*gsoap_parse_header)(struct soap*, const char*, const char*) = nullptr;

struct Connection {
  std::string content_type;
};

int ParseHeader(struct soap* soap, const char* key, const char* value) {
  if (soap_tag_cmp(key, "Content-Type") == 0) static_cast<Connection*>(soap->user)->content_type = value;
  return gsoap_parse_header(soap, key, value);
}

int Parse(struct soap* soap) {
  Connection* c = static_cast<Connection*>(soap->user);
  c->content_type = "-";
  const int err = gsoap_parse(soap);
  if (log_file != nullptr && soap->status == SOAP_POST) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::fprintf(log_file, "%s %s | %s\n", soap->path, c->content_type.c_str(),
                 soap->action ? soap->action : "-");
    std::fflush(log_file);
  }
  return err;
}

void Serve(struct soap* soap) {
  Connection connection;
  soap->user = &connection;
  soap_serve(soap);
  soap_destroy(soap);
  soap_end(soap);
  soap_free(soap);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s (the POST log is $LATHER_WSDL_LOG)\n", argv[0]);
    return 64;
  }
  const char* log_path = std::getenv("LATHER_WSDL_LOG");
  if (log_path != nullptr && *log_path != '\0' && (log_file = std::fopen(log_path, "a")) == nullptr) {
    std::perror(log_path);
    return 1;
  }
  struct soap* soap = soap_new1(SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
  soap->bind_flags = SO_REUSEADDR;
  soap->send_timeout = soap->recv_timeout = 30;  // an idle keep-alive connection ends after 30 s
  gsoap_parse = soap->fparse;
  gsoap_parse_header = soap->fparsehdr;
  soap->fparse = Parse;
  soap->fparsehdr = ParseHeader;
  if (!soap_valid_socket(soap_bind(soap, "127.0.0.1", 0, 128))) {
    soap_print_fault(soap, stderr);
    return 1;
  }
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  if (getsockname(soap->master, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    std::perror("getsockname");
    return 1;
  }
  std::printf("listening %d\n", ntohs(bound.sin_port));
  std::fflush(stdout);
  for (;;) {
    if (!soap_valid_socket(soap_accept(soap))) {
      soap_print_fault(soap, stderr);
      continue;
    }
    struct soap* copy = soap_copy(soap);
    if (copy == nullptr) {
      soap_force_closesock(soap);
      continue;
    }
    std::thread(Serve, copy).detach();
  }
}

int ns__add(struct soap*, double a, double b, double* result) {
  *result = a + b;
  return SOAP_OK;
}

int ns__divide(struct soap* soap, int dividend, int divisor, int* quotient) {
  if (divisor == 0) {
    const std::string detail = "<ns:DivisionByZero><ns:dividend>" + std::to_string(dividend) +
                               "</ns:dividend></ns:DivisionByZero>";
    return soap_sender_fault(soap, "Division by zero", soap_strdup(soap, detail.c_str()));
  }
  *quotient = dividend / divisor;
  return SOAP_OK;
}

int ns__area(struct soap* soap, ns__box* box, ns__boxInfo* info) {
  if (box == nullptr) return soap_sender_fault(soap, "area needs a box", nullptr);
  info->width = box->upper.x - box->lower.x;
  info->height = box->upper.y - box->lower.y;
  info->area = info->width * info->height;
  info->label = box->lower.label ? *box->lower.label : "box";
  return SOAP_OK;
}

int ns__concat(struct soap*, std::string first, std::string second, std::string* result) {
  *result = first + second;
  return SOAP_OK;
}
