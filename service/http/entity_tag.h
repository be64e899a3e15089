// Entity tags (RFC 9110 8.8.3) and the If-Match / If-None-Match lists that name them (13.1.1, 13.1.2): the
// tag of a representation's bytes, and whether a field's list matches it. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace lather {

// A strong entity tag for `content`, quotes included: "\"<16 hex digits>\"" (64-bit FNV-1a of the bytes).
std::string StrongEntityTag(std::string_view content);

// True if the comma-separated list `field` (an If-Match or If-None-Match value) is "*" or names `tag`.
// Strong comparison (If-Match) ignores weak tags (W/"..."); weak comparison (If-None-Match) accepts them.
bool EntityTagListMatches(std::string_view field, std::string_view tag, bool weak);

}  // namespace lather
