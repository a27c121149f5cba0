#include "import/keys.h"

#include <fmt/format.h>

#include <array>
#include <vector>

namespace rlsim {

namespace {

// The words of `name`, lower case, split at anything but letters and digits.
std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words(1);
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!words.back().empty()) {
      words.emplace_back();
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

bool has_word(const std::vector<std::string>& words, std::initializer_list<std::string_view> any) {
  for (const std::string& word : words)
    for (const std::string_view candidate : any)
      if (word == candidate) return true;
  return false;
}

}  // namespace

std::optional<std::string> key_for_identifier(std::string_view name) {
  const std::vector<std::string> words = words_of(name);
  // "remote_address", "x-forwarded-for", "client_ip", "source_ip", "ip"
  if (has_word(words, {"ip", "ipv4", "ipv6", "remote", "forwarded", "addr", "address"}))
    return "ip";
  if (has_word(words, {"path", "uri", "url", "endpoint", "route"})) return "endpoint";
  if (has_word(words, {"user", "userid", "uid", "consumer", "credential", "api", "apikey", "token",
                       "client", "clientid", "tenant", "account", "customer", "org", "auth",
                       "authorization", "id", "sub", "subject"}))
    return "user";
  return std::nullopt;
}

std::string descriptor_text(const std::vector<DescriptorEntry>& entries) {
  std::string text;
  for (const DescriptorEntry& entry : entries)
    text += (text.empty() ? "" : ".") + entry.key + (entry.value.empty() ? "" : "_" + entry.value);
  return text;
}

std::string key_of_descriptor(const std::vector<DescriptorEntry>& entries, const std::string& at,
                              Imported& imported) {
  const auto fixed = [](const DescriptorEntry& entry) {
    return !entry.value.empty() && !entry.value.ends_with("*");
  };
  for (const DescriptorEntry& entry : entries)
    if (fixed(entry) && entry.key != "generic_key")
      imported.warn(at, fmt::format("descriptor {}: applies only to requests whose {} is {}; rlsim "
                                    "applies it to every request",
                                    descriptor_text(entries), entry.key, entry.value));
  // Several varying entries count per their combination; rlsim counts per one key kind, the
  // client's identity first (under the default traffic's one endpoint, user and (user, path)
  // count alike).
  std::string key;
  for (const DescriptorEntry& entry : entries) {
    if (fixed(entry)) continue;
    const std::string mapped = key_for_identifier(entry.key).value_or("");
    if (mapped.empty())
      imported.warn(at, fmt::format("descriptor key {} keyed by user (its name says no client "
                                    "identity, address or path)",
                                    entry.key));
    const std::string kind = mapped.empty() ? "user" : mapped;
    if (key.empty() || kind == "user" || (kind == "ip" && key == "endpoint")) key = kind;
  }
  if (!key.empty()) return key;
  return "global";
}

}  // namespace rlsim
