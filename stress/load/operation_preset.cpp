#include "stress/load/operation_preset.h"

#include <pugixml.hpp>

#include <cctype>
#include <cstring>

#include "client/data_sample.h"
#include "wsdl/sample_writer.h"

namespace lather {
namespace {

constexpr char kEnv11[] = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr char kEnv12[] = "http://www.w3.org/2003/05/soap-envelope";

std::string Envelope(int version, const std::string& content, const std::string& header = "") {
  return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"") +
         (version == 2 ? kEnv12 : kEnv11) + "\" xmlns:l=\"urn:lather:v1\">" +
         (header.empty() ? "" : "<soap:Header>" + header + "</soap:Header>") + "<soap:Body>" + content +
         "</soap:Body></soap:Envelope>";
}

// The local name of an element ("Body" of "soap:Body").
const char* LocalName(const pugi::xml_node& node) {
  const char* name = node.name();
  const char* colon = std::strchr(name, ':');
  return colon != nullptr ? colon + 1 : name;
}

}  // namespace

size_t RequestPayloadBytes(const std::string& body_template) {
  std::string body = body_template;
  for (size_t at = body.find("${n}"); at != std::string::npos; at = body.find("${n}", at)) body.replace(at, 4, "0");
  const std::string uuid(36, '0');  // a ${uuid}'s length
  for (size_t at = body.find("${uuid}"); at != std::string::npos; at = body.find("${uuid}", at)) body.replace(at, 7, uuid);
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) return 0;
  for (pugi::xml_node child = doc.document_element().first_child(); child; child = child.next_sibling()) {
    if (child.type() == pugi::node_element && std::strcmp(LocalName(child), "Body") == 0) return TextBytes(child);
  }
  return TextBytes(doc.document_element());
}

size_t BodyPlaceholders(const std::string& body_template) {
  // The Body's start tag, with any prefix and attributes: "<Body" or ":Body" then '>', '/' or a blank.
  size_t from = 0;
  for (size_t at = body_template.find("Body"); at != std::string::npos; at = body_template.find("Body", at + 4)) {
    const char before = at > 0 ? body_template[at - 1] : ' ';
    const char after = at + 4 < body_template.size() ? body_template[at + 4] : ' ';
    if ((before == '<' || before == ':') && (after == '>' || after == '/' || std::isspace(static_cast<unsigned char>(after)))) {
      from = at;
      break;
    }
  }
  size_t count = 0;
  for (size_t at = body_template.find("${n}", from); at != std::string::npos; at = body_template.find("${n}", at + 4)) {
    ++count;
  }
  return count;
}

Status MakeOperationPreset(const PresetRequest& request, OperationPreset* preset) {
  const int v = request.soap_version;
  std::string action;
  if (request.op == "increment") {
    action = "Increment";
    preset->body = Envelope(v, "<l:Increment><l:value>${n}</l:value></l:Increment>");
    preset->expectation.kind = Expectation::Kind::kPlusOne;
  } else if (request.op == "hello") {
    action = "HelloWorld";
    preset->body = Envelope(v, "<l:HelloWorld/>");
    preset->expectation.kind = Expectation::Kind::kEquals;
    preset->expectation.text = "Hello World";
  } else if (request.op == "inc-counter") {
    action = "IncCounter";
    std::string content = "<l:IncCounter><l:name>";
    AppendEscapedText(request.counter_name, &content);
    std::string header;
    if (request.message_ids) {
      header = "<wsa:MessageID xmlns:wsa=\"http://www.w3.org/2005/08/addressing\">urn:uuid:${uuid}</wsa:MessageID>";
    }
    preset->body = Envelope(v, content + "</l:name></l:IncCounter>", header);
    preset->expectation.kind = Expectation::Kind::kPositive;
  } else if (request.op == "echo") {
    action = "EchoDataSamples";
    SampleShape shape;
    shape.count = request.samples;
    shape.depth = 1;
    SampleSet samples = GenerateSamples(shape);
    if (!samples.samples.empty()) samples.samples[0]->email = "call${n}@example.org";  // a different request per call
    std::string content;
    SampleWriteForm form;
    form.soap_version = v;
    WriteSampleWrapper(samples, "EchoDataSamples", form, &content);
    preset->body = Envelope(v, content);
    preset->expectation.kind = Expectation::Kind::kChildCount;
    preset->expectation.count = request.samples;
  } else {
    return Status::InvalidArgument("unknown --op '" + request.op + "' (increment, hello, inc-counter, echo)");
  }
  const std::string full_action = "urn:lather:v1#" + action;
  if (v == 2) {
    preset->headers = {"Content-Type: application/soap+xml; charset=utf-8; action=\"" + full_action + "\""};
  } else {
    preset->headers = {"Content-Type: text/xml; charset=utf-8", "SOAPAction: \"" + full_action + "\""};
  }
  preset->request_payload_bytes = RequestPayloadBytes(preset->body);
  preset->payload_placeholders = BodyPlaceholders(preset->body);
  return Status::Ok();
}

}  // namespace lather
