#include "client/data_sample.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <climits>
#include <cmath>

using lather::DataSample;
using lather::FirstDifference;
using lather::GenerateSamples;
using lather::SampleSet;
using lather::SampleShape;

TEST_CASE("the generator is deterministic per seed and fills every field", "[client][samples]") {
  SampleShape shape;
  shape.count = 120;
  shape.depth = 2;
  shape.seed = 7;
  const SampleSet a = GenerateSamples(shape);
  const SampleSet b = GenerateSamples(shape);
  REQUIRE(a.samples.size() == 120);
  CHECK_FALSE(a.graph);
  CHECK(FirstDifference(a, b).empty());
  CHECK(a.samples[0]->children.size() == 2);
  CHECK(a.samples[0]->children[0]->children.size() == 2);
  CHECK(a.samples[0]->children[0]->children[0]->children.empty());
  CHECK(a.samples[1]->children.empty());
  CHECK(a.owned() == 120 + 3 * 6);  // samples 0, 50 and 100 have 2 children with 2 each
  for (const DataSample* s : a.samples) {
    CHECK_FALSE(s->firstname.empty());
    CHECK(s->contact_nos.size() == 2);
    CHECK(s->companies_worked_for.size() == 2);
    CHECK_FALSE(s->date_of_birth.empty());
  }
  shape.seed = 8;
  CHECK_FALSE(FirstDifference(a, GenerateSamples(shape)).empty());
}

TEST_CASE("FirstDifference names the path of the first differing field", "[client][samples]") {
  SampleShape shape;
  shape.count = 60;
  SampleSet a = GenerateSamples(shape);
  SampleSet b = GenerateSamples(shape);
  b.samples[50]->children[1]->zip += 1;
  CHECK(FirstDifference(a, b).find("samples[50].children[1].zip") == 0);
  b = GenerateSamples(shape);
  b.samples[3]->contact_nos.pop_back();
  CHECK(FirstDifference(a, b).find("samples[3].contact_nos count") == 0);
  b = GenerateSamples(shape);
  a.samples[4]->salary = std::nan("");
  b.samples[4]->salary = std::nan("");
  CHECK(FirstDifference(a, b).empty());
  b.samples[4]->salary = 0.0;
  CHECK(FirstDifference(a, b).find("samples[4].salary") == 0);
  a.samples[4]->salary = -0.0;
  CHECK_FALSE(FirstDifference(a, b).empty());  // -0.0 and 0.0 differ bit for bit
}

TEST_CASE("generated text varies in length and holds non-ASCII characters, and every 50th sample has children",
          "[client][samples]") {
  SampleShape shape;
  shape.count = 500;
  shape.seed = 3;
  const SampleSet samples = GenerateSamples(shape);
  size_t non_ascii = 0, shortest = SIZE_MAX, longest = 0;
  for (size_t i = 0; i < samples.samples.size(); ++i) {
    const DataSample& s = *samples.samples[i];
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

// One top-level sample with two empty children.
SampleSet TwoChildren() {
  SampleSet set;
  DataSample parent;
  parent.children = {set.Add(), set.Add()};
  set.Append(std::move(parent));
  return set;
}

TEST_CASE("FirstDifference reports strings, counts and nested children that differ", "[client][samples]") {
  const SampleSet a = TwoChildren();
  SampleSet b = TwoChildren();
  CHECK(FirstDifference(a, b).empty());
  b.samples[0]->children[1]->email = "x";
  CHECK(FirstDifference(a, b) == "samples[0].children[1].email: '' != 'x'");
  b = TwoChildren();
  b.samples[0]->children.pop_back();
  CHECK(FirstDifference(a, b).find("samples[0].children count: 2 != 1") == 0);
  CHECK(FirstDifference(a, SampleSet()).find("samples count: 1 != 0") == 0);
}

TEST_CASE("shared and cyclic generated samples are one object in two places, and FirstDifference checks identity",
          "[client][samples][graph]") {
  SampleShape shape;
  shape.count = 100;
  shape.shared = 3;
  shape.cycles = 2;
  const SampleSet a = GenerateSamples(shape);
  CHECK(a.graph);
  CHECK(a.owned() == 100 + 2 * 2);  // no sample copied: samples 0 and 50 have two children each
  // Shared: sample 0 is also the last child of sample 51.
  CHECK(a.samples[51]->children.back() == a.samples[0]);
  // A cycle: sample 3 (no children of its own) refers to itself.
  CHECK(std::find(a.samples[3]->children.begin(), a.samples[3]->children.end(), a.samples[3]) !=
        a.samples[3]->children.end());
  const SampleSet b = GenerateSamples(shape);
  CHECK(FirstDifference(a, b).empty());  // terminates on cycles

  // The same values as copies instead of one shared sample: identity differs.
  SampleSet shared = TwoChildren();
  shared.samples[0]->children[1] = shared.samples[0]->children[0];
  const SampleSet copies = TwoChildren();
  CHECK(FirstDifference(shared, copies).find("samples[0].children[1]: identity differs") == 0);
  CHECK(FirstDifference(copies, shared).find("samples[0].children[1]: identity differs") == 0);
}
