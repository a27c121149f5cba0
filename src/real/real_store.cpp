#include "real/real_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

#include "core/ascii.h"
#include "core/check.h"
#include "core/sha1.h"
#include "redis/cluster_slots.h"
#include "redis/script_wrap.h"
#include "redis/time_commands.h"

namespace rlsim {

namespace {

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// A TTL argument the store maps to the virtual clock: a positive integer written as Redis parses
// it (no sign, no leading zero), of at most 16 digits (the caller checks the mapped time).
// Anything else goes to the server unchanged and fails, or deletes the key, exactly as it would.
std::optional<std::int64_t> ttl_amount(std::string_view text) {
  if (text.empty() || text.size() > 16 || text[0] < '1' || text[0] > '9') return std::nullopt;
  return parse_int(text);
}

// The mapped times must stay below 2^53 so that the script prelude's Lua numbers hold them exactly.
constexpr std::int64_t kMaxMappedMs = 9'000'000'000'000'000;

// Which arguments of a command are keys (the commands the embedded Redis implements).
enum class Keys { kUnknown, kNone, kFirst, kAll, kPairs, kScript, kScriptCommand, kTime };

Keys keys_of(const std::string& name) {
  static const std::unordered_map<std::string, Keys> table = [] {
    std::unordered_map<std::string, Keys> t;
    for (const std::string& command : MockStore::command_names()) t[command] = Keys::kFirst;
    for (const char* all : {"del", "unlink", "exists", "mget", "rename", "renamenx"})
      t[all] = Keys::kAll;
    t["mset"] = Keys::kPairs;  // key value key value ...
    t["ping"] = Keys::kNone;
    t["time"] = Keys::kTime;
    t["eval"] = t["evalsha"] = Keys::kScript;
    t["script"] = Keys::kScriptCommand;
    return t;
  }();
  const auto it = table.find(name);
  return it == table.end() ? Keys::kUnknown : it->second;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
}

std::string lost_text(const std::string& reason) {
  return "CONNREFUSED rlsim: the real Redis connection failed: " + reason;
}

// A runaway script that has written: SCRIPT KILL cannot stop it, and rlsim does not stop the
// server.
std::string unkillable_text(const std::string& head, const std::string& answer) {
  return fmt::format(
      "{}, and it has written, so SCRIPT KILL cannot stop it (the server answered \"{}\"): the "
      "server answers BUSY to every client until the script ends; only SHUTDOWN NOSAVE stops it "
      "now (it stops the server and loses what was written since its last save; rlsim does not "
      "send it)",
      head, answer.substr(0, answer.find(' ')));
}

std::string random_hex() {
  std::random_device device;
  std::uint64_t value = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  return fmt::format("{:016x}", value);
}

}  // namespace

// ---- URL ---------------------------------------------------------------------------------------

std::string RedisUrl::display() const {
  return fmt::format("redis://{}:{}{}", host, port, db != 0 ? fmt::format("/{}", db) : "");
}

namespace {
std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (ec != std::errc() || ptr != text.data() + i + 3) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}
}  // namespace

std::optional<RedisUrl> parse_redis_url(const std::string& text, std::string& error) {
  constexpr std::string_view kScheme = "redis://";
  const auto bad = [&](const std::string& why) {
    error =
        fmt::format("bad Redis URL ({}): expected redis://[user[:password]@]host:port[/db]", why);
    return std::nullopt;
  };
  if (!text.starts_with(kScheme)) return bad("it must start with redis://");
  std::string_view rest = std::string_view(text).substr(kScheme.size());
  RedisUrl url;
  if (const std::size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view auth = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const std::size_t colon = auth.find(':');
    const auto user = percent_decode(auth.substr(0, colon));
    if (!user) return bad("bad %-escape in the user");
    url.user = *user;
    if (colon != std::string_view::npos) {
      const auto password = percent_decode(auth.substr(colon + 1));
      if (!password) return bad("bad %-escape in the password");
      url.password = *password;
    }
  }
  if (const std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
    const auto db = parse_int(rest.substr(slash + 1));
    if (!db || *db < 0 || *db > 1'000'000) return bad("the database must be a number");
    url.db = static_cast<int>(*db);
    rest = rest.substr(0, slash);
  }
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  url.host = std::string(rest.substr(0, colon));
  if (url.host.empty()) return bad("no host");
  const auto port = parse_int(rest.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535) return bad("the port must be 1-65535");
  url.port = static_cast<int>(*port);
  if (url.password.empty()) {
    if (const char* env = std::getenv("REDISCLI_AUTH"); env != nullptr) url.password = env;
  }
  return url;
}

// ---- connection --------------------------------------------------------------------------------

namespace {
RedisUrl with_io_timeout(RedisUrl url, int io_timeout_ms) {
  url.io_timeout_ms = io_timeout_ms;
  return url;
}
}  // namespace

RealStore::RealStore(const RealStoreOptions& options)
    : RealStore(options,
                std::make_unique<SingleWire>(with_io_timeout(options.url, options.io_timeout_ms))) {
}

RealStore::RealStore(const RealStoreOptions& options, std::unique_ptr<RedisWire> wire)
    : options_(options), wire_(std::move(wire)), prefix_("rlsim:" + random_hex() + ":") {
  // A day ahead of the wall clock: a key's real expiry is its virtual expiry counted from the
  // run's start in microseconds-as-milliseconds, plus a day, so it never comes during the run.
  const auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  offset_ms_ = wall_ms + 86'400'000LL - kEpochUnixUs;
  sweep_sha_ = sha1_hex(std::string(kSweepPrelude) + "return 0");
  connect_or_throw();
}

RealStore::~RealStore() {
  if (!broken_) {
    try {
      read_until(first_ticket_ + batches_.size());
      if (!options_.keep_keys && !broken_) delete_own_keys();
    } catch (...) {  // a destructor must not throw; the keys expire a day later anyway
    }
  }
  disconnect();
}

void RealStore::connect_or_throw() {
  std::string error;
  if (!connect(error))
    throw RedisUnreachable(fmt::format("cannot use {}: {}", wire_->describe(), error));
  // The virtual clock needs PEXPIRETIME (Redis 7.0).
  append({"PEXPIRETIME", with_prefix("probe")});
  Reply reply;
  if (!wire_->read(reply, error))
    throw RedisUnreachable(fmt::format("cannot use {}: {}", wire_->describe(), error));
  if (reply.type != Reply::Type::kInteger)
    throw RedisUnreachable(fmt::format(
        "cannot use {}: it lacks PEXPIRETIME (rlsim needs Redis 7.0 or later)", wire_->describe()));
}

bool RealStore::connect(std::string& error) {
  if (!wire_->connect(error)) return false;
  // Scripts must be loaded again through a new connection (the server may have restarted).
  for (auto& [sha, script] : scripts_) script->on_server = false;
  sweep_on_server_ = false;
  return true;
}

void RealStore::disconnect() { wire_->disconnect(); }

void RealStore::fail(const std::string& reason) {
  if (failure_.empty()) failure_ = reason;
  if (!broken_) failed_at_us_ = last_now_us_;
  ++failures_in_a_row_;
  broken_ = true;
  disconnect();
  retry_after_calls_ = backoff_calls_;
  backoff_calls_ = std::min(backoff_calls_ * 2, 1024);
  // Every call not yet read went out on the failed connection: its replies will never come.
  for (std::size_t i = unread_; i < batches_.size(); ++i) batches_[i].lost = true;
}

bool RealStore::read_reply(Reply& reply, const Script* running) {
  std::string error;
  if (wire_->connected() && wire_->read(reply, error)) return true;
  // A call of a script that timed out: the script may still be running on the server.
  if (running != nullptr && wire_->connected() && wire_->resume_after_timeout())
    return stop_runaway(*running, error, reply);
  if (!broken_) fail(wire_->connected() ? error : "connection closed");
  return false;
}

// ---- runaway scripts ---------------------------------------------------------------------------
//
// A real Redis runs a script until it returns: past its busy-reply-threshold it answers BUSY to
// every other client, and only SCRIPT KILL (for a script that has not written) or SHUTDOWN NOSAVE
// stops it. The embedded Redis stops a script at its instruction budget (exit 4); here the store
// sends SCRIPT KILL when a call of one of its scripts gets no reply within the I/O timeout, or any
// call is answered BUSY, and stops the run (exit 4) so that fail-open never admits every request
// while the server is stuck. A server that answers nothing, SCRIPT KILL included, is a failed
// connection as before.

std::optional<Reply> RealStore::kill_script(std::string& error) {
  Reply answer;
  if (!wire_->kill_script(options_.io_timeout_ms, answer, error)) return std::nullopt;
  return answer;
}

void RealStore::stop_run(std::string why) {
  if (stopped_.empty()) stopped_ = std::move(why);
}

bool RealStore::stop_runaway(const Script& script, const std::string& timeout, Reply& reply) {
  std::string error;
  const std::optional<Reply> answer = kill_script(error);
  if (!answer) {  // the server answers nothing at all: a failed connection, not a script
    fail(timeout +
         ", nor to SCRIPT KILL (a server running a script answers it only once the script has run "
         "for its busy-reply-threshold: RLSIM_REDIS_IO_TIMEOUT_MS must be longer)");
    return false;
  }
  const std::string& text = answer->text;
  if (text.starts_with("NOTBUSY")) {  // it ended in the meantime: its reply is on the way
    if (wire_->read(reply, error)) return true;
    fail(error);
    return false;
  }
  const std::string head = fmt::format(
      "script {} ran for more than {} ms on {} (the I/O timeout, RLSIM_REDIS_IO_TIMEOUT_MS)",
      script.sha, options_.io_timeout_ms, wire_->describe());
  if (answer->type == Reply::Type::kStatus) {
    // Killed: the call's own reply is the server's "Script killed by user" error.
    if (!wire_->read(reply, error)) fail(error);
    stop_run(head +
             "; rlsim stopped it with SCRIPT KILL (the embedded Redis stops a script at "
             "its instruction budget)");
  } else {
    stop_run(unkillable_text(head, text));
    failures_in_a_row_ = kMaxFailuresInARow;  // nothing more can go through: do not reconnect
    fail("the server is busy running a script");
  }
  reply = Reply::error("ERR rlsim: " + stopped_);
  return true;
}

void RealStore::answer_busy(Reply& reply) {
  std::string error;
  const std::optional<Reply> answer = kill_script(error);
  const std::string head = fmt::format(
      "{} answered BUSY: a script (this run's or another client's) ran past the server's "
      "busy-reply-threshold",
      wire_->describe());
  if (!answer) {
    stop_run(fmt::format("{}; rlsim could not stop it ({}): the server answers BUSY until it ends",
                         head, error));
  } else if (answer->type == Reply::Type::kStatus || answer->text.starts_with("NOTBUSY")) {
    stop_run(head + (answer->type == Reply::Type::kStatus
                         ? "; rlsim stopped it with SCRIPT KILL"
                         : "; it ended before rlsim's SCRIPT KILL reached it"));
  } else {
    stop_run(unkillable_text(head, answer->text));
  }
  reply = Reply::error("ERR rlsim: " + stopped_);
}

std::string RealStore::with_prefix(const std::string& key) const {
  // On a cluster the prefixed key must hash to the key's own slot: a key with a hash tag keeps
  // it (the prefix has no '{'), a key without braces becomes its own tag.
  if (wire_->sharded() && key.find_first_of("{}") == std::string::npos)
    return prefix_ + "{" + key + "}";
  return prefix_ + key;
}

// ---- submitting --------------------------------------------------------------------------------

RealStore::Script& RealStore::register_script(const std::string& text) {
  const std::string sha = sha1_hex(text);
  auto& slot = scripts_[sha];
  if (!slot) {
    slot = std::make_unique<Script>();
    slot->sha = sha;
    slot->wrapped = wrap_script(text).text;
    slot->wrapped_sha = sha1_hex(slot->wrapped);
  }
  return *slot;
}

Reply RealStore::local_reply(const Command& command, TimeUs now_us) {
  return scratch_.run(command, now_us);
}

void RealStore::add_script_call(const Command& command, bool by_sha, std::size_t numkeys,
                                TimeUs now_us, Op& op, Command& sent) {
  Script* script = nullptr;
  if (by_sha) {
    const std::string& given = command[1];
    const bool is_lower =
        std::none_of(given.begin(), given.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    const auto it = scripts_.find(is_lower ? given : ascii_lower(given));
    if (it == scripts_.end() || known(node_).count(it->second->sha) == 0) {
      if (wire_->sharded() && command_slot(command) == kCrossSlot) {
        // A cluster node refuses keys of several slots before it looks for the script.
        op.reply = Reply::error("CROSSSLOT Keys in request don't hash to the same slot");
        return;
      }
      // Not in this run's script cache (the server's cache is shared with other runs).
      op.reply = Reply::error("NOSCRIPT No matching script. Please use EVAL.");
      return;
    }
    script = it->second.get();
  } else {
    script = &register_script(command[1]);
    known(node_).insert(script->sha);
  }
  Command args;
  args.reserve(command.size() + 4);
  args.push_back(command[2]);
  for (std::size_t i = 3; i < command.size(); ++i)
    args.push_back(i < 3 + numkeys ? with_prefix(command[i]) : command[i]);
  args.push_back(std::to_string(threshold(now_us)));
  args.push_back(std::to_string(offset_ms_));
  args.insert(args.begin(), script->on_server ? script->wrapped_sha : script->wrapped);
  args.insert(args.begin(), script->on_server ? "EVALSHA" : "EVAL");  // EVAL loads it
  script->on_server = true;
  sent = std::move(args);
  op.real = true;
  op.fix = Fix::kScript;
  op.script = script;
}

// An absolute expiry `amount` (in seconds when `seconds`, else ms; relative to now when
// `relative`) on the virtual clock as the server's PXAT/PEXPIREAT milliseconds, or nullopt when it
// is malformed, already past or out of range (then the command goes as given, and the server
// answers as it would).
std::optional<std::int64_t> RealStore::mapped_expiry_ms(const std::string& amount_text,
                                                        bool seconds, bool relative, TimeUs now_us,
                                                        bool at_now_lives) const {
  const auto amount = ttl_amount(amount_text);
  if (!amount) return std::nullopt;
  const std::int64_t unit_us = seconds ? kUsPerS : kUsPerMs;
  // Redis counts whole milliseconds: a TTL starts at the current millisecond, and an expiry at it
  // or before is past (expire.c, checkAlreadyExpired: when <= now).
  const TimeUs now_ms_us = now_us - now_us % kUsPerMs;
  const std::int64_t at_us =
      *amount < kMaxMappedMs / unit_us ? *amount * unit_us + (relative ? now_ms_us : 0) : 0;
  // SET's expiry at the current millisecond is not past: SET does not check (the key lives
  // through that millisecond); EXPIRE and GETEX delete the key.
  const bool ahead = at_us > now_ms_us || (at_now_lives && at_us == now_ms_us);
  if (ahead && at_us + offset_ms_ < kMaxMappedMs) return at_us + offset_ms_;
  return std::nullopt;
}

// TTLs on the virtual clock (see the header), by the command's row of time_commands(): TTL, PTTL,
// EXPIRETIME and PEXPIRETIME read PEXPIRETIME; EXPIRE*, SETEX, PSETEX and the EX / PX / EXAT /
// PXAT options of SET and GETEX are sent as absolute times on the shifted clock (TIME is answered
// locally, commands the embedded Redis lacks are never sent).
void RealStore::map_ttl_command(const std::string& name, const Command& command, TimeUs now_us,
                                Op& op, Command& out) const {
  const TimeCommand* row = find_time_command(name);
  if (row == nullptr) return;
  const std::size_t argc = command.size();
  switch (row->use) {
    case TimeUse::kReadsTtl:
    case TimeUse::kReadsExpireTime:
      if (argc != 2) return;
      out[0] = "PEXPIRETIME";
      if (row->use == TimeUse::kReadsTtl) {
        op.fix = row->unit_us == kUsPerS ? Fix::kTtl : Fix::kPttl;
      } else {
        op.fix = row->unit_us == kUsPerS ? Fix::kExpireTime : Fix::kPexpireTime;
      }
      return;
    case TimeUse::kExpireArg:
      if (argc < 3) return;
      if (const auto at_ms =
              mapped_expiry_ms(command[2], row->unit_us == kUsPerS, row->relative, now_us)) {
        out[0] = "PEXPIREAT";
        out[2] = std::to_string(*at_ms);
      }
      return;
    case TimeUse::kSetexArg:
      if (argc != 4) return;
      if (const auto at_ms = mapped_expiry_ms(command[2], row->unit_us == kUsPerS, true, now_us))
        out = {"SET", out[1], command[3], "PXAT", std::to_string(*at_ms)};
      return;
    case TimeUse::kExpiryOption:
      map_expiry_option(command, row->options_from, now_us, out);
      return;
    default:
      return;
  }
}

// SET's / GETEX's EX / PX / EXAT / PXAT as PXAT. Redis takes one kind of expiry option, repeated
// or not (the last wins): each is mapped, or none is (and the server answers as it would).
void RealStore::map_expiry_option(const Command& command, std::size_t from, TimeUs now_us,
                                  Command& out) const {
  std::string kind;
  std::vector<std::size_t> options;
  for (std::size_t i = from; i < command.size(); ++i) {
    const std::string o = ascii_lower(command[i]);
    if (o != "ex" && o != "px" && o != "exat" && o != "pxat") continue;
    if ((!kind.empty() && o != kind) || i + 1 == command.size()) return;
    kind = o;
    options.push_back(i++);  // its value is not an option
  }
  std::vector<std::int64_t> at_ms;
  for (const std::size_t i : options) {
    const auto mapped =
        mapped_expiry_ms(command[i + 1], kind == "ex" || kind == "exat",
                         kind == "ex" || kind == "px", now_us, ascii_lower(command[0]) == "set");
    if (!mapped) return;
    at_ms.push_back(*mapped);
  }
  for (std::size_t k = 0; k < options.size(); ++k) {
    out[options[k]] = "PXAT";
    out[options[k] + 1] = std::to_string(at_ms[k]);
  }
}

// SCRIPT LOAD goes to the server (wrapped); SCRIPT EXISTS answers from what this run loaded on
// this node; FLUSH empties this run's cache only (the server's is shared), with the mock's errors.
void RealStore::translate_script_command(const Command& command, TimeUs now_us, Op& op,
                                         std::vector<Command>& sent) {
  const std::size_t argc = command.size();
  const std::string sub = argc >= 2 ? ascii_lower(command[1]) : "";
  if (sub == "load" && argc == 3) {
    Script& script = register_script(command[2]);
    known(node_).insert(script.sha);
    script.on_server = true;
    op.real = true;
    op.fix = Fix::kScriptLoad;
    op.script = &script;
    sent.push_back({"SCRIPT", "LOAD", script.wrapped});
    return;
  }
  if (sub == "exists" && argc >= 3) {
    std::vector<Reply> found;
    for (std::size_t i = 2; i < argc; ++i) {
      const auto it = scripts_.find(ascii_lower(command[i]));
      found.push_back(Reply::from_integer(
          it != scripts_.end() && known(node_).count(it->second->sha) != 0 ? 1 : 0));
    }
    op.reply = Reply::array(std::move(found));
    return;
  }
  op.reply = local_reply(command, now_us);
  if (sub == "flush" && !op.reply.is_error()) known(node_).clear();
}

void RealStore::translate(const Command& command, TimeUs now_us, Batch& batch,
                          std::vector<std::string>& sweep_keys, std::vector<Command>& sent) {
  Op& op = batch.ops.emplace_back();
  if (command.empty()) {
    op.reply = Reply::error("ERR empty command");
    return;
  }
  const std::string name = ascii_lower(command[0]);
  const std::size_t argc = command.size();
  Command out;
  switch (keys_of(name)) {
    case Keys::kUnknown:
      // Never sent: a command the embedded Redis lacks could touch keys outside the run.
      op.reply = local_reply(command, now_us);
      return;
    case Keys::kTime:
      if (argc != 1) break;
      op.reply = Reply::array({Reply::bulk(std::to_string(now_us / kUsPerS)),
                               Reply::bulk(std::to_string(now_us % kUsPerS))});
      return;
    case Keys::kNone:
      out = command;
      break;
    case Keys::kScriptCommand:
      translate_script_command(command, now_us, op, sent);
      return;
    case Keys::kScript: {
      const auto numkeys = argc >= 3 ? parse_int(command[2]) : std::nullopt;
      if (!numkeys || *numkeys < 0 || static_cast<std::size_t>(*numkeys) > argc - 3) {
        out = command;  // the server refuses it before running anything
        break;
      }
      Command script_call;
      add_script_call(command, name == "evalsha", static_cast<std::size_t>(*numkeys), now_us, op,
                      script_call);
      if (op.real) sent.push_back(std::move(script_call));
      return;
    }
    case Keys::kFirst:
    case Keys::kAll:
    case Keys::kPairs: {
      out = command;
      const Keys keys = keys_of(name);
      const std::size_t last = keys == Keys::kFirst ? std::min<std::size_t>(argc, 2) : argc;
      for (std::size_t i = 1; i < last; i += keys == Keys::kPairs ? 2 : 1) {
        out[i] = with_prefix(command[i]);
        sweep_keys.push_back(out[i]);
      }
      map_ttl_command(name, command, now_us, op, out);
      break;
    }
  }
  op.real = true;
  sent.push_back(std::move(out));
}

// Reconnect with backoff counted in calls (1, 2, 4, ... up to 1024), not in wall time.
void RealStore::reconnect_if_due() {
  if (!broken_ || failures_in_a_row_ >= kMaxFailuresInARow || --retry_after_calls_ > 0) return;
  std::string error;
  if (connect(error)) {
    broken_ = false;
    backoff_calls_ = 1;
    ++reconnects_;
    unreachable_.clear();
  } else {
    unreachable_ = error;
    retry_after_calls_ = backoff_calls_;
    backoff_calls_ = std::min(backoff_calls_ * 2, 1024);
  }
}

// Lazy expiry on the virtual clock for the keys of plain commands, before them. On a cluster a
// script's keys must share a slot: one sweep per slot.
void RealStore::append_sweeps(std::vector<std::string> sweep_keys, TimeUs now_us, Batch& batch) {
  std::vector<std::vector<std::string>> sweeps;
  if (!wire_->sharded()) {
    if (!sweep_keys.empty()) sweeps.push_back(std::move(sweep_keys));
  } else {
    std::unordered_map<int, std::size_t> by_slot;
    for (std::string& key : sweep_keys) {
      const auto [it, fresh] = by_slot.try_emplace(key_hash_slot(key), sweeps.size());
      if (fresh) sweeps.emplace_back();
      sweeps[it->second].push_back(std::move(key));
    }
  }
  for (std::vector<std::string>& keys : sweeps) {
    Command sweep;
    sweep.reserve(keys.size() + 5);
    if (sweep_on_server_) {
      sweep = {"EVALSHA", sweep_sha_};
    } else {
      sweep = {"EVAL", std::string(kSweepPrelude) + "return 0"};
      sweep_on_server_ = true;
    }
    sweep.push_back(std::to_string(keys.size()));
    for (std::string& key : keys) sweep.push_back(std::move(key));
    sweep.push_back(std::to_string(threshold(now_us)));
    sweep.push_back(std::to_string(offset_ms_));
    append(sweep);
    Op hidden;
    hidden.real = true;
    hidden.fix = Fix::kHidden;
    batch.ops.insert(batch.ops.begin(), std::move(hidden));
  }
}

std::uint64_t RealStore::submit(std::span<const Command> commands, TimeUs server_now_us) {
  // On a cluster each simulated node submits in its own time order, and a node's calls touch only
  // its own slots, so the time order need only hold per node (the clock is kept at the latest).
  RLSIM_CHECK(wire_->sharded() || server_now_us >= last_now_us_);
  last_now_us_ = std::max(last_now_us_, server_now_us);
  const std::uint64_t ticket = first_ticket_ + batches_.size();
  Batch& batch = batches_.emplace_back();
  if (!spare_ops_.empty()) {
    batch.ops = std::move(spare_ops_.back());
    spare_ops_.pop_back();
  }
  batch.now_us = server_now_us;
  batch.node = node_;
  if (!stopped_.empty()) {  // a runaway script stopped the run: send nothing more
    for (std::size_t i = 0; i < commands.size(); ++i)
      batch.ops.emplace_back().reply = Reply::error("ERR rlsim: " + stopped_);
    return ticket;
  }
  reconnect_if_due();
  if (broken_) {
    for (std::size_t i = 0; i < commands.size(); ++i)
      batch.ops.emplace_back().reply = Reply::error(lost_text(failure_));
    ++backend_errors_;
    return ticket;
  }
  std::vector<std::string> sweep_keys;
  std::vector<Command> sent;
  sent.reserve(commands.size() + 1);
  batch.ops.reserve(commands.size() + 1);
  for (const Command& command : commands)
    translate(command, server_now_us, batch, sweep_keys, sent);
  append_sweeps(std::move(sweep_keys), server_now_us, batch);
  std::size_t next_sent = 0;
  for (Op& op : batch.ops) {
    if (!op.real || op.fix == Fix::kHidden) continue;
    append(sent[next_sent]);
    // A script call keeps what it sent: EVAL with the text again if the server lost the script.
    if (op.fix == Fix::kScript) op.retry = std::move(sent[next_sent]);
    ++next_sent;
  }
  // Keep the output buffer small: hand what we have to the kernel (replies are read later).
  if (std::string error; !wire_->flush_if_large(error)) fail(error);
  if (broken_) {
    // Everything not yet read went out on the connection that failed.
    read_until(ticket);
  }
  return ticket;
}

// ---- reading -----------------------------------------------------------------------------------

void RealStore::finish_reply(Batch& batch, Op& op) {
  Reply& reply = op.reply;
  switch (op.fix) {
    case Fix::kNone:
      return;
    case Fix::kHidden:
      if (reply.is_error() && reply.text.starts_with("NOSCRIPT")) sweep_on_server_ = false;
      return;
    case Fix::kTtl:
    case Fix::kPttl:
      if (reply.type == Reply::Type::kInteger && reply.integer >= 0) {
        // Whole milliseconds left, 0 through the expiry's own (Redis's ttlGenericCommand).
        const std::int64_t left_ms = std::max<std::int64_t>(
            (reply.integer - offset_ms_) / kUsPerMs - batch.now_us / kUsPerMs, 0);
        reply.integer = op.fix == Fix::kTtl ? (left_ms + 500) / 1000 : left_ms;
      }
      return;
    case Fix::kExpireTime:
    case Fix::kPexpireTime:
      // The server's time is virtual microseconds + offset_ms_; EXPIRETIME rounds its seconds as
      // Redis does (ttlGenericCommand), from whole milliseconds.
      if (reply.type == Reply::Type::kInteger && reply.integer >= 0) {
        const std::int64_t at_ms = (reply.integer - offset_ms_) / kUsPerMs;
        reply.integer = op.fix == Fix::kPexpireTime ? at_ms : (at_ms + 500) / 1000;
      }
      return;
    case Fix::kScriptLoad:
      if (reply.type == Reply::Type::kBulk) {
        reply.text = op.script->sha;
      } else if (reply.is_error()) {
        known(batch.node).erase(op.script->sha);
        op.script->on_server = false;
      }
      return;
    case Fix::kScript:
      break;
  }
  if (!reply.is_error()) return;
  Script& script = *op.script;
  std::string& text = reply.text;
  if (text.starts_with("NOSCRIPT")) {
    script.on_server = false;  // the server's cache was flushed under the run: send it again
    return;
  }
  if (text.starts_with("ERR Error compiling script")) {
    known(batch.node).erase(script.sha);
    script.on_server = false;
  }
  replace_all(text, script.wrapped_sha, script.sha);
  // An error raised by redis.call in a shadowed script: "ERR [user_script:N: ]<marker><error>
  // script: <sha>, on @user_script:M." back to "<error> script: <sha>, on @user_script:N.".
  const std::size_t marker = text.find(kScriptErrorMarker);
  if (marker == std::string::npos) return;
  std::string line;
  const std::string_view head = std::string_view(text).substr(0, marker);
  if (const std::size_t at = head.find("user_script:"); at != std::string_view::npos) {
    const std::string_view rest = head.substr(at + 12);
    line = std::string(rest.substr(0, rest.find(':')));
  }
  std::string body = text.substr(marker + kScriptErrorMarker.size());
  if (!line.empty()) {
    const std::size_t on = body.rfind(", on @user_script:");
    if (on != std::string::npos) body = body.substr(0, on) + ", on @user_script:" + line + ".";
  }
  text = std::move(body);
}

void RealStore::read_batch(Batch& batch) {
  bool retry = false;
  for (Op& op : batch.ops) {
    if (!op.real) continue;
    if (broken_ || batch.lost ||
        !read_reply(op.reply, op.fix == Fix::kScript ? op.script : nullptr)) {
      op.reply = Reply::error(lost_text(failure_));
      batch.failed = true;
      continue;
    }
    if (op.reply.is_error() && op.reply.text.starts_with("BUSY")) answer_busy(op.reply);
    if (broken_) continue;   // the server is stuck on an unkillable script
    failures_in_a_row_ = 0;  // the server answers
    finish_reply(batch, op);
    if (op.fix == Fix::kScript && op.reply.is_error() && op.reply.text.starts_with("NOSCRIPT"))
      retry = true;
  }
  if (batch.failed) ++backend_errors_;
  batch.read = true;
  if (!retry || broken_) return;
  // The server lost the script (SCRIPT FLUSH by someone else, a restart): run it again with its
  // text, after every reply already on the wire (so this one call runs late, not out of order
  // with respect to the replies the simulation has seen).
  for (Op& op : batch.ops) {
    if (op.fix != Fix::kScript || !op.reply.is_error() || !op.reply.text.starts_with("NOSCRIPT"))
      continue;
    retry_script(op, batch.now_us);
  }
}

void RealStore::retry_script(Op& op, TimeUs /*now_us*/) {
  // Drain every reply already requested, then send the script with its text and wait.
  for (std::size_t i = unread_ + 1; i < batches_.size(); ++i) {
    if (!batches_[i].read) read_batch(batches_[i]);
  }
  if (broken_) {
    op.reply = Reply::error(lost_text(failure_));
    return;
  }
  op.retry[0] = "EVAL";
  op.retry[1] = op.script->wrapped;
  append(op.retry);
  if (!read_reply(op.reply)) {
    op.reply = Reply::error(lost_text(failure_));
    return;
  }
  op.script->on_server = true;
  Batch dummy;
  finish_reply(dummy, op);
}

void RealStore::read_until(std::uint64_t ticket) {
  // Replies come back in the order the calls were sent.
  while (unread_ < batches_.size() && first_ticket_ + unread_ <= ticket) {
    Batch& batch = batches_[unread_];
    if (!batch.read) read_batch(batch);
    ++unread_;
  }
}

void RealStore::pop_done() {
  while (unread_ > 0 && !batches_.empty() && batches_.front().abandoned) {
    std::vector<Op>& ops = batches_.front().ops;
    if (spare_ops_.size() < 64 && ops.capacity() <= 8) {
      ops.clear();
      spare_ops_.push_back(std::move(ops));
    }
    batches_.pop_front();
    ++first_ticket_;
    --unread_;
  }
}

void RealStore::collect(std::uint64_t ticket, std::vector<Reply>& replies) {
  RLSIM_CHECK(ticket >= first_ticket_ && ticket < first_ticket_ + batches_.size());
  read_until(ticket);
  Batch& batch = batches_[ticket - first_ticket_];
  for (Op& op : batch.ops)
    if (op.fix != Fix::kHidden) replies.push_back(std::move(op.reply));
  batch.abandoned = true;  // done: nobody needs it any more
  pop_done();
}

void RealStore::abandon(std::uint64_t ticket) {
  RLSIM_CHECK(ticket >= first_ticket_ && ticket < first_ticket_ + batches_.size());
  batches_[ticket - first_ticket_].abandoned = true;
  pop_done();
}

void RealStore::execute(std::span<const Command> commands, TimeUs server_now_us,
                        std::vector<Reply>& replies) {
  collect(submit(commands, server_now_us), replies);
}

Reply RealStore::run(const Command& command, TimeUs server_now_us) {
  std::vector<Reply> replies;
  execute(std::span<const Command>(&command, 1), server_now_us, replies);
  return std::move(replies.front());
}

// ---- the run's keys ----------------------------------------------------------------------------

std::size_t RealStore::delete_own_keys(
    const std::function<bool(const std::string&)>& keep_deleting) {
  read_until(first_ticket_ + batches_.size());
  if (broken_ || !wire_->connected()) return 0;
  std::vector<std::string> keys = wire_->scan(prefix_ + "*");
  if (keep_deleting)
    std::erase_if(keys, [&](const std::string& key) { return !keep_deleting(key); });
  // UNLINK in batches; on a cluster one command's keys must share a slot, so by slot.
  std::vector<Command> unlinks;
  std::unordered_map<int, std::size_t> open;  // slot (0 when not sharded) -> its UNLINK not full
  for (const std::string& key : keys) {
    const int slot = wire_->sharded() ? key_hash_slot(key) : 0;
    auto it = open.find(slot);
    if (it == open.end() || unlinks[it->second].size() > 500) {
      it = open.insert_or_assign(slot, unlinks.size()).first;
      unlinks.push_back({"UNLINK"});
    }
    unlinks[it->second].push_back(key);
  }
  for (const Command& unlink : unlinks) append(unlink);
  Reply reply;
  for (std::size_t i = 0; i < unlinks.size(); ++i)
    if (!read_reply(reply)) break;
  return keys.size();
}

void RealStore::lose_node_data(int node, const std::function<bool(const std::string&)>& owns) {
  delete_own_keys(owns);
  known(node).clear();
}

std::size_t RealStore::count_keys(TimeUs now_us, bool (*keep)(const std::string&, const void*),
                                  const void* context) const {
  auto& self = const_cast<RealStore&>(*this);
  self.read_until(first_ticket_ + batches_.size());
  if (broken_ || !wire_->connected()) return 0;
  std::vector<std::string> keys = wire_->scan(prefix_ + "*");
  if (keep != nullptr)
    std::erase_if(keys, [&](const std::string& key) { return !keep(key, context); });
  for (const std::string& key : keys) self.append({"PEXPIRETIME", key});
  std::size_t live = 0;
  const std::int64_t now = threshold(now_us);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Reply reply;
    if (!self.read_reply(reply)) return live;
    // -1: no TTL; otherwise alive through the millisecond of its virtual expiry (as the mock).
    if (reply.type == Reply::Type::kInteger &&
        (reply.integer == -1 || reply.integer + kUsPerMs > now))
      ++live;
  }
  return live;
}

std::optional<BackendReport> RealStore::backend_report() const {
  BackendReport report;
  report.url = url_display();
  report.cluster = wire_->cluster_report();
  report.calls_failed = backend_errors_;
  report.reconnects = reconnects_;
  report.failure = failure_;
  report.stopped = stopped_;
  // Still cut off at the end, after a server that answered garbage or nothing (the store gave up
  // on it: a failed backend, as before) or after the server went away. A connection that failed
  // on the run's last calls is tried once more, as the next call would have.
  if (broken_ && failures_in_a_row_ < kMaxFailuresInARow && stopped_.empty()) {
    auto& self = const_cast<RealStore&>(*this);
    if (unreachable_.empty()) {
      self.retry_after_calls_ = 1;
      self.reconnect_if_due();
    }
    if (broken_) {
      report.lost = unreachable_;
      // Calls carry the simulated server's clock, kEpochUnixUs + virtual time (redis/server.h).
      report.lost_at_us = std::max<TimeUs>(0, failed_at_us_ - kEpochUnixUs);
    }
  }
  return report;
}

namespace {

// Simulated node `node`'s view of the one routing store: its calls carry the node, and it counts
// the keys it owns at its own latest time, as an embedded node counts its keyspace.
class NodeView final : public DataStore {
 public:
  NodeView(RealStore& store, int node, std::function<bool(const std::string&)> owns)
      : store_(store), node_(node), owns_(std::move(owns)) {}
  void execute(std::span<const Command> commands, TimeUs now_us,
               std::vector<Reply>& replies) override {
    collect(submit(commands, now_us), replies);
  }
  std::size_t key_count() const override {
    return store_.count_keys(
        last_now_us_,
        [](const std::string& key, const void* owns) {
          return (*static_cast<const std::function<bool(const std::string&)>*>(owns))(key);
        },
        &owns_);
  }
  void lose_data() override { store_.lose_node_data(node_, owns_); }
  bool deferred() const override { return true; }
  std::uint64_t submit(std::span<const Command> commands, TimeUs now_us) override {
    last_now_us_ = now_us;
    store_.set_node(node_);
    return store_.submit(commands, now_us);
  }
  void collect(std::uint64_t ticket, std::vector<Reply>& replies) override {
    store_.collect(ticket, replies);
  }
  void abandon(std::uint64_t ticket) override { store_.abandon(ticket); }

 private:
  RealStore& store_;
  int node_;
  std::function<bool(const std::string&)> owns_;
  TimeUs last_now_us_ = 0;
};

}  // namespace

std::shared_ptr<DataStore> RealStore::node_view(
    int node, const std::function<bool(const std::string&)>& owns) {
  return std::make_shared<NodeView>(*this, node, owns);
}

}  // namespace rlsim
