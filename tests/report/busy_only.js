// Exit 0 when every INVALID run folder (result.json) under DIR is INVALID only for what a busy
// test machine causes, the reasons tests/support/busy_machine.hpp accepts (keep the two alike);
// else prints the other reasons and exits 1. The pages are what check_report.sh checks: a busy
// machine's verdict must not stop it, any other reason must.
// Usage: node busy_only.js DIR
'use strict';
const fs = require('fs');
const path = require('path');

const busy = (r) => r.startsWith('send lag p99 was ') ||
  r.startsWith("the client and the server's /metrics disagree") || r.includes('busiest worker thread');

const other = [];
let invalid = 0;
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name === 'result.json') {
      const v = JSON.parse(fs.readFileSync(p, 'utf8')).verdict || {};
      if (v.status !== 'INVALID') continue;
      ++invalid;
      for (const r of v.reasons || []) if (!busy(r)) other.push(`${dir}: ${r}`);
    }
  }
};
walk(process.argv[2]);
if (invalid === 0) other.push(`no INVALID run folder under ${process.argv[2]}`);
if (other.length) {
  console.error(other.join('\n'));
  process.exit(1);
}
console.log(`note: ${invalid} run(s) INVALID only for what a busy machine causes; the pages are what is checked`);
