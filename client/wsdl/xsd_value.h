// The lexical checks of XSD simple values against a SimpleType (built-in forms and ranges, then the
// facets: enumeration, pattern, lengths, bounds, digits), sample values that pass them, and how a value
// of the type reads in JSON. Pure functions; thread-safe.
#pragma once

#include <string>

#include "client/wsdl/xsd_model.h"
#include "common/status.h"

namespace lather::wsdl {

// Ok if `text` is a valid value of `type`; InvalidArgument saying why ("'x' is not an xsd:int",
// "'BLUE' is not one of NEW, PAID"). A pattern that std::regex cannot compile is not checked and
// *unchecked (if given) names it.
Status CheckValue(const SimpleType& type, const std::string& text, std::string* unchecked = nullptr);

// A value of `type` that CheckValue accepts where one can be made: the first enumeration value, the
// lower bound of a range, "sample" padded or cut to the lengths, a date in 2000...
std::string SampleValue(const SimpleType& type);

enum class JsonKind { kString, kNumber, kBoolean };
// Numbers for the numeric built-ins (not INF/NaN), booleans for xsd:boolean, strings otherwise.
JsonKind JsonKindOf(const SimpleType& type);

}  // namespace lather::wsdl
