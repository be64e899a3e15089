// What the tests of lather-stress share: running it with arguments (bounded by a timeout) and reading the
// JSON report it wrote. Plain functions; thread-safe.
#pragma once

#include <string>

#include <Poco/JSON/Object.h>

#include "tests/integration/service_process.h"

namespace lather::test {

// lather-stress ARGS, ended after `timeout_seconds`.
CommandResult RunStress(const std::string& args, int timeout_seconds = 180);

// The JSON document in `path` (a --json report); throws if it is not one.
Poco::JSON::Object::Ptr ReadJson(const std::string& path);

}  // namespace lather::test
