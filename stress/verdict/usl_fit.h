// The Universal Scalability Law (Gunther) fitted to a closed-model sweep: calls/s X at N connections is
// X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)), with lambda the rate of one connection, sigma
// the contention (the serialized share) and kappa the coherency cost (crosstalk that makes X fall past a
// peak). Least squares on relative errors over sigma, kappa >= 0 (lambda in closed form for each pair), by
// a coarse grid and a local refinement. Pure arithmetic; thread-safe.
#pragma once

#include <vector>

namespace lather {

struct UslPoint {
  double connections = 0;
  double calls_per_second = 0;
};

struct UslFit {
  bool ok = false;          // false: fewer than 4 usable points (N > 0, X > 0) or no fit
  double lambda = 0;        // calls/s of one connection, uncontended
  double sigma = 0;         // contention, 0..1
  double kappa = 0;         // coherency, >= 0
  double peak_connections = -1;  // N at the predicted peak, sqrt((1 - sigma) / kappa), at least 1; -1 when kappa == 0
  double peak_calls_per_second = -1;  // X at that N; with kappa == 0, the asymptote lambda / sigma (-1 if 0)
  double rms_relative_error = -1;     // of the fit at the points, 0..
};

// X(N) of a fit.
double UslPredict(const UslFit& fit, double connections);

UslFit FitUsl(const std::vector<UslPoint>& points);

}  // namespace lather
