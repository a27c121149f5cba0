#include "redis/script_wrap.h"

#include <algorithm>
#include <cctype>
#include <lua.hpp>
#include <optional>
#include <vector>

#include "core/ascii.h"
#include "redis/time_commands.h"

namespace rlsim {

// The two appended arguments are taken off ARGV with plain table operations: table.remove and a
// tonumber per argument cost about as much as the fixed-window script itself (callgrind on
// redis-server, docs/performance.md). The offset stays a string until a clock command needs it.
const char* const kSweepPrelude =
    "local __rlk=#ARGV local __rlo=ARGV[__rlk] local __rlt=tonumber(ARGV[__rlk-1]) "
    "ARGV[__rlk]=nil ARGV[__rlk-1]=nil "
    "for __rli=1,#KEYS do local __rle=redis.call('PEXPIRETIME',KEYS[__rli]) "
    "if __rle>=0 and __rle+1000<=__rlt then redis.call('DEL',KEYS[__rli]) end end ";

namespace {

// kRewritten: __rlX(raise, command, ...) runs one redis command with its TTL mapped to the virtual
// clock through redis.pcall, by the command's row of time_commands() (its kind k, unit u in
// microseconds, whether relative, where its options start), and when `raise` is 1 raises an error
// reply with error level 2: the message then carries the position of the line that called it,
// which is the line Redis names for its own redis.call (the store moves it into place). The
// rewrite makes sure the call is never a tail call (a tail call would drop that line). Created
// once per invocation; its helpers only when it runs. Times on the server are virtual
// microseconds plus the offset o, read as milliseconds (real_store.h).
//
// nrm(v): an amount as Redis parses it, positive and below 1e16, or nil (then the command goes
// unchanged and the server answers as it would). The classification below is generated from the
// table, so a row added there is mapped here.
constexpr const char* kClockHead =
    "local function __rlX(__rlz,...) local o=tonumber(__rlo) local now=__rlt-o "
    "local nowms=now-now%1e3 "
    "local function nrm(v) local x=tonumber(v) if x==nil or x<=0 or x>=1e16 or x~=math.floor(x) "
    "then return nil end if type(v)=='string' and not string.find(v,'^[1-9]%d*$') then return nil "
    "end return x end "
    "local a={...} local n=select('#',...) local f=redis.pcall "
    "local c=type(a[1])=='string' and string.upper(a[1]) or '' local r "
    "local k,u,rel,from,sub=-1,0,false,0,nil ";

// After the classification: the translation of each kind, by its number in TimeUse.
static_assert(
    static_cast<int>(TimeUse::kExpireArg) == 0 && static_cast<int>(TimeUse::kSetexArg) == 1 &&
    static_cast<int>(TimeUse::kExpiryOption) == 2 && static_cast<int>(TimeUse::kRestoreTtl) == 3 &&
    static_cast<int>(TimeUse::kReadsTtl) == 4 && static_cast<int>(TimeUse::kReadsExpireTime) == 5 &&
    static_cast<int>(TimeUse::kReadsClock) == 6 && static_cast<int>(TimeUse::kWallClock) == 7);
constexpr const char* kClockBody =
    "if k==6 and n==1 then r={string.format('%.0f',math.floor(now/1e6)),"
    "string.format('%.0f',now%1e6)} "
    "elseif k==4 and n==2 then r=f('PEXPIRETIME',a[2]) "
    "if type(r)=='number' and r>=0 then r=math.max(math.floor((r-o)/1e3)-math.floor(now/1e3),0) "
    "if u==1e6 then r=math.floor((r+500)/1000) end end "
    "elseif k==5 and n==2 then r=f('PEXPIRETIME',a[2]) "
    "if type(r)=='number' and r>=0 then r=math.floor((r-o)/1e3) "
    "if u==1e6 then r=math.floor((r+500)/1000) end end "
    "elseif k==7 and (sub==nil or (type(a[2])=='string' and string.upper(a[2])==sub)) then "
    "r={err='ERR rlsim: script called '..c..(sub and ' '..sub or '')..', which answers the "
    "server wall clock: real mode cannot map it to virtual time (docs/real-redis.md)'} "
    "else local at,pv=nil,0 "
    "if k==0 and n>=3 then local v=nrm(a[3]) if v then at=v*u if rel then at=at+nowms end "
    "pv=3 a[1]='PEXPIREAT' end "
    "elseif k==1 and n==4 then local v=nrm(a[3]) if v then at=v*u+nowms pv=5 end "
    // SET / GETEX: every EX / PX / EXAT / PXAT (Redis allows one kind, repeated: the last
    // wins) becomes PXAT, or none does.
    "elseif k==2 then local q,ok,idx,ts,j=nil,true,{},{},from while j<=n do "
    "local p=type(a[j])=='string' and string.upper(a[j]) or '' "
    "if p=='EX' or p=='PX' or p=='EXAT' or p=='PXAT' then if (q and q~=p) or j==n then ok=false "
    "end q=p idx[#idx+1]=j j=j+1 end j=j+1 end "
    "if q and ok then for y,x in ipairs(idx) do local v=nrm(a[x+1]) if not v then ok=false break "
    "end local t=v*((q=='EX' or q=='EXAT') and 1e6 or 1e3) if q=='EX' or q=='PX' then "
    "t=t+nowms end if not ((t>nowms or (c=='SET' and t==nowms)) and t+o<9e15) then ok=false "
    "break end ts[y]=t end "
    "if ok then for y,x in ipairs(idx) do a[x]='PXAT' a[x+1]=string.format('%.0f',ts[y]+o) end "
    "end end "
    "elseif k==3 and n>=4 then local v=nrm(a[3]) local abs=false for j=5,n do "
    "if type(a[j])=='string' and string.upper(a[j])=='ABSTTL' then abs=true end end "
    "if v then at=v*u if not abs then at=at+nowms end pv=3 "
    "if not abs then n=n+1 a[n]='ABSTTL' end end end "
    "if at and at>nowms and at+o<9e15 then local t=string.format('%.0f',at+o) "
    "if k==1 then a={'SET',a[2],a[4],'PXAT',t} n=5 else a[pv]=t end "
    "elseif k~=2 then a={...} n=select('#',...) end "
    "r=f(unpack(a,1,n)) end "
    "if __rlz==1 and type(r)=='table' and r.err then error('\\001rlsim\\001'..r.err,2) end "
    "return r end ";

std::string lua_number(std::int64_t value) { return std::to_string(value); }

// The Lua text of __rlX: its head, the classification of the command name from time_commands(),
// and the translations.
const std::string& clock_function() {
  static const std::string text = [] {
    std::string out = kClockHead;
    const char* keyword = "if ";
    for (const TimeCommand& row : time_commands()) {
      if (row.use == TimeUse::kNotMapped) continue;
      out += keyword;
      out += "c=='" + std::string(row.name) +
             "' then k,u,rel,from=" + lua_number(static_cast<int>(row.use)) + "," +
             lua_number(row.unit_us) + "," + (row.relative ? "true" : "false") + "," +
             lua_number(static_cast<std::int64_t>(row.options_from) + 1);  // Lua counts from 1
      if (!row.subcommand.empty()) out += " sub='" + std::string(row.subcommand) + "'";
      out += " ";
      keyword = "elseif ";
    }
    out += "end ";
    return out + kClockBody;
  }();
  return text;
}

// kShadowed (after clock_function()): `redis` is shadowed so that TTL commands use the virtual
// clock as the store does for plain commands, through __rlX. redis.call is a coroutine.wrap
// function, a C function: an error it raises carries the caller's position (even from a tail call,
// which drops a Lua caller's frame) and Redis's error handler names the caller's line, so the store
// can restore the exact message Redis gives without the prelude (the marker finds it).
constexpr const char* kShadowPrelude =
    "local __rlr=redis "
    "local function __rlx(...) return __rlX(0,...) end "
    "local function __rlp(...) return {n=select('#',...),...} end "
    "local __rlc,__rld "
    "local function __rlm() __rld=false __rlc=coroutine.wrap(function(...) local a=__rlp(...) "
    "while true do local r=__rlx(unpack(a,1,a.n)) if type(r)=='table' and r.err then __rld=true "
    "error('\\001rlsim\\001'..r.err,0) end a=__rlp(coroutine.yield(r)) end end) end "
    "__rlm() "
    "local redis=setmetatable({pcall=__rlx},{__index=function(_,k) if k=='call' then "
    "if __rld then __rlm() end return __rlc end return __rlr[k] end}) ";

// ---- a Lua 5.1 tokenizer, enough to find `redis.call('NAME', ...)` ------------------------------

struct Token {
  enum class Kind : std::uint8_t { kName, kString, kNumber, kSymbol };
  Kind kind;
  std::size_t begin;
  std::size_t end;
};

// The level of a long bracket starting at `at` ("[[" is 0, "[==[" is 2), or -1.
int long_bracket(const std::string& s, std::size_t at) {
  if (at >= s.size() || s[at] != '[') return -1;
  std::size_t i = at + 1;
  while (i < s.size() && s[i] == '=') ++i;
  return i < s.size() && s[i] == '[' ? static_cast<int>(i - at - 1) : -1;
}

// The end of the long bracket of `level` opened at `at`, or npos.
std::size_t long_bracket_end(const std::string& s, std::size_t at, int level) {
  const std::string close = "]" + std::string(static_cast<std::size_t>(level), '=') + "]";
  const std::size_t found = s.find(close, at + 2 + static_cast<std::size_t>(level));
  return found == std::string::npos ? found : found + close.size();
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Tokens of `s`, without comments; nullopt when it does not tokenize (the caller then does not
// rewrite, and the server gives its own compile error).
std::optional<std::vector<Token>> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
    } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {
      const int level = long_bracket(s, i + 2);
      if (level >= 0) {
        const std::size_t end = long_bracket_end(s, i + 2, level);
        if (end == std::string::npos) return std::nullopt;
        i = end;
      } else {
        const std::size_t eol = s.find('\n', i);
        i = eol == std::string::npos ? n : eol + 1;
      }
    } else if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      const std::size_t begin = i;
      while (i < n && is_name_char(s[i])) ++i;
      tokens.push_back({Token::Kind::kName, begin, i});
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])) != 0)) {
      // As Lua 5.1's read_numeral: digits and dots, an optional exponent sign, then name chars.
      const std::size_t begin = i;
      while (i < n && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.')) ++i;
      if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
      }
      while (i < n && is_name_char(s[i])) ++i;
      tokens.push_back({Token::Kind::kNumber, begin, i});
    } else if (c == '\'' || c == '"') {
      const std::size_t begin = i++;
      while (i < n && s[i] != c) {
        if (s[i] == '\n') return std::nullopt;
        i += s[i] == '\\' ? 2 : 1;
      }
      if (i >= n) return std::nullopt;
      ++i;
      tokens.push_back({Token::Kind::kString, begin, i});
    } else if (const int level = long_bracket(s, i); level >= 0) {
      const std::size_t end = long_bracket_end(s, i, level);
      if (end == std::string::npos) return std::nullopt;
      tokens.push_back({Token::Kind::kString, i, end});
      i = end;
    } else {
      std::size_t len = 1;
      if (s.compare(i, 3, "...") == 0) {
        len = 3;
      } else if (i + 1 < n && (s.compare(i, 2, "..") == 0 || s.compare(i, 2, "==") == 0 ||
                               s.compare(i, 2, "~=") == 0 || s.compare(i, 2, "<=") == 0 ||
                               s.compare(i, 2, ">=") == 0)) {
        len = 2;
      }
      tokens.push_back({Token::Kind::kSymbol, i, i + len});
      i += len;
    }
  }
  return tokens;
}

bool compiles(const std::string& text) {
  lua_State* state = luaL_newstate();
  if (state == nullptr) return false;
  const bool ok = luaL_loadbuffer(state, text.data(), text.size(), "@user_script") == 0;
  lua_close(state);
  return ok;
}

// Whether a quoted command name can go straight to Redis: letters only (no escapes) and not one of
// the commands the clock maps. Anything else goes through __rlX, which handles any command.
bool plain_command(std::string_view quoted) {
  if (quoted.size() < 3 || (quoted.front() != '\'' && quoted.front() != '"')) return false;
  const std::string_view name = quoted.substr(1, quoted.size() - 2);
  if (!std::all_of(name.begin(), name.end(),
                   [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }))
    return false;
  const std::string l = ascii_lower(name);
  return !maps_time(name);
}

struct Edit {
  std::size_t begin;
  std::size_t end;
  std::string text;
};

// The kRewritten form of `text` (without the prelude), or nullopt when `redis` is used in a way the
// rewrite does not cover. `clock_calls` counts the calls renamed to __rlX.
std::optional<std::string> rewrite_calls(const std::string& text, int& clock_calls) {
  const auto tokens = tokenize(text);
  if (!tokens) return std::nullopt;
  const auto is = [&](std::size_t k, std::string_view word) {
    return k < tokens->size() &&
           std::string_view(text).substr((*tokens)[k].begin,
                                         (*tokens)[k].end - (*tokens)[k].begin) == word;
  };
  std::vector<Edit> edits;
  clock_calls = 0;
  for (std::size_t k = 0; k < tokens->size(); ++k) {
    const Token& t = (*tokens)[k];
    if (t.kind != Token::Kind::kName || !is(k, "redis")) continue;
    if (k > 0 && (is(k - 1, ".") || is(k - 1, ":"))) continue;  // a field named redis
    if (!is(k + 1, ".") || k + 2 >= tokens->size() || (*tokens)[k + 2].kind != Token::Kind::kName)
      return std::nullopt;  // `redis` itself used as a value, or assigned
    const bool call = is(k + 2, "call");
    const bool pcall = is(k + 2, "pcall");
    if (!call && !pcall) {
      if (is(k + 3, "=")) return std::nullopt;  // a field of redis assigned
      continue;                                 // redis.sha1hex(...), redis.LOG_WARNING, ...
    }
    // Only `redis.call(<string literal>, ...)` or `redis.call(<string literal>)`.
    if (!is(k + 3, "(") || k + 5 >= tokens->size() ||
        (*tokens)[k + 4].kind != Token::Kind::kString || !(is(k + 5, ",") || is(k + 5, ")")))
      return std::nullopt;
    const Token& name = (*tokens)[k + 4];
    if (plain_command(std::string_view(text).substr(name.begin, name.end - name.begin))) continue;
    ++clock_calls;
    const bool tail = k > 0 && is(k - 1, "return");
    edits.push_back({t.begin, (*tokens)[k + 3].end,
                     std::string(tail ? "(" : "") + (call ? "__rlX(1," : "__rlX(0,")});
    if (tail) {
      // `return (__rlX(...))`: one value, as redis.call returns, and not a tail call.
      int depth = 0;
      std::size_t close = k + 3;
      for (; close < tokens->size(); ++close) {
        if (is(close, "(")) ++depth;
        if (is(close, ")") && --depth == 0) break;
      }
      if (close >= tokens->size()) return std::nullopt;
      edits.push_back({(*tokens)[close].end, (*tokens)[close].end, ")"});
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(text.size() + edits.size() * 8);
  std::size_t at = 0;
  for (const Edit& edit : edits) {
    out.append(text, at, edit.begin - at);
    out += edit.text;
    at = edit.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

std::string with_prelude(const std::string& text, const std::string& prelude) {
  // A shebang line must stay first: the prelude goes on the next line.
  if (text.starts_with("#!")) {
    const std::size_t eol = text.find('\n');
    if (eol == std::string::npos) return text;
    return text.substr(0, eol + 1) + prelude + text.substr(eol + 1);
  }
  return prelude + text;
}

// Whether every redis.call / redis.pcall of a compiling script names its command with a string
// literal (and `redis` is used no other way): only then can reading its text tell that it calls
// no clock command. A name built at run time ('PEX' .. 'PIRE') could be any command.
bool calls_only_literal_commands(const std::string& text) {
  const std::size_t body_at = text.starts_with("#!") ? text.find('\n') : 0;
  if (body_at == std::string::npos) return true;
  const std::string body = text.substr(body_at == 0 ? 0 : body_at + 1);
  int clock_calls = 0;
  return !compiles(body) || rewrite_calls(body, clock_calls).has_value();
}

}  // namespace

bool script_needs_clock(const std::string& text) {
  const std::string l = ascii_lower(text);
  for (const TimeCommand& row : time_commands()) {
    if (row.use == TimeUse::kNotMapped) continue;
    const std::string name = ascii_lower(row.name);
    // "set" is in too many words (hset, offset): only a quoted SET counts.
    const bool found = name == "set" ? l.find("'set'") != std::string::npos ||
                                           l.find("\"set\"") != std::string::npos
                                     : l.find(name) != std::string::npos;
    if (found) return true;
  }
  return false;
}

WrappedScript wrap_script(const std::string& text) {
  if (!script_needs_clock(text) && calls_only_literal_commands(text))
    return {with_prelude(text, kSweepPrelude), ScriptWrap::kSweep};
  // A shebang line is not Lua: Redis 7 reads it as flags. Rewrite what follows it only.
  const std::size_t body_at = text.starts_with("#!") ? text.find('\n') : 0;
  if (body_at != std::string::npos) {
    const std::string body = text.substr(body_at == 0 ? 0 : body_at + 1);
    int clock_calls = 0;
    const auto rewritten = compiles(body) ? rewrite_calls(body, clock_calls) : std::nullopt;
    if (rewritten) {
      const std::string head = body_at == 0 ? "" : text.substr(0, body_at + 1);
      if (clock_calls == 0) return {head + kSweepPrelude + *rewritten, ScriptWrap::kSweep};
      std::string out = head + kSweepPrelude + clock_function() + *rewritten;
      if (compiles(out.substr(head.size()))) return {std::move(out), ScriptWrap::kRewritten};
    }
  }
  return {with_prelude(text, std::string(kSweepPrelude) + clock_function() + kShadowPrelude),
          ScriptWrap::kShadowed};
}

}  // namespace rlsim
