#include "stress/load/http_response_reader.h"

#include <cstring>

namespace lather {
namespace {

bool HeaderIs(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = line[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != name[i]) return false;
  }
  return true;
}

std::string_view Value(std::string_view line) {
  std::string_view v = line.substr(line.find(':') + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

bool ContainsIgnoreCase(std::string_view text, std::string_view word) {
  for (size_t i = 0; i + word.size() <= text.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < word.size() && match; ++k) {
      char c = text[i + k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      match = c == word[k];
    }
    if (match) return true;
  }
  return false;
}

}  // namespace

HttpResponseReader::Result HttpResponseReader::Read(char* buffer, size_t size, bool eof,
                                                    HttpResponseView* response) {
  const std::string_view data(buffer, size);
  // One pass over the head's lines (split at each CRLF): the head ends at the first empty line after
  // the first CRLF (where "\r\n\r\n" first occurs). Headers are read on the way and judged only once
  // the head is complete, so an incomplete head is kNeedMore whatever it holds so far.
  size_t head_end = std::string_view::npos;
  bool has_length = false, chunked = false, bad_length = false;
  int connection_close = -1;  // what the last Connection header said (1 close, 0 keep-alive), -1 none
  size_t length = 0;
  size_t pos = 0;
  for (bool first = true;; first = false) {
    size_t eol = pos;
    for (;;) {
      const void* cr = std::memchr(buffer + eol, '\r', size - eol);
      if (cr == nullptr) {
        eol = std::string_view::npos;
        break;
      }
      eol = static_cast<size_t>(static_cast<const char*>(cr) - buffer);
      if (eol + 1 < size && buffer[eol + 1] == '\n') break;
      ++eol;
    }
    if (eol == std::string_view::npos) break;
    if (eol == pos && pos >= 2) {
      head_end = pos - 2;
      break;
    }
    if (!first) {
      const std::string_view line = data.substr(pos, eol - pos);
      if (HeaderIs(line, "content-length")) {
        has_length = true;
        length = 0;
        for (char c : Value(line)) {
          if (c < '0' || c > '9') bad_length = true;
          length = length * 10 + static_cast<size_t>(c - '0');
        }
      } else if (HeaderIs(line, "transfer-encoding")) {
        chunked = ContainsIgnoreCase(Value(line), "chunked");
      } else if (HeaderIs(line, "connection")) {
        const std::string_view v = Value(line);
        if (ContainsIgnoreCase(v, "close")) connection_close = 1;
        if (ContainsIgnoreCase(v, "keep-alive")) connection_close = 0;
      }
    }
    pos = eol + 2;
  }
  if (head_end == std::string_view::npos) {
    return size > 64 * 1024 || (eof && size > 0) ? Result::kError : Result::kNeedMore;
  }
  if (data.substr(0, 5) != "HTTP/" || head_end < 12) return Result::kError;
  if (bad_length) return Result::kError;
  HttpResponseView r;
  r.status = (data[9] - '0') * 100 + (data[10] - '0') * 10 + (data[11] - '0');
  r.head_bytes = head_end + 4;
  const bool http10 = data.substr(0, 8) == "HTTP/1.0";
  r.close = connection_close < 0 ? http10 : connection_close == 1;
  const bool no_body = r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200);
  if (no_body) {
    r.total_bytes = r.head_bytes;
  } else if (chunked) {
    dechunked_.clear();
    size_t p = r.head_bytes;
    for (;;) {
      const size_t eol = data.find("\r\n", p);
      if (eol == std::string_view::npos) return eof ? Result::kError : Result::kNeedMore;
      size_t chunk = 0;
      size_t digits = 0;
      for (size_t i = p; i < eol && data[i] != ';'; ++i, ++digits) {
        const char c = data[i];
        const int v = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (v < 0 || digits > 14) return Result::kError;
        chunk = chunk * 16 + static_cast<size_t>(v);
      }
      p = eol + 2;
      if (chunk == 0) {
        for (;;) {  // trailer fields, up to an empty line
          const size_t end = data.find("\r\n", p);
          if (end == std::string_view::npos) return eof ? Result::kError : Result::kNeedMore;
          const bool empty = end == p;
          p = end + 2;
          if (empty) break;
        }
        r.total_bytes = p;
        break;
      }
      if (size < p + chunk + 2) return eof ? Result::kError : Result::kNeedMore;
      dechunked_.append(buffer + p, chunk);
      p += chunk + 2;
    }
    r.body = dechunked_.data();
    r.body_size = dechunked_.size();
  } else if (has_length) {
    if (size < r.head_bytes + length) return eof ? Result::kError : Result::kNeedMore;
    r.total_bytes = r.head_bytes + length;
    r.body = buffer + r.head_bytes;
    r.body_size = length;
  } else {
    if (!eof) return Result::kNeedMore;  // close-delimited: complete at end of stream
    r.total_bytes = size;
    r.body = buffer + r.head_bytes;
    r.body_size = size - r.head_bytes;
    r.close = true;
  }
  *response = r;
  return Result::kComplete;
}

}  // namespace lather
