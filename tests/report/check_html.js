// Checks a tokbench HTML report in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): it loads with no console errors and no network requests, every panel is
// drawn, the timeline holds every request, hover text matches the records, a screenshot is made.
// Usage: node check_html.js REPORT.html EXPECTED_REQUESTS SCREENSHOT.png [stream|nostream]
'use strict';
const { chromium } = require('playwright-core');

async function main() {
  const [html, expected, shot, mode = 'stream'] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`network request: ${r.url()}`); });
  const t0 = Date.now();
  await page.goto('file://' + require('path').resolve(html));
  await page.waitForFunction(() => window.TOKBENCH && window.TOKBENCH.rendered, null, { timeout: 30000 });
  const loadMs = Date.now() - t0;
  const info = await page.evaluate(() => ({
    n: window.TOKBENCH.requests.length,
    renderMs: window.TOKBENCH.render_ms,
    charts: Object.keys(window.TOKBENCH.charts),
    canvases: document.querySelectorAll('#timeline canvas').length,
    nonStreamNote: !!document.getElementById('non-streaming-note'),
    body: document.getElementById('body').textContent,
  }));
  if (info.n !== Number(expected)) problems.push(`timeline has ${info.n} requests, expected ${expected}`);
  if (info.canvases < 1) problems.push('timeline not drawn');
  const want = mode === 'stream' ? ['timeline', 'dist-ttft', 'dist-tpot', 'dist-itl', 'dist-e2el', 'throughput']
                                 : ['timeline', 'dist-e2el', 'throughput'];
  for (const id of want) if (!info.charts.includes(id)) problems.push(`panel ${id} missing`);
  if (mode !== 'stream' && !info.nonStreamNote) problems.push('non-streaming note missing');
  if (!info.body.includes('"model"')) problems.push('request body missing');
  // Move the mouse onto a request's row in the middle of the timeline: the hover box must name
  // that request and show its own TTFT and E2EL (at 100k rows a pixel spans many requests).
  const point = await page.evaluate(() => {
    document.getElementById('timeline').scrollIntoView();
    const tl = window.TOKBENCH.charts.timeline;
    const i = Math.floor(window.TOKBENCH.requests.length / 2);
    const r = window.TOKBENCH.requests[i];
    const [x, y] = tl.convertToPixel({ gridIndex: 0 }, [(r[0] + r[2]) / 2, i]);
    const box = document.getElementById('timeline').getBoundingClientRect();
    return { x: box.left + x, y: box.top + y };
  });
  await page.mouse.move(point.x, point.y);
  await page.waitForTimeout(200);
  const tip = await page.evaluate(() => {
    const el = document.getElementById('hover');
    return el.style.display === 'block' ? el.textContent : '';
  });
  const round = (v) => (Math.round(v * 10000) / 10000).toString();
  const shown = /request (\d+)/.exec(tip);
  if (!shown) problems.push(`hover box empty or unnamed: '${tip}'`);
  const r = await page.evaluate((k) => window.TOKBENCH.requests[k], shown ? Number(shown[1]) : 0);
  if (!tip.includes(`E2EL: ${round(r[6])} ms`)) problems.push(`tooltip '${tip}' lacks E2EL ${round(r[6])}`);
  if (mode === 'stream' && !tip.includes(`TTFT: ${round(r[4])} ms`)) problems.push(`tooltip '${tip}' lacks TTFT ${round(r[4])}`);
  await page.screenshot({ path: shot, fullPage: true });
  await browser.close();
  console.log(JSON.stringify({ requests: info.n, load_ms: loadMs, render_ms: Math.round(info.renderMs), tooltip: tip }));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => { console.error(`check_html.js: ${e.message}`); process.exit(1); });
