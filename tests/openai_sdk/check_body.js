// Checks the request body tokbench sends with --image against the official openai SDK's
// TypeScript types, with the TypeScript compiler's API: the body as a literal of
// ChatCompletionCreateParamsStreaming, so an unknown field, a wrong part shape or a wrong type is
// a compile error. tokbench runs against a small recording server here (not our simulator), so
// the exact, whole body is what is checked. Every image_url must be a base64 PNG data URL whose
// IHDR has the asked size. A deliberately wrong body must fail the same check (the check can fail).
// Usage: node check_body.js TOKBENCH_BINARY WORK_DIR WIDTH HEIGHT IMAGES_PER_REQUEST
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const ts = require("typescript");

const [bin, workDir, width, height, perRequest] = process.argv.slice(2);
const fail = (msg) => {
  console.error("check_body: " + msg);
  process.exit(1);
};

// A loopback server that records each POST body and answers a minimal OpenAI stream.
async function recordBodies() {
  const bodies = [];
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (req.method === "GET" && req.url.startsWith("/v1/models")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ object: "list", data: [{ id: "sdk-check", object: "model" }] }));
      }
      if (req.method !== "POST" || !req.url.startsWith("/v1/chat/completions")) {
        res.writeHead(404, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ error: { message: "no route" } }));
      }
      bodies.push(data);
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      const ev = (o) => res.write("data: " + JSON.stringify(o) + "\n\n");
      ev({ id: "c", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
      ev({ id: "c", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "length" }] });
      ev({ id: "c", choices: [], usage: { prompt_tokens: 600, completion_tokens: 1, total_tokens: 601 } });
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}/v1/chat/completions`;
  const run = await new Promise((ok) => {
    const { spawn } = require("child_process");
    const p = spawn(bin, ["run", "--url", url, "--image", `${width}x${height}`, "--images-per-request", perRequest,
                          "--num-prompts", "2", "--max-tokens", "4", "--quiet", "--output-dir", path.join(workDir, "run")],
                    { stdio: ["ignore", "ignore", "pipe"], timeout: 60000 });
    let err = "";
    p.stderr.on("data", (c) => (err += c));
    p.on("close", (code) => ok({ code, err }));
  });
  server.close();
  if (run.code !== 0 && run.code !== 4) fail(`tokbench run exited ${run.code}: ${run.err}`);
  if (bodies.length === 0) fail("tokbench sent no request");
  return JSON.parse(bodies[0]);
}

async function main() {
const body = await recordBodies();

// The images: base64 PNGs of the asked size, read here from their own bytes (not by tokbench's libpng).
const parts = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
const images = parts.filter((p) => p.type === "image_url");
if (images.length !== Number(perRequest)) fail(`expected ${perRequest} image_url parts, found ${images.length}`);
for (const { image_url } of images) {
  const m = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/.exec(image_url.url);
  if (!m) fail("not a base64 PNG data URL: " + image_url.url.slice(0, 60));
  const png = Buffer.from(m[1], "base64");
  if (png.subarray(0, 8).toString("hex") !== "89504e470d0a1a0a") fail("no PNG signature");
  if (png.subarray(12, 16).toString("latin1") !== "IHDR") fail("no IHDR chunk first");
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  if (w !== Number(width) || h !== Number(height)) fail(`image is ${w}x${h}, expected ${width}x${height}`);
}

const types = path.join(__dirname, "node_modules", "openai", "resources", "chat", "completions");
function typeErrors(name, value) {
  const file = path.join(workDir, name + ".ts");
  fs.writeFileSync(file, `import type { ChatCompletionCreateParamsStreaming } from ${JSON.stringify(types)};\n` +
                         `export const body: ChatCompletionCreateParamsStreaming = ${JSON.stringify(value, null, 1)};\n`);
  const program = ts.createProgram([file], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022,
                                             module: ts.ModuleKind.CommonJS, skipLibCheck: true, types: [] });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

const errors = typeErrors("sent", body);
if (errors.length) fail("the openai SDK's types refuse the body tokbench sent:\n" + errors.join("\n"));
// The control: an image part in a shape the SDK does not take must be refused by this check.
const wrong = JSON.parse(JSON.stringify(body));
const part = wrong.messages[0].content.find((p) => p.type === "image_url");
part.image_url = part.image_url.url;  // a bare string where {"url": ...} belongs
if (typeErrors("control", wrong).length === 0) fail("the control body (image_url as a bare string) was accepted: the check checks nothing");
console.log(`ok: ${images.length} image(s) of ${width}x${height}; the body type-checks as ChatCompletionCreateParamsStreaming`);
}

main().catch((e) => fail(e.stack || String(e)));
