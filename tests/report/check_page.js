// Checks a tokbench page (sweep.html, search.html, a run's report) in headless Chromium: no
// console errors, no network, the page's data global rendered, and a chart drawn in every listed
// element; KEY=VALUE arguments after it are fields the global must hold (KEY~TEXT: contain).
// Usage: node check_page.js PAGE GLOBAL ID[,ID...] [KEY=VALUE|KEY~TEXT...]
'use strict';
const { open, offline } = require('./browser');

(async () => {
  const [html, global, ids, ...fields] = process.argv.slice(2);
  const { browser, page, problems } = await open(offline);
  await page.goto('file://' + require('path').resolve(html));
  await page.waitForFunction((g) => window[g] && window[g].rendered, global, { timeout: 30000 });
  const drawn = await page.evaluate((list) => list.map((id) => [id, document.querySelectorAll(`#${id} canvas`).length]),
                                    ids.split(','));
  for (const [id, n] of drawn) if (!n) problems.push(`#${id}: no chart drawn`);
  for (const f of fields) {  // KEY=VALUE: equal; KEY~TEXT: contains
    const contains = !f.includes('=') || f.indexOf('~') >= 0 && f.indexOf('~') < f.indexOf('=');
    const at = f.indexOf(contains ? '~' : '=');
    const [key, want] = [f.slice(0, at), f.slice(at + 1)];
    const got = await page.evaluate(([g, k]) => String(window[g][k]), [global, key]);
    if (contains ? !got.includes(want) : got !== want)
      problems.push(`${global}.${key} is '${got}', expected ${contains ? 'to contain ' : ''}'${want}'`);
  }
  await browser.close();
  console.log(JSON.stringify({ page: html, drawn }));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
})().catch((e) => { console.error(`check_page.js: ${e.message}`); process.exit(1); });
