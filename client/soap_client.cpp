#include "client/soap_client.h"

#include <strings.h>

#include <csignal>
#include <cstring>
#include <string_view>
#include <utility>

#include <pugixml.hpp>

#include "soapLatherSoapProxy.h"
#include "wsdl/envelope_scan.h"
#include "wsdl/sample_reader.h"
#include "wsdl/sample_writer.h"
#include "wsdl/soap_runtime.h"

namespace lather {

// The generated proxy, with hooks that count the bytes crossing the socket.
class Client::Proxy : public LatherSoapProxy {
 public:
  Proxy(soap_mode imode, soap_mode omode, Client* owner) : LatherSoapProxy(imode, omode), owner_(owner) {
    soap->user = this;
    default_send_ = soap->fsend;
    default_recv_ = soap->frecv;
    default_parse_ = soap->fparse;
    soap->fsend = &Proxy::CountingSend;
    soap->frecv = &Proxy::CountingRecv;
    soap->fparse = &Proxy::ParseHttpHead;
  }

 private:
  // gSOAP reads a SOAP body only with HTTP 2xx, 400 or 500; a 401 from a Lather service carries a
  // SOAP Fault too (why the credentials were refused): read it as one when it is XML.
  static int ParseHttpHead(struct soap* s) {
    auto* self = static_cast<Proxy*>(s->user);
    const int error = self->default_parse_(s);
    const char* type = s->http_content != nullptr ? s->http_content : "";
    if (error == 401 && s->status == 401 &&
        (strncasecmp(type, "text/xml", 8) == 0 || strncasecmp(type, "application/soap+xml", 20) == 0)) {
      return s->error = SOAP_OK;
    }
    return error;
  }

  static int CountingSend(struct soap* s, const char* data, size_t length) {
    auto* self = static_cast<Proxy*>(s->user);
    Client* owner = self->owner_;
    if (owner->bytes_sent_ == 0) owner->first_send_ = Clock::now();
    owner->bytes_sent_ += length;
    if (owner->send_copy_ != nullptr) owner->send_copy_->append(data, length);
    const int result = self->default_send_(s, data, length);
    owner->last_send_ = Clock::now();
    return result;
  }
  static size_t CountingRecv(struct soap* s, char* data, size_t length) {
    auto* self = static_cast<Proxy*>(s->user);
    const size_t n = self->default_recv_(s, data, length);
    Client* owner = self->owner_;
    if (owner->bytes_received_ == 0 && n > 0) owner->first_receive_ = Clock::now();
    owner->bytes_received_ += n;
    return n;
  }

  Client* owner_;
  int (*default_send_)(struct soap*, const char*, size_t);
  size_t (*default_recv_)(struct soap*, char*, size_t);
  int (*default_parse_)(struct soap*);
};

namespace {

// Namespace tables with SOAP 1.1 or 1.2 as the envelope version to send; both accept either in
// responses (third column). The generated .nsmap defaults to 1.2 because the WSDL has a 1.2 binding.
const Namespace kNamespaces11[] = {
    {"SOAP-ENV", "http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/*/soap-envelope", nullptr},
    {"SOAP-ENC", "http://schemas.xmlsoap.org/soap/encoding/", "http://www.w3.org/*/soap-encoding", nullptr},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", nullptr},
    {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", nullptr},
    {"l", "urn:lather:v1", nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr}};
const Namespace kWsseNamespace = {
    "wsse", "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd", nullptr, nullptr};
constexpr char kPasswordText[] =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText";
const Namespace kNamespaces12[] = {
    {"SOAP-ENV", "http://www.w3.org/2003/05/soap-envelope", "http://schemas.xmlsoap.org/soap/envelope/", nullptr},
    {"SOAP-ENC", "http://www.w3.org/2003/05/soap-encoding", "http://schemas.xmlsoap.org/soap/encoding/", nullptr},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", nullptr},
    {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", nullptr},
    {"l", "urn:lather:v1", nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr}};
// WS-Addressing, added only for a call with a wsa:MessageID header: every entry is declared in each
// Envelope, so the other calls do without it.
const Namespace kWsaNamespace = {"wsa5", "http://www.w3.org/2005/08/addressing", nullptr, nullptr};

// The fault in a response `body` whose Body does not hold the expected element, as EndCall() words a
// fault gSOAP read: code (SOAP 1.2: code/subcode) and reason; Internal if there is no Fault either.
Status FaultInBody(std::string_view body, const char* expected) {
  pugi::xml_document document;
  if (!document.load_buffer(body.data(), body.size(), pugi::parse_default)) {
    return Status::Internal(std::string("the response is not well-formed XML (expected ") + expected + ")");
  }
  const auto local = [](const pugi::xml_node& node) {
    const char* name = node.name();
    const char* colon = std::strchr(name, ':');
    return std::string(colon != nullptr ? colon + 1 : name);
  };
  const auto child = [&local](const pugi::xml_node& node, const char* name) {
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element && local(c) == name) return c;
    }
    return pugi::xml_node();
  };
  const pugi::xml_node fault = child(child(document.document_element(), "Body"), "Fault");
  if (!fault) return Status::Internal(std::string("the response's Body holds no ") + expected + " and no Fault");
  std::string code, reason;
  if (const pugi::xml_node code11 = child(fault, "faultcode")) {
    code = code11.text().get();
    reason = child(fault, "faultstring").text().get();
  } else {
    const pugi::xml_node code12 = child(fault, "Code");
    code = child(code12, "Value").text().get();
    if (const pugi::xml_node sub = child(child(code12, "Subcode"), "Value")) code += std::string("/") + sub.text().get();
    reason = child(child(fault, "Reason"), "Text").text().get();
  }
  return Status::Fault(code, reason.empty() ? "unknown error" : reason);
}

// gSOAP's TLS failure text on one line: its lines ("SSL_ERROR_SSL", OpenSSL's queue as
// "error:0A000086:SSL routines::certificate verify failed", the certificate check) joined by "; ",
// without the SSL_ERROR_ name and the error-code prefixes.
std::string OneLineTlsError(const std::string& text) {
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    start = end + 1;
    if (part.rfind("SSL_ERROR_", 0) == 0) {
      const size_t space = part.find(' ');
      part = space == std::string::npos ? "" : part.substr(space + 1);
    }
    if (part.rfind("error:", 0) == 0 && part.find("::") != std::string::npos) part = part.substr(part.find("::") + 2);
    if (part.empty()) continue;
    if (!line.empty()) line += "; ";
    line += part;
  }
  return line.empty() ? "handshake failed" : line;
}

}  // namespace

Client::Client(ClientOptions options) : options_(std::move(options)) {
  // Keep-alive: one connection for all calls. IO_STORE: one serialization pass, then send with
  // Content-Length. Strict input: a response missing an element is an error, not a zero.
  InitSoapRuntime();  // clients may be created on many threads at once
  proxy_ = std::make_unique<Proxy>(SOAP_IO_KEEPALIVE | SOAP_XML_STRICT | SOAP_C_UTFSTRING,
                                   SOAP_IO_KEEPALIVE | SOAP_IO_STORE | SOAP_C_UTFSTRING, this);
  soap_ = proxy_->soap;
  // The wsse binding only when a UsernameToken is sent: gSOAP declares every entry in each Envelope.
  for (const Namespace* ns = options_.soap12 ? kNamespaces12 : kNamespaces11; ns->id != nullptr; ++ns) {
    namespaces_.push_back(*ns);
  }
  if (options_.wsse && !options_.user.empty()) namespaces_.push_back(kWsseNamespace);
  namespaces_with_wsa_ = namespaces_;
  namespaces_with_wsa_.push_back(kWsaNamespace);
  namespaces_.push_back(Namespace{nullptr, nullptr, nullptr, nullptr});
  namespaces_with_wsa_.push_back(Namespace{nullptr, nullptr, nullptr, nullptr});
  soap_set_namespaces(soap_, namespaces_.data());
  proxy_->soap_endpoint = options_.url.c_str();  // the proxy keeps the pointer: options_ owns it
  soap_->connect_timeout = options_.timeout_seconds;
  soap_->send_timeout = options_.timeout_seconds;
  soap_->recv_timeout = options_.timeout_seconds;
  if (strncasecmp(options_.url.c_str(), "https://", 8) == 0) setup_ = SetUpTls();
}

Status Client::SetUpTls() {
  // OpenSSL writes to the socket with write(2), past gSOAP's MSG_NOSIGNAL: a server that reset the
  // connection must be an error, not a SIGPIPE that kills the process.
  std::signal(SIGPIPE, SIG_IGN);
  const unsigned short flags = (options_.insecure ? SOAP_SSL_NO_AUTHENTICATION : SOAP_SSL_DEFAULT) | SOAP_TLSv1_2 |
                               SOAP_TLSv1_3;
  // The system CA store is always loaded (no SOAP_SSL_NO_DEFAULT_CA_PATH); ca_file adds to it.
  if (soap_ssl_client_context(soap_, flags, nullptr, nullptr, options_.ca_file.empty() ? nullptr : options_.ca_file.c_str(),
                              nullptr, nullptr) != SOAP_OK) {
    const char* reason = soap_fault_string(soap_);
    const char* detail = soap_fault_detail(soap_);
    std::string text = reason != nullptr ? reason : "cannot set up TLS";
    if (detail != nullptr && *detail != '\0') text += std::string(": ") + detail;
    text = OneLineTlsError(text);
    return Status::InvalidArgument("TLS set-up failed" + (options_.ca_file.empty() ? "" : " (--cacert " + options_.ca_file + ")") +
                                   ": " + text);
  }
  return Status::Ok();
}

Client::~Client() {
  proxy_->destroy();
}

void Client::BeginCall() {
  bytes_sent_ = bytes_received_ = 0;
  call_start_ = Clock::now();
  first_send_ = last_send_ = first_receive_ = call_start_;
  if (options_.user.empty()) return;
  if (!options_.wsse) {
    // gSOAP sends these as Authorization: Basic (the strings outlive the call: options_ owns them).
    soap_->userid = options_.user.c_str();
    soap_->passwd = options_.password.c_str();
    return;
  }
  // A fresh header per call: the previous one was freed with the call's memory.
  auto* password = soap_new__wsse__Password(soap_);
  password->__item = soap_strdup(soap_, options_.password.c_str());
  password->Type = soap_strdup(soap_, kPasswordText);
  auto* token = soap_new__wsse__UsernameToken(soap_);
  token->Username = soap_strdup(soap_, options_.user.c_str());
  token->Password = password;
  auto* security = soap_new__wsse__Security(soap_);
  security->UsernameToken = token;
  soap_->header = soap_new_SOAP_ENV__Header(soap_);
  soap_->header->wsse__Security = security;
}

CallTimes Client::last_times() const {
  auto seconds = [](Clock::time_point from, Clock::time_point to) {
    return to > from ? std::chrono::duration<double>(to - from).count() : 0.0;
  };
  CallTimes t;
  t.serialize_seconds = seconds(call_start_, first_send_);
  t.wait_seconds = seconds(last_send_, first_receive_);
  t.parse_seconds = seconds(first_receive_, call_end_);
  return t;
}

Status Client::EndCall(int error) {
  Status status;
  if (error != SOAP_OK) {
    const char* reason = soap_fault_string(soap_);
    std::string text = reason != nullptr ? reason
                       : error == SOAP_EOF ? "the connection closed before a complete response arrived"
                                           : "unknown error";
    if (const char* detail = soap_fault_detail(soap_)) {
      if (*detail != '\0') text += std::string(" (") + detail + ")";
    }
    if (error == SOAP_FAULT || error == SOAP_CLI_FAULT || error == SOAP_SVR_FAULT ||
        error == SOAP_VERSIONMISMATCH || error == SOAP_MUSTUNDERSTAND) {
      const char** code = soap_faultcode(soap_);
      std::string code_text = (code != nullptr && *code != nullptr) ? *code : "SOAP-ENV:Server";
      if (soap_->version == 2) {
        const char* sub = soap_fault_subcode(soap_);
        if (sub != nullptr) code_text += std::string("/") + sub;
      }
      status = Status::Fault(code_text, text);
    } else if (error == SOAP_SSL_ERROR) {
      status = Status::IOError(options_.url + ": TLS: " + OneLineTlsError(text));
      soap_closesock(soap_);
    } else if (error == SOAP_TCP_ERROR || error == SOAP_EOF) {
      status = soap_->errnum == ETIMEDOUT || soap_->errnum == EAGAIN
                   ? Status::Timeout("no answer from " + options_.url + " within " +
                                     std::to_string(options_.timeout_seconds) + " s")
                   : Status::IOError(options_.url + ": " + text);
      soap_closesock(soap_);
    } else {
      status = Status::Internal(text + " (gSOAP error " + std::to_string(error) + ")");
      soap_closesock(soap_);
    }
  }
  proxy_->destroy();  // soap_destroy + soap_end: free this call's objects
  call_end_ = Clock::now();
  return status;
}

Status Client::Increment(int32_t value, int32_t* result) {
  BeginCall();
  _l__Increment request;
  request.value = value;
  _l__IncrementResponse response;
  const int error = proxy_->Increment(&request, response);
  if (error == SOAP_OK) *result = response.result;
  return EndCall(error);
}

Status Client::HelloWorld(std::string* result) {
  BeginCall();
  _l__HelloWorld request;
  _l__HelloWorldResponse response;
  const int error = proxy_->HelloWorld(&request, response);
  if (error == SOAP_OK) *result = response.result;
  return EndCall(error);
}

Status Client::IncCounter(const std::string& name, const std::string& message_id, int64_t* result) {
  BeginCall();
  _l__IncCounter request;
  request.name = name;
  _l__IncCounterResponse response;
  if (!message_id.empty()) {
    soap_set_namespaces(soap_, namespaces_with_wsa_.data());
    // BeginCall() made this call's header when it carries a UsernameToken; otherwise a new one.
    if (!(options_.wsse && !options_.user.empty())) soap_->header = soap_new_SOAP_ENV__Header(soap_);
    soap_->header->wsa5__MessageID = soap_strdup(soap_, message_id.c_str());  // freed with the call's memory
  }
  const int error = proxy_->IncCounter(&request, response);
  if (error == SOAP_OK) *result = response.result;
  if (!message_id.empty()) {
    proxy_->soap_noheader();
    soap_set_namespaces(soap_, namespaces_.data());
  }
  return EndCall(error);
}

Status Client::GetCounter(const std::string& name, int64_t* result) {
  BeginCall();
  _l__GetCounter request;
  request.name = name;
  _l__GetCounterResponse response;
  const int error = proxy_->GetCounter(&request, response);
  if (error == SOAP_OK) *result = response.result;
  return EndCall(error);
}

Status Client::EchoDataSamples(const SampleSet& samples, SampleSet* echoed) {
  // gSOAP makes the HTTP exchange and the Envelope (and Header: credentials); Lather's sample codec
  // writes and reads the Body's samples (wsdl/sample_writer.h, sample_reader.h): gSOAP's generated
  // serializers cost about 130 instructions per byte (issue 7).
  BeginCall();
  SampleWriteForm form;
  form.soap_version = options_.soap12 ? 2 : 1;
  echo_text_.clear();
  WriteSampleWrapper(samples, "EchoDataSamples", form, &echo_text_);
  soap_->encodingStyle = nullptr;
  soap_serializeheader(soap_);
  // Nothing is counted below, so the message must be stored to get its Content-Length; gSOAP's
  // soap_end_send turns a stored output mode into the input mode's after each message (stdsoap2.cpp,
  // its SOAP_IO_STORE branch): without this the second call on a connection says Content-Length: 0.
  soap_->omode = (soap_->omode & ~SOAP_IO) | SOAP_IO_STORE;
  size_t length = 0;
  const char* body = nullptr;
  if (soap_begin_count(soap_) || soap_end_count(soap_) ||
      soap_connect(soap_, options_.url.c_str(), "urn:lather:v1#EchoDataSamples") || soap_envelope_begin_out(soap_) ||
      soap_putheader(soap_) || soap_body_begin_out(soap_) ||
      soap_send_raw(soap_, echo_text_.data(), echo_text_.size()) || soap_body_end_out(soap_) ||
      soap_envelope_end_out(soap_) || soap_end_send(soap_) || soap_begin_recv(soap_) ||
      (body = soap_http_get_body(soap_, &length)) == nullptr || soap_end_recv(soap_)) {
    return EndCall(soap_->error != SOAP_OK ? soap_->error : SOAP_EOF);
  }
  soap_closesock(soap_);  // keeps the connection unless the server asked to close it
  const std::string_view xml(body, length);
  std::vector<NamespaceBinding> scope;
  const size_t content = FindBodyContent(xml, &scope);
  Status status;
  if (content == std::string_view::npos || !NextElementIs(xml, content, "EchoDataSamplesResponse", scope)) {
    status = FaultInBody(xml, "EchoDataSamplesResponse");
  } else {
    SampleReadLimits limits;
    limits.max_depth = 65535;
    limits.max_occurs = static_cast<size_t>(-1);
    limits.max_string = 0;
    const SampleReadResult read = ReadSampleWrapper(xml, content, "EchoDataSamplesResponse", scope, limits, echoed);
    if (!read.ok()) status = Status::Internal("the echo response does not read as samples: " + read.message);
  }
  const Status ended = EndCall(SOAP_OK);
  return status.ok() ? ended : status;
}

}  // namespace lather
