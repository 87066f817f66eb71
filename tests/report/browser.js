// The headless Chromium the page checks drive (Debian's /usr/bin/chromium, no sandbox, no
// background traffic of its own) and a page watched for what must never happen: a console error,
// a page error, a request to anything `allowed(url)` refuses. Usage:
//   const { browser, page, problems } = await require('./browser').open((url) => ...);
'use strict';
const { chromium } = require('playwright-core');

async function open(allowed) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!allowed(r.url())) problems.push(`network request: ${r.url()}`); });
  return { browser, page, problems };
}

/// A page read from a file: nothing but file: and data: URLs.
const offline = (url) => url.startsWith('file:') || url.startsWith('data:');

module.exports = { open, offline };
