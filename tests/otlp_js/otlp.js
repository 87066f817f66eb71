// Test-only: OTLP's own message classes — protobufjs code generated from the OTLP .proto files,
// as OpenTelemetry JS 0.52 ships them — read a body tokbench wrote, or write one for tokbench to
// read, so tokbench's hand-written wire format meets a schema it did not write
// (tests/otlp_foreign_test.cpp).
// Usage: node otlp.js decode traces|metrics BODY JSON   the message in BODY, as JSON into JSON
//        node otlp.js encode traces|metrics BODY JSON   a foreign message into BODY, and as JSON
//                                                       (read back by the same classes) into JSON
'use strict';
const fs = require('fs');
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const collector = root.opentelemetry.proto.collector;
const types = {
  traces: collector.trace.v1.ExportTraceServiceRequest,
  metrics: collector.metrics.v1.ExportMetricsServiceRequest,
};

// Ids and other bytes as lower-case hex, 64-bit integers as decimal strings.
function plain(v) {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x);
    return o;
  }
  return v;
}
function write_json(T, message, path) {
  const o = T.toObject(message, { longs: String, enums: Number, arrays: true });
  fs.writeFileSync(path, JSON.stringify(plain(o)) + '\n');
}

const id = (hex) => Buffer.from(hex, 'hex');
const str = (key, s) => ({ key, value: { stringValue: s } });
const int = (key, n) => ({ key, value: { intValue: n } });
const dbl = (key, x) => ({ key, value: { doubleValue: x } });
const bool = (key, b) => ({ key, value: { boolValue: b } });
// Values tokbench does not read (arrays, key-value lists, bytes): skipped, never misread.
const list = (key) => ({ key, value: { arrayValue: { values: [{ stringValue: 'a' }] } } });
const kvlist = (key) => ({ key, value: { kvlistValue: { values: [str('inner', 'x')] } } });

// A vLLM-like export from an SDK: fields tokbench reads and fields it must skip (trace state,
// dropped counts, links, flags, a scope version and attributes, schema URLs).
const foreignTraces = {
  resourceSpans: [{
    resource: { attributes: [str('service.name', 'vllm'), list('process.command_args')],
                droppedAttributesCount: 2 },
    scopeSpans: [{
      scope: { name: 'vllm.llm_engine', version: '0.9.1', attributes: [str('a', 'b')] },
      spans: [{
        traceId: id('4bf92f3577b34da6a3ce929d0e0e4736'), spanId: id('00f067aa0ba902b7'),
        traceState: 'vendor=1', parentSpanId: id('b7ad6b7169203331'), flags: 0x101,
        name: 'llm_request', kind: 2,
        startTimeUnixNano: '1733560000123456789', endTimeUnixNano: '1733560001987654321',
        attributes: [str('gen_ai.request.id', 'cmpl-1'), int('gen_ai.usage.prompt_tokens', '4096'),
                     dbl('gen_ai.latency.time_in_queue', 0.0125), bool('stream', true),
                     list('tags'), kvlist('nested'), int('big', '-9007199254740993')],
        droppedAttributesCount: 3,
        events: [{ timeUnixNano: '1733560000200000000', name: 'first_token',
                   attributes: [int('index', '0')], droppedAttributesCount: 1 },
                 { timeUnixNano: '1733560001900000000', name: 'last_token' }],
        droppedEventsCount: 4,
        links: [{ traceId: id('0af7651916cd43dd8448eb211c80319c'), spanId: id('b9c7c989f97918e1'),
                  traceState: 'x=y', attributes: [str('link', 'l')] }],
        status: { code: 2, message: 'the engine died' },
      }, {
        traceId: id('0af7651916cd43dd8448eb211c80319c'), spanId: id('53995c3f42cd8ad8'),
        name: 'root', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2',
      }],
      schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
    }],
    schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
  }, {
    resource: { attributes: [str('service.name', 'sglang')] },
    scopeSpans: [{ spans: [{ traceId: id('11111111111111111111111111111111'),
                             spanId: id('2222222222222222'), name: 'req', kind: 3,
                             startTimeUnixNano: '10', endTimeUnixNano: '20',
                             status: { code: 1 } }] }],
  }],
};

const point = (extra) => Object.assign({
  attributes: [str('model', 'm'), str('tokbench.outcome', 'ok')],
  startTimeUnixNano: '1733560000000000000', timeUnixNano: '1733560010000000000',
}, extra);
// A collector's view of an SDK's metrics: the kinds tokbench reads, with exemplars, flags,
// min/max and metadata it must skip.
const foreignMetrics = {
  resourceMetrics: [{
    resource: { attributes: [str('service.name', 'tokbench-peer'), list('x')] },
    scopeMetrics: [{
      scope: { name: 'peer', version: '1.0' },
      metrics: [
        { name: 'requests', description: 'finished requests', unit: '{request}',
          sum: { dataPoints: [point({ asInt: '42', exemplars: [{ timeUnixNano: '5', asInt: '1' }] }),
                              point({ asInt: '-3', flags: 1 })],
                 aggregationTemporality: 2, isMonotonic: true } },
        { name: 'in_flight', unit: '{request}',
          gauge: { dataPoints: [point({ asDouble: 7.5 })] } },
        { name: 'latency', description: 'E2EL', unit: 's',
          histogram: { dataPoints: [point({ count: '9', sum: 12.25, bucketCounts: ['1', '3', '5', '0'],
                                            explicitBounds: [0.5, 1, 2.5], min: 0.1, max: 2.4,
                                            exemplars: [{ asDouble: 1.2, timeUnixNano: '7' }] })],
                       aggregationTemporality: 2 } },
      ],
    }],
  }],
};

const [mode, kind, path, json] = process.argv.slice(2);
const T = types[kind];
if (!T || !json || (mode !== 'decode' && mode !== 'encode')) {
  process.stderr.write('usage: node otlp.js decode|encode traces|metrics BODY JSON\n');
  process.exit(2);
}
if (mode === 'decode') {
  write_json(T, T.decode(fs.readFileSync(path)), json);
} else {
  const source = kind === 'traces' ? foreignTraces : foreignMetrics;
  const bytes = T.encode(T.fromObject(source)).finish();
  fs.writeFileSync(path, bytes);
  write_json(T, T.decode(bytes), json);
}
