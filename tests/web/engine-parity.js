// The wasm engine and the native CLI agree (docs/web.md): for every preset the page offers, runs
// build-web/rlsim-engine.js under Node and `RLSIM_BINARY run FILE --out TMP`, and checks each
// strategy's decision_digest and the whole report object are equal. No browser.
// Usage: node tests/web/engine-parity.js   (env: RLSIM_BINARY, default build/rlsim; RLSIM_WEB_BUILD,
// default build-web). Exits 1 on any difference.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { isDeepStrictEqual } = require('util');

const root = path.resolve(__dirname, '../..');
const binary = path.resolve(root, process.env.RLSIM_BINARY || 'build/rlsim');
const build = path.resolve(root, process.env.RLSIM_WEB_BUILD || 'build-web');
// The page's presets (src/web/page/assemble.js); products-autoscale is in the list there too and
// is left out of the page while the engine traps on it, so it is checked here and must pass.
const PRESETS = ['overshoot-10x', 'autoscale', 'boundary-burst', 'redis-outage', 'local-budget', 'global-limit',
  'clock-skew', 'multi-region', 'products-autoscale', 'token-bucket-vs-gcra'];

function firstDifference(a, b, where) {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${where}.${k}`);
      if (d) return d;
    }
  }
  return `${where}: wasm ${JSON.stringify(a)}, native ${JSON.stringify(b)}`.slice(0, 400);
}

async function main() {
  const createRlsimEngine = require(path.join(build, 'rlsim-engine.js'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rlsim-parity-'));
  const failures = [];
  let digests = 0;
  for (const name of PRESETS) {
    const file = path.join(root, 'scenarios', name + '.json');
    let wasm;
    try {
      const M = await createRlsimEngine({ printErr: () => {} });
      const ptr = M.ccall('rlsim_run', 'number', ['string', 'string'], [fs.readFileSync(file, 'utf8'), '']);
      wasm = JSON.parse(M.UTF8ToString(ptr));
      M._free(ptr);
    } catch (e) {
      failures.push(`${name}: the wasm engine stopped: ${e && e.message ? e.message : e}`);
      continue;
    }
    if (wasm.error) { failures.push(`${name}: wasm error ${wasm.error.kind}: ${wasm.error.message}`); continue; }
    const out = path.join(tmp, name);
    execFileSync(binary, ['run', file, '--out', out], { stdio: 'ignore' });
    const native = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    for (const s of native.strategies) {
      const w = wasm.report.strategies.find((x) => x.label === s.label);
      const wd = w && w.decision_digest;
      if (wd !== s.decision_digest) failures.push(`${name}/${s.label}: decision_digest wasm ${wd}, native ${s.decision_digest}`);
      else digests++;
      if (wasm.digests && wasm.digests[s.label] !== s.decision_digest) {
        failures.push(`${name}/${s.label}: digests[] wasm ${wasm.digests[s.label]}, native ${s.decision_digest}`);
      }
    }
    const d = firstDifference(wasm.report, native, name);
    if (d) failures.push(`report differs: ${d}`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  failures.forEach((f) => console.log('FAIL: ' + f));
  console.log(`engine-parity: ${PRESETS.length} presets, ${digests} digests equal, ${failures.length} differences`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
