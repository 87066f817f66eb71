// The compare page's script (runner/compare.cpp embeds it): latency and throughput against the
// load of the runs compared.
const C = JSON.parse(document.getElementById('curve-data').textContent);
const ch = echarts.init(document.getElementById('curve'));
ch.setOption({animation: false, tooltip: {trigger: 'axis'}, legend: {top: 0},
  toolbox: {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench-sweep'}}},
  xAxis: {type: 'value', name: C.x_name}, yAxis: [{type: 'value', name: 'ms'}, {type: 'value', name: 'token/s'}],
  series: [{name: 'TTFT P99', type: 'line', data: C.points.map((p) => [p.x, p.ttft_p99])},
           {name: 'TPOT P99', type: 'line', data: C.points.map((p) => [p.x, p.tpot_p99])},
           {name: 'output tokens/s', type: 'line', yAxisIndex: 1, data: C.points.map((p) => [p.x, p.output_token_throughput])}]});
window.TOKBENCH_COMPARE = {points: C.points, rendered: true};
