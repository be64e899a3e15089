// The XML Schema lexical forms of DataSample's simple values: the checks and parsers the sample reader
// uses for xsd:dateTime, unsignedInt, int, double and boolean (also used by the service's gSOAP path
// for dateOfBirth, which the typemap keeps as a string). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace lather {

// True if `text` is an xsd:dateTime lexical value: [-]YYYY-MM-DDThh:mm:ss[.f+][Z|(+|-)hh:mm].
bool IsXsdDateTime(std::string_view text);

// The xsd lexical forms the reader accepts (after white space is collapsed), parsed into *value;
// false (and *value unchanged) for anything else. unsignedInt: [+]digits up to 4294967295 ("-0" too);
// int: [+|-]digits in the int32 range; double: decimal or exponent form (exactly rounded), INF, +INF,
// -INF, NaN; boolean: true, false, 1, 0.
bool ParseXsdUnsignedInt(std::string_view text, uint32_t* value);
bool ParseXsdInt(std::string_view text, int32_t* value);
bool ParseXsdDouble(std::string_view text, double* value);
bool ParseXsdBoolean(std::string_view text, bool* value);

}  // namespace lather
