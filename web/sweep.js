// The sweep page's script (report/sweep_page.cpp embeds it): throughput-latency curves and the
// Pareto front from the embedded points.
const S = JSON.parse(document.getElementById('sweep-data').textContent);
const pts = S.points.filter((p) => p.verdict !== 'FAILED');
const X = (p) => p.load === 'inf' ? null : p.load;
const knee = pts.find((p) => p.knee);
const curve = echarts.init(document.getElementById('curve'));
curve.setOption({animation: false, tooltip: {trigger: 'axis'}, legend: {top: 0},
  toolbox: {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench-sweep'}}},
  xAxis: {type: 'value', name: S.x_name}, yAxis: [{type: 'value', name: 'token/s'}, {type: 'value', name: 'ms'}],
  series: [
    {name: 'output tokens/s', type: 'line', data: pts.map((p) => [X(p), p.output_token_throughput]),
     markPoint: knee ? {data: [{name: 'knee', coord: [X(knee), knee.output_token_throughput], value: 'knee'}]} : undefined},
    {name: 'TTFT P99', type: 'line', yAxisIndex: 1, data: pts.map((p) => [X(p), p.ttft_p99_ms])},
    {name: 'TPOT P99', type: 'line', yAxisIndex: 1, data: pts.map((p) => [X(p), p.tpot_p99_ms])},
    {name: 'E2EL P99', type: 'line', yAxisIndex: 1, data: pts.map((p) => [X(p), p.e2el_p99_ms])}]});
const pareto = echarts.init(document.getElementById('pareto'));
const front = pts.filter((p) => p.pareto).sort((a, b) => a.output_token_throughput - b.output_token_throughput);
pareto.setOption({animation: false, tooltip: {formatter: (q) => q.data[2]}, legend: {top: 0},
  xAxis: {type: 'value', name: 'total output tokens/s'}, yAxis: {type: 'value', name: 'tokens/s per user'},
  series: [{name: 'points', type: 'scatter', symbolSize: 10,
            data: pts.map((p) => [p.output_token_throughput, p.per_user_output_token_throughput, p.point])},
           {name: 'Pareto front', type: 'line', data: front.map((p) => [p.output_token_throughput, p.per_user_output_token_throughput, p.point])}]});
window.TOKBENCH_SWEEP = {points: S.points, knee: S.knee, rendered: true};
