#include "stress/load/wsdl_preset.h"

#include "client/wsdl/request_builder.h"
#include "client/wsdl/schema_validator.h"
#include "client/wsdl/wsdl_model.h"

namespace lather {

Status MakeWsdlPreset(const WsdlPresetRequest& request, OperationPreset* preset, WsdlPresetResult* result) {
  std::unique_ptr<wsdl::WsdlModel> model;
  Status s = wsdl::WsdlModel::Load(request.wsdl_url, request.fetch, &model);
  if (!s.ok()) return s;
  const wsdl::Port* port = nullptr;
  if (!(s = model->FindPort(request.port, &port)).ok()) return s;
  const wsdl::Operation* op = port->Find(request.operation);
  if (op == nullptr) {
    std::string names;
    for (const wsdl::Operation& o : port->operations) names += (names.empty() ? "" : ", ") + o.name;
    return Status::InvalidArgument("--op " + request.operation + ": no such operation on port " + port->name +
                                   " (operations: " + names + ")");
  }
  if (op->one_way) return Status::InvalidArgument("--op " + op->name + " is one-way: there is no answer to judge");
  wsdl::RequestBuilder builder(*op, port->soap_version);
  for (const std::string& set : request.sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos) return Status::InvalidArgument("--set '" + set + "' is not path=value");
    if (!(s = builder.Set(set.substr(0, eq), set.substr(eq + 1))).ok()) return Status::InvalidArgument("--set " + s.message());
  }
  if (!(s = builder.Build(&preset->body, &result->filled)).ok()) return s;
  preset->headers = builder.Headers();
  result->endpoint = port->address;
  result->soap_version = port->soap_version;

  Expectation& e = preset->expectation;
  e.kind = Expectation::Kind::kSchema;
  const wsdl::Element* out = op->output.root;
  if (out != nullptr && op->output.write_root) {
    e.element_ns = out->name.ns;
    e.element_local = out->name.local;
  }
  if (out != nullptr && out->complex != nullptr) {
    std::vector<const wsdl::Particle*> fields;
    wsdl::CollectElements(out->complex->content, &fields);
    for (const wsdl::Particle* p : fields) {
      // Required only when no model group around it is optional or a choice: a direct sequence member.
      bool direct = false;
      for (const wsdl::Particle& c : out->complex->content.children) {
        if (&c == p) direct = true;
        if (c.kind == wsdl::Particle::Kind::kSequence && c.min_occurs > 0) {
          for (const wsdl::Particle& d : c.children) direct = direct || &d == p;
        }
      }
      if (direct && p->min_occurs > 0) e.required.push_back(p->element->name.local);
    }
  }
  if (request.validate_every > 0) {
    if (op->style == "rpc" || out == nullptr || !op->output.write_root || out->name.local.empty()) {
      return Status::InvalidArgument("--validate: the output of " + op->name +
                                     " is not one schema element (rpc or type= parts), so it has nothing to validate against");
    }
    std::unique_ptr<wsdl::SchemaValidator> validator;
    if (!(s = wsdl::SchemaValidator::Create(model->schemas().SchemaDocuments(), &validator)).ok()) {
      return Status::InvalidArgument("--validate: " + s.message());
    }
    e.validation = std::make_shared<ValidationPlan>();
    e.validation->validator = std::move(validator);
    e.validation->every = request.validate_every;
  }
  preset->request_payload_bytes = RequestPayloadBytes(preset->body);
  preset->payload_placeholders = BodyPlaceholders(preset->body);
  return Status::Ok();
}

}  // namespace lather
