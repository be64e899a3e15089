// The Universal Scalability Law fit of a sweep: it recovers known coefficients, finds the peak, and says
// when there are too few points.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "stress/verdict/usl_fit.h"

using lather::FitUsl;
using lather::UslFit;
using lather::UslPoint;
using lather::UslPredict;

namespace {

std::vector<UslPoint> Curve(double lambda, double sigma, double kappa, double noise) {
  std::vector<UslPoint> points;
  int sign = 1;
  for (double n = 1; n <= 256; n *= 2) {
    const double x = lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
    points.push_back({n, x * (1 + sign * noise)});
    sign = -sign;
  }
  return points;
}

}  // namespace

TEST_CASE("the USL fit recovers the coefficients of a curve with a peak", "[stress][verdict][usl]") {
  const UslFit fit = FitUsl(Curve(1000, 0.05, 0.001, 0));
  REQUIRE(fit.ok);
  CHECK(fit.lambda == Approx(1000).epsilon(0.02));
  CHECK(fit.sigma == Approx(0.05).epsilon(0.05));
  CHECK(fit.kappa == Approx(0.001).epsilon(0.05));
  CHECK(fit.peak_connections == Approx(std::sqrt(0.95 / 0.001)).epsilon(0.05));
  CHECK(fit.peak_calls_per_second == Approx(UslPredict(fit, fit.peak_connections)));
  CHECK(fit.rms_relative_error < 0.01);
}

TEST_CASE("the USL fit of a noisy curve stays close and reports its error", "[stress][verdict][usl]") {
  const UslFit fit = FitUsl(Curve(5000, 0.2, 0.0005, 0.03));
  REQUIRE(fit.ok);
  CHECK(fit.sigma == Approx(0.2).epsilon(0.25));
  CHECK(fit.rms_relative_error == Approx(0.03).margin(0.02));
  CHECK(fit.peak_connections > 20);
  CHECK(fit.peak_connections < 80);
}

TEST_CASE("a curve without coherency cost has no peak but an asymptote", "[stress][verdict][usl]") {
  const UslFit fit = FitUsl(Curve(1000, 0.1, 0, 0));
  REQUIRE(fit.ok);
  CHECK(fit.kappa < 1e-6);
  if (fit.kappa == 0) {
    CHECK(fit.peak_connections < 0);
    CHECK(fit.peak_calls_per_second == Approx(10000).epsilon(0.05));  // lambda / sigma
  }
}

TEST_CASE("fewer than four usable points give no fit", "[stress][verdict][usl]") {
  CHECK(!FitUsl({{1, 100}, {2, 190}, {4, 350}}).ok);
  CHECK(!FitUsl({{1, 100}, {2, 0}, {4, 350}, {0, 10}}).ok);
  CHECK(!FitUsl({}).ok);
}
