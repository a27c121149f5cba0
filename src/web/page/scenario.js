// The scenario the page's controls describe (docs/web.md#using-it-in-class): the preset's JSON
// with each control that was moved written into it, field by field, as `rlsim run --set` would.
// Pure functions of (preset scenario, state), so the permalink, the download and the run agree.
'use strict';

const ON_ERROR_STRATEGIES = new Set(['redis_fixed_window', 'redis_fixed_window_lua', 'redis_sliding_log',
  'redis_sliding_counter', 'redis_token_bucket', 'redis_gcra', 'custom_lua', 'multi_limit', 'sharded_global',
  'local_budget', 'token_reservation', 'region_local', 'global_redis']);
const BALANCERS = ['round_robin', 'random', 'least_inflight', 'sticky'];
const WINDOWS = ['1s', '10s', '1m', '5m', '1h'];
const RATE_UNITS = ['s', 'm', 'h'];
const FAULTS = ['', 'outage', 'slowdown'];
// The strategies a slot offers and the parameters it shows for each, with the defaults
// docs/strategies.md gives (a blank field keeps the strategy's default). custom_lua is left out:
// it needs a script file, which the page cannot read.
const STRATEGY_PARAMS = {
  in_memory: [],
  redis_fixed_window: ['on_error'],
  redis_fixed_window_lua: ['on_error'],
  redis_sliding_log: ['on_error'],
  redis_sliding_counter: ['on_error'],
  redis_token_bucket: ['capacity', 'refill_rate', 'on_error'],
  redis_gcra: ['burst', 'rate', 'on_error'],
  multi_limit: ['pipelined', 'on_error'],
  sharded_global: ['shards', 'read', 'on_error'],
  local_budget: ['batch', 'reset_on_window', 'on_error'],
  token_reservation: ['batch', 'reset_on_window', 'on_error'],
  kong: ['policy', 'sync_rate'],
  envoy_local: ['max_tokens', 'tokens_per_fill', 'fill_interval', 'local_cluster_rate_limit'],
  envoy_ratelimit: ['timeout', 'failure_mode_deny', 'local_cache_size_in_bytes'],
  rate_limiter_flexible: ['points', 'duration', 'blockDuration', 'insuranceLimiter'],
  limitador_cached: ['flush_period', 'batch_size'],
  bucket4j: ['capacity', 'refill_tokens', 'refill_period', 'refill'],
  gubernator: ['global_sync_wait', 'global_batch_limit'],
  doorman: ['capacity', 'refresh_interval', 'lease_length'],
  nginx_limit_req: ['rate', 'burst', 'nodelay'],
  haproxy_stick_table: ['http_req_rate', 'sc_http_req_rate_gt', 'peers'],
  region_local: ['on_error'],
  global_redis: ['on_error'],
  crdt_counter: ['replication_delay'],
};
const MAX_SLOTS = 3;

// A scenario duration ("10m", "9m30s", "1.5s"; docs/scenario-format.md) in seconds, or null.
function durationSeconds(text) {
  const unit = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  const parts = String(text).match(/[0-9]+(?:\.[0-9]+)?(?:us|ms|s|m|h)/g);
  if (!parts || parts.join('') !== String(text).trim()) return null;
  return parts.reduce((sum, p) => {
    const m = /^([0-9.]+)(us|ms|s|m|h)$/.exec(p);
    return sum + Number(m[1]) * unit[m[2]];
  }, 0);
}

// A rate "2000/m" as {value: 2000, unit: 'm'}, or null for one the controls cannot show.
function parseRate(text) {
  const m = /^([0-9]+(?:\.[0-9]+)?)\/(s|m|h)$/.exec(String(text));
  return m ? { value: Number(m[1]), unit: m[2] } : null;
}

function strategyName(s) { return typeof s === 'string' ? s : s.name; }
function takesOnError(s) { return ON_ERROR_STRATEGIES.has(strategyName(s)); }
function asObject(s) { return typeof s === 'string' ? { name: s } : Object.assign({}, s); }

// The fault window the toggle uses when its timing is left blank: from 30% of the run for 20% of
// it, in whole seconds (a 10 min run: 3:00-5:00).
function defaultFaultTiming(scenario) {
  const run_s = durationSeconds(scenario.duration) || 600;
  return { at: Math.round(run_s * 0.3) + 's', for: Math.max(1, Math.round(run_s * 0.2)) + 's' };
}

// The fault the toggle adds: Redis a black hole (no reply until the client's timeout), or every
// call slowed by `slow_ms` (redis_latency's `added`), over the chosen window.
function toggledFault(scenario, state) {
  const timing = defaultFaultTiming(scenario);
  const at = state.faultAt || timing.at;
  const duration = state.faultFor || timing.for;
  if (state.fault === 'slowdown') return { type: 'redis_latency', added: `${state.slowMs}ms`, at, for: duration };
  return { type: 'redis_down', mode: 'blackhole', at, for: duration };
}

// Ids an instance can get in the run: the start count plus every one a schedule step may start.
function instanceIds(instances) {
  const steps = instances.schedule || [];
  const started = steps.reduce((sum, s) => sum + s.count, instances.count || 1);
  return Math.min(20000, instances.autoscale ? Math.max(started, 10 * instances.autoscale.maxReplicas) : started);
}

// Clock skew `skew_ms` between instances: even ids run skew/2 ahead, odd ids skew/2 behind (the
// clock-skew preset's 25 ms / -25 ms is a skew of 50 ms).
function skewOffsets(instances, skewMs) {
  const half = skewMs / 2;
  const ahead = `${half}ms`, behind = half === 0 ? '0ms' : `-${half}ms`;
  return Array.from({ length: instanceIds(instances) }, (_, i) => (i % 2 === 0 ? ahead : behind));
}

// The skew a scenario's own offsets give (largest minus smallest), in ms, or 0.
function presetSkewMs(scenario) {
  const offsets = (scenario.instances && scenario.instances.clock && scenario.instances.clock.offsets) || [];
  const ms = offsets.map((o) => {
    const neg = String(o).startsWith('-');
    const s = durationSeconds(neg ? String(o).slice(1) : o);
    return s === null ? 0 : (neg ? -s : s) * 1000;
  });
  return ms.length ? Math.round(Math.max(...ms) - Math.min(...ms)) : 0;
}

function applyInstances(s, state) {
  if (state.instances === null && state.skewMs === null) return;
  const inst = Object.assign({}, s.instances || {});
  if (state.instances !== null) {
    delete inst.schedule;
    delete inst.autoscale;
    inst.count = state.instances;
  }
  if (state.skewMs !== null) {
    inst.clock = Object.assign({}, inst.clock || {});
    inst.clock.offsets = skewOffsets(inst, state.skewMs);
  }
  s.instances = inst;
}

function applyTrafficAndLimit(s, state) {
  if ((state.users !== null || state.rate !== null) && Array.isArray(s.traffic) && s.traffic.length) {
    const t = Object.assign({}, s.traffic[0]);
    if (state.users !== null) t.users = state.users;
    if (state.rate !== null) { t.rate = state.rate; delete t.ramp_to; }
    s.traffic = [t].concat(s.traffic.slice(1));
  }
  if ((state.limit !== null || state.window !== null) && Array.isArray(s.limits) && s.limits.length) {
    const l = Object.assign({}, s.limits[0]);
    if (state.limit !== null) l.limit = state.limit;
    if (state.window !== null) l.window = state.window;
    s.limits = [l].concat(s.limits.slice(1));
  }
}

// The preset's `expect` claims about strategies still in the run (a claim on a label that is gone
// would stop the run with "no strategy labelled ...").
function keepExpectations(s) {
  if (!Array.isArray(s.expect)) return;
  const labels = new Set(s.strategies.map((x) => (typeof x === 'string' ? x : x.label || x.name)));
  s.expect = s.expect.filter((e) => (e.strategy === undefined || labels.has(e.strategy)) &&
    (!Array.isArray(e.less) || e.less.every((l) => labels.has(l))));
}

function applyStrategies(s, state) {
  if (state.strategies !== null) {
    s.strategies = state.strategies.map((x) => JSON.parse(JSON.stringify(x)));
    keepExpectations(s);
  }
  if (state.onError && Array.isArray(s.strategies)) {
    s.strategies = s.strategies.map((x) => {
      if (!takesOnError(x)) return x;
      const o = asObject(x);
      o.on_error = state.onError;
      return o;
    });
  }
}

// The preset's scenario with the controls' state applied.
function deriveScenario(presetScenario, state) {
  const s = JSON.parse(JSON.stringify(presetScenario));
  applyInstances(s, state);
  if (state.balancer !== null) s.load_balancer = Object.assign({}, s.load_balancer || {}, { policy: state.balancer });
  applyTrafficAndLimit(s, state);
  if (state.seed !== null) s.seed = state.seed;
  if (state.fault) s.faults = (s.faults || []).concat([toggledFault(s, state)]);
  applyStrategies(s, state);
  return s;
}

// A strategy parameter typed into a field as the scenario's JSON value: numbers and true/false as
// such, {...} and [...] as JSON, anything else as a string (durations, rates, enums).
function parseParam(text) {
  const t = String(text).trim();
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^[[{]/.test(t)) { try { return JSON.parse(t); } catch (e) { return t; } }
  return t;
}

function paramText(value) {
  if (value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

// Labels made unique, as the engine requires: a second strategy of the same name gets "_2", ...
function uniqueLabels(strategies) {
  const seen = new Set();
  return strategies.map((x, i) => {
    const o = asObject(x);
    const label = o.label || o.name;
    if (!seen.has(label)) { seen.add(label); return o; }
    let n = i + 1;
    while (seen.has(`${o.name}_${n}`)) n++;
    o.label = `${o.name}_${n}`;
    seen.add(o.label);
    return o;
  });
}

// The same scenario cut at `horizon_s` seconds, for the page's preview of a long run: the engine
// draws every user's arrivals and every decision in time order, so the cut run makes the same
// decisions as the full one up to the cut. What the engine would refuse in the shorter run goes:
// schedule steps, faults and traffic groups from the cut on; fault and group ends past it are
// brought back to it. Its `expect` list goes too (a claim on a removed fault would not resolve).
function previewScenario(full, horizon_s) {
  const s = JSON.parse(JSON.stringify(full));
  const sec = (d) => { const neg = String(d).startsWith('-'); const x = durationSeconds(neg ? String(d).slice(1) : d); return neg ? -x : x; };
  const upTo = (at_s, text) => (at_s + sec(text) > horizon_s ? `${Math.round((horizon_s - at_s) * 1e6)}us` : text);
  s.duration = `${horizon_s}s`;
  delete s.expect;
  if (s.instances && Array.isArray(s.instances.schedule)) {
    s.instances.schedule = s.instances.schedule.filter((step) => sec(step.at) < horizon_s);
    if (!s.instances.schedule.length) delete s.instances.schedule;
  }
  if (Array.isArray(s.faults)) {
    s.faults = s.faults.filter((f) => sec(f.at) < horizon_s).map((f) => {
      const at_s = sec(f.at);
      if (f.for !== undefined) f.for = upTo(at_s, f.for);
      if (f.restart_after !== undefined) f.restart_after = upTo(at_s, f.restart_after);
      return f;
    });
  }
  if (Array.isArray(s.traffic)) {
    s.traffic = s.traffic.filter((g) => g.start === undefined || sec(g.start) < horizon_s).map((g) => {
      if (g.end !== undefined && sec(g.end) > horizon_s) g.end = `${horizon_s}s`;
      return g;
    });
  }
  return s;
}

if (typeof module !== 'undefined') {
  module.exports = { deriveScenario, previewScenario, durationSeconds, parseRate, parseParam, paramText, uniqueLabels,
    presetSkewMs, defaultFaultTiming, STRATEGY_PARAMS, BALANCERS, WINDOWS, RATE_UNITS, FAULTS, MAX_SLOTS };
}
