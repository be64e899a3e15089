// libFuzzer target: lather-stress's response checker on arbitrary response bodies, with each kind of
// expectation; it parses in place and must classify every input without crashing.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "stress/load/response_checker.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<std::unique_ptr<lather::ResponseChecker>> checkers = [] {
    std::vector<std::unique_ptr<lather::ResponseChecker>> all;
    lather::Expectation e;
    for (auto kind : {lather::Expectation::Kind::kNone, lather::Expectation::Kind::kPlusOne,
                      lather::Expectation::Kind::kEquals, lather::Expectation::Kind::kPositive,
                      lather::Expectation::Kind::kChildCount, lather::Expectation::Kind::kXPath}) {
      e.kind = kind;
      e.text = "Hello World";
      e.count = 3;
      e.xpath = "//*[local-name()='result'] = $n1";
      std::unique_ptr<lather::ResponseChecker> checker;
      if (lather::ResponseChecker::Create(e, &checker).ok()) all.push_back(std::move(checker));
    }
    return all;
  }();
  if (size == 0) return 0;
  const auto& checker = checkers[data[0] % checkers.size()];
  std::vector<char> body(data + 1, data + size);
  body.push_back('\0');
  size_t payload = 0;
  std::string detail;
  checker->Check(200, body.data(), body.size() - 1, 41, &payload, &detail);
  return 0;
}
