#include "client/data_sample.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <climits>
#include <cmath>

using lather::DataSample;
using lather::FirstDifference;
using lather::GenerateSamples;
using lather::SampleShape;

TEST_CASE("the generator is deterministic per seed and fills every field", "[client][samples]") {
  SampleShape shape;
  shape.count = 120;
  shape.depth = 2;
  shape.seed = 7;
  const auto a = GenerateSamples(shape);
  const auto b = GenerateSamples(shape);
  REQUIRE(a.size() == 120);
  CHECK(FirstDifference(a, b).empty());
  CHECK(a[0].children.size() == 2);
  CHECK(a[0].children[0].children.size() == 2);
  CHECK(a[0].children[0].children[0].children.empty());
  CHECK(a[1].children.empty());
  for (const DataSample& s : a) {
    CHECK_FALSE(s.firstname.empty());
    CHECK(s.contact_nos.size() == 2);
    CHECK(s.companies_worked_for.size() == 2);
    CHECK_FALSE(s.date_of_birth.empty());
  }
  shape.seed = 8;
  CHECK_FALSE(FirstDifference(a, GenerateSamples(shape)).empty());
}

TEST_CASE("FirstDifference names the path of the first differing field", "[client][samples]") {
  SampleShape shape;
  shape.count = 60;
  auto a = GenerateSamples(shape);
  auto b = a;
  b[50].children[1].zip += 1;
  CHECK(FirstDifference(a, b).find("samples[50].children[1].zip") == 0);
  b = a;
  b[3].contact_nos.pop_back();
  CHECK(FirstDifference(a, b).find("samples[3].contact_nos count") == 0);
  b = a;
  a[4].salary = std::nan("");
  b[4].salary = std::nan("");
  CHECK(FirstDifference(a, b).empty());
  b[4].salary = 0.0;
  CHECK(FirstDifference(a, b).find("samples[4].salary") == 0);
  a[4].salary = -0.0;
  CHECK_FALSE(FirstDifference(a, b).empty());  // -0.0 and 0.0 differ bit for bit
}

TEST_CASE("generated text varies in length and holds non-ASCII characters, and every 50th sample has children",
          "[client][samples]") {
  SampleShape shape;
  shape.count = 500;
  shape.seed = 3;
  const auto samples = GenerateSamples(shape);
  size_t non_ascii = 0, shortest = SIZE_MAX, longest = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const DataSample& s = samples[i];
    CHECK(s.children.size() == (i % 50 == 0 ? 2u : 0u));
    const std::string text = s.firstname + s.lastname + s.city + s.designation + s.companies_worked_for[0];
    for (unsigned char c : text) {
      if (c >= 0x80) {
        ++non_ascii;
        break;
      }
    }
    shortest = std::min(shortest, text.size());
    longest = std::max(longest, text.size());
  }
  CHECK(non_ascii > 100);
  CHECK(longest > shortest * 2);
}

TEST_CASE("FirstDifference reports strings, counts and nested children that differ", "[client][samples]") {
  DataSample a;
  a.children.resize(2);
  DataSample b = a;
  CHECK(FirstDifference({a}, {b}).empty());
  b.children[1].email = "x";
  CHECK(FirstDifference({a}, {b}) == "samples[0].children[1].email: '' != 'x'");
  b = a;
  b.children.pop_back();
  CHECK(FirstDifference({a}, {b}).find("samples[0].children count: 2 != 1") == 0);
  CHECK(FirstDifference({a}, {}).find("samples count: 1 != 0") == 0);
}
