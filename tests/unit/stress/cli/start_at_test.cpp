#include "stress/cli/start_at.h"

#include <catch2/catch.hpp>

namespace {

constexpr int64_t kNow = 1'714'564'800'000'000'000;  // 2024-05-01T12:00:00Z
constexpr int64_t kSecond = 1'000'000'000;

int64_t At(const std::string& text) {
  int64_t at = 0;
  const lather::Status s = lather::ParseStartAt(text, kNow, &at);
  INFO(text << ": " << s.message());
  REQUIRE(s.ok());
  return at;
}

std::string Refusal(const std::string& text) {
  int64_t at = 0;
  return lather::ParseStartAt(text, kNow, &at).message();
}

}  // namespace

TEST_CASE("the start time takes RFC 3339, Unix seconds and +SECONDS", "[stress][start-at]") {
  CHECK(At("2024-05-01T12:00:30Z") == kNow + 30 * kSecond);
  CHECK(At("2024-05-01t12:00:30.25z") == kNow + 30 * kSecond + 250'000'000);
  CHECK(At("2024-05-01T14:01:00+02:00") == kNow + 60 * kSecond);
  CHECK(At("2024-05-01T11:00:00-01:00") == kNow);
  CHECK(At("1714564810") == kNow + 10 * kSecond);
  CHECK(At("1714564810.5") == kNow + 10 * kSecond + 500'000'000);
  CHECK(At("+30") == kNow + 30 * kSecond);
  CHECK(At("+0.5") == kNow + 500'000'000);
  CHECK(At("2024-05-01T11:59:59.5Z") == kNow - 500'000'000);  // half a second late is still now
}

TEST_CASE("the start time refuses other forms, the past and more than a day ahead", "[stress][start-at]") {
  CHECK(Refusal("2024-05-01T11:59:58Z") == "'2024-05-01T11:59:58Z' is 2 s in the past");
  CHECK(Refusal("2024-05-02T12:00:01Z") == "'2024-05-02T12:00:01Z' is more than 24 h away");
  CHECK(Refusal("+90000").find("more than 24 h away") != std::string::npos);
  CHECK(Refusal("2024-05-01T12:00:30").find("is not a time") != std::string::npos);  // no offset
  CHECK(Refusal("tomorrow").find("is not a time") != std::string::npos);
  CHECK(Refusal("+x") == "'+x' is not +SECONDS");
  CHECK(Refusal("2024-13-01T12:00:00Z").find("is not a time") != std::string::npos);
}
