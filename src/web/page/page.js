// The page's logic (docs/web.md): controls -> a scenario JSON (scenario.js) -> the engine in Web
// Workers -> the figures, a timeline over the computed windows, and the state kept in the URL hash.
/* global RLSIM_PRESETS, RLSIM_WORKER_SOURCE, deriveScenario, durationSeconds, parseRate, parseParam,
   paramText, uniqueLabels, presetSkewMs, defaultFaultTiming, STRATEGY_PARAMS, BALANCERS, WINDOWS,
   RATE_UNITS, FAULTS, MAX_SLOTS, previewScenario, takesOnError */
'use strict';

const COLORS = ['#d32f2f', '#1976d2', '#388e3c', '#f57c00', '#7b1fa2', '#00838f', '#5d4037', '#c2185b'];
const PLAY_STEP_MS = 700;
const $ = (id) => document.getElementById(id);

// Every control's value; null (or '') means "as in the preset". All of it goes into the URL hash.
const DEFAULT_STATE = { instances: null, seed: null, balancer: null, users: null, rate: null, limit: null,
  window: null, skewMs: null, fault: '', faultAt: '', faultFor: '', slowMs: 20, onError: '', strategies: null,
  t: null, custom: null };
const state = Object.assign({ preset: RLSIM_PRESETS[0].name, hidden: false, presenter: false }, DEFAULT_STATE);
let result = null;        // the engine's answer shown now
let resultIsPreview = false; // that answer covers only the run's first part (engine.js)
let shownScenario = null; // the scenario text that answer is for
let playing = null;

// --- scenario ------------------------------------------------------------------------------

function preset() {
  return RLSIM_PRESETS.find((p) => p.name === state.preset) || RLSIM_PRESETS[0];
}

function scenarioText() {
  return state.custom !== null ? state.custom : JSON.stringify(deriveScenario(preset().scenario, state), null, 2);
}

// --- engine --------------------------------------------------------------------------------
// Three Web Workers, each with its own engine (worker.js). `full` runs the scenario the controls
// describe. When that run is expected to take longer than PREVIEW_BUDGET_MS, `quick` runs its
// first part (previewScenario: the same scenario cut short, the same decisions up to the cut),
// shown until the full answer replaces it. A control changed during a full run stops that run:
// terminating the worker is the only way to stop WebAssembly mid-run, and `spare`, compiled and
// waiting, takes its place at once. Full answers are cached by scenario text.
const PREVIEW_BUDGET_MS = 100;
const CACHE_ENTRIES = 32;
const workerUrl = URL.createObjectURL(new Blob([RLSIM_WORKER_SOURCE], { type: 'text/javascript' }));
const cache = new Map();
let speedFactor = 1.5;       // this browser's engine time / assemble.js's Node time (updated per run)

function newWorker() {
  const w = new Worker(workerUrl);
  w.job = null;
  w.queued = null;
  w.onmessage = (event) => onAnswer(w, event.data);
  return w;
}
const workers = { full: newWorker(), quick: newWorker(), spare: newWorker() };
let wanted = null;         // the newest request: {id, text}
let nextId = 1;
let requestedAt = 0;
let lastLatencyMs = null;  // control change to the full answer on screen
let firstLatencyMs = null; // control change to the first answer (preview or full) on screen
let firstShownId = null;   // the request whose first answer is on screen
let idleWaiters = [];
let shownWaiters = [];

function post(w, job) {
  job.posted = performance.now();
  w.job = job;
  w.postMessage({ id: job.id, scenario: job.text, options: { charts: !job.preview } });
}

// Simulated requests times strategies: what the engine's time grows with.
function work(scenario) {
  const run_s = durationSeconds(scenario.duration) || 0;
  const perS = (scenario.traffic || []).reduce((sum, g) => {
    const r = parseRate(g.rate);
    return sum + (g.users || 1) * (r ? r.value / { s: 1, m: 60, h: 3600 }[r.unit] : 0);
  }, 0);
  return Math.max(1, perS * run_s * Math.max(1, (scenario.strategies || []).length));
}

// The time from posting a run to its answer (the engine's run, the worker's messages, parsing) as
// fixed + perWork * work(scenario), per preset: from the last full run and the last preview
// measured in this browser (two points), or from the engine time assemble.js measured under Node
// scaled by this browser's speed until then.
const fits = new Map(); // preset name -> {full: {work, ms}, preview: {work, ms}}

function timeModel() {
  const p = preset();
  const f = fits.get(p.name) || {};
  // Two points that give a positive slope; otherwise (a busy moment made the short run the slower
  // per unit of work) the full run alone, proportionally.
  if (f.full && f.preview && f.full.work > f.preview.work && f.full.ms > f.preview.ms) {
    const perWork = (f.full.ms - f.preview.ms) / (f.full.work - f.preview.work);
    return { fixed: Math.max(0, f.preview.ms - perWork * f.preview.work), perWork };
  }
  if (f.full) return { fixed: 0, perWork: f.full.ms / f.full.work };
  return { fixed: 0, perWork: (p.engine_ms / work(p.scenario)) * speedFactor };
}

function measured(kind, scenario, ms) {
  if (state.custom !== null) return;
  const p = preset();
  const f = fits.get(p.name) || {};
  f[kind] = { work: work(scenario), ms };
  fits.set(p.name, f);
  if (kind === 'full') speedFactor = (ms / f.full.work) / (p.engine_ms / work(p.scenario));
}

// The preview for `text`: its first seconds, as many as PREVIEW_BUDGET_MS should compute (at most
// half the run), or null when the full run is expected well within the budget anyway (or the
// JSON is the editor's).
function previewText(text) {
  if (state.custom !== null) return null;
  const scenario = JSON.parse(text);
  const run_s = durationSeconds(scenario.duration);
  const model = timeModel();
  const fullMs = model.fixed + model.perWork * work(scenario);
  // From 60% of the budget on: a run expected just under it can take twice as long on a busy
  // machine, and the preview costs the full run nothing but a second core's time.
  if (!run_s || !(fullMs > PREVIEW_BUDGET_MS * 0.6)) return null;
  const share = Math.min(0.5, Math.max(0, PREVIEW_BUDGET_MS - model.fixed) / Math.max(1e-9, fullMs - model.fixed));
  const horizon_s = Math.max(1, Math.floor(run_s * share));
  return JSON.stringify(previewScenario(scenario, horizon_s));
}

function requestRun() {
  requestedAt = requestedAt || performance.now();
  const text = scenarioText();
  wanted = { id: nextId++, text };
  $('status').textContent = 'running…';
  document.body.classList.add('stale');
  if (cache.has(text)) { show(cache.get(text), text, null); return; }
  if (workers.full.job) {
    workers.full.terminate();
    workers.full = workers.spare;
    workers.spare = newWorker();
  }
  post(workers.full, { id: wanted.id, text, preview: false });
  let quick = null;
  try { quick = previewText(text); } catch (e) { quick = null; }
  if (quick === null) return;
  const job = { id: wanted.id, text: quick, preview: true };
  if (workers.quick.job) workers.quick.queued = job; else post(workers.quick, job);
}

function onAnswer(w, data) {
  const job = w.job;
  w.job = null;
  if (w.queued) { const next = w.queued; w.queued = null; post(w, next); }
  if (!job || !wanted || job.id !== wanted.id) return; // an answer to an older request
  if (job.preview) {
    if (!data.out.error) measured('preview', JSON.parse(job.text), performance.now() - job.posted);
    // A preview is worth showing only before the full answer, and only when it ran.
    if ((shownScenario === wanted.text && !resultIsPreview) || data.out.error) return;
    show(data.out, wanted.text, JSON.parse(job.text).duration);
    return;
  }
  if (!data.out.error) {
    cache.set(wanted.text, data.out);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value);
    measured('full', JSON.parse(wanted.text), performance.now() - job.posted);
  }
  show(data.out, wanted.text, null, data.engine_ms);
}

// Puts an answer on screen; `previewDuration` is the preview's run length, null for the full run.
function show(out, text, previewDuration, engineMs) {
  result = out;
  resultIsPreview = previewDuration !== null;
  shownScenario = text;
  render();
  const now = performance.now();
  if (wanted && firstShownId !== wanted.id) { firstShownId = wanted.id; firstLatencyMs = now - requestedAt; }
  const shown = shownWaiters; shownWaiters = [];
  shown.forEach((f) => f(firstLatencyMs));
  if (resultIsPreview) {
    const total = durationSeconds(JSON.parse(text).duration);
    $('status').textContent = `first ${fmtTime(durationSeconds(previewDuration))} of ${fmtTime(total)} computed; the full run is on its way`;
    return;
  }
  lastLatencyMs = now - requestedAt;
  requestedAt = 0;
  document.body.classList.remove('stale');
  $('status').textContent = out.error ? '' : engineMs === undefined ? 'computed before (cached)' : `computed in ${engineMs.toFixed(0)} ms`;
  const waiters = idleWaiters; idleWaiters = [];
  waiters.forEach((f) => f(lastLatencyMs));
}

// --- rendering -----------------------------------------------------------------------------

function fmtTime(s) {
  const m = Math.floor(s / 60);
  const sec = Math.round(s - m * 60);
  return `${m}:${String(sec).padStart(2, '0')}`;
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

function windowsOf(strategy) { return (strategy.series && strategy.series.windows) || []; }

// The timeline's window: the chosen one, within what the shown run computed.
function tNow() { return Math.max(0, Math.min(state.t === null ? Infinity : state.t, windowCount() - 1)); }

function windowCount() {
  if (!result || !result.report) return 0;
  return Math.max(0, ...result.report.strategies.map((s) => windowsOf(s).length));
}

function render() {
  const err = result && result.error;
  $('error').textContent = err ? `${err.kind}: ${err.message}` : '';
  if (!result || err) {
    $('headline').textContent = err ? 'error' : '';
    renderControls();
    return;
  }
  document.body.classList.toggle('preview', resultIsPreview);
  const strategies = result.report.strategies;
  const top = Math.max(...strategies.map((s) => s.overshoot));
  $('headline').textContent = top.toFixed(2) + 'x';
  $('strategies').tBodies[0].innerHTML = strategies.map((s, i) => `<tr>
    <td><span style="color:${COLORS[i % COLORS.length]}">&#9632;</span> ${escapeHtml(s.label)}</td>
    <td class="figure">${s.overshoot.toFixed(2)}x</td><td class="figure">${s.excess}</td>
    <td class="figure">${s.false_denials}</td><td class="figure">${s.errors}</td>
    <td class="figure">${Number(s.redis_commands_per_request).toFixed(2)}</td>
    <td class="figure">${(s.latency_us.p99 / 1000).toFixed(2)}</td></tr>`).join('');
  $('digests').innerHTML = resultIsPreview ? '<div>(the full run\'s digests follow)</div>' : Object.entries(result.digests || {})
    .map(([label, hex]) => `<div>${escapeHtml(label)}: ${escapeHtml(hex)}</div>`).join('');
  $('engine-charts').innerHTML = (result.charts || [])
    .map((c) => `<figure><figcaption>${escapeHtml(c.title)}</figcaption>${c.svg}</figure>`).join('');
  const n = windowCount();
  // A preview leaves the timeline's position alone: the full run may reach further.
  if (!resultIsPreview && (state.t === null || state.t > n - 1)) state.t = Math.max(0, n - 1);
  renderTimeline();
  renderControls();
}

function activeFaults(startS, endS) {
  const first = result.report.strategies.find((s) => Array.isArray(s.faults));
  if (!first) return [];
  return first.faults.filter((f) => f.at_s < endS && f.at_s + f.for_s > startS);
}

function faultText(f) {
  const names = { redis_down: 'Redis down', redis_latency: 'Redis slowed', redis_slow: 'Redis slowed' };
  const name = names[f.type] || f.type.replace(/_/g, ' ');
  return `${name} ${fmtTime(f.at_s)}-${fmtTime(f.at_s + f.for_s)}`;
}

function renderTimeline() {
  const n = windowCount();
  const scrub = $('scrubber');
  scrub.max = String(Math.max(0, n - 1));
  scrub.value = String(tNow());
  const strategies = result && result.report ? result.report.strategies : [];
  const w = strategies.length ? windowsOf(strategies[0])[tNow()] : null;
  const windowS = strategies.length && strategies[0].series ? strategies[0].series.window_s : 0;
  const startS = w ? w.start_s : 0;
  $('clock').textContent = `window ${(tNow()) + 1}/${n}, ${fmtTime(startS)}`;
  const faults = w ? activeFaults(startS, startS + windowS) : [];
  $('banner').textContent = faults.map(faultText).join(', ');
  $('banner').classList.toggle('on', faults.length > 0);
  $('chart').innerHTML = chartSvg(strategies);
  $('legend').innerHTML = strategies.map((s, i) =>
    `<span style="color:${COLORS[i % COLORS.length]}">&#9632; ${escapeHtml(s.label)}</span>`).join('');
  writeHash();
}

function limitOf(strategy) {
  const name = strategy.series && strategy.series.limit;
  const l = (result.report.limits || []).find((x) => x.name === name) || (result.report.limits || [])[0];
  return l ? l.limit : null;
}

function chartSvg(strategies) {
  if (!strategies.length) return '';
  const W = 800, H = 300, L = 50, B = 24, T = 10, R = 24;
  const n = windowCount();
  const limit = limitOf(strategies[0]);
  const values = strategies.flatMap((s) => windowsOf(s).map((w) => w.max_per_key));
  const yMax = Math.max(1, limit || 0, ...values) * 1.1;
  const x = (i) => L + (n <= 1 ? 0 : (i * (W - L - R)) / (n - 1));
  const y = (v) => T + (H - T - B) * (1 - v / yMax);
  let svg = `<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" role="img">`;
  svg += `<line x1="${L}" y1="${y(0)}" x2="${W - R}" y2="${y(0)}" stroke="#888"/>`;
  svg += `<text x="${L - 4}" y="${y(yMax / 1.1) + 4}" text-anchor="end" font-size="11" fill="#888">${Math.round(yMax / 1.1)}</text>`;
  if (limit !== null) {
    svg += `<line x1="${L}" y1="${y(limit)}" x2="${W - R}" y2="${y(limit)}" stroke="#555" stroke-dasharray="6 4"/>`;
    svg += `<text x="${L - 4}" y="${y(limit) + 4}" text-anchor="end" font-size="11" fill="#888">${limit}</text>`;
  }
  const first = strategies.find((s) => Array.isArray(s.faults));
  const windowS = strategies[0].series ? strategies[0].series.window_s : 1;
  (first ? first.faults : []).forEach((f) => {
    const a = x(f.at_s / windowS), b = x(Math.min(n - 1, (f.at_s + f.for_s) / windowS));
    svg += `<rect x="${a}" y="${T}" width="${Math.max(2, b - a)}" height="${H - T - B}" class="fault"/>`;
  });
  strategies.forEach((s, i) => {
    const pts = windowsOf(s).slice(0, (tNow()) + 1).map((w, j) => `${x(j).toFixed(1)},${y(w.max_per_key).toFixed(1)}`);
    svg += `<polyline fill="none" stroke-width="2.5" stroke="${COLORS[i % COLORS.length]}" points="${pts.join(' ')}"/>`;
  });
  svg += `<line x1="${x(tNow())}" y1="${T}" x2="${x(tNow())}" y2="${H - B}" stroke="#000" stroke-opacity="0.4"/>`;
  for (let j = 0; j < n; j += Math.max(1, Math.ceil(n / 10))) {
    const w = windowsOf(strategies[0])[j];
    svg += `<text x="${x(j)}" y="${H - 6}" text-anchor="middle" font-size="11" fill="#888">${fmtTime(w ? w.start_s : 0)}</text>`;
  }
  return svg + '</svg>';
}

// --- controls ------------------------------------------------------------------------------

// What a control shows when it was not moved: the preset's own value.
function presetValues() {
  const sc = preset().scenario;
  const inst = sc.instances || {};
  const t0 = (sc.traffic || [])[0] || {};
  const l0 = (sc.limits || [])[0] || {};
  return {
    instances: inst.count || (inst.schedule && inst.schedule[0] && inst.schedule[0].count) || 1,
    seed: sc.seed || 0,
    balancer: (sc.load_balancer && sc.load_balancer.policy) || 'round_robin',
    users: t0.users || 1,
    rate: parseRate(t0.rate),
    limit: l0.limit,
    window: l0.window,
    skewMs: presetSkewMs(sc),
    strategies: sc.strategies || [],
  };
}

function options(select, values, labels) {
  const html = values.map((v, i) => `<option value="${escapeHtml(v)}">${escapeHtml(labels ? labels[i] : v)}</option>`).join('');
  if (select.innerHTML !== html) select.innerHTML = html;
}

// The strategies the slots show: the chosen ones, or the preset's first three.
function slotStrategies() {
  const list = state.strategies !== null ? state.strategies : presetValues().strategies.slice(0, MAX_SLOTS);
  return list.map((x) => (typeof x === 'string' ? { name: x } : x));
}

function renderSlots() {
  const pv = presetValues();
  const slots = slotStrategies();
  const presetChoices = pv.strategies.map((x, i) => [`p:${i}`, `${typeof x === 'string' ? x : x.label || x.name} (this scenario)`]);
  const nameChoices = Object.keys(STRATEGY_PARAMS).map((n) => [`n:${n}`, n]);
  for (let i = 0; i < MAX_SLOTS; i++) {
    const select = $(`slot-${i}`);
    const all = [['', i === 0 ? '(choose)' : '(none)']].concat(presetChoices, nameChoices);
    options(select, all.map((c) => c[0]), all.map((c) => c[1]));
    const s = slots[i];
    const j = s ? pv.strategies.findIndex((x) => JSON.stringify(typeof x === 'string' ? { name: x } : x) === JSON.stringify(s)) : -1;
    select.value = !s ? '' : j >= 0 ? `p:${j}` : `n:${s.name}`;
    const names = s ? [...new Set((STRATEGY_PARAMS[s.name] || []).concat(Object.keys(s).filter((k) => k !== 'name' && k !== 'label')))] : [];
    const html = names.map((k) => `<label>${escapeHtml(k)} <input data-slot="${i}" data-param="${escapeHtml(k)}" id="slot-${i}-${escapeHtml(k)}" size="7" placeholder="default"></label>`).join('');
    const params = $(`slot-${i}-params`);
    if (params.dataset.html !== html) { params.innerHTML = html; params.dataset.html = html; }
    params.querySelectorAll('input').forEach((e) => { if (document.activeElement !== e) e.value = paramText(s[e.dataset.param]); });
  }
  const more = pv.strategies.length - MAX_SLOTS;
  $('slots-note').textContent = state.strategies === null && more > 0 ? `the scenario runs all ${pv.strategies.length} (${more} more than shown); choosing here runs these three` : '';
}

function setSlot(i, value) {
  const pv = presetValues();
  const slots = slotStrategies();
  if (value === '') slots.splice(i, 1);
  else {
    const chosen = value.startsWith('p:') ? pv.strategies[Number(value.slice(2))] : { name: value.slice(2) };
    slots[Math.min(i, slots.length)] = typeof chosen === 'string' ? { name: chosen } : JSON.parse(JSON.stringify(chosen));
  }
  if (slots.length) state.strategies = uniqueLabels(slots);
}

function setParam(i, param, text) {
  const slots = slotStrategies().map((x) => Object.assign({}, x));
  if (!slots[i]) return;
  if (String(text).trim() === '') delete slots[i][param]; else slots[i][param] = parseParam(text);
  state.strategies = uniqueLabels(slots);
}

function renderControls() {
  const p = preset();
  const sc = p.scenario;
  const pv = presetValues();
  $('preset').value = state.preset;
  const n = state.instances !== null ? state.instances : pv.instances;
  $('instances').value = String(n);
  // With regions the instances are counted per region (regions.list[].instances): edit the JSON.
  const regions = Boolean(sc.regions);
  ['instances', 'skew'].forEach((id) => {
    $(id).disabled = regions;
    $(id).title = regions ? 'this scenario sets its instances per region: edit regions in the JSON below' : '';
  });
  $('instances-value').textContent = state.instances === null && sc.instances && sc.instances.schedule ? `${n} (schedule)` : String(n);
  $('seed').value = String(state.seed !== null ? state.seed : pv.seed);
  $('balancer').value = state.balancer !== null ? state.balancer : pv.balancer;
  if (document.activeElement !== $('users')) $('users').value = String(state.users !== null ? state.users : pv.users);
  const rate = state.rate !== null ? parseRate(state.rate) : pv.rate;
  if (document.activeElement !== $('rate')) $('rate').value = rate ? String(rate.value) : '';
  $('rate-unit').value = rate ? rate.unit : 'm';
  if (document.activeElement !== $('limit')) $('limit').value = String(state.limit !== null ? state.limit : pv.limit);
  const win = state.window !== null ? state.window : pv.window;
  options($('window'), [...new Set(WINDOWS.concat([pv.window, win]))]);
  $('window').value = win;
  const skew = state.skewMs !== null ? state.skewMs : pv.skewMs;
  $('skew').value = String(skew);
  $('skew-value').textContent = `${skew} ms`;
  $('fault').value = state.fault;
  const timing = defaultFaultTiming(deriveScenario(sc, Object.assign({}, state, { fault: '' })));
  $('fault-at').placeholder = timing.at;
  $('fault-for').placeholder = timing.for;
  if (document.activeElement !== $('fault-at')) $('fault-at').value = state.faultAt;
  if (document.activeElement !== $('fault-for')) $('fault-for').value = state.faultFor;
  if (document.activeElement !== $('slow-ms')) $('slow-ms').value = String(state.slowMs);
  document.body.classList.toggle('fault-on', state.fault !== '');
  document.body.classList.toggle('fault-slowdown', state.fault === 'slowdown');
  $('on-error').value = state.onError;
  const strategies = deriveScenario(sc, Object.assign({}, state, { onError: '' })).strategies || [];
  $('on-error-label').style.display = strategies.some(takesOnError) ? '' : 'none';
  renderSlots();
  $('lesson-name').textContent = p.name;
  $('lesson-text').textContent = p.description || '';
  document.body.classList.toggle('hidden-figures', state.hidden);
  document.body.classList.toggle('presenter', state.presenter);
  if (document.activeElement !== $('editor')) $('editor').value = scenarioText();
}

// --- state in the URL hash -----------------------------------------------------------------

// state field -> hash key, for the fields kept as they are (numbers and strings).
const HASH_KEYS = { instances: 'instances', seed: 'seed', balancer: 'balancer', users: 'users', rate: 'rate',
  limit: 'limit', window: 'window', skewMs: 'skew_ms', fault: 'fault', faultAt: 'fault_at', faultFor: 'fault_for',
  onError: 'on_error', t: 't' };

function writeHash() {
  const h = new URLSearchParams();
  h.set('preset', state.preset);
  for (const [field, key] of Object.entries(HASH_KEYS)) {
    if (state[field] !== null && state[field] !== '') h.set(key, state[field]);
  }
  if (state.fault === 'slowdown') h.set('slow_ms', state.slowMs);
  if (state.strategies !== null) h.set('strategies', JSON.stringify(state.strategies));
  if (state.hidden) h.set('hide', '1');
  if (state.presenter) h.set('presenter', '1');
  if (state.custom !== null) h.set('json', state.custom);
  const text = '#' + h.toString();
  if (location.hash !== text) history.replaceState(null, '', text);
}

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('preset') && RLSIM_PRESETS.some((p) => p.name === h.get('preset'))) state.preset = h.get('preset');
  const int = (k) => (h.has(k) && /^[0-9]+$/.test(h.get(k)) ? Number(h.get(k)) : null);
  const oneOf = (k, list) => (list.includes(h.get(k)) ? h.get(k) : null);
  const dur = (k) => (h.has(k) && durationSeconds(h.get(k)) !== null ? h.get(k) : '');
  Object.assign(state, DEFAULT_STATE, {
    instances: int('instances'), seed: int('seed'), balancer: oneOf('balancer', BALANCERS), users: int('users'),
    rate: parseRate(h.get('rate')) ? h.get('rate') : null, limit: int('limit'), window: dur('window') || null,
    skewMs: int('skew_ms'), fault: oneOf('fault', FAULTS) || (h.get('outage') === '1' ? 'outage' : ''),
    faultAt: dur('fault_at'), faultFor: dur('fault_for'), slowMs: int('slow_ms') !== null ? int('slow_ms') : DEFAULT_STATE.slowMs,
    onError: oneOf('on_error', ['fail_open', 'fail_closed', 'local_fallback']) || '', t: int('t'),
    custom: h.has('json') ? h.get('json') : null,
  });
  try {
    const list = h.has('strategies') ? JSON.parse(h.get('strategies')) : null;
    state.strategies = Array.isArray(list) && list.length && list.length <= MAX_SLOTS ? list : null;
  } catch (e) { state.strategies = null; }
  state.hidden = h.get('hide') === '1';
  state.presenter = h.get('presenter') === '1';
}

function changed() {
  requestedAt = performance.now();
  state.custom = null;
  renderControls();
  writeHash();
  requestRun();
}

function step(delta) {
  const n = windowCount();
  if (!n) return;
  state.t = Math.min(n - 1, Math.max(0, tNow() + delta));
  renderTimeline();
}

function togglePlay() {
  if (playing) { clearInterval(playing); playing = null; $('play').textContent = 'Play'; return; }
  if (tNow() >= windowCount() - 1) state.t = 0;
  $('play').textContent = 'Pause';
  renderTimeline();
  playing = setInterval(() => {
    if (tNow() >= windowCount() - 1) { togglePlay(); return; }
    step(1);
  }, PLAY_STEP_MS);
}

function download() {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([scenarioText() + '\n'], { type: 'application/json' }));
  a.download = `${state.preset}${state.custom !== null ? '-edited' : ''}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// A control whose value goes into state[field] through `read` (null: leave the state alone).
function bind(id, event, read) {
  $(id).addEventListener(event, () => {
    const v = read($(id).value);
    if (v === null) return;
    Object.assign(state, v);
    changed();
  });
}

function setupControls() {
  const count = (min, max) => (v) => (/^[0-9]+$/.test(v) && Number(v) >= min && Number(v) <= max ? Number(v) : null);
  const field = (name, parse) => (v) => { const x = parse(v); return x === null ? null : { [name]: x }; };
  bind('instances', 'input', field('instances', count(1, 50)));
  bind('seed', 'change', field('seed', count(0, Number.MAX_SAFE_INTEGER)));
  bind('balancer', 'change', field('balancer', (v) => v));
  bind('users', 'change', field('users', count(1, 1000000)));
  const rate = () => { const v = $('rate').value.trim(); return /^[0-9]+(\.[0-9]+)?$/.test(v) ? { rate: `${v}/${$('rate-unit').value}` } : null; };
  bind('rate', 'change', rate);
  bind('rate-unit', 'change', rate);
  bind('limit', 'change', field('limit', count(1, 1e12)));
  bind('window', 'change', field('window', (v) => v));
  bind('skew', 'input', field('skewMs', count(0, 3600000)));
  bind('fault', 'change', field('fault', (v) => v));
  bind('fault-at', 'change', field('faultAt', (v) => (v.trim() === '' || durationSeconds(v) !== null ? v.trim() : null)));
  bind('fault-for', 'change', field('faultFor', (v) => (v.trim() === '' || durationSeconds(v) !== null ? v.trim() : null)));
  bind('slow-ms', 'change', field('slowMs', count(0, 3600000)));
  bind('on-error', 'change', field('onError', (v) => v));
  for (let i = 0; i < MAX_SLOTS; i++) {
    $(`slot-${i}`).addEventListener('change', () => { setSlot(i, $(`slot-${i}`).value); changed(); });
    $(`slot-${i}-params`).addEventListener('change', (e) => {
      if (!e.target.dataset.param) return;
      setParam(i, e.target.dataset.param, e.target.value);
      changed();
    });
  }
}

function setup() {
  $('preset').innerHTML = RLSIM_PRESETS.map((p) => `<option value="${escapeHtml(p.name)}">${escapeHtml(p.name)}</option>`).join('');
  options($('balancer'), BALANCERS);
  $('preset').addEventListener('change', () => {
    Object.assign(state, DEFAULT_STATE, { preset: $('preset').value });
    changed();
  });
  setupControls();
  $('run-json').addEventListener('click', () => {
    requestedAt = performance.now();
    state.custom = $('editor').value;
    renderControls();
    writeHash();
    requestRun();
  });
  $('download').addEventListener('click', download);
  $('hide').addEventListener('click', () => { state.hidden = !state.hidden; renderControls(); writeHash(); });
  $('presenter').addEventListener('click', () => { state.presenter = !state.presenter; renderControls(); writeHash(); });
  $('play').addEventListener('click', togglePlay);
  $('back').addEventListener('click', () => step(-1));
  $('forward').addEventListener('click', () => step(1));
  $('scrubber').addEventListener('input', () => { state.t = Number($('scrubber').value); renderTimeline(); });
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' ||
        (t.tagName === 'INPUT' && t.type !== 'checkbox' && t.id !== 'scrubber'))) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === ' ') { e.preventDefault(); togglePlay(); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); step(1); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); step(-1); }
    else if (e.key === 'h') { state.hidden = !state.hidden; renderControls(); writeHash(); }
    else if (e.key === 'p') { state.presenter = !state.presenter; renderControls(); writeHash(); }
  });
  // A permalink pasted into this tab changes only the hash: apply it. (writeHash's replaceState
  // fires no hashchange.)
  window.addEventListener('hashchange', () => {
    requestedAt = performance.now();
    readHash();
    renderControls();
    requestRun();
  });
  readHash();
  renderControls();
  requestRun();
}

// For tests and embedding: the scenario the controls describe, the shown answer, and promises
// that resolve (with the latency in ms) once the latest change's first answer (a preview or the
// full run) and its full answer are on screen.
const settled = () => !workers.full.job && !resultIsPreview && shownScenario === scenarioText();
window.rlsimPage = {
  scenario: scenarioText,
  shownScenario: () => shownScenario,
  result: () => result,
  preview: () => resultIsPreview,
  state: () => Object.assign({}, state),
  idle: settled,
  whenIdle: () => new Promise((resolve) => { if (settled()) resolve(lastLatencyMs); else idleWaiters.push(resolve); }),
  whenShown: () => new Promise((resolve) => {
    if (wanted && firstShownId === wanted.id) resolve(firstLatencyMs); else shownWaiters.push(resolve);
  }),
  lastLatencyMs: () => lastLatencyMs,
};

setup();
