#include "stress/measure/thread_stats.h"

#include <catch2/catch.hpp>

#include <vector>

using lather::SecondStats;
using lather::ThreadStats;

namespace {

// The lengths of `seconds`, in order.
std::vector<double> Lengths(const std::vector<SecondStats>& seconds) {
  std::vector<double> lengths;
  for (const SecondStats& s : seconds) lengths.push_back(s.seconds);
  return lengths;
}

}  // namespace

TEST_CASE("a window of 2.3 s has seconds of 1, 1 and 0.3 s, and only the whole ones and the 0.3 s give a rate",
          "[stress][measure][series]") {
  std::vector<SecondStats> seconds(3);
  lather::SetSecondLengths(2.3, &seconds);
  REQUIRE(seconds.size() == 3);
  CHECK(seconds[0].seconds == 1);
  CHECK(seconds[1].seconds == 1);
  CHECK(seconds[2].seconds == Approx(0.3));
  seconds[2].calls_ok = 300;
  CHECK(seconds[2].rated());
  CHECK(seconds[2].PerSecond(seconds[2].calls_ok) == Approx(1000));

  lather::SetSecondLengths(2.1, &seconds);
  CHECK_FALSE(seconds[2].rated());  // 0.1 s: too few calls for a rate
  lather::SetSecondLengths(2.0, &seconds);
  CHECK(seconds[2].seconds == 0);   // wholly after the window
  CHECK(seconds[2].PerSecond(300) == 0);
}

TEST_CASE("merging per-thread stats keeps each second's real length", "[stress][measure][series]") {
  ThreadStats a, b, total;
  a.seconds.resize(3);
  lather::SetSecondLengths(2.3, &a.seconds);
  b.seconds.resize(2);
  total.Merge(a);  // into nothing: the lengths of a, not whole seconds
  CHECK(Lengths(total.seconds) == std::vector<double>{1, 1, a.seconds[2].seconds});
  total.Merge(b);  // a shorter one: the longer length of each second stays
  CHECK(Lengths(total.seconds) == std::vector<double>{1, 1, a.seconds[2].seconds});
  ThreadStats c;
  c.Merge(b);
  c.Merge(a);  // the partial last second comes from the second run
  CHECK(Lengths(c.seconds) == std::vector<double>{1, 1, a.seconds[2].seconds});
}
