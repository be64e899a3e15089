#include "client/wsdl_command.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "client/wsdl/request_builder.h"
#include "client/wsdl/response_view.h"
#include "client/wsdl/wsdl_model.h"

namespace lather {
namespace {

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "lather-call: %s\n", message.c_str());
  return code;
}

int LoadFailure(const Status& s) {
  const bool unreachable = s.kind() == Status::Kind::kIOError || s.kind() == Status::Kind::kTimeout;
  return Fail(unreachable ? kWsdlExitConnection : kWsdlExitUnusable, s.message());
}

std::string Version(int soap_version) { return soap_version == 2 ? "1.2" : "1.1"; }

void JsonFields(const wsdl::MessageShape& shape, std::string* out) {
  *out += "[";
  bool first = true;
  if (shape.root != nullptr && shape.root->complex != nullptr) {
    for (const wsdl::Attribute& a : shape.root->complex->attributes) {
      *out += std::string(first ? "" : ", ") + "{\"name\": " + wsdl::JsonQuoted("@" + a.name.local) +
              ", \"type\": " + wsdl::JsonQuoted(a.type.display) + ", \"required\": " + (a.required ? "true" : "false") + "}";
      first = false;
    }
    std::vector<const wsdl::Particle*> fields;
    wsdl::CollectElements(shape.root->complex->content, &fields);
    for (const wsdl::Particle* p : fields) {
      const wsdl::Element& e = *p->element;
      const std::string type = e.type_display.empty() ? e.simple.display : e.type_display;
      *out += std::string(first ? "" : ", ") + "{\"name\": " + wsdl::JsonQuoted(e.name.local) + ", \"type\": " +
              wsdl::JsonQuoted(type) + ", \"required\": " + (e.min_occurs > 0 ? "true" : "false") +
              ", \"min_occurs\": " + std::to_string(e.min_occurs) + ", \"max_occurs\": " +
              (e.max_occurs == wsdl::kUnbounded ? std::string("\"unbounded\"") : std::to_string(e.max_occurs)) + "}";
      first = false;
    }
  }
  *out += "]";
}

int List(const wsdl::WsdlModel& model, bool json) {
  for (const std::string& note : model.notes()) std::fprintf(stderr, "note: %s\n", note.c_str());
  if (!json) {
    for (const wsdl::Port& port : model.ports()) {
      for (const wsdl::Operation& op : port.operations) {
        std::printf("%s %s(%s) -> %s  SOAP %s  action \"%s\"\n", port.name.c_str(), op.name.c_str(),
                    wsdl::FieldSignature(op.input).c_str(), wsdl::ResultSignature(op.output).c_str(),
                    Version(port.soap_version).c_str(), op.action.c_str());
        for (const std::string& note : op.notes) std::fprintf(stderr, "note: %s %s: %s\n", port.name.c_str(), op.name.c_str(), note.c_str());
      }
    }
    return 0;
  }
  std::string out = "{\"wsdl\": " + wsdl::JsonQuoted(model.url()) + ", \"ports\": [";
  for (size_t i = 0; i < model.ports().size(); ++i) {
    const wsdl::Port& port = model.ports()[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + wsdl::JsonQuoted(port.name) + ", \"binding\": " +
           wsdl::JsonQuoted(port.binding) + ", \"soap_version\": \"" + Version(port.soap_version) + "\", \"address\": " +
           wsdl::JsonQuoted(port.address) + ", \"style\": " +
           wsdl::JsonQuoted(port.operations.empty() ? "document" : port.operations.front().style) + ", \"operations\": [";
    for (size_t j = 0; j < port.operations.size(); ++j) {
      const wsdl::Operation& op = port.operations[j];
      out += std::string(j ? ", " : "") + "{\"name\": " + wsdl::JsonQuoted(op.name) + ", \"action\": " +
             wsdl::JsonQuoted(op.action) + ", \"style\": " + wsdl::JsonQuoted(op.style) + ", \"input\": ";
      JsonFields(op.input, &out);
      out += ", \"output\": " + wsdl::JsonQuoted(wsdl::ResultSignature(op.output)) + ", \"output_fields\": ";
      JsonFields(op.output, &out);
      out += ", \"faults\": [";
      for (size_t k = 0; k < op.faults.size(); ++k) out += std::string(k ? ", " : "") + wsdl::JsonQuoted(op.faults[k]);
      out += "]}";
    }
    out += "]}";
  }
  std::printf("%s]}\n", out.c_str());
  return 0;
}

int Call(const WsdlCallOptions& options, const wsdl::WsdlModel& model, const std::vector<std::string>& args) {
  const wsdl::Port* port = nullptr;
  Status s = model.FindPort(options.port, &port);
  if (!s.ok()) return Fail(kWsdlExitUsage, s.message());
  const wsdl::Operation* op = port->Find(args[0]);
  if (op == nullptr) {
    std::string names;
    for (const wsdl::Operation& o : port->operations) names += (names.empty() ? "" : ", ") + o.name;
    return Fail(kWsdlExitUsage, "no operation '" + args[0] + "' on port " + port->name + " (operations: " + names + ")");
  }
  wsdl::RequestBuilder builder(*op, port->soap_version);
  if (!options.input_file.empty()) {
    std::ifstream in(options.input_file, std::ios::binary);
    if (!in) return Fail(kWsdlExitUsage, "-f " + options.input_file + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    if (!(s = builder.SetJson(text.str())).ok()) return Fail(kWsdlExitUsage, s.message());
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const size_t eq = args[i].find('=');
    if (eq == std::string::npos) return Fail(kWsdlExitUsage, "'" + args[i] + "' is not path=value");
    if (!(s = builder.Set(args[i].substr(0, eq), args[i].substr(eq + 1))).ok()) return Fail(kWsdlExitUsage, s.message());
  }
  std::string envelope;
  std::vector<std::string> missing;
  if (!(s = builder.Build(&envelope, &missing)).ok()) return Fail(kWsdlExitUsage, s.message());
  if (!missing.empty()) {
    std::string names;
    for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m.substr(0, m.find('='));
    return Fail(kWsdlExitUsage, op->name + ": required field" + (missing.size() > 1 ? "s " : " ") + names +
                                    " not set (nothing sent); e.g. " + missing.front());
  }
  const std::string endpoint = options.endpoint.empty() ? port->address : options.endpoint;
  if (endpoint.empty()) return Fail(kWsdlExitUsage, "port " + port->name + " has no soap:address: give --url");
  wsdl::HttpAnswer answer;
  if (!(s = wsdl::PostRequest(endpoint, builder.Headers(), envelope, options.fetch, &answer)).ok()) {
    return Fail(kWsdlExitConnection, s.message());
  }
  wsdl::ResponseView view;
  if (!(s = view.Parse(answer.body, op->output)).ok()) {
    return Fail(kWsdlExitMismatch, endpoint + ": HTTP " + std::to_string(answer.status) + ": " + s.message());
  }
  if (view.is_fault()) {
    std::printf("fault: %s: %s\n", view.fault().code.c_str(), view.fault().reason.c_str());
    if (!view.fault().detail.empty()) std::printf("detail: %s\n", view.fault().detail.c_str());
    return kWsdlExitFault;
  }
  if (answer.status != 200 && answer.status != 202) {
    return Fail(kWsdlExitMismatch, endpoint + ": HTTP " + std::to_string(answer.status) + " without a SOAP fault");
  }
  std::fputs((options.json ? view.Json() : view.Tree()).c_str(), stdout);
  return 0;
}

}  // namespace

int RunWsdlCommand(const WsdlCallOptions& options, const std::vector<std::string>& args) {
  if (args.empty()) return Fail(kWsdlExitUsage, "--wsdl needs a command: list, or an OPERATION with path=value fields");
  std::unique_ptr<wsdl::WsdlModel> model;
  Status s = wsdl::WsdlModel::Load(options.wsdl_url, options.fetch, &model);
  if (!s.ok()) return LoadFailure(s);
  if (args[0] == "list") {
    if (args.size() > 1) return Fail(kWsdlExitUsage, "list takes no argument");
    return List(*model, options.json);
  }
  return Call(options, *model, args);
}

}  // namespace lather
