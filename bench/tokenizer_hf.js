// HF tokenizers (@anush008/tokenizers, the Rust crate via N-API) on the same chunks as
// tokenizer_bench.cpp: ~20 kB cut at line ends. Usage: node tokenizer_hf.js MODEL_DIR FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require(path.join(__dirname, '..', 'tests', 'tokenizer', 'node_modules', '@anush008', 'tokenizers'));

function chunksOf(files) {
  const out = [];
  let cur = [];
  let size = 0;
  for (const f of files) {
    const all = fs.readFileSync(f);
    for (let pos = 0; pos < all.length;) {
      let nl = all.indexOf(10, pos);
      nl = nl < 0 ? all.length : nl + 1;
      cur.push(all.subarray(pos, nl));
      size += nl - pos;
      pos = nl;
      if (size >= 20000) { out.push(Buffer.concat(cur)); cur = []; size = 0; }
    }
  }
  if (size) out.push(Buffer.concat(cur));
  return out;
}

(async () => {
  const [dir, ...files] = process.argv.slice(2);
  let t = process.hrtime.bigint();
  const tok = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  console.log(`load_ms ${(Number(process.hrtime.bigint() - t) / 1e6).toFixed(1)}`);
  const chunks = chunksOf(files);
  const texts = chunks.map((c) => c.toString('utf8'));
  const bytes = chunks.reduce((a, c) => a + c.length, 0);
  for (let pass = 0; pass < 3; ++pass) {
    let tokens = 0;
    t = process.hrtime.bigint();
    for (const s of texts) tokens += (await tok.encode(s, null, { addSpecialTokens: false })).getIds().length;
    const sec = Number(process.hrtime.bigint() - t) / 1e9;
    console.log(`${pass === 0 ? 'cold' : 'warm'}_MB_per_s ${(bytes / sec / 1e6).toFixed(2)} tokens ${tokens} bytes ${bytes} chunks ${chunks.length}`);
  }
})();
