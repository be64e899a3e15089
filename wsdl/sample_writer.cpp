#include "wsdl/sample_writer.h"

#include <charconv>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "wsdl/double_text.h"

namespace lather {
namespace {

// Bytes XML text must not hold literally: 1 for '&', '<', '>' and '\r' (which a reader would turn into '\n').
struct EscapeTable {
  bool escape[256] = {};
  constexpr EscapeTable() {
    escape[static_cast<unsigned char>('&')] = true;
    escape[static_cast<unsigned char>('<')] = true;
    escape[static_cast<unsigned char>('>')] = true;
    escape[static_cast<unsigned char>('\r')] = true;
  }
};
constexpr EscapeTable kEscape;

// The start and end tags of every contract element, spelled once per call with the caller's prefix.
class Tags {
 public:
  enum Name { kWrapper, kSamples, kSample, kFirstname, kLastname, kCity, kZip, kEmail, kContactNos, kItem,
              kDesignation, kExperience, kSalary, kCompanies, kDateOfBirth, kIsMarried, kChildren, kCount };

  Tags(std::string_view wrapper, std::string_view prefix) {
    static constexpr const char* kLocal[kCount] = {
        nullptr, "samples", "sample", "firstname", "lastname", "city", "zip", "email", "contactNos", "item",
        "designation", "experience", "salary", "companiesWorkedFor", "dateOfBirth", "isMarried", "children"};
    for (int i = 0; i < kCount; ++i) {
      const std::string_view local = i == kWrapper ? wrapper : std::string_view(kLocal[i]);
      std::string qname = prefix.empty() ? std::string(local) : std::string(prefix) + ":" + std::string(local);
      open_[i] = "<" + qname + ">";
      close_[i] = "</" + qname + ">";
    }
  }
  const std::string& open(Name n) const { return open_[n]; }
  // The start tag without its '>', for attributes to follow.
  std::string_view start(Name n) const { return std::string_view(open_[n]).substr(0, open_[n].size() - 1); }
  const std::string& close(Name n) const { return close_[n]; }

 private:
  std::string open_[kCount];
  std::string close_[kCount];
};

class Writer {
 public:
  Writer(const SampleSet& set, const Tags& tags, const SampleWriteForm& form, std::string* out)
      : set_(set), tags_(tags), form_(form), out_(*out) {}

  void Write() {
    if (set_.graph) CountReferences();
    Append(tags_.open(Tags::kWrapper));
    Append(tags_.open(Tags::kSamples));
    // One frame per open list: the list and the index of its next sample. A sample's end tags are
    // written when its children's frame is done.
    std::vector<std::pair<const std::vector<DataSample*>*, size_t>> stack;
    stack.emplace_back(&set_.samples, 0);
    while (true) {
      auto& [list, next] = stack.back();
      if (next == list->size()) {
        stack.pop_back();
        if (stack.empty()) break;
        Append(tags_.close(Tags::kChildren));
        Append(tags_.close(Tags::kSample));
        continue;
      }
      const DataSample* sample = (*list)[next++];
      if (set_.graph && WriteReference(sample)) continue;
      WriteFields(*sample);
      if (sample->children.empty()) {
        Append(tags_.close(Tags::kChildren));
        Append(tags_.close(Tags::kSample));
      } else {
        stack.emplace_back(&sample->children, 0);
      }
    }
    Append(tags_.close(Tags::kSamples));
    Append(tags_.close(Tags::kWrapper));
  }

 private:
  void Append(std::string_view s) { out_.append(s.data(), s.size()); }

  // How often each sample is referred to from a list (graph mode only), walked without recursion.
  void CountReferences() {
    std::vector<const DataSample*> pending;
    for (const DataSample* s : set_.samples) pending.push_back(s);
    while (!pending.empty()) {
      const DataSample* s = pending.back();
      pending.pop_back();
      if (++references_[s].count > 1) continue;  // its children are counted once
      for (const DataSample* child : s->children) pending.push_back(child);
    }
  }

  // In graph mode: a sample seen before is written as a reference (true); a shared one seen for the
  // first time gets its id in its start tag (false: the caller writes its fields).
  bool WriteReference(const DataSample* sample) {
    Reference& ref = references_[sample];
    const std::string_view sample_tag = tags_.start(Tags::kSample);
    if (ref.id != 0) {
      Append(sample_tag);
      if (form_.soap_version == 2) {
        Append(" ");
        Append(form_.encoding_prefix);
        Append(":ref=\"_");
      } else {
        Append(" href=\"#_");
      }
      AppendNumber(ref.id);
      Append("\"/>");
      return true;
    }
    if (ref.count > 1) {
      ref.id = ++last_id_;
      Append(sample_tag);
      if (form_.soap_version == 2) {
        Append(" ");
        Append(form_.encoding_prefix);
        Append(":id=\"_");
      } else {
        Append(" id=\"_");
      }
      AppendNumber(ref.id);
      Append("\">");
      opened_ = true;
    }
    return false;
  }

  template <typename Int>
  void AppendNumber(Int value) {
    char buffer[24];
    const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out_.append(buffer, static_cast<size_t>(r.ptr - buffer));
  }

  void Text(Tags::Name name, const std::string& value) {
    Append(tags_.open(name));
    AppendEscapedText(value, &out_);
    Append(tags_.close(name));
  }

  void List(Tags::Name name, const std::vector<std::string>& items) {
    Append(tags_.open(name));
    for (const std::string& item : items) Text(Tags::kItem, item);
    Append(tags_.close(name));
  }

  // The sample's start tag (unless WriteReference wrote it with an id) and every field up to the start
  // tag of its children.
  void WriteFields(const DataSample& s) {
    if (!opened_) Append(tags_.open(Tags::kSample));
    opened_ = false;
    Text(Tags::kFirstname, s.firstname);
    Text(Tags::kLastname, s.lastname);
    Text(Tags::kCity, s.city);
    Append(tags_.open(Tags::kZip));
    AppendNumber(s.zip);
    Append(tags_.close(Tags::kZip));
    Text(Tags::kEmail, s.email);
    List(Tags::kContactNos, s.contact_nos);
    Text(Tags::kDesignation, s.designation);
    Append(tags_.open(Tags::kExperience));
    AppendNumber(s.experience);
    Append(tags_.close(Tags::kExperience));
    Append(tags_.open(Tags::kSalary));
    char number[kXsdDoubleTextBytes];
    out_.append(number, FormatXsdDouble(s.salary, number));
    Append(tags_.close(Tags::kSalary));
    List(Tags::kCompanies, s.companies_worked_for);
    Text(Tags::kDateOfBirth, s.date_of_birth);
    Append(tags_.open(Tags::kIsMarried));
    Append(s.is_married ? std::string_view("true") : std::string_view("false"));
    Append(tags_.close(Tags::kIsMarried));
    Append(tags_.open(Tags::kChildren));
  }

  struct Reference {
    uint32_t count = 0;  // lists that hold the sample
    uint32_t id = 0;     // its id once written (0: none yet)
  };

  const SampleSet& set_;
  const Tags& tags_;
  const SampleWriteForm& form_;
  std::string& out_;
  std::unordered_map<const DataSample*, Reference> references_;
  uint32_t last_id_ = 0;
  bool opened_ = false;  // the current sample's start tag is written already (with its id)
};

}  // namespace

void AppendEscapedText(std::string_view text, std::string* out) {
  size_t done = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!kEscape.escape[c]) continue;
    out->append(text.data() + done, i - done);
    switch (c) {
      case '&': out->append("&amp;", 5); break;
      case '<': out->append("&lt;", 4); break;
      case '>': out->append("&gt;", 4); break;
      default: out->append("&#xD;", 5); break;
    }
    done = i + 1;
  }
  out->append(text.data() + done, text.size() - done);
}

void WriteSampleWrapper(const SampleSet& set, std::string_view wrapper, const SampleWriteForm& form,
                        std::string* out) {
  const Tags tags(wrapper, form.prefix);
  Writer(set, tags, form, out).Write();
}

}  // namespace lather
