#include "service/soap/fault_envelope.h"

#include "service/http/http_response.h"

namespace lather {

int SoapVersionOfContentType(std::string_view content_type) {
  const std::string_view media = MediaType(content_type);
  if (EqualsIgnoreCase(media, "text/xml")) return 1;
  if (EqualsIgnoreCase(media, "application/soap+xml")) return 2;
  return 0;
}

void AppendXmlEscaped(std::string_view text, std::string* out) {
  // Runs of plain characters are appended whole (a reason is mostly plain text); each special one is replaced.
  size_t plain = 0;  // start of the current run
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char* replacement = nullptr;
    switch (c) {
      case '&': replacement = "&amp;"; break;
      case '<': replacement = "&lt;"; break;
      case '>': replacement = "&gt;"; break;
      case '"': replacement = "&quot;"; break;
      default:
        // Control characters are not allowed in XML 1.0; they never appear in our reasons.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') replacement = "?";
    }
    if (replacement == nullptr) continue;
    out->append(text.data() + plain, i - plain).append(replacement);
    plain = i + 1;
  }
  out->append(text.data() + plain, text.size() - plain);
}

void AppendFaultEnvelope(int soap_version, bool sender_fault, std::string_view reason, std::string* out) {
  out->append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  if (soap_version == 2) {
    out->append(
        "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body><env:Fault>"
        "<env:Code><env:Value>");
    out->append(sender_fault ? "env:Sender" : "env:Receiver");
    out->append("</env:Value></env:Code><env:Reason><env:Text xml:lang=\"en\">");
    AppendXmlEscaped(reason, out);
    out->append("</env:Text></env:Reason></env:Fault></env:Body></env:Envelope>\n");
  } else {
    out->append(
        "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Body>"
        "<SOAP-ENV:Fault><faultcode>");
    out->append(sender_fault ? "SOAP-ENV:Client" : "SOAP-ENV:Server");
    out->append("</faultcode><faultstring>");
    AppendXmlEscaped(reason, out);
    // SOAP 1.1 4.4: detail MUST be present when the Body could not be processed (and clients such as .NET
    // take a fault without it for a header fault).
    out->append("</faultstring><detail/></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>\n");
  }
}

void AppendNotUnderstoodFault(std::string_view local_name, std::string_view ns, std::string* out) {
  out->append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Header>"
              "<env:NotUnderstood qname=\"nu:");
  AppendXmlEscaped(local_name, out);
  out->append("\" xmlns:nu=\"");
  AppendXmlEscaped(ns, out);
  out->append("\"/></env:Header><env:Body><env:Fault><env:Code><env:Value>env:MustUnderstand</env:Value></env:Code>"
              "<env:Reason><env:Text xml:lang=\"en\">the header block ");
  AppendXmlEscaped(local_name, out);
  out->append(" (");
  AppendXmlEscaped(ns, out);
  out->append(") must be understood, and this service does not process it</env:Text></env:Reason>"
              "</env:Fault></env:Body></env:Envelope>\n");
}

void AppendVersionMismatchFault(std::string_view reason, std::string* out) {
  out->append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Header>"
              "<upg:Upgrade xmlns:upg=\"http://www.w3.org/2003/05/soap-envelope\">"
              "<upg:SupportedEnvelope qname=\"env12:Envelope\" xmlns:env12=\"http://www.w3.org/2003/05/soap-envelope\"/>"
              "<upg:SupportedEnvelope qname=\"env11:Envelope\" xmlns:env11=\"http://schemas.xmlsoap.org/soap/envelope/\"/>"
              "</upg:Upgrade></SOAP-ENV:Header><SOAP-ENV:Body><SOAP-ENV:Fault>"
              "<faultcode>SOAP-ENV:VersionMismatch</faultcode><faultstring>");
  AppendXmlEscaped(reason, out);
  out->append("</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>\n");
}

void AppendVersionMismatchFault12(std::string_view reason, std::string* out) {
  out->append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Header><env:Upgrade>"
              "<env:SupportedEnvelope qname=\"env12:Envelope\" xmlns:env12=\"http://www.w3.org/2003/05/soap-envelope\"/>"
              "<env:SupportedEnvelope qname=\"env11:Envelope\" xmlns:env11=\"http://schemas.xmlsoap.org/soap/envelope/\"/>"
              "</env:Upgrade></env:Header><env:Body><env:Fault><env:Code><env:Value>env:VersionMismatch</env:Value>"
              "</env:Code><env:Reason><env:Text xml:lang=\"en\">");
  AppendXmlEscaped(reason, out);
  out->append("</env:Text></env:Reason></env:Fault></env:Body></env:Envelope>\n");
}

}  // namespace lather
