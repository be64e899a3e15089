#include "service/soap/operations.h"
#include "wsdl/sample_reader.h"

#include <catch2/catch.hpp>
#include <climits>

using lather::Operations;
using lather::Status;

TEST_CASE("Increment returns value + 1 across the int range", "[service][operations]") {
  Operations ops(nullptr);
  int32_t result = 0;
  REQUIRE(ops.Increment(41, &result).ok());
  CHECK(result == 42);
  REQUIRE(ops.Increment(-1, &result).ok());
  CHECK(result == 0);
  REQUIRE(ops.Increment(INT_MIN, &result).ok());
  CHECK(result == INT_MIN + 1);
  REQUIRE(ops.Increment(INT_MAX - 1, &result).ok());
  CHECK(result == INT_MAX);
}

TEST_CASE("Increment of 2147483647 is a client fault, never a wrapped number", "[service][operations]") {
  Operations ops(nullptr);
  int32_t result = 7;
  const Status s = ops.Increment(INT_MAX, &result);
  CHECK(s.kind() == Status::Kind::kInvalidArgument);
  CHECK(s.message().find("2147483647") != std::string::npos);
  CHECK(result == 7);
}

TEST_CASE("HelloWorld says Hello World", "[service][operations]") {
  CHECK(std::string(Operations::HelloWorld()) == "Hello World");
}

TEST_CASE("counter names must be 1 to 64 characters of valid UTF-8", "[service][operations]") {
  std::unique_ptr<lather::CounterStore> store;
  REQUIRE(lather::CounterStore::Open("sqlite::memory:", &store).ok());
  Operations ops(std::move(store));
  int64_t value = 0;
  CHECK(ops.IncCounter("", &value).kind() == Status::Kind::kInvalidArgument);
  CHECK(ops.IncCounter(std::string(65, 'a'), &value).kind() == Status::Kind::kInvalidArgument);
  CHECK(ops.IncCounter("\xC3", &value).kind() == Status::Kind::kInvalidArgument);
  std::string sixty_four_umlauts;
  for (int i = 0; i < 64; ++i) sixty_four_umlauts += "\xC3\xBC";
  REQUIRE(ops.IncCounter(sixty_four_umlauts, &value).ok());
  CHECK(value == 1);
  REQUIRE(ops.IncCounter(std::string(64, 'a'), &value).ok());
  CHECK(value == 1);
}

TEST_CASE("counter operations without a store are unavailable", "[service][operations]") {
  Operations ops(nullptr);
  int64_t value = 0;
  CHECK(ops.IncCounter("a", &value).kind() == Status::Kind::kUnavailable);
  CHECK(ops.GetCounter("a", &value).kind() == Status::Kind::kUnavailable);
}

TEST_CASE("Utf8Length counts code points and refuses malformed UTF-8", "[service][utf8]") {
  CHECK(lather::Utf8Length("") == 0);
  CHECK(lather::Utf8Length("abc") == 3);
  CHECK(lather::Utf8Length("Z\xC3\xBCrich") == 6);
  CHECK(lather::Utf8Length("\xE6\x9D\xB1\xE4\xBA\xAC") == 2);      // 東京
  CHECK(lather::Utf8Length("\xF0\x9F\x98\x80") == 1);              // an emoji
  CHECK(lather::Utf8Length("\xC0\xAF") == -1);                     // overlong '/'
  CHECK(lather::Utf8Length("\x80") == -1);                         // lone continuation
  CHECK(lather::Utf8Length("\xED\xA0\x80") == -1);                 // surrogate
  CHECK(lather::Utf8Length("\xE6\x9D") == -1);                     // truncated
  CHECK(lather::Utf8Length("\xF4\x90\x80\x80") == -1);             // above U+10FFFF
}

TEST_CASE("IsXsdDateTime accepts the lexical forms and nothing else", "[service][datetime]") {
  for (const char* ok : {"2024-05-01T12:30:00", "2024-05-01T12:30:00Z", "2024-05-01T12:30:00.123456+02:00",
                         "1901-12-31T23:59:59-14:00", "-0044-03-15T12:00:00Z", "12024-01-01T00:00:00Z",
                         "2000-01-01T24:00:00Z"}) {
    INFO(ok);
    CHECK(lather::IsXsdDateTime(ok));
  }
  for (const char* bad : {"", "2024-05-01", "2024-05-01 12:30:00", "2024-13-01T00:00:00", "2024-05-01T25:00:00",
                          "2024-05-01T12:30:00+2:00", "2024-05-01T12:30:00.Z", "24-05-01T12:30:00",
                          "2024-05-01T12:30:00Zjunk", "2024-05-01T12:60:00", "2024-05-01T12:30:00+15:00"}) {
    INFO(bad);
    CHECK_FALSE(lather::IsXsdDateTime(bad));
  }
}
