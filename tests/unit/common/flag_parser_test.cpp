#include "common/flag_parser.h"

#include <catch2/catch.hpp>

using lather::FlagParser;

namespace {
lather::Status Run(const FlagParser& flags, std::vector<std::string> args, std::vector<std::string>* positional) {
  std::vector<char*> argv;
  static char program[] = "prog";
  argv.push_back(program);
  for (std::string& a : args) argv.push_back(a.data());
  return flags.Parse(static_cast<int>(argv.size()), argv.data(), positional);
}
}  // namespace

TEST_CASE("long, short and = forms set values, and plain arguments and negative numbers are positional",
          "[common][flags]") {
  std::string url;
  int64_t count = 0;
  bool verbose = false;
  FlagParser flags("prog");
  flags.AddString("url", 'u', "URL", "endpoint", &url);
  flags.AddInt("count", 'n', "N", "how many", 0, 100, &count);
  flags.AddBool("verbose", 'v', "talk", &verbose);
  std::vector<std::string> positional;
  REQUIRE(Run(flags, {"--url=http://x", "-n", "7", "increment", "-1", "-v"}, &positional).ok());
  CHECK(url == "http://x");
  CHECK(count == 7);
  CHECK(verbose);
  CHECK(positional == std::vector<std::string>{"increment", "-1"});
  CHECK(flags.Usage().find("--count N") != std::string::npos);
}

TEST_CASE("unknown flags, missing values and bad numbers are errors naming the flag", "[common][flags]") {
  int64_t count = 0;
  FlagParser flags("prog");
  flags.AddInt("count", 'n', "N", "how many", 0, 100, &count);
  std::vector<std::string> positional;
  auto unknown = Run(flags, {"--nope"}, &positional);
  CHECK(unknown.message().find("--nope") != std::string::npos);
  auto missing = Run(flags, {"--count"}, &positional);
  CHECK(missing.message().find("needs a value") != std::string::npos);
  auto bad = Run(flags, {"--count", "12x"}, &positional);
  CHECK(bad.message().find("not a whole number") != std::string::npos);
  auto range = Run(flags, {"-n", "101"}, &positional);
  CHECK(range.message().find("out of range") != std::string::npos);
}
