#include "real/redis_wire.h"

#include <fmt/format.h>
#include <hiredis/sds.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace rlsim {

Reply reply_from_hiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      return Reply::from_integer(r->integer);
    case REDIS_REPLY_STATUS:
      return Reply::status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return Reply::error(std::string(r->str, r->len));
    case REDIS_REPLY_STRING:
      return Reply::bulk(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> elements;
      elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i)
        elements.push_back(reply_from_hiredis(r->element[i]));
      return Reply::array(std::move(elements));
    }
    default:
      return Reply::nil();
  }
}

std::string io_error_text(const redisContext* context, int io_timeout_ms) {
  if (context == nullptr) return "connection closed";
  // hiredis reports a read or write that timed out as EAGAIN.
  if (context->err == REDIS_ERR_IO && std::string_view(context->errstr) == std::strerror(EAGAIN))
    return fmt::format("no reply within {} ms", io_timeout_ms);
  return context->errstr;
}

void append_argv(redisContext* context, const Command& command) {
  // Reused arrays: no allocation per command on the hot path (one wire per thread's run).
  thread_local std::vector<const char*> argv;
  thread_local std::vector<std::size_t> lengths;
  argv.clear();
  lengths.clear();
  for (const std::string& arg : command) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data());
}

redisContext* open_connection(const std::string& host, int port, const RedisUrl& url,
                              bool select_db, std::string& error) {
  const timeval connect_timeout{2, 0};
  redisContext* context = redisConnectWithTimeout(host.c_str(), port, connect_timeout);
  if (context == nullptr || context->err != 0) {
    error = context != nullptr ? context->errstr : "out of memory";
    if (context != nullptr) redisFree(context);
    return nullptr;
  }
  // A server that stops answering must not hang the run for ever.
  const timeval io_timeout{url.io_timeout_ms / 1000, url.io_timeout_ms % 1000 * 1000};
  redisSetTimeout(context, io_timeout);
  std::vector<Command> setup;
  if (!url.password.empty()) {
    if (url.user.empty()) {
      setup.push_back({"AUTH", url.password});
    } else {
      setup.push_back({"AUTH", url.user, url.password});
    }
  }
  if (select_db && url.db != 0) setup.push_back({"SELECT", std::to_string(url.db)});
  for (const Command& command : setup) {
    append_argv(context, command);
    redisReply* reply = nullptr;
    if (redisGetReply(context, reinterpret_cast<void**>(&reply)) != REDIS_OK || reply == nullptr) {
      error = io_error_text(context, url.io_timeout_ms);
      redisFree(context);
      return nullptr;
    }
    const bool failed = reply->type == REDIS_REPLY_ERROR;
    if (failed) error = std::string(reply->str, reply->len);  // never holds the password
    freeReplyObject(reply);
    if (failed) {
      redisFree(context);
      return nullptr;
    }
  }
  return context;
}

std::vector<std::string> scan_keys(redisContext* context, const std::string& pattern) {
  std::vector<std::string> keys;
  if (context == nullptr) return keys;
  std::string cursor = "0";
  do {
    const char* argv[] = {"SCAN", cursor.c_str(), "MATCH", pattern.c_str(), "COUNT", "1000"};
    auto* reply = static_cast<redisReply*>(redisCommandArgv(context, 6, argv, nullptr));
    if (reply == nullptr) break;
    // Anything but [cursor, [key...]] of strings (a misbehaving server) ends the scan.
    const bool well_formed = reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
                             reply->element[0]->type == REDIS_REPLY_STRING &&
                             reply->element[1]->type == REDIS_REPLY_ARRAY;
    if (!well_formed) {
      freeReplyObject(reply);
      break;
    }
    cursor.assign(reply->element[0]->str, reply->element[0]->len);
    const redisReply* found = reply->element[1];
    for (std::size_t i = 0; i < found->elements; ++i)
      if (found->element[i]->type == REDIS_REPLY_STRING)
        keys.emplace_back(found->element[i]->str, found->element[i]->len);
    freeReplyObject(reply);
  } while (cursor != "0");
  // SCAN may return a key more than once (while the server rehashes its keyspace): a key count
  // built on it would then count keys twice.
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

bool flush_large_buffer(redisContext* context) {
  if (sdslen(context->obuf) <= 64 * 1024) return true;
  int done = 0;
  while (!done)
    if (redisBufferWrite(context, &done) != REDIS_OK) return false;
  return true;
}

bool SingleWire::connect(std::string& error) {
  disconnect();
  context_ = open_connection(url_.host, url_.port, url_, true, error);
  return context_ != nullptr;
}

void SingleWire::disconnect() {
  if (context_ != nullptr) redisFree(context_);
  context_ = nullptr;
}

bool SingleWire::read(Reply& reply, std::string& error) {
  redisReply* raw = nullptr;
  if (context_ == nullptr) {
    error = "connection closed";
    return false;
  }
  if (redisGetReply(context_, reinterpret_cast<void**>(&raw)) != REDIS_OK || raw == nullptr) {
    error = io_error_text(context_, url_.io_timeout_ms);
    return false;
  }
  reply = reply_from_hiredis(raw);
  freeReplyObject(raw);
  return true;
}

bool SingleWire::resume_after_timeout() {
  // A read that timed out leaves hiredis's reader as it was (no byte of a reply consumed) and only
  // sets the context's error, which makes every later call fail: clearing it resumes the wait.
  if (context_ == nullptr || context_->err != REDIS_ERR_IO ||
      std::string_view(context_->errstr) != std::strerror(EAGAIN))
    return false;
  context_->err = 0;
  context_->errstr[0] = '\0';
  return true;
}

bool SingleWire::kill_script(int wait_ms, Reply& reply, std::string& error) {
  RedisUrl url = url_;
  url.io_timeout_ms = wait_ms;
  // No SELECT: a busy server answers BUSY to it (AUTH and SCRIPT KILL it takes).
  redisContext* context = open_connection(url.host, url.port, url, false, error);
  if (context == nullptr) return false;
  append_argv(context, {"SCRIPT", "KILL"});
  redisReply* raw = nullptr;
  const bool answered =
      redisGetReply(context, reinterpret_cast<void**>(&raw)) == REDIS_OK && raw != nullptr;
  if (answered) {
    reply = reply_from_hiredis(raw);
    freeReplyObject(raw);
  } else {
    error = io_error_text(context, wait_ms);
  }
  redisFree(context);
  return answered;
}

bool SingleWire::flush_if_large(std::string& error) {
  if (flush_large_buffer(context_)) return true;
  error = io_error_text(context_, url_.io_timeout_ms);
  return false;
}

}  // namespace rlsim
