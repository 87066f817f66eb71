// The run report's script (report/html.cpp embeds it): reads the data embedded in the page and
// draws every panel; window.TOKBENCH is what the browser test reads.
const D = JSON.parse(document.getElementById('tokbench-data').textContent);
// Sorted by start; [start_ms, first_ms|null, end_ms, ok (1; 0 failed; 2 counted apart: cancelled
// by the client or cut at a duration's end), ttft_ms|null, tpot_ms|null, e2el_ms, out_tokens,
// scheduled_ms|null, index in the details, and with --class its class's position in D.classes].
// Past a limit the rows are a stated sample (D.sampling).
const R = D.requests.sort((a, b) => a[0] - b[0]);
const S = D.sampling;
const n = (v) => v.toLocaleString('en-US');
const sampledNote = S ? `sampled: ${n(S.drawn)} of ${n(S.total)} requests drawn (every failure` +
    (S.failed_drawn < S.failed ? ` up to ${n(S.failed_drawn)} of ${n(S.failed)}` : '') +
    `, the ${n(S.slowest_drawn)} slowest, a seeded sample of ${n(S.sampled_drawn)} of the rest)` : '';
window.TOKBENCH = {requests: R, sampling: S, rendered: false, charts: {}};
// --class: each class's decode (or whole answer) in a colour of its own.
const C = D.classes || [];
const classColors = ['#1f77b4', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f', '#2ca02c'];
const classColorNames = ['blue', 'purple', 'brown', 'pink', 'cyan', 'olive', 'grey', 'green'];
const classColor = (k) => classColors[k % classColors.length];
const t0 = performance.now();
const tools = {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench'}}};
const fmt = (v) => v == null ? 'n/a' : (Math.round(v * 10000) / 10000).toString();
// An axis tick as a person writes it: 4.6, not 4.6000000000000005 (floating-point steps).
const tick = (v) => String(Number(v.toPrecision(6)));
function withTicks(axes) {
  for (const a of [].concat(axes || []))
    if (a.type === 'value' && !(a.axisLabel && a.axisLabel.formatter)) a.axisLabel = Object.assign({}, a.axisLabel, {formatter: tick});
}
function chart(id, option) {
  const c = echarts.init(document.getElementById(id), null, {renderer: 'canvas'});
  withTicks(option.xAxis);
  withTicks(option.yAxis);
  c.setOption(option);
  window.TOKBENCH.charts[id] = c;
  return c;
}
// Timeline (one line per request, sorted by start) above the concurrency step chart.
const large = R.length > 10000;
const ttft = [], decode = [], e2e = [], failed = [], apart = [];
const byClass = C.map(() => []);
const rest = (r, list) => (C.length && r[10] >= 0 ? byClass[r[10]] : list);
R.forEach((r, i) => {
  if (r[3] === 0) failed.push({coords: [[r[0], i], [r[2], i]]});
  else if (r[3] === 2) apart.push({coords: [[r[0], i], [r[2], i]]});
  else if (D.stream && r[1] != null) {
    ttft.push({coords: [[r[0], i], [r[1], i]]});
    rest(r, decode).push({coords: [[r[1], i], [r[2], i]]});
  } else rest(r, e2e).push({coords: [[r[0], i], [r[2], i]]});
});
// What the browser test reads: each class with the requests drawn in its colour.
window.TOKBENCH.class_drawn = C.map((name, k) => `${name}:${byClass[k].length}`).join(',');
const maxEnd = Math.ceil(R.reduce((m, r) => Math.max(m, r[2]), Math.max(1, D.span_s * 1000)));
// In flight: exact steps from every request when all are drawn; from a sample they would be wrong,
// so then the time-weighted mean per bin that the report made from every request.
let conc;
if (!S) {
  const ev = [];
  R.forEach((r) => { ev.push([r[0], 1]); ev.push([r[2], -1]); });
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  conc = ev.map((e) => [e[0], cur += e[1]]);
} else conc = D.inflight.points;
const concName = S ? `mean in flight (${fmt(D.inflight.bin_ms)} ms bins)` : 'in flight';
const lines = (name, data, color) => ({name, type: 'lines', coordinateSystem: 'cartesian2d', xAxisIndex: 0, yAxisIndex: 0,
  polyline: false, large, data, lineStyle: {color, width: 1.5, opacity: 0.9}, silent: true});
chart('timeline', {
  animation: false, toolbox: tools,
  title: {text: (C.length ? (D.stream ? 'Requests: TTFT (red), then by class: ' : 'Requests by class: ') +
                C.map((name, k) => `${name} (${classColorNames[k % classColors.length]})`).join(', ') + '; failed (grey)'
                : D.stream ? 'Requests: TTFT (red) and decode (blue); failed (grey)' : 'Requests: E2EL (non-streaming)') +
          (apart.length ? '; cancelled or cut (orange)' : ''),
          subtext: sampledNote, left: 'center', textStyle: {fontSize: 14}},

  grid: [{top: S ? 58 : 40, height: '52%', left: 60, right: 30}, {top: '70%', height: '18%', left: 60, right: 30}],
  // Explicit ranges: 'lines' series do not widen axes, and both panels share one time axis.
  xAxis: [{type: 'value', gridIndex: 0, name: 'ms', min: 0, max: maxEnd}, {type: 'value', gridIndex: 1, name: 'ms', min: 0, max: maxEnd}],
  // A row of margin above request 0, without a "-1" tick for it.
  yAxis: [{type: 'value', gridIndex: 0, name: S ? 'drawn request' : 'request', inverse: true, min: -1, max: R.length,
           axisLabel: {formatter: (v) => (v < 0 ? '' : String(v))}}, {type: 'value', gridIndex: 1, name: S ? 'mean in flight' : 'in flight'}],
  dataZoom: [{type: 'inside', xAxisIndex: [0, 1]}, {type: 'slider', xAxisIndex: [0, 1], bottom: 5}],
  series: [lines('TTFT', ttft, '#d62728'), lines('decode', decode, '#1f77b4'), lines('E2EL', e2e, '#1f77b4'),
           lines('failed', failed, '#999999'), lines('cancelled or cut', apart, '#ff7f0e'),
           ...C.map((name, k) => lines(name, byClass[k], classColor(k))),
           {name: concName, type: 'line', step: 'end', xAxisIndex: 1, yAxisIndex: 1, data: conc, symbol: 'none',
            areaStyle: {color: '#2ca02c', opacity: 0.3}, lineStyle: {color: '#2ca02c'}}]
});
// Hover: the row under the pointer is the request (rows are indices), so the lookup is O(1) at
// any size; the mouse and the tests both go through TOKBENCH.hover.
const hoverBox = document.getElementById('hover');
window.TOKBENCH.hover = (i, px = 80, py = 80) => {
  if (i < 0 || i >= R.length) { hoverBox.style.display = 'none'; return ''; }
  const r = R[i];
  hoverBox.innerHTML = `request ${r[9]}<br>start: ${fmt(r[0] / 1000)} s<br>TTFT: ${fmt(r[4])} ms<br>` +
      `Decode: ${r[1] == null ? 'n/a' : fmt(r[2] - r[1])} ms<br>E2EL: ${fmt(r[6])} ms<br>output tokens: ${r[7]}` +
      (r[3] === 0 ? '<br>FAILED' : r[3] === 2 ? '<br>CANCELLED or CUT (counted apart)' : '') +
      // The id it was sent with (--request-id-header): find it in the server's log.
      (D.request_ids ? `<br>id: ${D.run_id}-${r[9]}` : '');
  hoverBox.style.left = (px + 16) + 'px';
  hoverBox.style.top = (py + 16) + 'px';
  hoverBox.style.display = 'block';
  return hoverBox.textContent;
};
{
  const tl = window.TOKBENCH.charts.timeline;
  tl.getZr().on('mousemove', (e) => {
    if (!tl.containPixel({gridIndex: 0}, [e.offsetX, e.offsetY])) { window.TOKBENCH.hover(-1); return; }
    const [, y] = tl.convertFromPixel({gridIndex: 0}, [e.offsetX, e.offsetY]);
    const box = document.getElementById('timeline').getBoundingClientRect();
    window.TOKBENCH.hover(Math.round(y), box.left + window.scrollX + e.offsetX, box.top + window.scrollY + e.offsetY);
  });
  tl.getZr().on('globalout', () => window.TOKBENCH.hover(-1));
}
// Distributions with P50/P90/P99 marked: histograms the report made over every request.
// The percentiles are lines of three colours, their values in the subtitle: labels on the lines
// overlapped whenever P90 and P99 sat a bar apart.
const pctColors = {P50: '#2ca02c', P90: '#ff7f0e', P99: '#d62728'};
// --class: a chart's bars stacked by class, each in its colour (the report binned each class on
// the run's edges); what the browser test reads: each chart's total per class.
const stacked = C.length > 0;
const classBars = (perClass, data) => C.map((name, k) => ({name, type: 'bar', stack: 'classes', barWidth: '90%',
  itemStyle: {color: classColor(k)}, data: data(perClass[k])}));
const classTotals = [];
const countClasses = (label, perClass, value) =>
  classTotals.push(label + ':' + C.map((name, k) => `${name}=${Math.round(perClass[k].reduce((s, x) => s + value(x), 0))}`).join(','));
function dist(id, name, h) {
  const p = D.percentiles[name];
  const marks = p ? [['P50', p.p50], ['P90', p.p90], ['P99', p.p99]].map(([n, v]) => ({name: n, xAxis: v,
    lineStyle: {color: pctColors[n], type: 'solid', width: 1.5}, label: {show: false}})) : [];
  const sub = p ? ['P50', 'P90', 'P99'].map((n) => `${n} ${fmt(p[n.toLowerCase()])}`).join('   ') + ' ms (green, orange, red)' : '';
  chart(id, {animation: false, toolbox: tools, title: {text: name + ' (ms)', subtext: sub, left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, grid: {left: 50, right: 20, top: 55, bottom: stacked ? 45 : 30},
    xAxis: {type: 'value', scale: true}, yAxis: {type: 'value', name: 'count'},
    legend: stacked ? {bottom: 0, itemWidth: 12, textStyle: {fontSize: 11}} : undefined,
    series: stacked
      ? classBars(D.class_hist.map((c) => c[name]), (c) => c.edges.map((e, i) => [e, c.counts[i]]))
          .map((s, k) => (k ? s : Object.assign(s, {markLine: {symbol: 'none', silent: true, data: marks}})))
      : [{type: 'bar', barWidth: '90%', data: h.edges.map((e, i) => [e, h.counts[i]]),
          markLine: {symbol: 'none', silent: true, data: marks}}]});
  if (stacked) countClasses(name, D.class_hist.map((c) => c[name].counts), (x) => x);
}
if (D.stream) {
  dist('dist-ttft', 'TTFT', D.hist.TTFT);
  dist('dist-tpot', 'TPOT', D.hist.TPOT);
  dist('dist-itl', 'ITL', D.itl_hist);
} else {
  for (const id of ['dist-ttft', 'dist-tpot', 'dist-itl']) document.getElementById(id).style.display = 'none';
}
dist('dist-e2el', 'E2EL', D.hist.E2EL);
// Output tokens per second in bins sized to the run (D.throughput_bin_s), on the run's own span.
if (!D.one_shot) {
  chart('throughput', {animation: false, toolbox: tools,
    title: {text: `Output tokens per second (${D.throughput_bin_s} s bins)`, left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, grid: {left: 60, right: 20, top: 40, bottom: stacked ? 50 : 30},
    xAxis: {type: 'value', name: 's', min: 0, max: Math.max(1, Math.ceil(D.span_s / D.throughput_bin_s)) * D.throughput_bin_s},
    yAxis: {type: 'value', name: 'token/s'},
    legend: stacked ? {bottom: 0} : undefined,
    series: stacked ? classBars(D.class_throughput, (c) => c) : [{type: 'bar', barWidth: '90%', data: D.throughput}]});
  if (stacked) countClasses('tokens', D.class_throughput, (x) => x[1] * D.throughput_bin_s);
} else document.getElementById('throughput').style.display = 'none';
window.TOKBENCH.class_bars = classTotals.join(';');
if (D.rate) {
  chart('sendlag', {animation: false, toolbox: tools,
    title: {text: 'Send lag (sent - scheduled)', subtext: sampledNote, left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'item'}, grid: {left: 60, right: 20, top: 40, bottom: 30},
    xAxis: {type: 'value', name: 'scheduled (s)'}, yAxis: {type: 'value', name: 'ms'},
    series: [{type: 'scatter', symbolSize: 4, large, data: R.filter((r) => r[8] != null).map((r) => [r[8] / 1000, r[0] - r[8]])}]});
} else document.getElementById('sendlag').style.display = 'none';
// The server's gauges are samples (one per scrape), drawn as points on the page's time axis
// beside the client's exact in-flight count: a sparse scrape shows as sparse, not as a ramp.
if (D.server && D.server.running_waiting && D.server.running_waiting.length) {
  const rw = D.server.running_waiting, at = (x) => (x.t_ms - D.t0_ms) / 1000;
  const kv = D.server.kv_cache_usage ? D.server.kv_cache_usage.series : [];
  chart('server', {animation: false, toolbox: tools,
    title: {text: `Server: running and waiting requests (/metrics, ${rw.length} scrapes) and the client's in flight`,
            left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {bottom: 0}, grid: {left: 60, right: 20, top: 40, bottom: 60},
    xAxis: {type: 'value', name: 's', min: (v) => Math.min(0, v.min), max: (v) => Math.max(maxEnd / 1000, v.max)},
    yAxis: kv.length ? [{type: 'value', min: 0}, {type: 'value', name: 'KV %', min: 0, max: 100}] : {type: 'value', min: 0},
    series: [{name: 'running (scraped)', type: 'scatter', symbolSize: 7, data: rw.map((x) => [at(x), x.running])},
             {name: 'waiting (scraped)', type: 'scatter', symbolSize: 7, data: rw.map((x) => [at(x), x.waiting])},
             {name: S ? 'client mean in flight' : 'client in flight', type: 'line', step: 'end', symbol: 'none', lineStyle: {color: '#2ca02c', opacity: 0.6},
              sampling: 'max', data: conc.map((c) => [c[0] / 1000, c[1]])}]
      .concat(kv.length ? [{name: 'KV cache usage % (scraped)', type: 'scatter', yAxisIndex: 1, symbol: 'diamond', symbolSize: 6,
                            data: kv.map((x) => [at(x), 100 * x.usage])}] : [])});
} else document.getElementById('server').style.display = 'none';
// The energy and the cost as text under the devices' chart (selectable, read by a browser test),
// not a canvas subtitle.
function costLine(energy) {
  const C = D.telemetry.cost;
  const cost = !C ? '' : !C.known ? `cost not known: ${C.why}` :
      `cost $${C.dollars.toPrecision(4)} for the phase` +
      (C.usd_per_m_output_tokens != null ? ` = $${C.usd_per_m_output_tokens.toPrecision(4)}/M output tokens` : '') +
      (C.usd_per_m_input_tokens != null ? `, $${C.usd_per_m_input_tokens.toPrecision(4)}/M input tokens` : '');
  const p = document.createElement('p');
  p.id = 'energy-cost';
  p.textContent = [energy, cost].filter((s) => s).join('; ');
  document.getElementById('devices').insertAdjacentElement('afterend', p);
  window.TOKBENCH.energy_cost = p.textContent;
}
// --telemetry: each device's power (and utilisation) in bins on the same time axis as the
// client's in flight; the energy line says how it was measured, or why it is not known.
if (D.telemetry && D.telemetry.page && D.telemetry.page.length) {
  const T = D.telemetry, E = T.energy;
  const energy = E.known ? `energy ${E.joules.toFixed(1)} J (${E.method})` +
      (E.j_per_output_token != null ? `, ${E.j_per_output_token.toPrecision(4)} J/output token` : '') : `energy not known: ${E.why}`;
  const series = [];
  for (const d of T.page) {
    if (d.points.some((p) => p[1] != null))
      series.push({name: d.label + ' W', type: 'line', symbol: 'circle', symbolSize: 4, data: d.points.filter((p) => p[1] != null).map((p) => [p[0], p[1]])});
    if (d.points.some((p) => p[2] != null))
      series.push({name: d.label + ' %', type: 'line', yAxisIndex: 1, symbol: 'none', lineStyle: {type: 'dashed'},
                   data: d.points.filter((p) => p[2] != null).map((p) => [p[0], p[2]])});
  }
  chart('devices', {animation: false, toolbox: tools,
    title: {text: `Devices (--telemetry, every ${T.interval_ms} ms): power and utilisation`, left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {bottom: 0, type: 'scroll'}, grid: {left: 60, right: 60, top: 40, bottom: 60},
    xAxis: {type: 'value', name: 's', min: (v) => Math.min(0, v.min), max: (v) => Math.max(maxEnd / 1000, v.max)},
    yAxis: [{type: 'value', name: 'W', min: 0}, {type: 'value', name: '%', min: 0, max: 100}],
    series});
  costLine(energy);
} else {
  document.getElementById('devices').style.display = 'none';
  if (D.telemetry && D.telemetry.cost) costLine('');  // a device-hour price with no --telemetry
}
// The stable stage's tables, found on the page's own pass (closed loops).
{
  const st = document.getElementById('stable-tables');
  if (D.stable_tables) st.textContent = D.stable_tables; else st.style.display = 'none';
}
if (D.slices && D.slices.slices.length) {
  const S = D.slices.slices, mid = (s) => (s.start_s + s.end_s) / 2;
  chart('slices', {animation: false, toolbox: tools, title: {text: 'Per time slice (' + D.slices.width_s + ' s)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {bottom: 0}, grid: {left: 60, right: 60, top: 40, bottom: 60},
    xAxis: {type: 'value', name: 's'}, yAxis: [{type: 'value', name: 'ms'}, {type: 'value', name: 'token/s'}],
    series: [{name: 'TTFT P99', type: 'line', data: S.map((s) => [mid(s), s.ttft.n ? s.ttft.p99 : null])},
             {name: 'TPOT mean', type: 'line', data: S.map((s) => [mid(s), s.tpot.n ? s.tpot.mean : null])},
             {name: 'output tokens/s', type: 'bar', yAxisIndex: 1, data: S.map((s) => [mid(s), s.output_token_throughput])}]});
} else document.getElementById('slices').style.display = 'none';
if (D.adaptive && D.adaptive.windows.length) {
  const W = D.adaptive.windows;
  chart('adaptive', {animation: false, toolbox: tools, title: {text: 'Adaptive controller: ' + D.adaptive.summary, left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'item', formatter: (p) => p.data[2]}, grid: {left: 60, right: 20, top: 40, bottom: 30},
    xAxis: {type: 'value', name: 's'}, yAxis: {type: 'value', name: 'concurrency'},
    series: [{type: 'line', step: 'start', data: W.map((w) => [w.end_s, w.concurrency, w.action])},
             {type: 'scatter', symbolSize: 10, data: W.map((w) => ({value: [w.end_s, w.concurrency, (w.pass ? 'pass: ' : 'fail: ') + w.action],
               itemStyle: {color: w.pass ? '#2e7d32' : '#c62828'}}))}]});
} else document.getElementById('adaptive').style.display = 'none';
if (D.turns && D.turns.length) {  // multi-turn sessions: what each turn costs as the conversation grows
  const T = D.turns;
  chart('turns', {animation: false, toolbox: tools, title: {text: 'Per turn (multi-turn sessions, means)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {bottom: 0}, grid: {left: 60, right: 60, top: 40, bottom: 60},
    xAxis: {type: 'category', name: 'turn', data: T.map((t) => t.turn)},
    yAxis: [{type: 'value', name: 'ms'}, {type: 'value', name: 'tokens'}],
    series: [{name: 'TTFT', type: 'line', data: T.map((t) => t.ttft_ms)},
             {name: 'input tokens', type: 'bar', yAxisIndex: 1, data: T.map((t) => t.input_tokens)},
             {name: 'cached tokens', type: 'bar', yAxisIndex: 1, data: T.map((t) => t.cached_tokens)}]});
} else document.getElementById('turns').style.display = 'none';
// What the browser test reads of the drawn charts' layout: each chart's legend place, its value
// axes' lowest bound and tick labels, and how the scraped gauges are drawn.
window.TOKBENCH.layout = Object.entries(window.TOKBENCH.charts).map(([id, c]) => {
  const o = c.getOption();
  const ys = (o.yAxis || []).filter((a) => a.type === 'value');
  return `${id}:legend=${o.legend && o.legend.length ? (o.legend[0].bottom === 0 ? 'bottom' : 'top') : 'none'}` +
    `,ymin=${ys.map((a) => a.min).join('/')}` +
    `,ticks=${ys.length && ys.every((a) => a.axisLabel && a.axisLabel.formatter) ? 'short' : 'raw'}` +
    (id === 'server' ? `,gauges=${o.series.filter((s) => /scraped/.test(s.name)).map((s) => s.type).join('/')}` : '');
}).join(';');
window.TOKBENCH.tick_example = tick(0.1 * 46);  // 4.6000000000000005 in floating point
window.TOKBENCH.render_ms = performance.now() - t0;
window.TOKBENCH.rendered = true;
