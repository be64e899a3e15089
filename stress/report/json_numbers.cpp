#include "stress/report/json_numbers.h"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace lather {
namespace {

// True (and `var` set to null) when `var` is a non-finite float; recurses into containers.
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

void NullNonFinite(Poco::JSON::Object& object) {
  std::vector<std::string> names;
  object.getNames(names);
  for (const std::string& name : names) {
    Poco::Dynamic::Var value = object.get(name);
    if (Fix(value)) {
      object.set(name, Poco::Dynamic::Var());
    } else if (value.type() == typeid(Poco::JSON::Object) || value.type() == typeid(Poco::JSON::Array)) {
      object.set(name, value);  // a container held by value was fixed in a copy: put it back
    }
  }
}

void NullNonFinite(Poco::JSON::Array& array) {
  for (unsigned i = 0; i < array.size(); ++i) {
    Poco::Dynamic::Var value = array.get(i);
    if (Fix(value)) {
      array.set(i, Poco::Dynamic::Var());
    } else if (value.type() == typeid(Poco::JSON::Object) || value.type() == typeid(Poco::JSON::Array)) {
      array.set(i, value);
    }
  }
}

std::string JsonText(Poco::JSON::Object* root) {
  NullNonFinite(*root);
  std::ostringstream os;
  root->stringify(os, 2);
  os << "\n";
  return os.str();
}

}  // namespace lather
