// SoapEngine's checks of an envelope's shape that gSOAP does not make, or makes with a reason that names
// the wrong thing (the rest of SoapEngine is in soap_engine.cpp): content after the Envelope, SOAP
// encodingStyle attributes (service/soap/envelope_rules.h), a missing Body and the Body's children.
#include <cstring>
#include <string>

#include "service/soap/envelope_rules.h"
#include "service/soap/soap_engine.h"
#include "soapH.h"
#include "wsdl/envelope_scan.h"

namespace lather {
namespace {

constexpr const char* kOperationList =
    "one of Increment, HelloWorld, IncCounter, GetCounter or EchoDataSamples in namespace urn:lather:v1";

// At most 64 bytes of `text`, bytes outside printable ASCII as '?'.
std::string Shown(const char* text) {
  std::string out;
  for (size_t i = 0; text[i] != '\0' && i < 64; ++i) out.push_back(text[i] > ' ' && text[i] < 127 ? text[i] : '?');
  return out;
}

}  // namespace

int SoapEngine::AfterEnvelope(struct soap* soap) {
  auto* engine = static_cast<SoapEngine*>(soap->user);
  const std::string_view body = engine->call_->body;
  const size_t at = engine->ReadPosition();
  if (at == std::string_view::npos || at > body.size() || OnlyCommentsAndSpace(body.substr(at))) return SOAP_OK;
  return soap_sender_fault(soap,
                           "the request holds content after the Envelope's end tag: a SOAP message is one XML "
                           "document, whose document element is the Envelope (XML 1.0 section 2.1)",
                           nullptr);
}

bool SoapEngine::RefuseEncodingStyle(size_t body_content) {
  const EncodingStyleCheck check = CheckEncodingStyle(call_->body, body_content, soap_->version);
  if (check.verdict == EncodingStyleVerdict::kNone) return false;
  const char* reason = soap_strdup(soap_, check.reason.c_str());
  if (check.verdict == EncodingStyleVerdict::kUnknownEncoding) {
    // SOAP 1.2 part 1 5.4.6; part 2 table 20: answered with 500 (it is not an env:Sender fault).
    *soap_faultcode(soap_) = "SOAP-ENV:DataEncodingUnknown";
    *soap_faultstring(soap_) = reason;
    soap_->error = SOAP_DATAENCODINGUNKNOWN;
  } else {
    soap_sender_fault(soap_, reason, nullptr);
  }
  return true;
}

void SoapEngine::ExplainBodyShape() {
  std::string reason;
  if (soap_->error == SOAP_NO_METHOD) {
    const char* tag = soap_->tag;
    if (*tag == '\0') {
      reason = std::string("the Body holds no operation element: ") + kOperationList + " was expected";
    } else {
      const char* ns = soap_current_namespace_tag(soap_, tag);
      const char* colon = std::strchr(tag, ':');
      const std::string local = Shown(colon != nullptr ? colon + 1 : tag);
      if (ns == nullptr || *ns == '\0') {
        reason = "the Body's child <" + local + "> is in no namespace; Body children must be namespace-qualified "
                 "(WS-I Basic Profile 1.1 R1014): " + kOperationList + " was expected";
      } else {
        reason = "the Body's child <" + local + "> (namespace " + Shown(ns) + ") is not an operation of this service: " +
                 kOperationList + " was expected";
      }
    }
  } else if (soap_->error == SOAP_END_TAG && soap_->part == SOAP_END_BODY) {
    reason = "the Body holds more after its operation element (another element or text): a document/literal "
             "request's Body is that one element (WS-I Basic Profile 1.1 R2712)";
  } else if (soap_->error == SOAP_END_TAG && soap_->part == SOAP_END_ENVELOPE) {
    reason = "the Envelope holds something after its Body: no element may follow the Body (WS-I Basic Profile 1.1 "
             "R1011, SOAP 1.2 part 1 section 5.1)";
  } else if (soap_->error == SOAP_EOF && FindBodyContent(call_->body) == std::string_view::npos) {
    reason = "the Envelope holds no Body, or the document ends before it (SOAP 1.1 section 4, SOAP 1.2 part 1 "
             "section 5.1: an Envelope has exactly one Body)";
  } else {
    return;
  }
  soap_sender_fault(soap_, soap_strdup(soap_, reason.c_str()), nullptr);
}

}  // namespace lather
