// The live page's script (live/live_server embeds it): every second it reads /live.json from the
// tokbench run serving the page and redraws the point so far — requests finished and in flight
// over time, output tokens per second, and the TTFT and E2EL histograms (bucket counts, every
// class together). window.tokbenchLive holds what the page last showed (the browser test reads it).
'use strict';
const L = window.tokbenchLive = {rendered: false, polls: 0, ok: 0, failed: 0, sent: 0, final: false};
document.getElementById('title').textContent = window.tokbenchLiveTitle || 'tokbench live';
const status = document.getElementById('status');
const chart = (id) => echarts.init(document.getElementById(id));
const charts = {requests: chart('requests'), throughput: chart('throughput'), ttft: chart('ttft'), e2el: chart('e2el')};
const base = (title, yName) => ({animation: false, tooltip: {trigger: 'axis'}, legend: {bottom: 0},
  title: {text: title, left: 'center', textStyle: {fontSize: 13}}, grid: {left: 60, right: 20, top: 40, bottom: 50},
  yAxis: {type: 'value', name: yName, min: 0}});
// The histogram of every class together: bucket i holds values <= bounds[i] (the last, the rest).
function merged(classes, key) {
  let bounds = null, counts = null;
  for (const c of Object.values(classes)) {
    const h = c[key];
    if (!bounds) { bounds = h.bounds; counts = h.counts.slice(); continue; }
    h.counts.forEach((n, i) => { counts[i] += n; });
  }
  return {bounds: bounds || [], counts: counts || []};
}
function histogram(target, title, h) {
  const labels = h.bounds.map((b) => '≤' + b).concat(['>' + (h.bounds[h.bounds.length - 1] ?? 0)]);
  target.setOption(Object.assign(base(title, 'requests'), {legend: {show: false},
    grid: {left: 60, right: 30, top: 40, bottom: 60},
    xAxis: {type: 'category', data: labels, name: 's', axisLabel: {rotate: 45}},
    series: [{type: 'bar', name: 'requests', data: h.counts}]}), true);
}
function draw(s) {
  const t = s.timeline;
  charts.requests.setOption(Object.assign(base('Requests', 'requests'), {xAxis: {type: 'value', name: 's'},
    series: [{name: 'ok', type: 'line', showSymbol: false, data: t.map((p) => [p[0], p[1]])},
             {name: 'failed', type: 'line', showSymbol: false, data: t.map((p) => [p[0], p[2]])},
             {name: 'in flight', type: 'line', step: 'end', showSymbol: false, data: t.map((p) => [p[0], p[4]])}]}), true);
  const rate = [];
  for (let i = 1; i < t.length; ++i)
    if (t[i][0] > t[i - 1][0]) rate.push([t[i][0], (t[i][5] - t[i - 1][5]) / (t[i][0] - t[i - 1][0])]);
  charts.throughput.setOption(Object.assign(base('Output tokens/s', 'token/s'), {xAxis: {type: 'value', name: 's'},
    series: [{name: 'output tokens/s', type: 'line', showSymbol: false, data: rate}]}), true);
  histogram(charts.ttft, 'TTFT (successful streamed requests)', merged(s.classes, 'ttft_s'));
  histogram(charts.e2el, 'E2EL (successful requests)', merged(s.classes, 'e2el_s'));
  const totals = Object.values(s.classes).reduce((a, c) => ({ok: a.ok + c.ok, failed: a.failed + c.failed}), {ok: 0, failed: 0});
  Object.assign(L, {ok: totals.ok, failed: totals.failed, sent: s.sent, final: s.final, polls: L.polls + 1, rendered: true});
  status.textContent = `${s.point} · ${s.model} · ${s.t_s.toFixed(0)} s: ${s.sent} sent, ${totals.ok} ok, ` +
    `${totals.failed} failed, ${s.in_flight} in flight` + (s.final ? ' · the point is over (final counts)' : '');
}
async function poll() {
  try {
    const r = await fetch('live.json', {cache: 'no-store'});
    const s = await r.json();
    draw(s);
    if (s.final) return;  // the last state stays on the page
  } catch (e) {
    status.textContent += ' · the run is no longer serving this page';
    return;
  }
  setTimeout(poll, 1000);
}
window.addEventListener('resize', () => Object.values(charts).forEach((c) => c.resize()));
poll();
