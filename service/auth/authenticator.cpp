#include "service/auth/authenticator.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lather {
namespace {

std::string Where(const std::string& file_name, int line) { return file_name + ":" + std::to_string(line) + ": "; }

// A crypt(3) method this service accepts: supported by libxcrypt, enabled and not legacy (DES,
// MD5 and the like are refused: they are too fast to protect a leaked file).
Status CheckSetting(const std::string& hash) {
  if (hash.empty() || hash[0] != '$') {
    return Status::InvalidArgument("the hash is not a crypt(3) string such as $y$... (yescrypt), $2b$... (bcrypt) or "
                                   "$6$... (sha512crypt); make one with mkpasswd or openssl passwd -6");
  }
  switch (crypt_checksalt(hash.c_str())) {
    case CRYPT_SALT_OK:
    case CRYPT_SALT_TOO_CHEAP:
      return Status::Ok();
    case CRYPT_SALT_METHOD_LEGACY:
      return Status::InvalidArgument("the hash uses a legacy method; use yescrypt ($y$), bcrypt ($2b$) or sha512crypt ($6$)");
    case CRYPT_SALT_METHOD_DISABLED:
      return Status::InvalidArgument("the hash method is disabled in this system's libxcrypt");
    default:
      return Status::InvalidArgument("the hash is not a valid crypt(3) string");
  }
}

// crypt_rn(password, setting) into *out; false if libxcrypt refuses the setting.
bool Crypt(std::string_view password, const std::string& setting, std::string* out) {
  // struct crypt_data is about 32 KiB: on the heap, zeroed (as crypt_rn requires before first use).
  auto data = std::make_unique<crypt_data>();
  const std::string phrase(password);
  const char* result = crypt_rn(phrase.c_str(), setting.c_str(), data.get(), sizeof(crypt_data));
  if (result == nullptr || result[0] == '*') {
    OPENSSL_cleanse(data.get(), sizeof(crypt_data));
    return false;
  }
  out->assign(result);
  OPENSSL_cleanse(data.get(), sizeof(crypt_data));
  return true;
}

bool IsUserChar(char c) { return static_cast<unsigned char>(c) > 0x20 && c != 0x7f && c != ':'; }

}  // namespace

Status ParseAuthFile(std::string_view text, const std::string& file_name, std::vector<AuthEntry>* entries) {
  entries->clear();
  int line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
    line.remove_prefix(first);
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidArgument(Where(file_name, line_number) + "expected user:HASH, found no ':'");
    }
    AuthEntry entry;
    entry.user = std::string(line.substr(0, colon));
    entry.hash = std::string(line.substr(colon + 1));
    entry.line = line_number;
    if (entry.user.empty()) return Status::InvalidArgument(Where(file_name, line_number) + "the user name is empty");
    for (char c : entry.user) {
      if (!IsUserChar(c)) {
        return Status::InvalidArgument(Where(file_name, line_number) +
                                       "the user name holds a blank or control character");
      }
    }
    for (const AuthEntry& other : *entries) {
      if (other.user == entry.user) {
        return Status::InvalidArgument(Where(file_name, line_number) + "user '" + entry.user +
                                       "' is already defined on line " + std::to_string(other.line));
      }
    }
    Status s = CheckSetting(entry.hash);
    if (!s.ok()) return Status::InvalidArgument(Where(file_name, line_number) + s.message());
    entries->push_back(std::move(entry));
  }
  if (entries->empty()) return Status::InvalidArgument(file_name + ": no user:HASH line (nobody could log in)");
  return Status::Ok();
}

std::string BasicAuthorization(std::string_view user, std::string_view password) {
  const std::string plain = std::string(user) + ":" + std::string(password);
  std::string encoded((plain.size() + 2) / 3 * 4 + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                reinterpret_cast<const unsigned char*>(plain.data()), static_cast<int>(plain.size()));
  encoded.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return "Basic " + encoded;
}

bool ParseBasicAuthorization(std::string_view value, std::string* user, std::string* password) {
  constexpr std::string_view kScheme = "basic";
  if (value.size() <= kScheme.size() || (value[kScheme.size()] != ' ' && value[kScheme.size()] != '\t')) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if ((value[i] | 0x20) != kScheme[i]) return false;
  }
  std::string_view encoded = value.substr(kScheme.size());
  while (!encoded.empty() && (encoded.front() == ' ' || encoded.front() == '\t')) encoded.remove_prefix(1);
  if (encoded.empty() || encoded.size() % 4 != 0 || encoded.size() > 4096) return false;
  // Decoded into *password (whose capacity the caller may reuse), then split at the first ':'.
  std::string& decoded = *password;
  decoded.resize(encoded.size() / 4 * 3);
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                reinterpret_cast<const unsigned char*>(encoded.data()), static_cast<int>(encoded.size()));
  if (n < 0) return false;
  // EVP_DecodeBlock counts the bytes of the '=' padding as zeros: drop them.
  size_t length = static_cast<size_t>(n);
  if (encoded.back() == '=') --length;
  if (encoded[encoded.size() - 2] == '=') --length;
  decoded.resize(length);
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  user->assign(decoded, 0, colon);
  decoded.erase(0, colon + 1);
  return true;
}

Status Authenticator::Load(const std::string& path, std::unique_ptr<Authenticator>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read --auth-file " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError("cannot read --auth-file " + path);
  std::vector<AuthEntry> entries;
  Status s = ParseAuthFile(text.str(), path, &entries);
  if (!s.ok()) return s;
  return FromEntries(std::move(entries), path, out);
}

Status Authenticator::FromEntries(std::vector<AuthEntry> entries, const std::string& file_name,
                                  std::unique_ptr<Authenticator>* out) {
  std::unique_ptr<Authenticator> auth(new Authenticator());
  for (AuthEntry& entry : entries) {
    // A hash that is only a setting ($6$salt) or is cut short would never match: computing it once
    // proves that libxcrypt reads it and that it is complete (same length, same setting).
    std::string computed;
    if (!Crypt("", entry.hash, &computed) || computed.size() != entry.hash.size() ||
        computed.compare(0, entry.hash.rfind('$'), entry.hash, 0, entry.hash.rfind('$')) != 0) {
      return Status::InvalidArgument(Where(file_name, entry.line) + "the hash of user '" + entry.user +
                                     "' is incomplete or malformed (libxcrypt cannot compute it)");
    }
    if (auth->dummy_hash_.empty()) auth->dummy_hash_ = entry.hash;
    auth->hashes_.emplace(std::move(entry.user), std::move(entry.hash));
  }
  if (auth->hashes_.empty()) return Status::InvalidArgument(file_name + ": no user:HASH line");
  // Fetched once (OpenSSL 3): EVP_sha256() would look the algorithm up again on every digest.
  auth->sha256_.reset(EVP_MD_fetch(nullptr, "SHA256", nullptr));
  if (auth->sha256_ == nullptr ||
      RAND_bytes(auth->cache_secret_.data(), static_cast<int>(auth->cache_secret_.size())) != 1) {
    return Status::Internal("cannot draw random bytes for the credentials cache");
  }
  *out = std::move(auth);
  return Status::Ok();
}

void Authenticator::MdFree::operator()(evp_md_st* md) const { EVP_MD_free(md); }

size_t Authenticator::KeyHash::operator()(const Key& k) const {
  size_t h = 0;
  std::memcpy(&h, k.data(), sizeof h);  // the key is a SHA-256: any 8 bytes are well spread
  return h;
}

Authenticator::Key Authenticator::CacheKey(std::string_view user, std::string_view password) const {
  // One digest context per thread, reused: no allocation per call on the event loops.
  struct CtxFree {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
  };
  thread_local std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  Key key{};
  unsigned int length = 0;
  const unsigned char separator = 0;
  const bool ok = ctx != nullptr && sha256_ != nullptr && EVP_DigestInit_ex2(ctx.get(), sha256_.get(), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx.get(), cache_secret_.data(), cache_secret_.size()) == 1 &&
                  EVP_DigestUpdate(ctx.get(), user.data(), user.size()) == 1 &&
                  EVP_DigestUpdate(ctx.get(), &separator, 1) == 1 &&
                  EVP_DigestUpdate(ctx.get(), password.data(), password.size()) == 1 &&
                  EVP_DigestFinal_ex(ctx.get(), key.data(), &length) == 1 && length == key.size();
  if (!ok) key.fill(0);  // all zeros is never inserted (see Verify), so it never matches
  return key;
}

bool Authenticator::IsKnownGood(std::string_view user, std::string_view password) const {
  const Key key = CacheKey(user, password);
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  return cache_.count(key) != 0;
}

bool Authenticator::Verify(std::string_view user, std::string_view password) const {
  const auto it = hashes_.find(std::string(user));
  std::string computed;
  if (it == hashes_.end()) {
    Crypt(password, dummy_hash_, &computed);  // the same cost as for a known user
    return false;
  }
  const std::string& stored = it->second;
  if (!Crypt(password, stored, &computed) || computed.size() != stored.size()) return false;
  const bool equal = CRYPTO_memcmp(computed.data(), stored.data(), stored.size()) == 0;
  OPENSSL_cleanse(computed.data(), computed.size());
  if (!equal) return false;
  const Key key = CacheKey(user, password);
  if (key == Key{}) return true;
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= kMaxCached) cache_.clear();  // bounded; good pairs come back after one hash
  cache_.insert(key);
  return true;
}

}  // namespace lather
