#pragma once
// The byte stream under RealStore: where its (already translated) commands go and where their
// replies come from, in the order they were appended. One connection to one server (SingleWire,
// here), or one connection per master of a Redis Cluster with routing by hash slot
// (ClusterWire, real/real_cluster.h). RealStore owns the translation (key prefix, virtual-clock
// TTLs, the script cache), so both backends translate identically.
#include <hiredis/hiredis.h>

#include <string>
#include <vector>

#include "redis/reply.h"
#include "redis/store.h"

namespace rlsim {

// redis://[user[:password]@]host:port[/db] (parsed by parse_redis_url, real/real_store.h).
struct RedisUrl {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string user;
  std::string password;  // never printed: display() leaves it out
  // Not part of the URL: how long to wait for a reply (or a write) before the connection counts
  // as failed, so that a server that stops answering cannot hang the run.
  int io_timeout_ms = 10'000;
  // "redis://host:port/db", without user or password, for messages and reports.
  std::string display() const;
};

class RedisWire {
 public:
  virtual ~RedisWire() = default;
  // What the run talks to, for messages: "Redis at redis://host:port" (never a password).
  virtual std::string describe() const = 0;
  // (Re)connects; false with `error` set when the server cannot be used.
  virtual bool connect(std::string& error) = 0;
  virtual void disconnect() = 0;
  virtual bool connected() const = 0;
  // Queues `command`; its reply is read by read(), in append order.
  virtual void append(const Command& command) = 0;
  // The reply of the oldest command not yet read; false (with `error`) when the connection failed.
  virtual bool read(Reply& reply, std::string& error) = 0;
  // After read() failed: true when it only timed out (no byte of a reply had come), and the
  // connection is made usable again so that read() can wait for the same reply once more; false
  // when it failed otherwise, or the wire cannot resume (the connection is then unusable).
  virtual bool resume_after_timeout() { return false; }
  // Sends SCRIPT KILL to the server the oldest unread command went to, on a connection of its own
  // (the server answers it only while a script runs, once the script has run for its
  // busy-reply-threshold), and waits up to `wait_ms` for the answer: true with `reply` (OK,
  // NOTBUSY or UNKILLABLE), or false with `error` when it could not be sent or was not answered.
  virtual bool kill_script(int wait_ms, Reply& reply, std::string& error) {
    (void)wait_ms;
    (void)reply;
    error = "SCRIPT KILL is not sent over " + describe();
    return false;
  }
  // Hands buffered commands to the kernel when much is buffered; false when that failed.
  virtual bool flush_if_large(std::string& error) = 0;
  // Every key matching `pattern` (SCAN, never KEYS), on every server, each once (sorted).
  // REQUIRES: every appended command has been read.
  virtual std::vector<std::string> scan(const std::string& pattern) = 0;
  // Whether keys are spread over hash slots: a command (or a script) must then keep its keys in
  // one slot, so the store splits what it adds (lazy-expiry sweeps, cleanup) by slot.
  virtual bool sharded() const { return false; }
  // The address of the server `slot` is routed to; "" when no server owns it or the wire does not
  // route by slot.
  virtual std::string owner_of(int /*slot*/) const { return ""; }
  // The routing's counters when the wire routes over a Redis Cluster; nullopt otherwise.
  virtual std::optional<ClusterReport> cluster_report() const { return std::nullopt; }
};

// hiredis helpers shared by the wires.
// What went wrong on `context`: "no reply within N ms" for a timed-out read or write.
std::string io_error_text(const redisContext* context, int io_timeout_ms);
Reply reply_from_hiredis(const redisReply* reply);
void append_argv(redisContext* context, const Command& command);
// Connects to host:port and authenticates (and SELECTs `url.db` when `select_db`); nullptr with
// `error` set on failure.
redisContext* open_connection(const std::string& host, int port, const RedisUrl& url,
                              bool select_db, std::string& error);
// SCAN MATCH `pattern` on one connection (with nothing pending on it): each key once, sorted.
std::vector<std::string> scan_keys(redisContext* context, const std::string& pattern);
// Flushes the output buffer when more than 64 KiB is waiting; false on a write error.
bool flush_large_buffer(redisContext* context);

// One connection to one server.
class SingleWire final : public RedisWire {
 public:
  explicit SingleWire(RedisUrl url) : url_(std::move(url)) {}
  ~SingleWire() override { disconnect(); }
  SingleWire(const SingleWire&) = delete;
  SingleWire& operator=(const SingleWire&) = delete;

  std::string describe() const override { return "Redis at " + url_.display(); }
  bool connect(std::string& error) override;
  void disconnect() override;
  bool connected() const override { return context_ != nullptr; }
  void append(const Command& command) override { append_argv(context_, command); }
  bool read(Reply& reply, std::string& error) override;
  bool resume_after_timeout() override;
  bool kill_script(int wait_ms, Reply& reply, std::string& error) override;
  bool flush_if_large(std::string& error) override;
  std::vector<std::string> scan(const std::string& pattern) override {
    return scan_keys(context_, pattern);
  }

 private:
  RedisUrl url_;
  redisContext* context_ = nullptr;
};

}  // namespace rlsim
