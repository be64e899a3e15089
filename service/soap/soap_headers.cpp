// SoapEngine's SOAP Header handling (the rest of SoapEngine is in soap_engine.cpp): which header
// blocks are addressed to the service, mustUnderstand, WS-Addressing wsa:MessageID, and the
// WS-Security UsernameToken or HTTP Basic credentials checked before an operation runs.
#include "service/soap/soap_engine.h"

#include <cstring>
#include <string>
#include <string_view>

#include "common/log.h"
#include "common/log_limiter.h"
#include "soapH.h"

namespace lather {
namespace {

constexpr char kWsseNamespace[] = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
constexpr std::string_view kPasswordTextSuffix = "#PasswordText";
constexpr std::string_view kPasswordDigestSuffix = "#PasswordDigest";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// True if a header block with these SOAP 1.1 actor / SOAP 1.2 role attributes is for this service.
bool AddressedToUs(const char* actor, const char* role) {
  for (const char* target : {actor, role}) {
    if (target == nullptr || *target == '\0') continue;
    const std::string_view t = target;
    if (t != "http://schemas.xmlsoap.org/soap/actor/next" && t != "http://www.w3.org/2003/05/soap-envelope/role/next" &&
        t != "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver") {
      return false;
    }
  }
  return true;
}

// The request's wsse:Security header block for us, or null.
const _wsse__Security* SecurityHeader(const struct soap* soap) {
  if (soap->header == nullptr || soap->header->wsse__Security == nullptr) return nullptr;
  const _wsse__Security* security = soap->header->wsse__Security;
  return AddressedToUs(security->SOAP_ENV__actor, security->SOAP_ENV__role) ? security : nullptr;
}

// WS-Addressing 1.0 and the 2004/08 member submission (still sent by older WCF and Axis2 clients).
constexpr const char* kWsAddressingNamespaces[] = {"http://www.w3.org/2005/08/addressing",
                                                   "http://schemas.xmlsoap.org/ws/2004/08/addressing"};

// True if the header block `tag` gSOAP is reading is a wsa:MessageID.
bool IsMessageIdTag(struct soap* soap, const char* tag) {
  const char* colon = std::strchr(tag, ':');
  if (std::strcmp(colon != nullptr ? colon + 1 : tag, "MessageID") != 0) return false;
  const char* ns = soap_current_namespace_tag(soap, tag);
  if (ns == nullptr) return false;
  for (const char* wsa : kWsAddressingNamespaces) {
    if (std::strcmp(ns, wsa) == 0) return true;
  }
  return false;
}

// `text` without the XML white space around it (xsd:anyURI collapses it).
std::string_view TrimXmlSpace(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

}  // namespace

int SoapEngine::Ignore(struct soap* soap, const char* tag) {
  if (soap->part != SOAP_IN_HEADER) return SOAP_TAG_MISMATCH;  // strict: no unknown content in the Body
  auto* engine = static_cast<SoapEngine*>(soap->user);
  // wsa:MessageID is read here, not through the generated header member (wsdl/typemap.dat, for
  // clients): no wsa namespace entry in our table (gSOAP would declare it in every response), both
  // WS-Addressing namespaces, and no cost for requests without it.
  if (engine->read_message_id_ && !soap->other && IsMessageIdTag(soap, tag)) return engine->ReadMessageId();
  if (!soap->mustUnderstand || soap->other) return SOAP_OK;  // optional, or for another role: ignored
  const char* colon = std::strchr(tag, ':');
  engine->not_understood_local_ = colon != nullptr ? colon + 1 : tag;
  const char* ns = soap_current_namespace_tag(soap, tag);
  engine->not_understood_ns_ = ns != nullptr ? ns : "";
  return SOAP_MUSTUNDERSTAND;
}

int SoapEngine::ReadMessageId() {
  if (has_message_id_) return soap_sender_fault(soap_, "the request has more than one wsa:MessageID header", nullptr);
  has_message_id_ = true;
  message_id_.clear();
  if (!soap_->body) return SOAP_OK;  // <wsa:MessageID/>: empty (IncCounter refuses it)
  // As soap_element_begin_in() and soap_instring() would read it; strict mode refuses child elements.
  soap_->level++;
  const char* text = soap_string_in(soap_, 3, -1, -1, nullptr);  // 3: stops at a child element
  if (text == nullptr || soap_element_end_in(soap_, nullptr) != SOAP_OK) return soap_->error;
  soap_->body = 0;  // the content is consumed: nothing left for gSOAP to skip
  message_id_ = TrimXmlSpace(text);
  return SOAP_OK;
}

void SoapEngine::TakeSecurityHeader(bool header_read) {
  // gSOAP writes soap->header into the response (and into a fault): the request's Security block
  // (with its password) is taken out of it here, so it is never echoed.
  security_ = header_read ? SecurityHeader(soap_) : nullptr;
  if (soap_->header != nullptr) soap_->header->wsse__Security = nullptr;
}

int SoapEngine::Authorize(size_t operation) {
  if (authenticator_ == nullptr || (auth_scope_ == AuthScope::kIncCounter && operation != kIncCounterIndex)) {
    return SOAP_OK;
  }
  // Hashes are slow by design (yescrypt: milliseconds), so the event loops only look the pair up
  // in the authenticator's cache of verified pairs; a pair not there (first use, or wrong) is
  // deferred to the blocking pool, where IncCounter runs anyway and a wrong password costs a pool
  // thread, not a loop (and the pool's bounded queue turns a guessing flood into 503s).
  std::string_view user, password;
  const char* wsse_code = nullptr;
  if (security_ != nullptr && security_->UsernameToken != nullptr) {
    const _wsse__UsernameToken* token = security_->UsernameToken;
    wsse_code = "wsse:FailedAuthentication";
    if (token->Username == nullptr || token->Password == nullptr || token->Password->__item == nullptr) {
      return AuthFault(wsse_code, "the wsse:UsernameToken needs a wsse:Username and a wsse:Password");
    }
    const char* type = token->Password->Type;
    if (type != nullptr && !EndsWith(type, kPasswordTextSuffix)) {
      if (EndsWith(type, kPasswordDigestSuffix)) {
        return AuthFault("wsse:UnsupportedSecurityToken",
                         "wsse:Password Type PasswordDigest cannot be checked: this service keeps only salted "
                         "one-way hashes of passwords, and a digest can only be checked against the password "
                         "itself; send Type PasswordText (over TLS) or use HTTP Basic authentication");
      }
      return AuthFault("wsse:UnsupportedSecurityToken", "wsse:Password Type '" + std::string(type).substr(0, 128) +
                                                            "' is not supported (use #PasswordText)");
    }
    user = token->Username;
    password = token->Password->__item;
  } else if (!call_->authorization.empty()) {
    if (!ParseBasicAuthorization(call_->authorization, &basic_user_, &basic_password_)) {
      return AuthFault(nullptr, "the Authorization header does not hold HTTP Basic credentials");
    }
    user = basic_user_;
    password = basic_password_;
  } else {
    return AuthFault(nullptr, std::string(OperationName(operation)) +
                                  " needs credentials: HTTP Basic authentication or a WS-Security UsernameToken");
  }
  if (authenticator_->IsKnownGood(user, password)) return SOAP_OK;
  if (defer_blocking_) return Defer();
  if (authenticator_->Verify(user, password)) return SOAP_OK;
  std::string shown(user.substr(0, 64));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';  // one log line, whatever was sent
  }
  LogClientCausedLine("authentication failed for user '" + shown + "'");
  return AuthFault(wsse_code, "wrong user name or password");
}

int SoapEngine::AuthFault(const char* wsse_code, const std::string& reason) {
  auth_failed_ = true;
  return soap_sender_fault_subcode(soap_, wsse_code, soap_strdup(soap_, reason.c_str()), nullptr);
}

int SoapEngine::CheckUnprocessedSecurity() {
  if (authenticator_ != nullptr) return SOAP_OK;
  if (security_ == nullptr || security_->SOAP_ENV__mustUnderstand == nullptr) return SOAP_OK;
  const std::string_view must = security_->SOAP_ENV__mustUnderstand;
  if (must != "1" && must != "true") return SOAP_OK;
  not_understood_local_ = "Security";
  not_understood_ns_ = kWsseNamespace;
  return soap_->error = SOAP_MUSTUNDERSTAND;
}

}  // namespace lather
