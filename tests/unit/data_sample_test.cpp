#include "client/data_sample.h"

#include <catch2/catch.hpp>
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
