// The search page's script (report/search_page.cpp embeds it): every probe's SLO values against
// the bounds.
const S = JSON.parse(document.getElementById('search-data').textContent);
const ch = echarts.init(document.getElementById('probes'));
const series = S.slos.map((slo) => ({name: slo, type: 'scatter', symbolSize: 12,
  data: S.history.map((p) => ({value: [p.load, p.values[slo]], itemStyle: {color: p.pass ? '#2e7d32' : '#c62828'}})),
  markLine: {symbol: 'none', label: {formatter: slo.replace(/.*<=/, '<= ')},
             data: [{yAxis: parseFloat(slo.replace(/.*<=/, ''))}]}}));
ch.setOption({animation: false, tooltip: {}, legend: {top: 0}, xAxis: {type: 'value', name: S.search},
  yAxis: {type: 'value', name: 'ms'}, series});
window.TOKBENCH_SEARCH = {answer: S.answer, history: S.history, rendered: true};
