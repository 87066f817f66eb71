// Checks a `tokbench compare` page in headless Chromium: no console errors, no network, the
// throughput-latency curve drawn with one point per load point. Usage: node check_compare.js PAGE N
'use strict';
const { open, offline } = require('./browser');

(async () => {
  const [html, expected] = process.argv.slice(2);
  const { browser, page, problems } = await open(offline);
  await page.goto('file://' + require('path').resolve(html));
  await page.waitForFunction(() => window.TOKBENCH_COMPARE && window.TOKBENCH_COMPARE.rendered, null, { timeout: 30000 });
  const info = await page.evaluate(() => ({
    points: window.TOKBENCH_COMPARE.points.length,
    canvas: document.querySelectorAll('#curve canvas').length,
    table: document.querySelectorAll('table tr').length,
  }));
  if (info.points !== Number(expected)) problems.push(`curve has ${info.points} points, expected ${expected}`);
  if (!info.canvas) problems.push('curve not drawn');
  if (info.table < 10) problems.push('metric table missing');
  await browser.close();
  console.log(JSON.stringify(info));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
})().catch((e) => { console.error(`check_compare.js: ${e.message}`); process.exit(1); });
