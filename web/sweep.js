// The sweep page's script (report/sweep_page.cpp embeds it): throughput-latency curves and the
// Pareto front from the embedded points.
const S = JSON.parse(document.getElementById('sweep-data').textContent);
const pts = S.points.filter((p) => p.verdict !== 'FAILED');
const X = (p) => p.load === 'inf' ? null : p.load;
const knee = pts.find((p) => p.knee);
// Loads that grow geometrically (1, 4, 16, ...) sit on a log2 axis, evenly spaced.
const xs = pts.map(X).filter((x) => x != null);
const xLog = xs.length > 1 && Math.min(...xs) > 0 && Math.max(...xs) / Math.min(...xs) >= 4;
const xAxis = xLog ? {type: 'log', logBase: 2, name: S.x_name} : {type: 'value', name: S.x_name};
// One chart per quantity, each on its own axis: TPOT P99 beside E2EL P99 on one ms axis was a flat line.
function panel(id, name, unit, key, extra = {}) {
  const c = echarts.init(document.getElementById(id));
  c.setOption({animation: false, tooltip: {trigger: 'axis'}, title: {text: name, left: 'center', textStyle: {fontSize: 13}},
    toolbox: {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench-sweep-' + id}}},
    grid: {left: 70, right: 30, top: 40, bottom: 40}, xAxis, yAxis: {type: 'value', name: unit},
    series: [Object.assign({name, type: 'line', data: pts.map((p) => [X(p), p[key]])}, extra)]});
  return c;
}
panel('curve', 'Output tokens/s', 'token/s', 'output_token_throughput',
      {markPoint: knee ? {data: [{name: 'knee', coord: [X(knee), knee.output_token_throughput], value: 'knee'}]} : undefined});
panel('lat-ttft', 'TTFT P99', 'ms', 'ttft_p99_ms');
panel('lat-tpot', 'TPOT P99', 'ms', 'tpot_p99_ms');
panel('lat-e2el', 'E2EL P99', 'ms', 'e2el_p99_ms');
const pareto = echarts.init(document.getElementById('pareto'));
const front = pts.filter((p) => p.pareto).sort((a, b) => a.output_token_throughput - b.output_token_throughput);
pareto.setOption({animation: false, tooltip: {formatter: (q) => q.data[2]}, legend: {top: 0},
  xAxis: {type: 'value', name: 'total output tokens/s'}, yAxis: {type: 'value', name: 'tokens/s per user'},
  series: [{name: 'points', type: 'scatter', symbolSize: 10,
            data: pts.map((p) => [p.output_token_throughput, p.per_user_output_token_throughput, p.point])},
           {name: 'Pareto front', type: 'line', data: front.map((p) => [p.output_token_throughput, p.per_user_output_token_throughput, p.point])}]});
// --telemetry with a price: $ per million output tokens against tokens/s per user, and the front
// of the points no other beats on both (cheaper and at least as fast, or faster and as cheap).
const priced = pts.filter((p) => p.usd_per_m_output_tokens != null && p.per_user_output_token_throughput != null);
if (priced.length) {
  const beats = (a, b) => a.usd_per_m_output_tokens <= b.usd_per_m_output_tokens &&
      a.per_user_output_token_throughput >= b.per_user_output_token_throughput &&
      (a.usd_per_m_output_tokens < b.usd_per_m_output_tokens || a.per_user_output_token_throughput > b.per_user_output_token_throughput);
  const costFront = priced.filter((p) => !priced.some((q) => beats(q, p)))
      .sort((a, b) => a.per_user_output_token_throughput - b.per_user_output_token_throughput);
  const at = (p) => [p.per_user_output_token_throughput, p.usd_per_m_output_tokens, p.point];
  echarts.init(document.getElementById('cost')).setOption({animation: false, tooltip: {formatter: (q) => q.data[2]}, legend: {top: 0},
    xAxis: {type: 'value', name: 'tokens/s per user'}, yAxis: {type: 'value', name: '$ / M output tokens'},
    series: [{name: 'points', type: 'scatter', symbolSize: 10, data: priced.map(at)},
             {name: 'cheapest for the speed', type: 'line', data: costFront.map(at)}]});
}
window.TOKBENCH_SWEEP = {points: S.points, knee: S.knee, x_axis: xAxis.type, priced: priced.length, rendered: true};
