#include "tests/integration/stress_run.h"

#include <fstream>
#include <sstream>

#include <Poco/JSON/Parser.h>

namespace lather::test {

CommandResult RunStress(const std::string& args, int timeout_seconds) {
  return RunCommand(StressBinary() + " " + args, timeout_seconds);
}

Poco::JSON::Object::Ptr ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  Poco::JSON::Parser parser;
  return parser.parse(ss.str()).extract<Poco::JSON::Object::Ptr>();
}

}  // namespace lather::test
