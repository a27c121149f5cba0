// Sorted-set commands of the embedded Redis, with Redis 7.0's option parsing, replies and error
// texts (t_zset.c). Scores are doubles; replies print them as Redis 7.0 does ("%.17g").
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "redis/lua_engine.h"
#include "redis/mock_internal.h"

namespace rlsim {

namespace {

using Ctx = MockStore::Context;
using Entry = MockStore::Entry;
using Type = MockStore::Type;
using ZSet = MockStore::ZSet;
using Limits = std::numeric_limits<std::int64_t>;

const char* const kNotFloatRange = "ERR min or max is not a float";

// -0 is stored as 0, as Redis's compact (listpack) encoding does for small sets.
double normalized(double score) { return score == 0 ? 0.0 : score; }

void zset_insert(ZSet& zset, double score, const std::string& member) {
  auto it = zset.by_score.emplace(normalized(score), member).first;
  zset.score_of.emplace(std::string_view(it->second), it->first);
}

// Removes the member `found` points at.
void zset_erase(ZSet& zset, std::unordered_map<std::string_view, double>::iterator found) {
  auto node = zset.by_score.find(MockStore::ScoreOrder::View{found->second, found->first});
  zset.score_of.erase(found);
  zset.by_score.erase(node);
}

// A score interval as ZRANGEBYSCORE takes it: "(" makes a bound exclusive.
struct ScoreRange {
  double min = 0, max = 0;
  bool min_exclusive = false, max_exclusive = false;
  bool above_min(double v) const { return min_exclusive ? v > min : v >= min; }
  bool below_max(double v) const { return max_exclusive ? v < max : v <= max; }
  bool empty() const { return min > max || (min == max && (min_exclusive || max_exclusive)); }
};

// Redis's zslParseRange bound: plain strtod over the rest of the text (so "" and "(" mean 0).
bool parse_bound(const std::string& text, double& value, bool& exclusive) {
  exclusive = !text.empty() && text[0] == '(';
  if (parse_plain_decimal(std::string_view(text).substr(exclusive ? 1 : 0), value)) return true;
  const char* start = text.c_str() + (exclusive ? 1 : 0);
  char* end = nullptr;
  value = std::strtod(start, &end);
  return *end == '\0' && !std::isnan(value);
}

bool parse_range(const std::string& min, const std::string& max, ScoreRange& range) {
  return parse_bound(min, range.min, range.min_exclusive) &&
         parse_bound(max, range.max, range.max_exclusive);
}

// The members in `range`, in score order (descending when `reverse`), after skipping `offset`
// and taking at most `count` (negative: all); Redis's genericZrangebyscoreCommand.
template <class Visit>
void for_each_in_range(const ZSet& zset, const ScoreRange& range, bool reverse, std::int64_t offset,
                       std::int64_t count, Visit visit) {
  if (range.empty() || offset < 0) return;
  // Skips `offset` members, then visits until `count` are taken; false once done.
  const auto take = [&](const std::pair<double, std::string>& item) {
    if (offset > 0) {
      --offset;
    } else {
      visit(item);
      if (count > 0) --count;
    }
    return count != 0;
  };
  const double inf = std::numeric_limits<double>::infinity();
  if (count == 0) return;
  if (!reverse) {
    const double from = range.min_exclusive ? std::nextafter(range.min, inf) : range.min;
    for (auto it = zset.by_score.lower_bound(MockStore::ScoreOrder::View{from, ""});
         it != zset.by_score.end() && range.below_max(it->first); ++it) {
      if (range.above_min(it->first) && !take(*it)) return;
    }
    return;
  }
  const double past = range.max_exclusive ? range.max : std::nextafter(range.max, inf);
  auto it = zset.by_score.lower_bound(MockStore::ScoreOrder::View{past, ""});
  while (it != zset.by_score.begin()) {
    --it;
    if (!range.below_max(it->first)) continue;
    if (!range.above_min(it->first) || !take(*it)) return;
  }
}

void append_member(std::vector<Reply>& out, const std::pair<double, std::string>& item,
                   bool with_scores) {
  out.push_back(Reply::bulk(item.second));
  if (with_scores) out.push_back(Reply::bulk(format_double(item.first)));
}

struct ZAddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};

// Redis's zsetAdd for one member. Returns false on a NaN result; `changed` / `added` / `applied`
// report what happened, `score` becomes the member's score after the call.
bool zset_add(ZSet& zset, const std::string& member, double& score, const ZAddFlags& flags,
              bool& added, bool& updated, bool& applied) {
  added = updated = applied = false;
  auto found = zset.score_of.find(member);
  if (found != zset.score_of.end()) {
    if (flags.nx) return true;
    const double current = found->second;
    if (flags.incr) {
      score += current;
      if (std::isnan(score)) return false;
    }
    if ((flags.gt && score <= current) || (flags.lt && score >= current)) return true;
    applied = true;
    if (normalized(score) != current) {
      zset_erase(zset, found);
      zset_insert(zset, score, member);
      updated = true;
    }
    score = normalized(score);
    return true;
  }
  if (flags.xx) return true;
  zset_insert(zset, score, member);
  score = normalized(score);
  added = applied = true;
  return true;
}

Reply zadd_generic(Ctx& ctx, ZAddFlags flags, std::size_t score_at) {
  const auto& argv = ctx.argv;
  const std::size_t elements = argv.size() - score_at;
  if (elements == 0 || elements % 2 != 0) return Reply::error(kSyntax);
  if (flags.nx && flags.xx)
    return Reply::error("ERR XX and NX options at the same time are not compatible");
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt))
    return Reply::error("ERR GT, LT, and/or NX options at the same time are not compatible");
  if (flags.incr && elements > 2)
    return Reply::error("ERR INCR option supports a single increment-element pair");
  std::vector<double> scores(elements / 2);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (!parse_strict_double(argv[score_at + 2 * i], scores[i])) return Reply::error(kNotFloat);
  }
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  if (entry == nullptr) {
    if (flags.xx) return flags.incr ? Reply::nil() : Reply::from_integer(0);
    entry = &ctx.create(argv[1], Type::kZSet);
  }
  std::int64_t added = 0, updated = 0, applied = 0;
  double last_score = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    bool was_added = false, was_updated = false, was_applied = false;
    double score = scores[i];
    if (!zset_add(*entry->zset, argv[score_at + 2 * i + 1], score, flags, was_added, was_updated,
                  was_applied)) {
      if (entry->zset->score_of.empty()) ctx.erase(argv[1]);
      return Reply::error("ERR resulting score is not a number (NaN)");
    }
    added += was_added;
    updated += was_updated;
    applied += was_applied;
    last_score = score;
  }
  if (entry->zset->score_of.empty()) ctx.erase(argv[1]);  // e.g. NX on a new key: never empty
  if (flags.incr) return applied ? Reply::bulk(format_double(last_score)) : Reply::nil();
  return Reply::from_integer(flags.ch ? added + updated : added);
}

}  // namespace

// ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
Reply cmd_zadd(Ctx& ctx) {
  ZAddFlags flags;
  std::size_t at = 2;
  for (; at < ctx.argv.size(); ++at) {
    const std::string option = ascii_lower(ctx.argv[at]);
    if (option == "nx")
      flags.nx = true;
    else if (option == "xx")
      flags.xx = true;
    else if (option == "gt")
      flags.gt = true;
    else if (option == "lt")
      flags.lt = true;
    else if (option == "ch")
      flags.ch = true;
    else if (option == "incr")
      flags.incr = true;
    else
      break;
  }
  return zadd_generic(ctx, flags, at);
}

// ZINCRBY key increment member: ZADD INCR without options.
Reply cmd_zincrby(Ctx& ctx) {
  ZAddFlags flags;
  flags.incr = true;
  return zadd_generic(ctx, flags, 2);
}

Reply cmd_zrem(Ctx& ctx) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  if (entry == nullptr) return Reply::from_integer(0);
  std::int64_t removed = 0;
  for (std::size_t i = 2; i < ctx.argv.size(); ++i) {
    auto found = entry->zset->score_of.find(ctx.argv[i]);
    if (found == entry->zset->score_of.end()) continue;
    zset_erase(*entry->zset, found);
    ++removed;
  }
  if (entry->zset->score_of.empty()) ctx.erase(ctx.argv[1]);  // Redis deletes an emptied set
  return Reply::from_integer(removed);
}

Reply cmd_zcard(Ctx& ctx) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  return Reply::from_integer(entry ? static_cast<std::int64_t>(entry->zset->score_of.size()) : 0);
}

Reply cmd_zscore(Ctx& ctx) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  if (entry == nullptr) return Reply::nil();
  auto found = entry->zset->score_of.find(ctx.argv[2]);
  if (found == entry->zset->score_of.end()) return Reply::nil();
  return Reply::bulk(format_double(found->second));
}

namespace {

// ZCOUNT's and ZREMRANGEBYSCORE's arguments: key min max. Sets `range` and `entry` (null for a
// missing key), or returns the error reply the range or the key's type gives (in Redis's order).
std::optional<Reply> read_key_and_range(Ctx& ctx, ScoreRange& range, Entry*& entry) {
  if (!parse_range(ctx.argv[2], ctx.argv[3], range)) return Reply::error(kNotFloatRange);
  bool wrong_type = false;
  entry = ctx.lookup_typed(ctx.argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  return std::nullopt;
}

}  // namespace

Reply cmd_zcount(Ctx& ctx) {
  ScoreRange range;
  Entry* entry = nullptr;
  if (auto error = read_key_and_range(ctx, range, entry)) return std::move(*error);
  std::int64_t count = 0;
  if (entry != nullptr) {
    for_each_in_range(*entry->zset, range, false, 0, -1, [&](const auto&) { ++count; });
  }
  return Reply::from_integer(count);
}

Reply cmd_zremrangebyscore(Ctx& ctx) {
  ScoreRange range;
  Entry* entry = nullptr;
  if (auto error = read_key_and_range(ctx, range, entry)) return std::move(*error);
  if (entry == nullptr) return Reply::from_integer(0);
  ZSet& zset = *entry->zset;
  std::vector<std::string_view> doomed;
  for_each_in_range(zset, range, false, 0, -1,
                    [&](const auto& item) { doomed.push_back(item.second); });
  for (std::string_view member : doomed) zset_erase(zset, zset.score_of.find(member));
  if (zset.score_of.empty()) ctx.erase(ctx.argv[1]);
  return Reply::from_integer(static_cast<std::int64_t>(doomed.size()));
}

namespace {

// What the command's name fixes of a ZRANGE (Redis's ZRANGE_AUTO / ZRANGE_DIRECTION_AUTO when
// nothing: the options say).
enum class RangeBy { kAuto, kRank, kScore };
enum class Direction { kAuto, kForward, kReverse };

// ZRANGE / ZRANGEBYSCORE / ZREVRANGE / ZREVRANGEBYSCORE, as Redis 7.0's zrangeGenericCommand:
// options first, then the range, then the key.
Reply zrange_generic(Ctx& ctx, RangeBy range_by, Direction direction) {
  const auto& argv = ctx.argv;
  bool with_scores = false, reverse = direction == Direction::kReverse;
  bool by_score = range_by == RangeBy::kScore, by_lex = false;
  bool direction_set = direction != Direction::kAuto, type_set = range_by != RangeBy::kAuto;
  std::int64_t offset = 0, limit = -1;
  bool limit_given = false;
  for (std::size_t j = 4; j < argv.size(); ++j) {
    const std::string option = ascii_lower(argv[j]);
    const std::size_t left = argv.size() - j - 1;
    if (option == "withscores") {
      with_scores = true;
    } else if (option == "limit" && left >= 2) {
      if (!parse_strict_int(argv[j + 1], offset) || !parse_strict_int(argv[j + 2], limit))
        return Reply::error(kNotInteger);
      limit_given = true;
      j += 2;
    } else if (!direction_set && option == "rev") {
      reverse = direction_set = true;
    } else if (!type_set && option == "bylex") {
      by_lex = type_set = true;
    } else if (!type_set && option == "byscore") {
      by_score = type_set = true;
    } else {
      return Reply::error(kSyntax);
    }
  }
  if (limit_given && limit != -1 && !by_score && !by_lex) {
    return Reply::error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (by_lex) return Reply::error("ERR rlsim: ZRANGE BYLEX is not supported by the embedded Redis");
  std::vector<Reply> out;
  if (by_score) {
    ScoreRange range;
    // With REV the range is given as max, min.
    const std::string& min = reverse ? argv[3] : argv[2];
    const std::string& max = reverse ? argv[2] : argv[3];
    if (!parse_range(min, max, range)) return Reply::error(kNotFloatRange);
    bool wrong_type = false;
    Entry* entry = ctx.lookup_typed(argv[1], Type::kZSet, wrong_type);
    if (wrong_type) return Reply::error(kWrongType);
    if (entry != nullptr) {
      for_each_in_range(*entry->zset, range, reverse, offset, limit,
                        [&](const auto& item) { append_member(out, item, with_scores); });
    }
    return Reply::array(std::move(out));
  }
  std::int64_t start = 0, stop = 0;
  if (!parse_strict_int(argv[2], start) || !parse_strict_int(argv[3], stop))
    return Reply::error(kNotInteger);
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  if (entry == nullptr) return Reply::array({});
  const ZSet& zset = *entry->zset;
  if (!clamp_rank_range(static_cast<std::int64_t>(zset.by_score.size()), start, stop))
    return Reply::array({});
  if (!reverse) {
    auto it = std::next(zset.by_score.begin(), start);
    for (std::int64_t i = start; i <= stop; ++i, ++it) append_member(out, *it, with_scores);
  } else {
    auto it = std::next(zset.by_score.rbegin(), start);
    for (std::int64_t i = start; i <= stop; ++i, ++it) append_member(out, *it, with_scores);
  }
  return Reply::array(std::move(out));
}

}  // namespace

// ZRANGE key start stop [BYSCORE] [REV] [LIMIT offset count] [WITHSCORES]
Reply cmd_zrange(Ctx& ctx) { return zrange_generic(ctx, RangeBy::kAuto, Direction::kAuto); }

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
Reply cmd_zrangebyscore(Ctx& ctx) {
  return zrange_generic(ctx, RangeBy::kScore, Direction::kForward);
}

// ZREVRANGE key start stop [WITHSCORES]: ranks counted from the highest score.
Reply cmd_zrevrange(Ctx& ctx) { return zrange_generic(ctx, RangeBy::kRank, Direction::kReverse); }

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
Reply cmd_zrevrangebyscore(Ctx& ctx) {
  return zrange_generic(ctx, RangeBy::kScore, Direction::kReverse);
}

// ZREMRANGEBYRANK key start stop: the ranks are read before the key, as in Redis.
Reply cmd_zremrangebyrank(Ctx& ctx) {
  std::int64_t start = 0, stop = 0;
  if (!parse_strict_int(ctx.argv[2], start) || !parse_strict_int(ctx.argv[3], stop))
    return Reply::error(kNotInteger);
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  if (entry == nullptr) return Reply::from_integer(0);
  ZSet& zset = *entry->zset;
  if (!clamp_rank_range(static_cast<std::int64_t>(zset.by_score.size()), start, stop))
    return Reply::from_integer(0);
  const auto first = std::next(zset.by_score.begin(), start);
  const auto last = std::next(first, stop - start + 1);
  for (auto it = first; it != last; ++it) zset.score_of.erase(std::string_view(it->second));
  zset.by_score.erase(first, last);
  if (zset.score_of.empty()) ctx.erase(ctx.argv[1]);
  return Reply::from_integer(stop - start + 1);
}

// ZPOPMIN / ZPOPMAX key [count], as Redis 7.0's zpopMinMaxCommand in RESP2: a flat array of
// member, score pairs (empty for a missing key or a count of 0); more than one count argument is
// a syntax error.
Reply zpop_generic(Ctx& ctx, bool min) {
  if (ctx.argv.size() > 3) return Reply::error(kSyntax);
  std::int64_t count = 1;
  if (ctx.argv.size() == 3) {
    if (auto error = parse_count(ctx.argv[2], count)) return *error;
  }
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kZSet, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  std::vector<Reply> out;
  if (entry == nullptr || count == 0) return Reply::array(std::move(out));
  ZSet& zset = *entry->zset;
  const auto taken = std::min<std::int64_t>(count, static_cast<std::int64_t>(zset.by_score.size()));
  out.reserve(static_cast<std::size_t>(taken) * 2);
  for (std::int64_t i = 0; i < taken; ++i) {
    const auto node = min ? zset.by_score.begin() : std::prev(zset.by_score.end());
    append_member(out, *node, true);
    zset.score_of.erase(std::string_view(node->second));
    zset.by_score.erase(node);
  }
  if (zset.score_of.empty()) ctx.erase(ctx.argv[1]);
  return Reply::array(std::move(out));
}

}  // namespace rlsim
