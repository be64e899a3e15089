// JSON has no NaN or infinity: a figure that could not be computed is written as null. Walks a Poco JSON
// tree once before it is written, and writes it. Functions; thread-safe on distinct trees.
#pragma once

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <string>

namespace lather {

// Replaces every NaN or infinite number in `object` (nested objects and arrays included) with null.
void NullNonFinite(Poco::JSON::Object& object);
void NullNonFinite(Poco::JSON::Array& array);

// The document as lather-stress writes it: non-finite numbers made null, indented by 2, a final newline.
std::string JsonText(Poco::JSON::Object* root);

}  // namespace lather
