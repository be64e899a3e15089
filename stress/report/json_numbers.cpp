#include "stress/report/json_numbers.h"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace lather {
namespace {

// True (and `var` set to null, in place) when `var` is a non-finite float; recurses into containers.
bool Fix(Poco::Dynamic::Var& var) {
  if (var.type() == typeid(double) || var.type() == typeid(float)) {
    const double value = var.convert<double>();
    if (!std::isfinite(value)) {
      var.clear();
      return true;
    }
    return false;
  }
  if (var.type() == typeid(Poco::JSON::Object::Ptr)) {
    Poco::JSON::Object::Ptr inner = var.extract<Poco::JSON::Object::Ptr>();
    if (!inner.isNull()) NullNonFinite(*inner);
  } else if (var.type() == typeid(Poco::JSON::Array::Ptr)) {
    Poco::JSON::Array::Ptr inner = var.extract<Poco::JSON::Array::Ptr>();
    if (!inner.isNull()) NullNonFinite(*inner);
  } else if (var.type() == typeid(Poco::JSON::Object)) {
    NullNonFinite(const_cast<Poco::JSON::Object&>(var.extract<Poco::JSON::Object>()));
  } else if (var.type() == typeid(Poco::JSON::Array)) {
    NullNonFinite(const_cast<Poco::JSON::Array&>(var.extract<Poco::JSON::Array>()));
  }
  return false;
}

}  // namespace

// Both walk the values where they are held: a copy of each nested container held by value, and a set()
// putting it back, cost more than the rest of writing a report with its per-second histograms.
void NullNonFinite(Poco::JSON::Object& object) {
  for (auto& entry : object) Fix(entry.second);
}

void NullNonFinite(Poco::JSON::Array& array) {
  // Array offers no mutable iterator; its elements are not const objects.
  for (auto it = array.begin(); it != array.end(); ++it) Fix(const_cast<Poco::Dynamic::Var&>(*it));
}

std::string JsonText(Poco::JSON::Object* root) {
  NullNonFinite(*root);
  std::ostringstream os;
  root->stringify(os, 2);
  os << "\n";
  return os.str();
}

}  // namespace lather
