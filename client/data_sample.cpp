#include "client/data_sample.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

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

DataSample* MakeSample(SampleSet* set, std::mt19937_64& rng, size_t index, int depth) {
  DataSample& s = *set->Add();
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
    for (size_t c = 0; c < 2; ++c) s.children.push_back(MakeSample(set, rng, index, depth - 1));
  }
  return &s;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

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

// The fields of `a` and `b` and the lengths of their children lists (not the children).
std::string CompareFields(const DataSample& a, const DataSample& b, const std::string& path) {
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
  if (d.empty() && a.children.size() != b.children.size()) {
    d = path + ".children count: " + std::to_string(a.children.size()) + " != " + std::to_string(b.children.size());
  }
  return d;
}

}  // namespace

SampleSet GenerateSamples(const SampleShape& shape) {
  std::mt19937_64 rng(shape.seed);
  SampleSet set;
  set.samples.reserve(shape.count);
  for (size_t i = 0; i < shape.count; ++i) set.samples.push_back(MakeSample(&set, rng, i, shape.depth));
  const size_t n = set.samples.size();
  if (n == 0 || (shape.shared == 0 && shape.cycles == 0)) return set;
  set.graph = true;
  // Shared: sample k*step also becomes the last child of the sample half the list further on.
  for (size_t k = 0; k < shape.shared; ++k) {
    DataSample* sample = set.samples[(k * 7) % n];
    set.samples[(k * 7 + n / 2 + 1) % n]->children.push_back(sample);
  }
  // Cycles: a child of the sample refers back to it (or, without children, the sample to itself).
  for (size_t k = 0; k < shape.cycles; ++k) {
    DataSample* sample = set.samples[(k * 11 + 3) % n];
    DataSample* holder = sample->children.empty() ? sample : sample->children.front();
    holder->children.push_back(sample);
  }
  return set;
}

std::string FirstDifference(const SampleSet& a, const SampleSet& b) {
  // Walked without recursion, pairing each sample of `a` with the one at the same place in `b`: a
  // pairing seen before must repeat exactly (the same sample in both, or a copy in neither).
  std::unordered_map<const DataSample*, const DataSample*> a_to_b, b_to_a;
  struct Frame {
    const std::vector<DataSample*>* a;
    const std::vector<DataSample*>* b;
    std::string path;
    size_t next = 0;
  };
  if (a.samples.size() != b.samples.size()) {
    return "samples count: " + std::to_string(a.samples.size()) + " != " + std::to_string(b.samples.size());
  }
  std::vector<Frame> stack;
  stack.push_back(Frame{&a.samples, &b.samples, "samples"});
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next == frame.a->size()) {
      stack.pop_back();
      continue;
    }
    const size_t i = frame.next++;
    const DataSample* x = (*frame.a)[i];
    const DataSample* y = (*frame.b)[i];
    const std::string path = frame.path + "[" + std::to_string(i) + "]";
    const auto seen_x = a_to_b.find(x);
    const auto seen_y = b_to_a.find(y);
    if (seen_x != a_to_b.end() || seen_y != b_to_a.end()) {
      if (seen_x == a_to_b.end() || seen_y == b_to_a.end() || seen_x->second != y || seen_y->second != x) {
        return path + ": identity differs (a sample met before in one is not the same sample in the other)";
      }
      continue;
    }
    a_to_b.emplace(x, y);
    b_to_a.emplace(y, x);
    std::string d = CompareFields(*x, *y, path);
    if (!d.empty()) return d;
    if (!x->children.empty()) stack.push_back(Frame{&x->children, &y->children, path + ".children"});
  }
  return {};
}

}  // namespace lather
