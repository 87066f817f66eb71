// Checks --live's page in headless Chromium while its load point runs: the page comes from the
// run's own server (no other network), redraws from /live.json, draws its four charts, and its
// counts are mid-run (not final) and grow between polls.
// Usage: node check_live.js URL SCREENSHOT
'use strict';
const { open } = require('./browser');

(async () => {
  const [url, shot] = process.argv.slice(2);
  const origin = new URL(url).origin;
  const { browser, page, problems } = await open((u) => u.startsWith(origin) || u.startsWith('data:'));
  let loaded = false;
  for (let i = 0; i < 40 && !loaded; ++i) {  // the server is up once the point's warm-up is done
    try { await page.goto(url); loaded = true; } catch (e) { await new Promise((r) => setTimeout(r, 500)); }
  }
  if (!loaded) throw new Error(`${url} never answered`);
  await page.waitForFunction(() => window.tokbenchLive && window.tokbenchLive.rendered && window.tokbenchLive.ok > 0,
                             null, { timeout: 30000 });
  const first = await page.evaluate(() => Object.assign({}, window.tokbenchLive));
  await page.waitForFunction((n) => window.tokbenchLive.polls >= n + 2, first.polls, { timeout: 15000 });
  const last = await page.evaluate(() => Object.assign({}, window.tokbenchLive));
  const drawn = await page.evaluate(() => ['requests', 'throughput', 'ttft', 'e2el'].map(
    (id) => [id, document.querySelectorAll(`#${id} canvas`).length]));
  for (const [id, n] of drawn) if (!n) problems.push(`#${id}: no chart drawn`);
  if (first.final) problems.push('the first state the page showed was already final: not checked mid-run');
  if (!(last.ok + last.failed > first.ok + first.failed || last.final))
    problems.push(`the counts did not move between polls (${JSON.stringify(first)} then ${JSON.stringify(last)})`);
  await page.screenshot({ path: shot, fullPage: true });
  await browser.close();
  console.log(JSON.stringify({ page: url, first, last, drawn }));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
})().catch((e) => { console.error(`check_live.js: ${e.message}`); process.exit(1); });
