// Checks a tokbench HTML report in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): it loads with no console errors and no network requests, every panel is
// drawn, the timeline holds every request, hover text matches the records, the headline cards and
// every table (stable stage, server, cross-check) are on it, the charts fit short runs, a
// screenshot is made.
// Usage: node check_html.js REPORT.html EXPECTED_REQUESTS SCREENSHOT.png [stream|nostream|answers]
// (answers: a streamed --check-answers run, whose page also has the Accuracy card and the answers table)
'use strict';
const { chromium } = require('playwright-core');

async function main() {
  const [html, expected, shot, mode = 'stream'] = process.argv.slice(2);
  const streamed = mode !== 'nostream';
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
    sampling: window.TOKBENCH.sampling,
    failedRows: window.TOKBENCH.requests.filter((r) => r[3] === 0).length,
    timelineSub: window.TOKBENCH.charts.timeline.getOption().title[0].subtext,
    renderMs: window.TOKBENCH.render_ms,
    charts: Object.keys(window.TOKBENCH.charts),
    canvases: document.querySelectorAll('#timeline canvas').length,
    nonStreamNote: !!document.getElementById('non-streaming-note'),
    body: document.getElementById('body').textContent,
    bodyWraps: getComputedStyle(document.getElementById('body')).whiteSpace === 'pre-wrap',
    cards: [...document.querySelectorAll('#cards .card .label')].map((e) => e.textContent),
    tables: document.getElementById('tables').textContent,
    stable: document.getElementById('stable-tables').textContent,
    minusOneTick: window.TOKBENCH.charts.timeline.getOption().yAxis[0].axisLabel.formatter(-1),
    distSub: window.TOKBENCH.charts['dist-e2el'].getOption().title[0].subtext,
    distLabels: window.TOKBENCH.charts['dist-e2el'].getOption().series[0].markLine.data.map((d) => d.label && d.label.show),
    tput: window.TOKBENCH.charts.throughput ? (() => {
      const o = window.TOKBENCH.charts.throughput.getOption();
      return {max: o.xAxis[0].max, bins: o.series[0].data.length, last: Math.max(...o.series[0].data.map((d) => d[0]))};
    })() : null,
    spanS: JSON.parse(document.getElementById('tokbench-data').textContent).span_s,
    binS: JSON.parse(document.getElementById('tokbench-data').textContent).throughput_bin_s,
    server: window.TOKBENCH.charts.server ? window.TOKBENCH.charts.server.getOption().series.map((x) => x.name) : [],
  }));
  // Headline cards, every table the console's --verbose has, and the stable stage's (closed loop).
  for (const c of ['Verdict', 'Requests', 'E2EL P99', 'Request throughput'])
    if (!info.cards.includes(c)) problems.push(`card ${c} missing: ${info.cards}`);
  if (streamed && !info.cards.includes('TTFT P99')) problems.push(`card TTFT P99 missing: ${info.cards}`);
  if (mode === 'answers' && !info.cards.includes('Accuracy')) problems.push(`card Accuracy missing: ${info.cards}`);
  if (mode === 'answers' && !info.tables.includes('answers: accuracy 1.000')) problems.push('the answers line is missing from the tables');
  for (const t of ['Performance Parameters', 'Common Metric', 'Server-side', 'Cross-check'])
    if (!info.tables.includes(t)) problems.push(`table ${t} missing from the page`);
  if (!info.stable.includes('Performance Parameters (stable)')) problems.push(`stable-stage tables missing: '${info.stable}'`);
  if (!info.bodyWraps) problems.push('the request body does not wrap (cut at the right edge)');
  if (info.minusOneTick !== '') problems.push(`timeline shows a '${info.minusOneTick}' tick for row -1`);
  if (!/P50 .*P90 .*P99 /.test(info.distSub)) problems.push(`percentiles not in the subtitle: '${info.distSub}'`);
  if (info.distLabels.some((x) => x !== false)) problems.push('percentile lines carry labels (they overlap)');
  // A run of about a second: bins of a fraction of a second on an axis that ends with the run.
  // (non-streaming: tokens arrive with each whole answer, a bin per wave of completions)
  if (!info.tput || info.tput.bins < (streamed ? 5 : 1)) problems.push(`throughput: too few bins for a short run: ${JSON.stringify(info.tput)}`);
  else if (info.tput.last > info.tput.max || info.tput.max > info.spanS + Math.max(1, info.binS)) problems.push(`throughput axis off the run: ${JSON.stringify(info.tput)} span ${info.spanS}`);
  // The client's in flight: exact steps from every request, or (a sampled timeline) the binned mean.
  const inFlight = info.sampling ? 'client mean in flight' : 'client in flight';
  if (!info.server.includes(inFlight)) problems.push(`server panel lacks the line '${inFlight}': ${info.server}`);
  // The simulator's /metrics has a KV-cache gauge: drawn beside running and waiting.
  if (!info.server.includes('KV cache usage % (scraped)')) problems.push(`server panel lacks the KV cache line: ${info.server}`);
  // Past the page's limit the timeline is a stated sample that keeps every failure; below it, every request.
  const S = info.sampling;
  if (!S && info.n !== Number(expected)) problems.push(`timeline has ${info.n} requests, expected ${expected}`);
  if (S) {
    if (S.total !== Number(expected)) problems.push(`sampled timeline counts ${S.total} requests, expected ${expected}`);
    if (S.drawn !== info.n || S.drawn >= S.total) problems.push(`sampled timeline draws ${info.n} rows: ${JSON.stringify(S)}`);
    if (S.failed_drawn !== Math.min(S.failed, 10000) || info.failedRows !== S.failed_drawn)
      problems.push(`sampled timeline drops failures: ${info.failedRows} drawn, ${JSON.stringify(S)}`);
    if (!/^sampled: .* of .* requests drawn \(every failure/.test(info.timelineSub)) problems.push(`the sampling is not said on the chart: '${info.timelineSub}'`);
  } else if (info.timelineSub) problems.push(`a timeline of every request says '${info.timelineSub}'`);
  if (info.canvases < 1) problems.push('timeline not drawn');
  const want = streamed ? ['timeline', 'dist-ttft', 'dist-tpot', 'dist-itl', 'dist-e2el', 'throughput']
                                 : ['timeline', 'dist-e2el', 'throughput'];
  for (const id of want) if (!info.charts.includes(id)) problems.push(`panel ${id} missing`);
  if (!streamed && !info.nonStreamNote) problems.push('non-streaming note missing');
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
  // The hover names the request's index in the details (the rows are sorted by start, and may be a sample).
  const r = await page.evaluate((k) => window.TOKBENCH.requests.find((x) => x[9] === k), shown ? Number(shown[1]) : -1);
  if (!r) problems.push(`hovered request ${shown && shown[1]} is not on the page`);
  if (r && !tip.includes(`E2EL: ${round(r[6])} ms`)) problems.push(`tooltip '${tip}' lacks E2EL ${round(r[6])}`);
  if (r && streamed && !tip.includes(`TTFT: ${round(r[4])} ms`)) problems.push(`tooltip '${tip}' lacks TTFT ${round(r[4])}`);
  // The request id it was sent with, as the server's log has it.
  const runId = await page.evaluate(() => JSON.parse(document.getElementById('tokbench-data').textContent).run_id);
  if (r && !tip.includes(`id: ${runId}-${r[9]}`)) problems.push(`tooltip '${tip}' lacks the request id ${runId}-${r[9]}`);
  await page.screenshot({ path: shot, fullPage: true });
  await browser.close();
  console.log(JSON.stringify({ requests: info.n, load_ms: loadMs, render_ms: Math.round(info.renderMs), tooltip: tip }));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => { console.error(`check_html.js: ${e.message}`); process.exit(1); });
