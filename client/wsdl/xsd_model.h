// The XML Schema model of a foreign WSDL's types: element declarations, complex types as particle trees,
// simple types reduced to their built-in base with the facets of every restriction step. Built by
// SchemaSet (schema_set.h); plain values, immutable once built, safe to read from many threads.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace lather::wsdl {

constexpr char kXsdNs[] = "http://www.w3.org/2001/XMLSchema";
constexpr char kXsiNs[] = "http://www.w3.org/2001/XMLSchema-instance";
constexpr char kSoapEnv11[] = "http://schemas.xmlsoap.org/soap/envelope/";  // SOAP 1.1 Envelope
constexpr char kSoapEnv12[] = "http://www.w3.org/2003/05/soap-envelope";     // SOAP 1.2 Envelope
constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

// A namespace-qualified name; `ns` is empty for an unqualified local element or attribute.
struct QName {
  std::string ns;
  std::string local;
  bool operator<(const QName& o) const { return ns != o.ns ? ns < o.ns : local < o.local; }
  bool operator==(const QName& o) const { return ns == o.ns && local == o.local; }
  // "{ns}local", or "local" when unqualified.
  std::string ToString() const { return ns.empty() ? local : "{" + ns + "}" + local; }
};

// The constraining facets of a simple type, gathered over its restriction steps.
struct Facets {
  std::vector<std::string> enumeration;              // empty: any value of the base
  std::vector<std::vector<std::string>> patterns;    // one list per step: a value matches one of each list
  std::optional<uint64_t> length, min_length, max_length;  // in characters (items for a list)
  std::optional<std::string> min_inclusive, max_inclusive, min_exclusive, max_exclusive;
  std::optional<uint32_t> total_digits, fraction_digits;
};

// A simple type: a built-in XSD type (its local name, "int", "string", "dateTime", ...) and facets.
struct SimpleType {
  std::string builtin = "string";
  Facets facets;
  bool list = false;          // xsd:list: white-space separated items of `builtin`
  std::vector<SimpleType> members;  // builtin "union": a value is one of these
  std::string display = "string";  // what `list` prints: "xsd:int", "Status(NEW|PAID)", ...
};

struct ComplexType;

struct Element {
  QName name;
  const ComplexType* complex = nullptr;  // null: a simple value of `simple`
  SimpleType simple;
  std::string type_display;              // the declared type as written ("xsd:int", "tns:Order")
  uint64_t min_occurs = 1;
  uint64_t max_occurs = 1;               // kUnbounded for "unbounded"
  bool nillable = false;
};

struct Attribute {
  QName name;
  SimpleType type;
  bool required = false;
  std::string fixed;    // a fixed value, written when the user sets none
};

// A model group or an element (a term with its occurrence bounds).
struct Particle {
  enum class Kind { kElement, kSequence, kChoice, kAll, kAny };
  Kind kind = Kind::kSequence;
  uint64_t min_occurs = 1;
  uint64_t max_occurs = 1;
  const Element* element = nullptr;   // kElement
  std::vector<Particle> children;     // the groups' terms, in order
};

struct ComplexType {
  QName name;                   // empty local for an anonymous type
  std::string display;          // "tns:Order" or "(anonymous)"
  Particle content;             // a kSequence, possibly empty
  std::vector<Attribute> attributes;
  bool simple_content = false;  // the element holds text of `value` (plus attributes)
  SimpleType value;
  bool mixed = false;
  bool any_type = false;        // xsd:anyType: any content, given as text
};

// The element particles of `content`, depth first (every branch of a choice), without kAny terms.
void CollectElements(const Particle& content, std::vector<const Particle*>* out);

}  // namespace lather::wsdl
