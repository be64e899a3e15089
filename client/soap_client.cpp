#include "client/soap_client.h"

#include <strings.h>

#include <csignal>
#include <utility>

#include "soapLatherSoapProxy.h"
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

void ToSoap(struct soap* soap, const DataSample& in, l__DataSample* out);

l__DataSampleList* ToSoapList(struct soap* soap, const std::vector<DataSample>& in) {
  auto* list = soap_new_l__DataSampleList(soap);
  list->sample.reserve(in.size());
  for (const DataSample& sample : in) {
    auto* s = soap_new_l__DataSample(soap);
    ToSoap(soap, sample, s);
    list->sample.push_back(s);
  }
  return list;
}

l__StringList* ToSoapStrings(struct soap* soap, const std::vector<std::string>& in) {
  auto* list = soap_new_l__StringList(soap);
  list->item = in;
  return list;
}

void ToSoap(struct soap* soap, const DataSample& in, l__DataSample* out) {
  out->firstname = in.firstname;
  out->lastname = in.lastname;
  out->city = in.city;
  out->zip = in.zip;
  out->email = in.email;
  out->contactNos = ToSoapStrings(soap, in.contact_nos);
  out->designation = in.designation;
  out->experience = in.experience;
  out->salary = in.salary;
  out->companiesWorkedFor = ToSoapStrings(soap, in.companies_worked_for);
  out->dateOfBirth = in.date_of_birth;
  out->isMarried = in.is_married;
  out->children = ToSoapList(soap, in.children);
}

void FromSoapList(l__DataSampleList* in, std::vector<DataSample>* out);

// Moves the strings out of `in`: the response's objects are gSOAP's, deleted after the call anyway.
void FromSoap(l__DataSample& in, DataSample* out) {
  out->firstname = std::move(in.firstname);
  out->lastname = std::move(in.lastname);
  out->city = std::move(in.city);
  out->zip = in.zip;
  out->email = std::move(in.email);
  if (in.contactNos != nullptr) out->contact_nos = std::move(in.contactNos->item);
  out->designation = std::move(in.designation);
  out->experience = in.experience;
  out->salary = in.salary;
  if (in.companiesWorkedFor != nullptr) out->companies_worked_for = std::move(in.companiesWorkedFor->item);
  out->date_of_birth = std::move(in.dateOfBirth);
  out->is_married = in.isMarried;
  FromSoapList(in.children, &out->children);
}

void FromSoapList(l__DataSampleList* in, std::vector<DataSample>* out) {
  out->clear();
  if (in == nullptr) return;
  out->resize(in->sample.size());
  for (size_t i = 0; i < in->sample.size(); ++i) {
    if (in->sample[i] != nullptr) FromSoap(*in->sample[i], &(*out)[i]);
  }
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

Status Client::EchoDataSamples(const std::vector<DataSample>& samples, std::vector<DataSample>* echoed) {
  BeginCall();
  _l__EchoDataSamples request;
  request.samples = ToSoapList(soap_, samples);
  _l__EchoDataSamplesResponse response;
  const int error = proxy_->EchoDataSamples(&request, response);
  if (error == SOAP_OK) FromSoapList(response.samples, echoed);
  return EndCall(error);
}

}  // namespace lather
