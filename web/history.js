// The results store's dashboard (history/page.cpp embeds it): one panel per scenario and metric,
// the metric over the scenario's VALID runs, the baseline's band shaded, change points dashed, a
// regression marked red; a click on a point opens that run's page.
const H = JSON.parse(document.getElementById('history-data').textContent);
const root = document.getElementById('panels');
const ids = [];
for (const sc of H.scenarios) {
  const h = document.createElement('h2');
  h.textContent = sc.scenario;
  root.appendChild(h);
  for (const p of sc.panels) {
    const div = document.createElement('div');
    div.id = p.id;
    div.className = 'panel';
    root.appendChild(div);
    ids.push(p.id);
    const last = p.points.length - 1;
    const c = echarts.init(div);
    c.setOption({animation: false, toolbox: {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench-history-' + p.id}}},
      title: {text: p.metric + (p.regression ? ': REGRESSION' : ''), subtext: p.why, left: 'center',
              textStyle: {fontSize: 13, color: p.regression ? '#d62728' : '#222'}},
      tooltip: {trigger: 'axis', formatter: (a) => {
        const q = p.points[a[0].dataIndex];
        return `${q[2]}<br>${q[3]}<br>${p.metric}: ${q[1]}` + (q[4] ? '<br>(click: its page)' : '');
      }},
      grid: {left: 70, right: 30, top: 60, bottom: 40},
      xAxis: {type: 'category', data: p.points.map((q) => q[3])},
      yAxis: {type: 'value', scale: true},
      series: [{name: p.metric, type: 'line', symbolSize: 8, data: p.points.map((q) => q[1]),
        markArea: p.band ? {silent: true, itemStyle: {color: 'rgba(44,160,44,0.12)'},
                            data: [[{yAxis: p.band[0], name: 'baseline band'}, {yAxis: p.band[1]}]]} : undefined,
        markLine: {symbol: 'none', silent: true, data: p.change_points.map((i) => ({xAxis: i,
          lineStyle: {color: '#ff7f0e', type: 'dashed', width: 2}, label: {formatter: 'change'}}))},
        markPoint: p.regression ? {data: [{coord: [last, p.points[last][1]], value: '!', itemStyle: {color: '#d62728'}}]} : undefined}]});
    c.on('click', (e) => {
      const link = p.points[e.dataIndex] && p.points[e.dataIndex][4];
      if (link) window.open(link);
    });
  }
}
window.TOKBENCH_HISTORY = {panels: ids.length, ids: ids.join(','), regressions: H.regressions, rendered: true};
