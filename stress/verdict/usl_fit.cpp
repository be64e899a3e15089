#include "stress/verdict/usl_fit.h"

#include <algorithm>
#include <cmath>

namespace lather {
namespace {

double Shape(double n, double sigma, double kappa) { return n / (1 + sigma * (n - 1) + kappa * n * (n - 1)); }

// For given sigma and kappa, the lambda that minimizes the squared relative error, and that error.
double Error(const std::vector<UslPoint>& points, double sigma, double kappa, double* lambda) {
  double a = 0, b = 0;  // sum g/X and sum (g/X)^2
  for (const UslPoint& p : points) {
    const double r = Shape(p.connections, sigma, kappa) / p.calls_per_second;
    a += r;
    b += r * r;
  }
  *lambda = b > 0 ? a / b : 0;
  double e = 0;
  for (const UslPoint& p : points) {
    const double d = (*lambda * Shape(p.connections, sigma, kappa) - p.calls_per_second) / p.calls_per_second;
    e += d * d;
  }
  return e;
}

}  // namespace

double UslPredict(const UslFit& fit, double connections) {
  return fit.lambda * Shape(connections, fit.sigma, fit.kappa);
}

UslFit FitUsl(const std::vector<UslPoint>& input) {
  UslFit fit;
  std::vector<UslPoint> points;
  for (const UslPoint& p : input) {
    if (p.connections > 0 && p.calls_per_second > 0 && std::isfinite(p.connections) && std::isfinite(p.calls_per_second))
      points.push_back(p);
  }
  if (points.size() < 4) return fit;
  // The law is linear in its inverse: N / X = (1 + sigma (N - 1) + kappa N (N - 1)) / lambda. Weighted least
  // squares (weights 1 / (N/X)^2, so errors count relative) over each subset of the coefficients that keeps
  // sigma and kappa >= 0; the best feasible one by the real objective starts the refinement.
  double best = INFINITY, sigma = 0, kappa = 0, lambda = 0;
  const bool subsets[4][2] = {{true, true}, {true, false}, {false, true}, {false, false}};
  for (const auto& use : subsets) {
    // Columns: 1, (N - 1) if use[0], N (N - 1) if use[1].
    double m[3][4] = {};
    int k = 1 + (use[0] ? 1 : 0) + (use[1] ? 1 : 0);
    for (const UslPoint& p : points) {
      const double y = p.connections / p.calls_per_second;
      const double w = 1 / (y * y);
      double x[3] = {1, 0, 0};
      int c = 1;
      if (use[0]) x[c++] = p.connections - 1;
      if (use[1]) x[c++] = p.connections * (p.connections - 1);
      for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) m[i][j] += w * x[i] * x[j];
        m[i][3] += w * x[i] * y;
      }
    }
    // Gaussian elimination with partial pivoting on the k x k system.
    bool singular = false;
    for (int col = 0; col < k && !singular; ++col) {
      int pivot = col;
      for (int r = col + 1; r < k; ++r) {
        if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
      }
      if (std::fabs(m[pivot][col]) < 1e-300) {
        singular = true;
        break;
      }
      for (int j = 0; j < 4; ++j) std::swap(m[col][j], m[pivot][j]);
      for (int r = 0; r < k; ++r) {
        if (r == col) continue;
        const double f = m[r][col] / m[col][col];
        for (int j = col; j < 4; ++j) m[r][j] -= f * m[col][j];
      }
    }
    if (singular) continue;
    double coef[3] = {0, 0, 0};
    for (int i = 0; i < k; ++i) coef[i] = m[i][3] / m[i][i];
    const double a = coef[0];
    int c = 1;
    const double b = use[0] ? coef[c++] : 0;
    const double cc = use[1] ? coef[c++] : 0;
    if (!(a > 0) || b < 0 || cc < 0) continue;
    const double s_try = std::min(1.0, b / a), k_try = cc / a;
    double l = 0;
    const double e = Error(points, s_try, k_try, &l);
    if (e < best) {
      best = e;
      sigma = s_try;
      kappa = k_try;
      lambda = l;
    }
  }
  if (!std::isfinite(best)) {
    sigma = kappa = 0;
    best = Error(points, 0, 0, &lambda);
  }
  // Refinement: pattern search with shrinking steps, staying in sigma in [0, 1], kappa >= 0.
  double ds = std::max(sigma, 1e-4) * 0.5, dk = std::max(kappa, 1e-7) * 0.5;
  for (int i = 0; i < 400 && (ds > 1e-9 || dk > 1e-12); ++i) {
    bool moved = false;
    const double tries[4][2] = {{ds, 0}, {-ds, 0}, {0, dk}, {0, -dk}};
    for (const auto& t : tries) {
      const double s = sigma + t[0], k = kappa + t[1];
      if (s < 0 || s > 1 || k < 0) continue;
      double l = 0;
      const double e = Error(points, s, k, &l);
      if (e < best) {
        best = e;
        sigma = s;
        kappa = k;
        lambda = l;
        moved = true;
      }
    }
    if (!moved) {
      ds *= 0.5;
      dk *= 0.5;
    }
  }
  if (!(lambda > 0) || !std::isfinite(best)) return fit;
  fit.ok = true;
  fit.lambda = lambda;
  fit.sigma = sigma;
  fit.kappa = kappa;
  fit.rms_relative_error = std::sqrt(best / static_cast<double>(points.size()));
  if (kappa > 0) {
    fit.peak_connections = std::max(1.0, std::sqrt((1 - sigma) / kappa));  // sigma = 1: it falls from the first
    fit.peak_calls_per_second = UslPredict(fit, fit.peak_connections);
  } else if (sigma > 0) {
    fit.peak_calls_per_second = lambda / sigma;  // the asymptote: it never falls
  }
  return fit;
}

}  // namespace lather
