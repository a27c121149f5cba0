// Browser test of the page (docs/web.md): opens build-web/page/index.html from file:// in Debian's
// Chromium (headless, no network) and checks its figures against the native CLI.
// Usage: node tests/web/page-test.js   (env: RLSIM_BINARY, default build/rlsim; RLSIM_WEB_BUILD,
// default build-web; CHROMIUM, default /usr/bin/chromium). Screenshots go to a temporary folder.
'use strict';
const { chromium } = require('playwright-core');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '../..');
const binary = path.resolve(root, process.env.RLSIM_BINARY || 'build/rlsim');
const pageFile = path.resolve(root, process.env.RLSIM_WEB_BUILD || 'build-web', 'page', 'index.html');
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'rlsim-page-'));
const LATENCY_TARGET_MS = 200;
let failures = 0;

function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}

function cliReport(args) {
  // --out: `run` writes its report files in every case, by default into reports/<name>.
  const out = fs.mkdtempSync(path.join(shots, 'cli-'));
  return JSON.parse(execFileSync(binary, ['run', ...args, '--json', '--out', out], { maxBuffer: 1 << 28 }).toString());
}

function cliOnText(text) {
  const file = path.join(shots, 'scenario.json');
  fs.writeFileSync(file, text);
  return cliReport([file]);
}

const headline = (report) => Math.max(...report.strategies.map((s) => s.overshoot)).toFixed(2) + 'x';

async function idle(page) {
  return page.evaluate(() => window.rlsimPage.whenIdle());
}

async function overflowing(page) {
  return page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')].filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && (r.right > w + 1 || r.left < -1) && getComputedStyle(e).visibility !== 'hidden';
    }).map((e) => `${e.tagName}#${e.id} right=${Math.round(e.getBoundingClientRect().right)} > ${w}`)
      // A section clips what does not fit (overflow: hidden): its content must fit too.
      .concat([...document.querySelectorAll('section')].filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
        .map((e) => `section#${e.id} content ${e.scrollWidth} > ${e.clientWidth}`)).slice(0, 5);
  });
}

// The page's answer against `rlsim run` on the scenario the download button saves: the same JSON
// report, field for field. Returns the CLI's report.
async function sameAsCliOnDownload(page, what) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const text = fs.readFileSync(await download.path(), 'utf8').trimEnd();
  check(text === await page.evaluate(() => window.rlsimPage.scenario()), `${what}: the download is the page's scenario`);
  const cli = cliOnText(text);
  const shown = await page.evaluate(() => window.rlsimPage.result().report);
  check(JSON.stringify(shown) === JSON.stringify(cli), `${what}: the page's report equals rlsim run's on the download (headline ${await page.textContent('#headline')}, CLI ${headline(cli)})`);
  return cli;
}

// The page's per-strategy figures against `rlsim run PRESET --set ...` for the same settings.
async function sameAsCliSet(page, presetName, sets, what) {
  const cli = cliReport([path.join(root, 'scenarios', presetName + '.json'), ...sets.flatMap((x) => ['--set', x])]);
  const shown = await page.evaluate(() => window.rlsimPage.result().report);
  const figures = (r) => JSON.stringify(r.strategies.map((s) => [s.label, s.overshoot, s.excess, s.false_denials, s.decision_digest]));
  check(figures(shown) === figures(cli), `${what}: page ${figures(shown).slice(0, 160)}, rlsim run --set ${sets.join(' --set ')}: ${figures(cli).slice(0, 160)}`);
}

// Types into a field and leaves it (a change event), as a person does.
async function typeInto(page, selector, value) {
  await page.fill(selector, String(value));
  await page.press(selector, 'Enter');
  await page.$eval(selector, (e) => e.dispatchEvent(new Event('change', { bubbles: true })));
}

async function slide(page, selector, value) {
  await page.$eval(selector, (e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); }, String(value));
}

async function controls(page, browser) {
  await page.selectOption('#preset', 'overshoot-10x');
  await idle(page);
  await page.selectOption('#balancer', 'random');
  await idle(page);
  await sameAsCliSet(page, 'overshoot-10x', ['load_balancer.policy=random'], 'balancer random');
  await typeInto(page, '#users', 3);
  await typeInto(page, '#rate', 50);
  await page.selectOption('#rate-unit', 's');
  await idle(page);
  await sameAsCliSet(page, 'overshoot-10x', ['load_balancer.policy=random', 'traffic[0].users=3', 'traffic[0].rate=50/s'], 'users 3 at 50/s');
  await typeInto(page, '#limit', 40);
  await page.selectOption('#window', '10s');
  await idle(page);
  await sameAsCliSet(page, 'overshoot-10x', ['load_balancer.policy=random', 'traffic[0].users=3', 'traffic[0].rate=50/s',
    'limits[0].limit=40', 'limits[0].window=10s'], 'limit 40 per 10s');
  await sameAsCliOnDownload(page, 'balancer, users, rate, limit, window');

  // Three strategies side by side, with parameters typed in.
  await page.selectOption('#slot-0', 'n:kong');
  await idle(page);
  await typeInto(page, '#slot-0-policy', 'redis');
  await typeInto(page, '#slot-0-sync_rate', '1s');
  await page.selectOption('#slot-1', 'n:redis_token_bucket');
  await idle(page);
  await typeInto(page, '#slot-1-capacity', 20);
  await page.selectOption('#slot-2', 'n:kong');
  await idle(page);
  const labels = (await page.evaluate(() => window.rlsimPage.result().report.strategies.map((s) => s.label))).join(' ');
  check(labels === 'kong redis_token_bucket kong_3', `three strategies side by side: ${labels}`);
  const legend = await page.textContent('#legend');
  check(['kong', 'redis_token_bucket', 'kong_3'].every((l) => legend.includes(l)), `one chart, three lines: legend "${legend}"`);
  await sameAsCliOnDownload(page, 'kong sync_rate 1s, token bucket capacity 20, kong local');

  // A Redis slowdown with its timing; the banner names it in its windows.
  await page.selectOption('#preset', 'redis-outage');
  await idle(page);
  await page.selectOption('#fault', 'slowdown');
  await typeInto(page, '#slow-ms', 150);
  await typeInto(page, '#fault-at', '1m');
  await typeInto(page, '#fault-for', '30s');
  await page.selectOption('#on-error', 'fail_closed');
  await idle(page);
  const slowCli = await sameAsCliOnDownload(page, 'Redis slowdown +150 ms from 1:00 for 30 s, fail_closed');
  check(slowCli.strategies.some((s) => s.errors > 0), `the slowdown past the 100 ms timeout makes errors (${slowCli.strategies.map((s) => s.errors).join(' ')})`);
  await page.$eval('#scrubber', (e) => { e.value = '1'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  const slowBanner = await page.textContent('#banner');
  check(/Redis slowed 1:00-1:30/.test(slowBanner), `slowdown banner in window 2: "${slowBanner}"`);

  // Clock skew: the slider; the CLI on the download.
  await page.selectOption('#preset', 'clock-skew');
  await idle(page);
  check(await page.inputValue('#skew') === '50', `clock-skew's own offsets read as 50 ms (${await page.inputValue('#skew')})`);
  await slide(page, '#skew', 200);
  await idle(page);
  await sameAsCliOnDownload(page, 'clock skew 200 ms');
  // Dragging the instances slider over several values: the stale runs stop, the last one shows.
  for (const n of [3, 4, 5, 6]) await slide(page, '#instances', n);
  await idle(page);
  await sameAsCliOnDownload(page, 'clock skew 200 ms, instances dragged to 6');

  // The permalink carries every control.
  const url = page.url();
  const again = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await again.goto(url);
  await idle(again);
  check(await again.evaluate(() => window.rlsimPage.scenario()) === await page.evaluate(() => window.rlsimPage.scenario()),
    'the permalink restores skew and instances');
  await again.goto('file://' + pageFile + '#' + new URLSearchParams({ preset: 'overshoot-10x', balancer: 'random', users: '3',
    rate: '50/s', limit: '40', window: '10s', fault: 'slowdown', slow_ms: '30', fault_at: '2m', fault_for: '1m',
    strategies: JSON.stringify([{ name: 'kong', sync_rate: '1s', policy: 'redis' }, { name: 'redis_token_bucket', capacity: 20 }]) }).toString());
  await idle(again);
  const restored = JSON.parse(await again.evaluate(() => window.rlsimPage.scenario()));
  check(restored.load_balancer.policy === 'random' && restored.traffic[0].users === 3 && restored.traffic[0].rate === '50/s' &&
    restored.limits[0].limit === 40 && restored.limits[0].window === '10s' && restored.strategies.length === 2 &&
    restored.strategies[0].sync_rate === '1s' && JSON.stringify(restored.faults) === '[{"type":"redis_latency","added":"30ms","at":"2m","for":"1m"}]',
  `a permalink with every control sets them all: ${JSON.stringify(restored).slice(0, 200)}`);
  await again.close();
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const requests = [];
  page.context().on('request', (r) => { if (!/^(file|blob|data):/.test(r.url())) requests.push(r.url()); });
  await page.goto('file://' + pageFile + '#preset=overshoot-10x');
  await idle(page);

  // 1. The overshoot preset at 10 instances.
  check(await page.textContent('#headline') === '10.00x', `overshoot-10x at 10 instances reads 10.00x (${await page.textContent('#headline')})`);
  await page.screenshot({ path: path.join(shots, 'overshoot-10.png') });

  // 2. The slider to 25: the same figure as the CLI's.
  await page.$eval('#instances', (e) => { e.value = '25'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  await idle(page);
  const at25 = headline(cliReport([path.join(root, 'scenarios/overshoot-10x.json'), '--set', 'instances.count=25']));
  check(await page.textContent('#headline') === at25, `25 instances: page ${await page.textContent('#headline')}, CLI ${at25}`);

  // 3. The outage: the banner shows in the fault's window; fail_open's excess equals the CLI's.
  await page.selectOption('#fault', 'outage');
  await idle(page);
  await page.selectOption('#on-error', 'fail_open');
  await idle(page);
  // The scenario as the "download" button saves it: `rlsim run` on it reproduces the page.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const text = fs.readFileSync(await download.path(), 'utf8').trimEnd();
  check(text === await page.evaluate(() => window.rlsimPage.scenario()), `the download (${download.suggestedFilename()}) is the page's scenario`);
  const cli = cliOnText(text);
  const shownDigests = await page.textContent('#digests');
  check(cli.strategies.every((s) => shownDigests.includes(`${s.label}: ${s.decision_digest}`)), 'the digests shown are the CLI\'s on the download');
  const pageReport = await page.evaluate(() => window.rlsimPage.result().report);
  const excess = (r) => r.strategies.find((s) => s.label === 'redis_fixed_window').excess;
  check(excess(pageReport) === excess(cli), `fail_open excess with the outage: page ${excess(pageReport)}, CLI ${excess(cli)}`);
  check(JSON.stringify(pageReport) === JSON.stringify(cli), 'the page\'s report equals the CLI\'s on the page\'s scenario');
  // Step to the first window: no banner; then right-arrow until the fault's window.
  await page.$eval('#scrubber', (e) => { e.value = '0'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  check(!(await page.isVisible('#banner')), 'no banner in window 1');
  let steps = 0;
  while (!(await page.isVisible('#banner')) && steps < 20) { await page.keyboard.press('ArrowRight'); steps++; }
  const banner = await page.textContent('#banner');
  check(/^Redis down 3:00-5:00$/.test(banner), `banner after ${steps} right-arrows: "${banner}"`);
  await page.screenshot({ path: path.join(shots, 'outage.png') });
  await page.keyboard.press('ArrowLeft');
  check((await page.evaluate(() => window.rlsimPage.state().t)) === steps - 1, 'left arrow steps back one window');

  // 4. Keys: space plays and pauses, h hides the figures, p presenter mode.
  await page.keyboard.press(' ');
  await page.waitForTimeout(1600);
  await page.keyboard.press(' ');
  const t = await page.evaluate(() => window.rlsimPage.state().t);
  check(t > steps - 1, `space played the timeline (window ${t + 1})`);
  await page.keyboard.press('h');
  check(await page.$eval('#headline', (e) => getComputedStyle(e).visibility) === 'hidden', 'h hides the figures');
  await page.keyboard.press('h');
  check(await page.$eval('#headline', (e) => getComputedStyle(e).visibility) === 'visible', 'h again shows them');
  await page.keyboard.press('p');
  check(await page.evaluate(() => document.body.classList.contains('presenter')), 'p: presenter mode');
  await page.screenshot({ path: path.join(shots, 'presenter.png') });

  // 5. Permalink: the hash restores the state in a new page.
  const url = page.url();
  const again = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await again.goto(url);
  await idle(again);
  check(await again.evaluate(() => window.rlsimPage.scenario()) === text, 'the permalink restores the scenario');
  check(await again.evaluate(() => document.body.classList.contains('presenter')), 'the permalink restores presenter mode');
  await again.close();
  await page.keyboard.press('p');

  // 6. Every other control, driven as a person would, against the CLI for the same settings.
  await controls(page, browser);

  // 7. A bad JSON in the editor shows the engine's message.
  await page.fill('#editor', '{"name": "x", "duration": "ten minutes"}');
  await page.click('#run-json');
  await idle(page);
  const err = await page.textContent('#error');
  check(err.length > 0 && !(await page.evaluate(() => window.rlsimPage.result().report)), `bad JSON: "${err}"`);

  // 8. No element overflows the viewport; every preset's change-to-result latency.
  const presets = await page.$$eval('#preset option', (os) => os.map((o) => o.value));
  let slowest = { ms: 0, name: '' };
  let slowestFull = { ms: 0, name: '' };
  for (const [w, h] of [[1920, 1080], [1280, 720]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const name of presets) {
      await page.selectOption('#preset', name);
      await idle(page);
      for (const presenter of [false, true]) {
        if (presenter) await page.keyboard.press('p');
        const over = await overflowing(page);
        check(over.length === 0, `${name} at ${w}x${h}${presenter ? ' presenter' : ''}: nothing overflows ${over.join('; ')}`);
        if (presenter) await page.keyboard.press('p');
      }
      await page.screenshot({ path: path.join(shots, `${name}-${w}x${h}.png`) });
      if (w !== 1920) continue;
      // From a seed change: the first answer on screen (a preview of the run's first part for a
      // long run, else the full run) and the full run's; the largest gap between 10 ms timer
      // ticks meanwhile (the page stays responsive). A preview's complete windows must be the
      // full run's first windows, decision for decision.
      const m = await page.evaluate(async () => {
        const seed = document.getElementById('seed');
        const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
        let last = performance.now();
        let gap = 0;
        const timer = setInterval(() => { const now = performance.now(); gap = Math.max(gap, now - last); last = now; }, 10);
        const t0 = performance.now();
        seed.value = String(Number(seed.value) + 1);
        seed.dispatchEvent(new Event('change', { bubbles: true }));
        await window.rlsimPage.whenShown();
        await frame();
        const firstMs = performance.now() - t0;
        const preview = window.rlsimPage.preview() ? window.rlsimPage.result().report : null;
        await window.rlsimPage.whenIdle();
        await frame();
        clearInterval(timer);
        const full = window.rlsimPage.result().report;
        let compared = 0, differ = 0, previewS = 0;
        if (preview) {
          previewS = preview.duration_s;
          preview.strategies.forEach((s, i) => {
            const ws = s.series.windows.filter((w) => w.start_s + s.series.window_s <= previewS);
            ws.forEach((w, j) => { compared++; if (JSON.stringify(w) !== JSON.stringify(full.strategies[i].series.windows[j])) differ++; });
          });
        }
        return { firstMs, fullMs: performance.now() - t0, gap, previewS, compared, differ };
      });
      const ms = m.firstMs;
      console.log(`latency: ${name}: first result ${m.firstMs.toFixed(0)} ms${m.previewS ? ` (a preview of the first ${m.previewS} s)` : ''}, ` +
        `full result ${m.fullMs.toFixed(0)} ms from a seed change; main thread's longest stall ${m.gap.toFixed(0)} ms`);
      check(m.gap < 500, `${name}: the page stays responsive while the engine runs (longest stall ${m.gap.toFixed(0)} ms)`);
      if (m.previewS) check(m.differ === 0, `${name}: the preview's ${m.compared} complete windows are the full run's (${m.differ} differ)`);
      if (ms > slowest.ms) slowest = { ms, name };
      if (m.fullMs > slowestFull.ms) slowestFull = { ms: m.fullMs, name };
    }
  }
  console.log(`slowest preset to the first result: ${slowest.name} ${slowest.ms.toFixed(0)} ms (target ${LATENCY_TARGET_MS} ms); ` +
    `to the full result: ${slowestFull.name} ${slowestFull.ms.toFixed(0)} ms`);
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
  check(requests.length === 0, `no network requests ${requests.slice(0, 3).join(' ')}`);
  await browser.close();
  console.log(`screenshots: ${shots}`);
  console.log(failures ? `page-test: ${failures} failed` : 'page-test: all passed');
  process.exit(failures ? 1 : 0);
}

// A page that never answers must fail the test, not hang it.
setTimeout(() => { console.error('page-test: timed out after 600 s'); process.exit(1); }, 600000).unref();
main().catch((e) => { console.error(e); process.exit(1); });
