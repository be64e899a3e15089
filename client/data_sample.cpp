#include "client/data_sample.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace lather {
namespace {

constexpr const char* kFirstNames[] = {"Anna", "Jürgen", "Søren", "Zoë", "Mateo", "Yuki", "Олег", "李", "Amélie",
                                       "Kwame", "Priya", "José"};
constexpr const char* kLastNames[] = {"Müller", "Øster", "García", "Nakamura", "Иванов", "王", "O'Brien",
                                      "Dubois", "Okafor", "Sharma", "Nguyễn", "Smith"};
constexpr const char* kCities[] = {"Zürich", "東京", "Ærøskøbing", "São Paulo", "Москва", "Kraków", "Lagos",
                                   "Mumbai", "Montréal", "Reykjavík", "İstanbul", "Springfield"};
constexpr const char* kDesignations[] = {"Software Engineer", "Directrice financière", "Lead Architect",
                                         "Projektleiter", "Data Scientist", "Operations Manager"};
constexpr const char* kCompanies[] = {"Initech", "Globex Corporation", "Umbrella AG", "Soylent & Söhne",
                                      "Stark Industries", "株式会社サンプル", "Acme Ltd."};
constexpr const char* kOffsets[] = {"Z", "+01:00", "-05:00", "+09:00", "+05:30", "-03:30"};

template <size_t N>
const char* Pick(const char* const (&list)[N], std::mt19937_64& rng) {
  return list[rng() % N];
}

DataSample MakeSample(std::mt19937_64& rng, size_t index, int depth) {
  DataSample s;
  s.firstname = Pick(kFirstNames, rng);
  if (rng() % 4 == 0) s.firstname += std::string(" ") + Pick(kFirstNames, rng);  // a second given name
  s.lastname = Pick(kLastNames, rng);
  s.city = Pick(kCities, rng);
  s.zip = static_cast<uint32_t>(rng() % 100000);
  s.email = "user" + std::to_string(index) + "." + std::to_string(rng() % 1000) + "@example.org";
  for (int i = 0; i < 2; ++i) {
    char phone[32];
    std::snprintf(phone, sizeof phone, "+%u %03u %04u", static_cast<unsigned>(1 + rng() % 98),
                  static_cast<unsigned>(rng() % 1000), static_cast<unsigned>(rng() % 10000));
    s.contact_nos.emplace_back(phone);
  }
  s.designation = Pick(kDesignations, rng);
  if (rng() % 3 == 0) s.designation = "Senior " + s.designation;
  s.experience = static_cast<int32_t>(rng() % 45);
  s.salary = static_cast<double>(rng() % 20000000) / 100.0;
  s.companies_worked_for = {Pick(kCompanies, rng), Pick(kCompanies, rng)};
  char date[48];
  std::snprintf(date, sizeof date, "%04u-%02u-%02uT%02u:%02u:%02u%s", static_cast<unsigned>(1940 + rng() % 70),
                static_cast<unsigned>(1 + rng() % 12), static_cast<unsigned>(1 + rng() % 28),
                static_cast<unsigned>(rng() % 24), static_cast<unsigned>(rng() % 60),
                static_cast<unsigned>(rng() % 60), Pick(kOffsets, rng));
  s.date_of_birth = date;
  s.is_married = (rng() & 1) != 0;
  if (depth > 0 && index % 50 == 0) {
    for (size_t c = 0; c < 2; ++c) s.children.push_back(MakeSample(rng, index, depth - 1));
  }
  return s;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string Compare(const DataSample& a, const DataSample& b, const std::string& path);

std::string CompareLists(const std::vector<DataSample>& a, const std::vector<DataSample>& b,
                         const std::string& path) {
  if (a.size() != b.size()) {
    return path + " count: " + std::to_string(a.size()) + " != " + std::to_string(b.size());
  }
  for (size_t i = 0; i < a.size(); ++i) {
    std::string d = Compare(a[i], b[i], path + "[" + std::to_string(i) + "]");
    if (!d.empty()) return d;
  }
  return {};
}

std::string CompareStrings(const std::vector<std::string>& a, const std::vector<std::string>& b,
                           const std::string& path) {
  if (a.size() != b.size()) {
    return path + " count: " + std::to_string(a.size()) + " != " + std::to_string(b.size());
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return path + "[" + std::to_string(i) + "]: " + Quote(a[i]) + " != " + Quote(b[i]);
  }
  return {};
}

bool SameDouble(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

std::string Compare(const DataSample& a, const DataSample& b, const std::string& path) {
#define LATHER_CMP_STR(f) \
  if (a.f != b.f) return path + "." #f ": " + Quote(a.f) + " != " + Quote(b.f)
#define LATHER_CMP_NUM(f) \
  if (a.f != b.f) return path + "." #f ": " + std::to_string(a.f) + " != " + std::to_string(b.f)
  LATHER_CMP_STR(firstname);
  LATHER_CMP_STR(lastname);
  LATHER_CMP_STR(city);
  LATHER_CMP_NUM(zip);
  LATHER_CMP_STR(email);
  LATHER_CMP_STR(designation);
  LATHER_CMP_NUM(experience);
  LATHER_CMP_STR(date_of_birth);
  LATHER_CMP_NUM(is_married);
#undef LATHER_CMP_STR
#undef LATHER_CMP_NUM
  if (!SameDouble(a.salary, b.salary)) {
    return path + ".salary: " + std::to_string(a.salary) + " != " + std::to_string(b.salary);
  }
  std::string d = CompareStrings(a.contact_nos, b.contact_nos, path + ".contact_nos");
  if (d.empty()) d = CompareStrings(a.companies_worked_for, b.companies_worked_for, path + ".companies_worked_for");
  if (d.empty()) d = CompareLists(a.children, b.children, path + ".children");
  return d;
}

}  // namespace

std::vector<DataSample> GenerateSamples(const SampleShape& shape) {
  std::mt19937_64 rng(shape.seed);
  std::vector<DataSample> samples;
  samples.reserve(shape.count);
  for (size_t i = 0; i < shape.count; ++i) samples.push_back(MakeSample(rng, i, shape.depth));
  return samples;
}

std::string FirstDifference(const std::vector<DataSample>& a, const std::vector<DataSample>& b) {
  return CompareLists(a, b, "samples");
}

}  // namespace lather
