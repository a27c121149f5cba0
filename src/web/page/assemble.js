// Writes BUILD/page/index.html (docs/web.md): one self-contained file that works from file://
// offline. The CSS, the page's script, the presets and the worker (the engine's JavaScript, wasm
// inlined, followed by worker.js; started from a Blob URL) are inlined. A preset whose run returns
// an error in the engine (e.g. one that needs script files) is left out.
// Usage: node src/web/page/assemble.js [BUILD_DIR]   (default: build-web)
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '../../..');
const build = path.resolve(root, process.argv[2] || 'build-web');
const PRESETS = ['overshoot-10x', 'autoscale', 'boundary-burst', 'redis-outage', 'local-budget', 'global-limit',
  'clock-skew', 'multi-region', 'products-autoscale', 'token-bucket-vs-gcra'];

// Scenario files allow // and /* */ comments (docs/scenario-format.md#comments); the page edits
// plain JSON.
function stripComments(text) {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2) + 1;
      if (i === 0) throw new Error('unterminated comment');
    } else {
      out += c;
    }
  }
  return out;
}

// Inside a <script> element a literal must not contain "</" (it could end the element).
const literal = (value) => JSON.stringify(value).replace(/<\//g, '<\\/').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

async function main() {
  const enginePath = path.join(build, 'rlsim-engine.js');
  const engineText = fs.readFileSync(enginePath, 'utf8');
  const createRlsimEngine = require(enginePath);
  const presets = [];
  for (const name of PRESETS) {
    const file = path.join(root, 'scenarios', name + '.json');
    const scenario = JSON.parse(stripComments(fs.readFileSync(file, 'utf8')));
    let error = null;
    let engineMs = null;
    try {
      // A fresh instance per preset: a trap in one must not poison the next.
      const M = await createRlsimEngine({ printErr: () => {} });
      const started = process.hrtime.bigint();
      const ptr = M.ccall('rlsim_run', 'number', ['string', 'string'], [JSON.stringify(scenario), '{}']);
      engineMs = Number(process.hrtime.bigint() - started) / 1e6;
      const out = JSON.parse(M.UTF8ToString(ptr));
      M._free(ptr);
      if (out.error) error = `${out.error.kind}: ${out.error.message}`;
    } catch (e) {
      error = 'the engine stopped: ' + (e && e.message ? e.message : e);
    }
    if (error) { console.log(`assemble: leaving out ${name} (${error})`); continue; }
    // engine_ms: the run's time here, the page's first guess of its time in the browser (it
    // decides whether a change shows a preview first; page.js corrects it with each run).
    presets.push({ name, description: scenario.description || '', scenario, engine_ms: Math.round(engineMs) });
  }
  const here = (f) => fs.readFileSync(path.join(__dirname, f), 'utf8');
  const worker = engineText + '\n' + here('worker.js');
  const page = here('index.html')
    .replace('/*@STYLE@*/', () => here('style.css'))
    .replace('/*@PRESETS@*/', () => literal(presets))
    .replace('/*@WORKER@*/', () => literal(worker))
    .replace('/*@SCENARIO@*/', () => here('scenario.js').replace(/<\/script/gi, '<\\/script'))
    .replace('/*@PAGE@*/', () => here('page.js').replace(/<\/script/gi, '<\\/script'));
  fs.mkdirSync(path.join(build, 'page'), { recursive: true });
  const out = path.join(build, 'page', 'index.html');
  fs.writeFileSync(out, page);
  console.log(`assemble: ${out} (${(page.length / 1e6).toFixed(1)} MB, presets: ${presets.map((p) => p.name).join(' ')})`);
}

// emscripten's Node glue rethrows unhandled rejections; a trap is caught above per preset.
main().then(() => process.exit(0), (e) => { console.error('assemble: ' + (e && e.stack ? e.stack : e)); process.exit(1); });
