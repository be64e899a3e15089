#include "service/http/http_request_parser.h"

#include <algorithm>
#include <cstring>

#include "common/char_table.h"
#include "service/http/host_syntax.h"

namespace lather {
namespace {

// A decoded chunked body's first allocation, and the most of one kept for the connection's next request.
constexpr size_t kChunkedBodyStart = 16 * 1024;
constexpr size_t kChunkedBodyKept = 64 * 1024;

// RFC 9110 5.6.2: tchar.
constexpr CharTable kTokenChar([](char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
    case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
});

bool IsToken(std::string_view s) {
  for (char c : s) {
    if (!kTokenChar(c)) return false;
  }
  return true;
}

// `text` equals `lower` (a literal in lower case) ignoring the case of ASCII letters (lather::EqualsIgnoreCase,
// http_response.h, lowers both sides).
bool EqualsLower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c) != lower[i]) return false;
  }
  return true;
}

// The header fields the parser reads; kOther for the rest.
enum class Field {
  kOther, kContentLength, kTransferEncoding, kContentType, kContentEncoding, kSoapAction, kHost, kAuthorization,
  kForwardedProto, kIfMatch, kIfNoneMatch, kFault, kForwardedFor, kConnection, kExpect
};

// `name` (a token) equals `lower` (lower-case letters and '-') ignoring case. Between such a pair, setting bit 5
// of each of the name's bytes lower-cases its letters and turns no other token byte into one `lower` can hold (it
// changes only A-Z, '^' and '_'), so eight bytes are compared at a time.
bool TokenEquals(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t a, b;
    std::memcpy(&a, name.data() + i, 8);
    std::memcpy(&b, lower.data() + i, 8);
    if ((a | 0x2020202020202020ULL) != b) return false;
  }
  for (; i < name.size(); ++i) {
    if (static_cast<char>(name[i] | 0x20) != lower[i]) return false;
  }
  return true;
}

// Which field a header name (a token) is, case-insensitively: by its length first, so that a name is
// compared with at most two candidates.
Field FieldOf(std::string_view name) {
  switch (name.size()) {
    case 4: return TokenEquals(name, "host") ? Field::kHost : Field::kOther;
    case 6: return TokenEquals(name, "expect") ? Field::kExpect : Field::kOther;
    case 8: return TokenEquals(name, "if-match") ? Field::kIfMatch : Field::kOther;
    case 10:
      if (TokenEquals(name, "soapaction")) return Field::kSoapAction;
      return TokenEquals(name, "connection") ? Field::kConnection : Field::kOther;
    case 12: return TokenEquals(name, "content-type") ? Field::kContentType : Field::kOther;
    case 13:
      if (TokenEquals(name, "authorization")) return Field::kAuthorization;
      return TokenEquals(name, "if-none-match") ? Field::kIfNoneMatch : Field::kOther;
    case 14:
      if (TokenEquals(name, "content-length")) return Field::kContentLength;
      return TokenEquals(name, "x-lather-fault") ? Field::kFault : Field::kOther;
    case 15: return TokenEquals(name, "x-forwarded-for") ? Field::kForwardedFor : Field::kOther;
    case 16: return TokenEquals(name, "content-encoding") ? Field::kContentEncoding : Field::kOther;
    case 17:
      if (TokenEquals(name, "transfer-encoding")) return Field::kTransferEncoding;
      return TokenEquals(name, "x-forwarded-proto") ? Field::kForwardedProto : Field::kOther;
    default: return Field::kOther;
  }
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parses 1*DIGIT into *out; false on anything else or overflow.
bool ParseDecimal(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// Calls visit(member) for each non-empty member of a comma-separated header value, blanks trimmed
// (RFC 9110 5.6.1: empty members are ignored).
template <typename Visit>
void ForEachListMember(std::string_view value, Visit visit) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    const std::string_view member = Trim(value.substr(0, comma));
    if (!member.empty()) visit(member);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
}

// True if the comma-separated header value lists `token` (case-insensitive).
bool ListContains(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (EqualsLower(Trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

size_t LeadingEmptyLineBytes(std::string_view buffer) {
  size_t n = 0;
  while (n < buffer.size() && (buffer[n] == '\r' || buffer[n] == '\n')) ++n;
  return n;
}

Bytes HttpRequestParser::TakeLargeBody() {
  if (chunked_body_.capacity() <= kChunkedBodyKept) return nullptr;
  request_.body = std::string_view();
  chunked_body_.Consume(chunked_body_.size());
  return chunked_body_.TakeStorage();
}

void HttpRequestParser::Reset() {
  state_ = State::kHead;
  scan_from_ = body_start_ = pos_ = consumed_ = discarded_ = 0;
  content_length_ = chunk_left_ = 0;
  has_content_length_ = chunked_ = false;
  header_count_ = 0;
  host_count_ = 0;
  transfer_encoding_.seen = transfer_encoding_.last_is_chunked = false;
  transfer_encoding_.chunked = 0;
  transfer_encoding_.other.clear();
  error_status_ = 0;
  error_reason_.clear();
  method_.clear();
  target_.clear();
  content_type_.clear();
  content_encoding_.clear();
  soap_action_.clear();
  host_.clear();
  forwarded_proto_.clear();
  if_match_.clear();
  if_none_match_.clear();
  fault_.clear();
  authorization_.clear();
  forwarded_for_.clear();
  chunked_body_.Consume(chunked_body_.size());
  if (chunked_body_.capacity() > kChunkedBodyKept) chunked_body_.Release();  // a large one is not kept for the next
  request_ = HttpRequest{};
}

HttpRequestParser::Result HttpRequestParser::Fail(int status, std::string reason) {
  error_status_ = status;
  error_reason_ = std::move(reason);
  return Result::kError;
}

HttpRequestParser::Result HttpRequestParser::Parse(std::string_view buffer) {
  if (state_ == State::kHead) {
    // RFC 9112 2.2: a server SHOULD ignore at least one empty line before the request line (some
    // clients send CRLF after a POST body). Any number is skipped; they count against the head's limit.
    size_t start = 0;
    while (buffer.size() - start >= 2 && buffer[start] == '\r' && buffer[start + 1] == '\n') start += 2;
    const size_t from = std::max(start, scan_from_ > 3 ? scan_from_ - 3 : 0);
    const size_t end = buffer.find("\r\n\r\n", from);
    if (end == std::string_view::npos) {
      scan_from_ = buffer.size();
      const size_t line_end = buffer.find("\r\n", start);
      if (line_end == std::string_view::npos && buffer.size() - start > limits_.max_request_line) {
        return Fail(414, "request line longer than " + std::to_string(limits_.max_request_line) +
                             " bytes");
      }
      if (buffer.size() > limits_.max_header_bytes) {
        return Fail(431, "request headers longer than " + std::to_string(limits_.max_header_bytes) +
                             " bytes");
      }
      return Result::kNeedMore;
    }
    if (end + 4 > limits_.max_header_bytes) {
      return Fail(431, "request headers longer than " + std::to_string(limits_.max_header_bytes) +
                           " bytes");
    }
    Result r = ParseHead(buffer.substr(start, end + 2 - start));
    if (r != Result::kNeedMore) return r;
    body_start_ = end + 4;
    pos_ = body_start_;
    state_ = chunked_ ? State::kChunkSize : State::kBody;
  }
  if (state_ == State::kBody) {
    if (buffer.size() - body_start_ < content_length_) return Result::kNeedMore;
    request_.body = buffer.substr(body_start_, content_length_);
    consumed_ = body_start_ + content_length_;
    state_ = State::kDone;
    return Result::kComplete;
  }
  if (state_ == State::kDone) return Result::kComplete;
  return ParseChunked(buffer);
}

HttpRequestParser::Result HttpRequestParser::ParseHead(std::string_view head) {
  // Request line: METHOD SP request-target SP HTTP/1.x CRLF
  const size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  if (line.size() > limits_.max_request_line) {
    return Fail(414, "request line longer than " + std::to_string(limits_.max_request_line) + " bytes");
  }
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == 0 || sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Fail(400, "malformed request line");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Fail(400, "malformed method");
  std::string_view authority;  // absolute-form "http://host:port/path" (RFC 9112 3.2.2): a server MUST accept it
  std::string_view path_target = target;
  for (std::string_view scheme : {std::string_view("http://"), std::string_view("https://")}) {
    if (target.size() > scheme.size() && EqualsLower(target.substr(0, scheme.size()), scheme)) {
      const std::string_view rest = target.substr(scheme.size());
      const size_t slash = rest.find_first_of("/?");
      authority = rest.substr(0, slash);
      path_target = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
      // RFC 9110 4.2.1: an http URI with an empty host MUST be rejected; 4.2.4: userinfo is an error.
      if (!IsValidHostValue(authority) || HostWithoutPort(authority).empty()) {
        return Fail(400, "the request target's authority is not a valid host[:port] (RFC 9110 section 4.2)");
      }
    }
  }
  if (path_target.empty() || (path_target[0] != '/' && path_target != "*")) {
    return Fail(400, "malformed request target");
  }
  if (version == "HTTP/1.0") {
    request_.keep_alive = false;
    request_.http10 = true;
  } else if (version != "HTTP/1.1") {
    return Fail(version.substr(0, 5) == "HTTP/" ? 505 : 400, "unsupported protocol version");
  }
  if (path_target == "*" && method != "OPTIONS") {
    return Fail(400, "the request target * is only for OPTIONS (RFC 9112 section 3.2.4)");
  }
  method_.assign(method);
  if (path_target.size() > 0 && path_target[0] == '?') {  // "http://host?q": the path is "/"
    target_.assign("/").append(path_target);
  } else {
    target_.assign(path_target);
  }

  bool keep_alive_token = false;
  bool close_token = false;
  std::string unmet_expectation;  // the first Expect member other than 100-continue
  std::string_view rest = head.substr(line_end + 2);
  while (!rest.empty()) {
    const size_t eol = rest.find("\r\n");
    const std::string_view header = rest.substr(0, eol);
    rest.remove_prefix(eol + 2);
    if (++header_count_ > limits_.max_header_count) {
      return Fail(431, "more than " + std::to_string(limits_.max_header_count) + " request headers");
    }
    if (header.find('\n') != std::string_view::npos || header.find('\r') != std::string_view::npos) {
      return Fail(400, "bare CR or LF in a header");
    }
    if (!header.empty() && (header[0] == ' ' || header[0] == '\t')) {
      return Fail(400, "obsolete header line folding");
    }
    const size_t colon = header.find(':');
    if (colon == std::string_view::npos || colon == 0) return Fail(400, "malformed header line");
    const std::string_view name = header.substr(0, colon);
    if (!IsToken(name)) return Fail(400, "malformed header name");
    const std::string_view value = Trim(header.substr(colon + 1));
    if (value.find('\0') != std::string_view::npos) {
      return Fail(400, "the value of the header " + std::string(name.substr(0, 64)) +
                           " holds a NUL byte (RFC 9110 section 5.5)");
    }
    switch (FieldOf(name)) {
      case Field::kContentLength: {
        uint64_t length = 0;
        if (!ParseDecimal(value, &length)) return Fail(400, "Content-Length is not a number");
        if (has_content_length_ && length != content_length_) {
          return Fail(400, "conflicting Content-Length headers");
        }
        has_content_length_ = true;
        content_length_ = length;
        break;
      }
      case Field::kTransferEncoding: {
        // Judged once the head is read (FrameByTransferEncoding): the list spans every line.
        transfer_encoding_.seen = true;
        ForEachListMember(value, [this](std::string_view coding) {
          const bool chunked = EqualsLower(coding, "chunked");
          if (chunked) ++transfer_encoding_.chunked;
          if (!chunked && transfer_encoding_.other.empty()) transfer_encoding_.other.assign(coding.substr(0, 64));
          transfer_encoding_.last_is_chunked = chunked;
        });
        break;
      }
      case Field::kContentType:
        content_type_.assign(value);
        break;
      case Field::kContentEncoding:
        content_encoding_.assign(value);
        break;
      case Field::kSoapAction: {
        std::string_view action = value;
        if (action.size() >= 2 && action.front() == '"' && action.back() == '"') {
          action = action.substr(1, action.size() - 2);
        }
        soap_action_.assign(action);
        request_.has_soap_action = true;
        break;
      }
      case Field::kHost: {
        if (++host_count_ > 1) return Fail(400, "more than one Host header (RFC 9112 section 3.2)");
        if (!IsValidHostValue(value)) {
          return Fail(400, "the Host header is not a valid host[:port] (RFC 9112 section 3.2, RFC 9110 section 7.2)");
        }
        host_.assign(value);
        break;
      }
      case Field::kAuthorization:
        authorization_.assign(value);
        break;
      case Field::kForwardedProto:
        forwarded_proto_.assign(Trim(value.substr(0, value.find(','))));
        break;
      case Field::kIfMatch: {
        request_.has_if_match = true;
        if_match_.append(if_match_.empty() ? "" : ", ").append(Trim(value).substr(0, 1024));
        break;
      }
      case Field::kIfNoneMatch: {
        request_.has_if_none_match = true;
        if_none_match_.append(if_none_match_.empty() ? "" : ", ").append(Trim(value).substr(0, 1024));
        break;
      }
      case Field::kFault:
        fault_.assign(Trim(value));
        break;
      case Field::kForwardedFor:
        forwarded_for_.assign(Trim(value));
        break;
      case Field::kConnection: {
        keep_alive_token = keep_alive_token || ListContains(value, "keep-alive");
        close_token = close_token || ListContains(value, "close");
        break;
      }
      case Field::kExpect: {
        ForEachListMember(value, [this, &unmet_expectation](std::string_view expectation) {
          if (EqualsLower(expectation, "100-continue")) {
            request_.expect_continue = true;
          } else if (unmet_expectation.empty()) {
            unmet_expectation.assign(expectation.substr(0, 64));
          }
        });
        break;
      }
      case Field::kOther:
        break;
    }
  }
  if (host_count_ == 0 && !request_.http10) {
    return Fail(400, "an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)");
  }
  if (close_token) request_.keep_alive = false;
  if (keep_alive_token && !close_token) request_.keep_alive = true;
  if (transfer_encoding_.seen && has_content_length_) {
    return Fail(400, "both Content-Length and Transfer-Encoding: request smuggling refused");
  }
  if (transfer_encoding_.seen) {
    if (Result r = FrameByTransferEncoding(); r == Result::kError) return r;
  }
  // RFC 9110 10.1.1: a 100-continue expectation in an HTTP/1.0 request MUST be ignored; an expectation
  // the server cannot meet MAY be answered 417 (rather than processed as if met).
  if (request_.http10) request_.expect_continue = false;
  if (!unmet_expectation.empty()) {
    return Fail(417, "the expectation '" + unmet_expectation +
                         "' cannot be met: only 100-continue is supported (RFC 9110 section 10.1.1)");
  }
  if (has_content_length_ && content_length_ > limits_.max_body_bytes) {
    return Fail(413, "message of " + std::to_string(content_length_) + " bytes exceeds the limit of " +
                         std::to_string(limits_.max_body_bytes) + " bytes");
  }

  request_.body_framed = has_content_length_ || chunked_;
  request_.method = method_;
  const std::string_view full_target = target_;
  const size_t q = full_target.find('?');
  request_.path = full_target.substr(0, q);
  request_.query = q == std::string_view::npos ? std::string_view() : full_target.substr(q + 1);
  request_.content_type = content_type_;
  request_.content_encoding = content_encoding_;
  request_.soap_action = soap_action_;
  // With the absolute-form, the target's authority is the host and the Host header is ignored (3.2.2).
  if (!authority.empty()) host_.assign(authority);
  request_.host = host_;
  request_.forwarded_proto = forwarded_proto_;
  request_.if_match = if_match_;
  request_.if_none_match = if_none_match_;
  request_.authorization = authorization_;
  request_.fault = fault_;
  return Result::kNeedMore;  // head done; the body follows
}

HttpRequestParser::Result HttpRequestParser::FrameByTransferEncoding() {
  const TransferCodings& te = transfer_encoding_;
  // RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding MUST be treated as faulty framing.
  if (request_.http10) return Fail(400, "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section 6.1)");
  // 6.3: chunked not the final coding: the length cannot be determined; the server MUST answer 400.
  if (!te.last_is_chunked) {
    return Fail(400, "Transfer-Encoding does not end with chunked, so the body's length is unknown (RFC 9112 section 6.3)");
  }
  // 7: chunked MUST NOT be applied more than once.
  if (te.chunked > 1) return Fail(400, "Transfer-Encoding names chunked more than once");
  // 6.1: a transfer coding the server does not understand SHOULD be 501.
  if (!te.other.empty()) return Fail(501, "unsupported Transfer-Encoding '" + te.other + "' (only chunked is)");
  chunked_ = true;
  return Result::kNeedMore;
}

HttpRequestParser::Result HttpRequestParser::ParseChunked(std::string_view buffer) {
  for (;;) {
    switch (state_) {
      case State::kChunkSize: {
        const size_t eol = buffer.find("\r\n", pos_);
        if (eol == std::string_view::npos) {
          if (buffer.size() - pos_ > 1024) return Fail(400, "chunk size line too long");
          return Result::kNeedMore;
        }
        std::string_view line = buffer.substr(pos_, eol - pos_);
        line = line.substr(0, line.find(';'));  // chunk extensions are ignored
        line = Trim(line);
        if (line.empty() || line.size() > 15) return Fail(400, "malformed chunk size");
        uint64_t size = 0;
        for (char c : line) {
          int digit;
          if (c >= '0' && c <= '9') digit = c - '0';
          else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
          else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
          else return Fail(400, "malformed chunk size");
          size = size * 16 + static_cast<uint64_t>(digit);
        }
        if (chunked_body_.size() + size > limits_.max_body_bytes) {
          return Fail(413, "chunked message exceeds the limit of " +
                               std::to_string(limits_.max_body_bytes) + " bytes");
        }
        pos_ = eol + 2;
        chunk_left_ = size;
        state_ = size == 0 ? State::kTrailer : State::kChunkData;
        break;
      }
      case State::kChunkData: {
        const size_t available = std::min<uint64_t>(buffer.size() - pos_, chunk_left_);
        if (available > 0) {
          // Grown by doubling up to kMappedBytes; past that, at once to the limit (checked on each chunk's size
          // line, so the body cannot outgrow it), in a mapping whose pages become resident only as they are
          // written: one copy of at most 4 MiB instead of a copy at every doubling, each leaving the old and the
          // new buffer resident together.
          size_t total = chunked_body_.size() + available;
          if (total > chunked_body_.capacity()) {
            total = std::max({total, 2 * chunked_body_.capacity(), kChunkedBodyStart});
            if (total >= ReadBuffer::kMappedBytes) total = limits_.max_body_bytes;
            total = std::min<size_t>(total, limits_.max_body_bytes);
          }
          std::memcpy(chunked_body_.ReserveTotal(total), buffer.data() + pos_, available);
          chunked_body_.Commit(available);
        }
        pos_ += available;
        chunk_left_ -= available;
        if (chunk_left_ > 0) return Result::kNeedMore;
        state_ = State::kChunkDataEnd;
        break;
      }
      case State::kChunkDataEnd:
        if (buffer.size() - pos_ < 2) return Result::kNeedMore;
        if (buffer.substr(pos_, 2) != "\r\n") return Fail(400, "chunk data not followed by CRLF");
        pos_ += 2;
        state_ = State::kChunkSize;
        break;
      case State::kTrailer: {
        const size_t eol = buffer.find("\r\n", pos_);
        if (eol == std::string_view::npos) {
          if (buffer.size() - pos_ > limits_.max_header_bytes) return Fail(431, "trailer too long");
          return Result::kNeedMore;
        }
        const bool last = eol == pos_;
        pos_ = eol + 2;
        if (!last) break;  // a trailer field: ignored
        request_.body = chunked_body_.data();
        consumed_ = pos_;
        state_ = State::kDone;
        return Result::kComplete;
      }
      default:
        return Fail(500, "parser in an unexpected state");
    }
  }
}

}  // namespace lather
