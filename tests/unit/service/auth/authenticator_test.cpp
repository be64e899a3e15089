// Authenticator: the auth file parser, HTTP Basic decoding, and checks against real crypt(3) hashes.
#include <catch2/catch.hpp>
#include <crypt.h>

#include <memory>
#include <string>
#include <vector>

#include "service/auth/authenticator.h"

using lather::AuthEntry;
using lather::Authenticator;
using lather::ParseAuthFile;
using lather::Status;

namespace {

// A hash of `password` made by libxcrypt with a fresh salt of `prefix` ("$y$", "$2b$", "$6$"; low cost).
std::string MakeHash(const std::string& password, const char* prefix) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  REQUIRE(crypt_gensalt_rn(prefix, 0, nullptr, 0, setting, sizeof setting) != nullptr);
  crypt_data data{};
  const char* hash = crypt_rn(password.c_str(), setting, &data, sizeof data);
  REQUIRE(hash != nullptr);
  REQUIRE(hash[0] != '*');
  return hash;
}

}  // namespace

TEST_CASE("an auth file of user and hash lines with comments and blank lines parses", "[auth][unit]") {
  const std::string text = "# operators\n\nalice:" + MakeHash("a", "$6$") + "\r\n  bob:" + MakeHash("b", "$y$") +
                           "  \n# end\n";
  std::vector<AuthEntry> entries;
  REQUIRE(ParseAuthFile(text, "users.txt", &entries).ok());
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].user == "alice");
  CHECK(entries[0].line == 3);
  CHECK(entries[1].user == "bob");
  CHECK(entries[1].line == 4);
  CHECK(entries[1].hash.rfind("$y$", 0) == 0);
}

TEST_CASE("a malformed auth file line is refused with the file name and line number", "[auth][unit]") {
  const std::string good = "alice:" + MakeHash("a", "$6$") + "\n";
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"# c\nalice\n", "users.txt:2: expected user:HASH"},
      {":" + MakeHash("a", "$6$") + "\n", "users.txt:1: the user name is empty"},
      {good + "alice:" + MakeHash("b", "$6$") + "\n", "users.txt:2: user 'alice' is already defined on line 1"},
      {"alice:secret\n", "users.txt:1: the hash is not a crypt(3) string"},
      {"alice:$1$abcdefgh$0123456789abcdefghijkl\n", "users.txt:1: the hash uses a legacy method"},
      {"al ice:" + MakeHash("a", "$6$") + "\n", "users.txt:1: the user name holds a blank"},
      {"# only comments\n\n", "users.txt: no user:HASH line"},
  };
  for (const Case& c : cases) {
    std::vector<AuthEntry> entries;
    const Status s = ParseAuthFile(c.text, "users.txt", &entries);
    INFO(c.text);
    CHECK(s.kind() == Status::Kind::kInvalidArgument);
    CHECK(s.message().rfind(c.expected, 0) == 0);
  }
}

TEST_CASE("a hash cut short or reduced to its salt is refused at load with its line", "[auth][unit]") {
  const std::string full = MakeHash("a", "$6$");
  for (const std::string& bad : {full.substr(0, full.rfind('$')), full.substr(0, full.size() - 5)}) {
    std::vector<AuthEntry> entries;
    REQUIRE(ParseAuthFile("# x\nalice:" + bad + "\n", "f", &entries).ok());
    std::unique_ptr<Authenticator> auth;
    const Status s = Authenticator::FromEntries(entries, "f", &auth);
    INFO(bad);
    CHECK(s.kind() == Status::Kind::kInvalidArgument);
    CHECK(s.message().rfind("f:2: the hash of user 'alice' is incomplete", 0) == 0);
  }
}

TEST_CASE("Verify accepts the right password for yescrypt and bcrypt and sha512crypt hashes only", "[auth][unit]") {
  std::vector<AuthEntry> entries = {{"y", MakeHash("pw-y", "$y$"), 1},
                                    {"b", MakeHash("pw-b", "$2b$"), 2},
                                    {"s", MakeHash("pw-s", "$6$"), 3}};
  std::unique_ptr<Authenticator> auth;
  REQUIRE(Authenticator::FromEntries(entries, "f", &auth).ok());
  for (const char* user : {"y", "b", "s"}) {
    const std::string right = std::string("pw-") + user;
    CHECK_FALSE(auth->IsKnownGood(user, right));
    CHECK(auth->Verify(user, right));
    CHECK(auth->IsKnownGood(user, right));  // cached after one successful hash
    CHECK_FALSE(auth->Verify(user, right + "x"));
    CHECK_FALSE(auth->IsKnownGood(user, right + "x"));
    CHECK_FALSE(auth->Verify(user, ""));
  }
  CHECK_FALSE(auth->Verify("nobody", "pw-y"));
  CHECK_FALSE(auth->Verify("y", "pw-b"));  // another user's password
  CHECK_FALSE(auth->IsKnownGood("s", "pw-y"));
}

TEST_CASE("HTTP Basic credentials round-trip and malformed ones are refused", "[auth][unit]") {
  CHECK(lather::BasicAuthorization("Aladdin", "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  std::string user, password;
  REQUIRE(lather::ParseBasicAuthorization("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", &user, &password));
  CHECK(user == "Aladdin");
  CHECK(password == "open sesame");
  REQUIRE(lather::ParseBasicAuthorization(lather::BasicAuthorization("u", "p:w:x"), &user, &password));
  CHECK(user == "u");
  CHECK(password == "p:w:x");  // the first colon separates
  REQUIRE(lather::ParseBasicAuthorization("basic " + lather::BasicAuthorization("ab", "").substr(6), &user, &password));
  CHECK(user == "ab");
  CHECK(password.empty());
  CHECK_FALSE(lather::ParseBasicAuthorization("Bearer abc", &user, &password));
  CHECK_FALSE(lather::ParseBasicAuthorization("Basic", &user, &password));
  CHECK_FALSE(lather::ParseBasicAuthorization("Basic !!!!", &user, &password));
  CHECK_FALSE(lather::ParseBasicAuthorization("Basic YWJj", &user, &password));  // "abc": no colon
}
