// libFuzzer target: the WSDL/XSD reader on foreign input (issue 28). The input is a WSDL and, after a
// line "--xsd--", a schema it may import as b.xsd; both are written to a private folder and read the
// way lather-call --wsdl reads a file. Every port and operation read is then listed, and a request and
// a response view built from it, so the model's every part is walked. Nothing may crash, hang or leak.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "client/wsdl/request_builder.h"
#include "client/wsdl/response_view.h"
#include "client/wsdl/wsdl_model.h"

namespace {

const std::string& Folder() {
  static const std::string folder = [] {
    static char pattern[] = "/tmp/lather-wsdl-fuzz-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    if (made == nullptr) std::abort();
    std::atexit([] {  // the two files and their folder go with the process
      ::unlink((std::string(pattern) + "/a.wsdl").c_str());
      ::unlink((std::string(pattern) + "/b.xsd").c_str());
      ::rmdir(pattern);
    });
    return std::string(made);
  }();
  return folder;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find("\n--xsd--\n");
  Write(Folder() + "/a.wsdl", input.substr(0, split));
  Write(Folder() + "/b.xsd", split == std::string::npos ? std::string() : input.substr(split + 9));
  std::unique_ptr<lather::wsdl::WsdlModel> model;
  lather::wsdl::FetchOptions options;
  options.max_bytes = 1 << 20;
  if (!lather::wsdl::WsdlModel::Load(Folder() + "/a.wsdl", options, &model).ok()) return 0;
  for (const lather::wsdl::Port& port : model->ports()) {
    for (const lather::wsdl::Operation& op : port.operations) {
      (void)lather::wsdl::FieldSignature(op.input);
      (void)lather::wsdl::ResultSignature(op.output);
      lather::wsdl::RequestBuilder builder(op, port.soap_version);
      (void)builder.Set("a.b[1].@c", "1");
      std::string envelope;
      std::vector<std::string> filled;
      if (!builder.Build(&envelope, &filled).ok()) continue;
      lather::wsdl::ResponseView view;  // the request read back as if it were the answer
      if (view.Parse(envelope, op.output).ok()) {
        (void)view.Tree();
        (void)view.Json();
      }
    }
  }
  (void)model->schemas().SchemaDocuments();
  return 0;
}
