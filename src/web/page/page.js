// The page's logic (docs/web.md): controls -> a scenario JSON -> the engine in a Web Worker ->
// the figures, a timeline over the computed windows, and the state kept in the URL hash.
/* global RLSIM_PRESETS, RLSIM_WORKER_SOURCE */
'use strict';

const ON_ERROR_STRATEGIES = new Set(['redis_fixed_window', 'redis_fixed_window_lua', 'redis_sliding_log',
  'redis_sliding_counter', 'redis_token_bucket', 'redis_gcra', 'custom_lua', 'multi_limit']);
const COLORS = ['#d32f2f', '#1976d2', '#388e3c', '#f57c00', '#7b1fa2', '#00838f', '#5d4037', '#c2185b'];
const PLAY_STEP_MS = 700;
const $ = (id) => document.getElementById(id);

const state = { preset: RLSIM_PRESETS[0].name, instances: null, seed: null, outage: false, onError: '',
  hidden: false, presenter: false, t: null, custom: null };
let result = null;        // the engine's answer shown now
let shownScenario = null; // the scenario text that answer is for
let playing = null;
let idleWaiters = [];

// --- scenario ------------------------------------------------------------------------------

function preset() {
  return RLSIM_PRESETS.find((p) => p.name === state.preset) || RLSIM_PRESETS[0];
}

// A scenario duration ("10m", "9m30s", "1.5s"; docs/scenario-format.md) in seconds.
function durationSeconds(text) {
  const unit = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  const parts = String(text).match(/[0-9]+(?:\.[0-9]+)?(?:us|ms|s|m|h)/g);
  if (!parts || parts.join('') !== String(text).trim()) return 600;
  return parts.reduce((sum, p) => {
    const m = /^([0-9.]+)(us|ms|s|m|h)$/.exec(p);
    return sum + Number(m[1]) * unit[m[2]];
  }, 0);
}

// The outage the toggle adds: Redis a black hole (no reply until the client's timeout) from 30% of
// the run for 20% of it, in whole seconds (10 min run: 3:00-5:00).
function outageFault(scenario) {
  const run_s = durationSeconds(scenario.duration);
  const at_s = Math.round(run_s * 0.3);
  const for_s = Math.max(1, Math.round(run_s * 0.2));
  return { type: 'redis_down', mode: 'blackhole', at: at_s + 's', for: for_s + 's' };
}

function strategyName(s) { return typeof s === 'string' ? s : s.name; }
function takesOnError(s) { return ON_ERROR_STRATEGIES.has(strategyName(s)); }

function derivedScenario() {
  const p = preset();
  const s = JSON.parse(JSON.stringify(p.scenario));
  if (state.instances !== null) {
    const inst = Object.assign({}, s.instances || {});
    delete inst.schedule;
    inst.count = state.instances;
    s.instances = inst;
  }
  if (state.seed !== null) s.seed = state.seed;
  if (state.outage) s.faults = (s.faults || []).concat([outageFault(s)]);
  if (state.onError && Array.isArray(s.strategies)) {
    s.strategies = s.strategies.map((x) => {
      if (!takesOnError(x)) return x;
      const o = typeof x === 'string' ? { name: x } : Object.assign({}, x);
      o.on_error = state.onError;
      return o;
    });
  }
  return s;
}

function scenarioText() {
  return state.custom !== null ? state.custom : JSON.stringify(derivedScenario(), null, 2);
}

// --- engine --------------------------------------------------------------------------------

const worker = new Worker(URL.createObjectURL(new Blob([RLSIM_WORKER_SOURCE], { type: 'text/javascript' })));
let busy = false;
let pending = false;
let requestedAt = 0;
let nextId = 1;
let lastLatencyMs = null;
let inFlightText = null;

function requestRun() {
  requestedAt = requestedAt || performance.now();
  if (busy) { pending = true; return; }
  busy = true;
  const text = scenarioText();
  $('status').textContent = 'running…';
  document.body.classList.add('stale');
  inFlightText = text;
  worker.postMessage({ id: nextId++, scenario: text, options: { charts: true } });
}

worker.onmessage = (event) => {
  busy = false;
  const { out, engine_ms: engineMs } = event.data;
  result = out;
  shownScenario = inFlightText;
  if (pending) { pending = false; render(); requestRun(); return; }
  render();
  lastLatencyMs = performance.now() - requestedAt;
  requestedAt = 0;
  document.body.classList.remove('stale');
  $('status').textContent = out.error ? '' : `computed in ${engineMs.toFixed(0)} ms`;
  const waiters = idleWaiters; idleWaiters = [];
  waiters.forEach((f) => f(lastLatencyMs));
};

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
  const strategies = result.report.strategies;
  const top = Math.max(...strategies.map((s) => s.overshoot));
  $('headline').textContent = top.toFixed(2) + 'x';
  $('strategies').tBodies[0].innerHTML = strategies.map((s, i) => `<tr>
    <td><span style="color:${COLORS[i % COLORS.length]}">&#9632;</span> ${escapeHtml(s.label)}</td>
    <td class="figure">${s.overshoot.toFixed(2)}x</td><td class="figure">${s.excess}</td>
    <td class="figure">${s.false_denials}</td><td class="figure">${s.errors}</td>
    <td class="figure">${Number(s.redis_commands_per_request).toFixed(2)}</td>
    <td class="figure">${(s.latency_us.p99 / 1000).toFixed(2)}</td></tr>`).join('');
  $('digests').innerHTML = Object.entries(result.digests || {})
    .map(([label, hex]) => `<div>${escapeHtml(label)}: ${escapeHtml(hex)}</div>`).join('');
  $('engine-charts').innerHTML = (result.charts || [])
    .map((c) => `<figure><figcaption>${escapeHtml(c.title)}</figcaption>${c.svg}</figure>`).join('');
  const n = windowCount();
  if (state.t === null || state.t > n - 1) state.t = Math.max(0, n - 1);
  renderTimeline();
  renderControls();
}

function activeFaults(startS, endS) {
  const first = result.report.strategies.find((s) => Array.isArray(s.faults));
  if (!first) return [];
  return first.faults.filter((f) => f.at_s < endS && f.at_s + f.for_s > startS);
}

function faultText(f) {
  const name = f.type === 'redis_down' ? 'Redis down' : f.type.replace(/_/g, ' ');
  return `${name} ${fmtTime(f.at_s)}-${fmtTime(f.at_s + f.for_s)}`;
}

function renderTimeline() {
  const n = windowCount();
  const scrub = $('scrubber');
  scrub.max = String(Math.max(0, n - 1));
  scrub.value = String(state.t || 0);
  const strategies = result && result.report ? result.report.strategies : [];
  const w = strategies.length ? windowsOf(strategies[0])[state.t] : null;
  const windowS = strategies.length && strategies[0].series ? strategies[0].series.window_s : 0;
  const startS = w ? w.start_s : 0;
  $('clock').textContent = `window ${(state.t || 0) + 1}/${n}, ${fmtTime(startS)}`;
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
    const pts = windowsOf(s).slice(0, (state.t || 0) + 1).map((w, j) => `${x(j).toFixed(1)},${y(w.max_per_key).toFixed(1)}`);
    svg += `<polyline fill="none" stroke-width="2.5" stroke="${COLORS[i % COLORS.length]}" points="${pts.join(' ')}"/>`;
  });
  svg += `<line x1="${x(state.t || 0)}" y1="${T}" x2="${x(state.t || 0)}" y2="${H - B}" stroke="#000" stroke-opacity="0.4"/>`;
  for (let j = 0; j < n; j += Math.max(1, Math.ceil(n / 10))) {
    const w = windowsOf(strategies[0])[j];
    svg += `<text x="${x(j)}" y="${H - 6}" text-anchor="middle" font-size="11" fill="#888">${fmtTime(w ? w.start_s : 0)}</text>`;
  }
  return svg + '</svg>';
}

function renderControls() {
  const p = preset();
  $('preset').value = state.preset;
  const sc = p.scenario;
  const base = sc.instances && (sc.instances.count || (sc.instances.schedule && sc.instances.schedule[0] && sc.instances.schedule[0].count));
  const n = state.instances !== null ? state.instances : (base || 1);
  $('instances').value = String(n);
  // With regions the instances are counted per region (regions.list[].instances): edit the JSON.
  $('instances').disabled = Boolean(sc.regions);
  $('instances').title = sc.regions ? 'this scenario sets its instances per region: edit regions in the JSON below' : '';
  $('instances-value').textContent = state.instances === null && sc.instances && sc.instances.schedule ? `${n} (schedule)` : String(n);
  $('seed').value = String(state.seed !== null ? state.seed : (sc.seed || 0));
  $('outage').checked = state.outage;
  $('on-error').value = state.onError;
  $('on-error-label').style.display = (sc.strategies || []).some(takesOnError) ? '' : 'none';
  $('lesson-name').textContent = p.name;
  $('lesson-text').textContent = p.description || '';
  document.body.classList.toggle('hidden-figures', state.hidden);
  document.body.classList.toggle('presenter', state.presenter);
  if (document.activeElement !== $('editor')) $('editor').value = scenarioText();
}

// --- state in the URL hash -----------------------------------------------------------------

function writeHash() {
  const h = new URLSearchParams();
  h.set('preset', state.preset);
  if (state.instances !== null) h.set('instances', state.instances);
  if (state.seed !== null) h.set('seed', state.seed);
  if (state.outage) h.set('outage', '1');
  if (state.onError) h.set('on_error', state.onError);
  if (state.hidden) h.set('hide', '1');
  if (state.presenter) h.set('presenter', '1');
  if (state.t !== null) h.set('t', state.t);
  if (state.custom !== null) h.set('json', state.custom);
  const text = '#' + h.toString();
  if (location.hash !== text) history.replaceState(null, '', text);
}

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('preset') && RLSIM_PRESETS.some((p) => p.name === h.get('preset'))) state.preset = h.get('preset');
  const int = (k) => (h.has(k) && /^[0-9]+$/.test(h.get(k)) ? Number(h.get(k)) : null);
  state.instances = int('instances');
  state.seed = int('seed');
  state.outage = h.get('outage') === '1';
  state.onError = ['fail_open', 'fail_closed', 'local_fallback'].includes(h.get('on_error')) ? h.get('on_error') : '';
  state.hidden = h.get('hide') === '1';
  state.presenter = h.get('presenter') === '1';
  state.t = int('t');
  state.custom = h.has('json') ? h.get('json') : null;
}

// --- controls ------------------------------------------------------------------------------

function changed() {
  requestedAt = performance.now();
  renderControls();
  writeHash();
  requestRun();
}

function step(delta) {
  const n = windowCount();
  if (!n) return;
  state.t = Math.min(n - 1, Math.max(0, (state.t || 0) + delta));
  renderTimeline();
}

function togglePlay() {
  if (playing) { clearInterval(playing); playing = null; $('play').textContent = 'Play'; return; }
  if ((state.t || 0) >= windowCount() - 1) state.t = 0;
  $('play').textContent = 'Pause';
  renderTimeline();
  playing = setInterval(() => {
    if ((state.t || 0) >= windowCount() - 1) { togglePlay(); return; }
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

function setup() {
  $('preset').innerHTML = RLSIM_PRESETS.map((p) => `<option value="${escapeHtml(p.name)}">${escapeHtml(p.name)}</option>`).join('');
  $('preset').addEventListener('change', () => {
    Object.assign(state, { preset: $('preset').value, instances: null, seed: null, outage: false, onError: '', t: null, custom: null });
    changed();
  });
  $('instances').addEventListener('input', () => { state.instances = Number($('instances').value); state.custom = null; changed(); });
  $('seed').addEventListener('change', () => {
    const v = Number($('seed').value);
    if (Number.isInteger(v) && v >= 0) { state.seed = v; state.custom = null; changed(); }
  });
  $('outage').addEventListener('change', () => { state.outage = $('outage').checked; state.custom = null; changed(); });
  $('on-error').addEventListener('change', () => { state.onError = $('on-error').value; state.custom = null; changed(); });
  $('run-json').addEventListener('click', () => { state.custom = $('editor').value; changed(); });
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
  readHash();
  renderControls();
  requestRun();
}

// For tests and embedding: the scenario the controls describe, the shown answer, and a promise
// that resolves (with the latency in ms) once the latest change's answer is on screen.
window.rlsimPage = {
  scenario: scenarioText,
  shownScenario: () => shownScenario,
  result: () => result,
  state: () => Object.assign({}, state),
  idle: () => !busy && !pending && shownScenario === scenarioText(),
  whenIdle: () => new Promise((resolve) => {
    if (!busy && !pending && shownScenario === scenarioText()) resolve(lastLatencyMs); else idleWaiters.push(resolve);
  }),
  lastLatencyMs: () => lastLatencyMs,
};

setup();
