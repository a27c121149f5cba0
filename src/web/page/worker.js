// The engine's Web Worker (docs/web.md): runs one scenario per message so the page never blocks.
// assemble.js prepends the engine's JavaScript (createRlsimEngine) to this text in a Blob. The
// engine is compiled as soon as the worker starts, so a spare worker is ready when it is needed.
/* global createRlsimEngine */
let engine = createRlsimEngine();

self.onmessage = async (event) => {
  const { id, scenario, options } = event.data;
  let out;
  let started = performance.now();
  try {
    const M = await (engine || (engine = createRlsimEngine()));
    started = performance.now();
    const ptr = M.ccall('rlsim_run', 'number', ['string', 'string'], [scenario, JSON.stringify(options || {})]);
    out = JSON.parse(M.UTF8ToString(ptr));
    M._free(ptr);
  } catch (e) {
    // A trap leaves the module's memory in an unknown state: start a new instance next time.
    engine = null;
    out = { error: { kind: 'engine', message: 'the engine stopped: ' + (e && e.message ? e.message : String(e)) } };
  }
  self.postMessage({ id, out, engine_ms: performance.now() - started });
};
