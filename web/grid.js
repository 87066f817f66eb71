// The server grid's page script (report/grid_page.cpp embeds it): each configuration's
// throughput-latency curves on shared axes, and output tokens/s per device against TPOT P99 with
// every configuration's answer marked.
const G = JSON.parse(document.getElementById('grid-data').textContent);
const X = (p) => p.load === 'inf' ? null : p.load;
const ran = G.configurations.filter((c) => c.points.some((p) => p.verdict !== 'FAILED'));
const xs = ran.flatMap((c) => c.points.map(X)).filter((x) => x != null);
const xLog = xs.length > 1 && Math.min(...xs) > 0 && Math.max(...xs) / Math.min(...xs) >= 4;
const xAxis = xLog ? {type: 'log', logBase: 2, name: G.x_name} : {type: 'value', name: G.x_name};
// The --slo bounds on a P99 (e.g. 'tpot.p99<=50ms'), in ms, to draw where the points are judged.
const bounds = {};
for (const part of (G.slo || '').split(',')) {
  const m = part.trim().match(/^(ttft|tpot)\.p99\s*<=?\s*([0-9.]+)\s*(ms|s)?$/);
  if (m) bounds[m[1]] = Number(m[2]) * (m[3] === 's' ? 1000 : 1);
}
const boundLine = (ms) => ms == null ? undefined :
  {silent: true, symbol: 'none', lineStyle: {type: 'dashed', color: '#c62828'}, label: {formatter: '--slo ' + ms + ' ms'},
   data: [{yAxis: ms}]};
function panel(id, name, unit, key, bound) {
  echarts.init(document.getElementById(id)).setOption({animation: false, tooltip: {trigger: 'axis'}, legend: {bottom: 0},
    title: {text: name, left: 'center', textStyle: {fontSize: 13}},
    toolbox: {feature: {saveAsImage: {name: 'tokbench-grid-' + id}}},
    grid: {left: 70, right: 30, top: 40, bottom: 60}, xAxis, yAxis: {type: 'value', name: unit, min: 0},
    series: ran.map((c, i) => ({name: c.name, type: 'line', markLine: i === 0 ? boundLine(bound) : undefined,
      data: c.points.filter((p) => p.verdict !== 'FAILED').map((p) => [X(p), p[key]])}))});
}
panel('curve', 'Output tokens/s per device', 'token/s', 'output_tokens_per_s_per_device');
panel('lat-ttft', 'TTFT P99', 'ms', 'ttft_p99_ms', bounds.ttft);
panel('lat-tpot', 'TPOT P99', 'ms', 'tpot_p99_ms', bounds.tpot);
// Each configuration's points, and its answer (the point the recommendation compares) enlarged.
const best = G.recommendation.best;
echarts.init(document.getElementById('front')).setOption({animation: false, legend: {top: 0},
  tooltip: {formatter: (q) => `${q.seriesName} ${q.data[2]}: ${q.data[0].toFixed(1)} tok/s per device, TPOT P99 ${q.data[1]} ms`},
  xAxis: {type: 'value', name: 'output tokens/s per device'}, yAxis: {type: 'value', name: 'TPOT P99 (ms)'},
  series: ran.map((c, i) => ({name: c.name + (c.name === best ? ' (recommended)' : ''), type: 'scatter',
    markLine: i === 0 ? boundLine(bounds.tpot) : undefined,
    symbolSize: (v, q) => q.data[2] === c.answer.at ? 18 : 8,
    data: c.points.filter((p) => p.verdict === 'VALID').map((p) => [p.output_tokens_per_s_per_device, p.tpot_p99_ms, p.point])}))});
window.TOKBENCH_GRID = {configurations: G.configurations.length, drawn: ran.length, best,
  tpot_bound_ms: bounds.tpot, ttft_bound_ms: bounds.ttft, rendered: true};
