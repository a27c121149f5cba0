// The page's engine against the native one on `rlsim bench`'s workload (docs/performance.md#the-page):
// for each strategy, the native program measures its own simulated requests per wall-clock second
// (`rlsim bench --strategy S`), and the WebAssembly engine runs the very scenario that measurement
// simulates (`rlsim bench --print-scenario`), under Node, in the same run of this script, so the
// ratio holds on a shared machine; each side is measured ROUNDS times, alternately, and its best
// rate kept (a busy machine slows single runs by up to several times). Prints one row per
// strategy and the median ratio.
// Usage: node tests/web/bench.js [RLSIM_BINARY] [ENGINE_JS] [REQUESTS] [ROUNDS, default 3]
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

const root = path.resolve(__dirname, '../..');
const rlsim = path.resolve(process.argv[2] || process.env.RLSIM_BINARY || `${root}/build/rlsim`);
const engineJs = path.resolve(process.argv[3] || `${root}/build-web/rlsim-engine.js`);
const requests = process.argv[4] || '200000';
const rounds = Number(process.argv[5] || 3);
const strategies = ['in_memory', 'redis_fixed_window', 'redis_sliding_log', 'redis_token_bucket',
  'local_budget', 'kong', 'gubernator'];

function nativeRate(strategy) {
  const out = execFileSync(rlsim, ['bench', '--strategy', strategy, '--requests', requests],
    { encoding: 'utf8' });
  const row = out.split('\n').find((line) => line.startsWith(strategy + ' '));
  if (!row) throw new Error(`no row for ${strategy} in:\n${out}`);
  return Number(row.trim().split(/\s+/)[3]);  // sim_req_per_s
}

async function main() {
  const engine = await require(engineJs)();
  const ratios = [];
  console.log('strategy                 native_req_per_s  wasm_req_per_s  wasm/native');
  for (const strategy of strategies) {
    const scenario = execFileSync(rlsim, ['bench', '--print-scenario', '--strategy', strategy,
      '--requests', requests], { encoding: 'utf8' }).trim();
    let native = 0;
    let wasm = 0;
    for (let round = 0; round < rounds; round++) {
      native = Math.max(native, nativeRate(strategy));
      const started = process.hrtime.bigint();
      const pointer = engine.ccall('rlsim_run', 'number', ['string', 'string'],
        [scenario, '{"charts": false}']);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const out = JSON.parse(engine.UTF8ToString(pointer));
      engine._free(pointer);
      if (out.error) throw new Error(`${strategy}: ${out.error.message}`);
      wasm = Math.max(wasm, out.report.strategies[0].offered / seconds);
    }
    ratios.push(wasm / native);
    console.log(`${strategy.padEnd(24)} ${native.toFixed(0).padStart(16)} ` +
      `${wasm.toFixed(0).padStart(15)} ${(wasm / native).toFixed(2).padStart(12)}`);
  }
  ratios.sort((a, b) => a - b);
  console.log(`median wasm/native: ${ratios[Math.floor(ratios.length / 2)].toFixed(2)} ` +
    `(lowest ${ratios[0].toFixed(2)}), ${requests} requests per run, best of ${rounds}`);
}

main().catch((error) => {
  console.error(`bench.js: ${error.message}`);
  process.exit(1);
});
