// The checker's reuse of a known answer: every verdict, payload and detail must be the full check's
// (a fresh checker that has learned nothing), and the byte comparison must be what judged the repeats.
#include "stress/load/known_answer.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "stress/load/response_checker.h"

using lather::CallOutcome;
using lather::Expectation;
using lather::KnownAnswer;
using lather::ResponseChecker;

namespace {

std::string Envelope(const std::string& content) {
  return "<?xml version=\"1.0\"?><S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\" "
         "xmlns:l=\"urn:lather:v1\"><S:Body>" +
         content + "</S:Body></S:Envelope>";
}

std::string Answer(const std::string& result) {
  return Envelope("<l:IncrementResponse><l:result>" + result + "</l:result></l:IncrementResponse>");
}

struct Verdict {
  CallOutcome outcome;
  size_t payload;
  std::string detail;
  bool parsed;  // the body was parsed in place (the full check), not compared
};

Verdict Judge(ResponseChecker* checker, int status, const std::string& body, uint64_t n) {
  std::string copy = body;
  Verdict v{CallOutcome::kOk, 0, "", false};
  v.outcome = checker->Check(status, copy.data(), copy.size(), n, &v.payload, &v.detail);
  v.parsed = copy != body;
  return v;
}

// Judges `body` with `learned` and with a fresh checker; both must agree. Returns the learned one's.
Verdict SameAsFullCheck(const Expectation& e, ResponseChecker* learned, int status, const std::string& body,
                        uint64_t n) {
  std::unique_ptr<ResponseChecker> fresh;
  REQUIRE(ResponseChecker::Create(e, &fresh).ok());
  const Verdict want = Judge(fresh.get(), status, body, n);
  const Verdict got = Judge(learned, status, body, n);
  CHECK(got.outcome == want.outcome);
  CHECK(got.payload == want.payload);
  CHECK(got.detail == want.detail);
  return got;
}

}  // namespace

TEST_CASE("an Increment answer like one that passed is judged by its bytes, as the full check would",
          "[stress][checker]") {
  Expectation e;
  e.kind = Expectation::Kind::kPlusOne;
  std::unique_ptr<ResponseChecker> checker;
  REQUIRE(ResponseChecker::Create(e, &checker).ok());
  CHECK(SameAsFullCheck(e, checker.get(), 200, Answer("42"), 41).parsed);  // learned here

  const Verdict repeat = SameAsFullCheck(e, checker.get(), 200, Answer("100"), 99);
  CHECK(repeat.outcome == CallOutcome::kOk);
  CHECK(repeat.payload == 3);
  CHECK_FALSE(repeat.parsed);
  CHECK_FALSE(SameAsFullCheck(e, checker.get(), 200, Answer("1000000000"), 999999999).parsed);

  // Anything else is parsed and judged as before.
  const Verdict wrong = SameAsFullCheck(e, checker.get(), 200, Answer("101"), 99);
  CHECK(wrong.outcome == CallOutcome::kMismatch);
  CHECK(wrong.parsed);
  CHECK(SameAsFullCheck(e, checker.get(), 500, Answer("100"), 99).outcome == CallOutcome::kStatus);
  CHECK(SameAsFullCheck(e, checker.get(), 200, Answer("0100"), 99).parsed);
  CHECK(SameAsFullCheck(e, checker.get(), 200, Answer(" 100"), 99).parsed);
  CHECK(SameAsFullCheck(e, checker.get(), 200, Answer("10&#48;"), 99).parsed);
  std::string broken = Answer("100");
  broken[broken.size() - 3] = 'X';  // </S:Envelope> no longer closes
  CHECK(SameAsFullCheck(e, checker.get(), 200, broken, 99).outcome == CallOutcome::kMalformed);
  const std::string whole = Answer("100");
  CHECK(SameAsFullCheck(e, checker.get(), 200, whole.substr(0, whole.size() - 1), 99).outcome ==
        CallOutcome::kMalformed);
  // ... and the known answer still serves afterwards; another answer that passes replaces it.
  CHECK_FALSE(SameAsFullCheck(e, checker.get(), 200, Answer("8"), 7).parsed);
  CHECK(SameAsFullCheck(e, checker.get(), 200, Answer("100") + " ", 99).parsed);
  CHECK_FALSE(SameAsFullCheck(e, checker.get(), 200, Answer("9") + " ", 8).parsed);
  CHECK(SameAsFullCheck(e, checker.get(), 200, Answer("9"), 8).parsed);
}

TEST_CASE("a result not in its plain decimal form is never reused, and judged in full each time",
          "[stress][checker]") {
  Expectation e;
  e.kind = Expectation::Kind::kPlusOne;
  std::unique_ptr<ResponseChecker> checker;
  REQUIRE(ResponseChecker::Create(e, &checker).ok());
  for (const char* form : {" 42", "042", "+42", "4&#50;", "<![CDATA[42]]>"}) {
    const Verdict first = SameAsFullCheck(e, checker.get(), 200, Answer(form), 41);
    CHECK(first.parsed);
    const Verdict again = SameAsFullCheck(e, checker.get(), 200, Answer(form), 41);
    CHECK(again.parsed);
  }
}

TEST_CASE("answers that do not depend on the call are reused whole, an XPath's never", "[stress][checker]") {
  Expectation equals;
  equals.kind = Expectation::Kind::kEquals;
  equals.text = "Hello World";
  Expectation none;
  Expectation count;
  count.kind = Expectation::Kind::kChildCount;
  count.count = 2;
  Expectation positive;
  positive.kind = Expectation::Kind::kPositive;
  const std::vector<std::pair<Expectation, std::string>> cases = {
      {equals, Envelope("<l:R><l:result>Hello World</l:result></l:R>")},
      {none, Envelope("<l:R><l:result>anything</l:result></l:R>")},
      {count, Envelope("<l:R><l:samples><l:sample/><l:sample/></l:samples></l:R>")},
      {positive, Envelope("<l:R><l:result>7</l:result></l:R>")}};
  for (const auto& [e, body] : cases) {
    std::unique_ptr<ResponseChecker> checker;
    REQUIRE(ResponseChecker::Create(e, &checker).ok());
    CHECK(SameAsFullCheck(e, checker.get(), 200, body, 1).parsed);
    const Verdict repeat = SameAsFullCheck(e, checker.get(), 200, body, 2);
    CHECK(repeat.outcome == CallOutcome::kOk);
    CHECK_FALSE(repeat.parsed);
    CHECK(SameAsFullCheck(e, checker.get(), 503, body, 3).outcome == CallOutcome::kStatus);
  }

  Expectation xpath;
  xpath.kind = Expectation::Kind::kXPath;
  xpath.xpath = "//*[local-name()='result'] = $n1";
  std::unique_ptr<ResponseChecker> checker;
  REQUIRE(ResponseChecker::Create(xpath, &checker).ok());
  const std::string ten = Envelope("<l:R><l:result>10</l:result></l:R>");
  CHECK(SameAsFullCheck(xpath, checker.get(), 200, ten, 9).outcome == CallOutcome::kOk);
  const Verdict again = SameAsFullCheck(xpath, checker.get(), 200, ten, 10);
  CHECK(again.outcome == CallOutcome::kMismatch);
  CHECK(again.parsed);
}

TEST_CASE("a known answer stops learning answers that never repeat, until one matches", "[stress][checker]") {
  KnownAnswer known;
  size_t payload = 0;
  CHECK_FALSE(known.Matches("x", 1, 0, &payload));
  for (int i = 0; i < KnownAnswer::kMaxLearnsWithoutMatch; ++i) {
    REQUIRE(known.WouldLearn(10));
    const std::string body = "answer " + std::to_string(i);
    known.Learn(body.data(), body.size(), body.size(), 0, 1);
  }
  CHECK_FALSE(known.WouldLearn(10));
  const std::string last = "answer " + std::to_string(KnownAnswer::kMaxLearnsWithoutMatch - 1);
  REQUIRE(known.Matches(last.data(), last.size(), 0, &payload));
  CHECK(payload == 1);
  CHECK(known.WouldLearn(10));
  CHECK_FALSE(known.WouldLearn(KnownAnswer::kMaxBytes + 1));

  known.Learn("<r>42</r>", 9, 3, 2, 5);  // digits at 3..4, 3 payload bytes besides them
  REQUIRE(known.Matches("<r>-7</r>", 9, -7, &payload));
  CHECK(payload == 5);
  REQUIRE(known.Matches("<r>12345</r>", 12, 12345, &payload));
  CHECK(payload == 8);
  CHECK_FALSE(known.Matches("<r>12345</r>", 12, 12346, &payload));
  CHECK_FALSE(known.Matches("<s>42</r>", 9, 42, &payload));
}
