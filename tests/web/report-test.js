// Every bundled report in a browser (docs/metrics.md#charts): opens each reports/*/report.html and
// reports/*/sweep.html from file:// in Debian's Chromium (headless, no network) at 1280x720 and
// checks what a projector shows:
//  - no element overflows the page sideways (content inside a scrolling box counts only through
//    its box), and every table fits its box at this width (tables wrap, they do not scroll);
//  - every chart's text (title, ticks, legend, labels at the lines' ends) lies inside the chart;
//  - every chart draws at most 8 series, and its legend entries are distinct: no two share a
//    name, and no two share a colour (the palette gives each series its own; a dash pattern only
//    tells apart lines that run on top of each other).
// Usage: node tests/web/report-test.js [REPORTS_DIR]   (default: reports/ of the repository;
// env: CHROMIUM, default /usr/bin/chromium). Exit 1 when a check fails, naming page and chart.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '../..');
const reportsDir = path.resolve(process.argv[2] || path.join(root, 'reports'));
const VIEWPORT = { width: 1280, height: 720 };
const MAX_SERIES = 8;
let failures = 0;
let checks = 0;

function check(ok, what) {
  checks++;
  if (!ok) {
    failures++;
    console.log(`FAIL: ${what}`);
  }
}

// What the page measures of itself, in the browser.
function measure() {
  const width = document.documentElement.clientWidth;
  const scrolls = (e) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX);
  const insideScroller = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return true;
    return false;
  };
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : ''}`;
  const overflow = [...document.querySelectorAll('body *')].filter((e) => {
    if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') return false;  // charts: below
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 1 || r.left < -1) && !insideScroller(e);
  }).map((e) => `${name(e)} right=${Math.round(e.getBoundingClientRect().right)} > ${width}`)
    // Text wider than its own box spills out of it without a child element to show it (a <pre>).
    .concat([...document.querySelectorAll('body *')].filter((e) => !e.closest('svg') && !scrolls(e) &&
      e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 && !insideScroller(e))
      .map((e) => `${name(e)} content ${e.scrollWidth} px in a ${e.clientWidth} px box`));
  if (document.documentElement.scrollWidth > width + 1)
    overflow.unshift(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  const boxes = [...document.querySelectorAll('.table-wrap')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${name(e.querySelector('table') || e)} needs ${e.scrollWidth} px in a ${e.clientWidth} px box`);
  const charts = [...document.querySelectorAll('svg.chart')].map((svg) => {
    const box = svg.getBoundingClientRect();
    const outside = [...svg.querySelectorAll('text')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1);
    }).map((t) => `"${t.textContent}"`);
    const legend = [...svg.querySelectorAll('g.legend')].map((g) => {
      const line = g.querySelector('line');
      return {
        name: g.getAttribute('data-legend'),
        color: (line.getAttribute('stroke') || '').toLowerCase(),
        dash: line.getAttribute('stroke-dasharray') || 'solid',
      };
    });
    return { id: svg.id, series: svg.querySelectorAll('g.series').length, legend, outside };
  });
  return { overflow: overflow.slice(0, 5), boxes, charts };
}

function duplicates(values) {
  return [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];
}

function checkPage(file, m) {
  const page = path.relative(reportsDir, file);
  check(m.overflow.length === 0, `${page}: overflows the page at ${VIEWPORT.width}px: ${m.overflow.join('; ')}`);
  check(m.boxes.length === 0, `${page}: a table does not fit its box: ${m.boxes.join('; ')}`);
  check(m.charts.length > 0, `${page}: no chart`);
  for (const chart of m.charts) {
    const where = `${page} ${chart.id}`;
    check(chart.series <= MAX_SERIES, `${where}: ${chart.series} series (at most ${MAX_SERIES})`);
    check(chart.legend.length === chart.series, `${where}: ${chart.legend.length} legend entries for ${chart.series} series`);
    const names = duplicates(chart.legend.map((l) => l.name));
    check(names.length === 0, `${where}: legend names repeated: ${names.join(', ')}`);
    const colors = duplicates(chart.legend.map((l) => l.color));
    check(colors.length === 0, `${where}: legend colours repeated: ${colors.join(', ')}`);
    const styles = duplicates(chart.legend.map((l) => `${l.color} ${l.dash}`));
    check(styles.length === 0, `${where}: legend styles repeated: ${styles.join(', ')}`);
    check(chart.outside.length === 0, `${where}: text outside the chart: ${chart.outside.slice(0, 3).join(', ')}`);
  }
}

async function main() {
  const pages = fs.readdirSync(reportsDir).sort().flatMap((dir) =>
    ['report.html', 'sweep.html'].map((f) => path.join(reportsDir, dir, f)).filter((f) => fs.existsSync(f)));
  if (pages.length === 0) {
    console.log(`FAIL: no report.html or sweep.html under ${reportsDir}`);
    process.exit(1);
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: VIEWPORT });
  const requests = [];
  page.context().on('request', (r) => { if (!/^(file|data):/.test(r.url())) requests.push(r.url()); });
  let charts = 0;
  let widest = 0;
  for (const file of pages) {
    await page.goto('file://' + file);
    const m = await page.evaluate(measure);
    checkPage(file, m);
    charts += m.charts.length;
    widest = Math.max(widest, ...m.charts.map((c) => c.series));
  }
  check(requests.length === 0, `the reports made network requests: ${requests.slice(0, 3).join(', ')}`);
  await browser.close();
  console.log(`${pages.length} pages, ${charts} charts (at most ${widest} series in one) at ` +
    `${VIEWPORT.width}x${VIEWPORT.height}: ${checks - failures} of ${checks} checks passed`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
