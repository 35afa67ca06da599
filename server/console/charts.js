// Line charts in plain SVG for the lqs console: no library.
// LqsCharts.draw(svg, samples, series, nowMs): samples are [at_ms, v1, v2, ...]
// rows; each series is {index, label, color}; the x axis spans the hour
// before nowMs.
'use strict';
const LqsCharts = (function () {
  const NS = 'http://www.w3.org/2000/svg';
  const W = 560, H = 200, LEFT = 46, RIGHT = 10, TOP = 22, BOTTOM = 22;
  const HOUR_MS = 3600 * 1000;

  function node(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  }

  // A round step for about `ticks` intervals up to `max`.
  function niceStep(max, ticks) {
    const raw = Math.max(max, 1) / ticks;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) {
      if (m * power >= raw) return Math.max(1, m * power);
    }
    return 10 * power;
  }

  function draw(svg, samples, series, nowMs) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const start = nowMs - HOUR_MS;
    let max = 0;
    for (const row of samples) {
      for (const s of series) max = Math.max(max, row[s.index]);
    }
    const step = niceStep(max, 4);
    const top = Math.max(step, Math.ceil(max / step) * step);
    const x = (t) => LEFT + ((t - start) / HOUR_MS) * (W - LEFT - RIGHT);
    const y = (v) => H - BOTTOM - (v / top) * (H - TOP - BOTTOM);
    for (let v = 0; v <= top + 1e-9; v += step) {
      svg.appendChild(node('line', {class: 'grid', x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v)}));
      svg.appendChild(node('text', {x: LEFT - 4, y: y(v) + 3, 'text-anchor': 'end'}, String(v)));
    }
    for (let m = 0; m <= 60; m += 15) {
      const t = start + m * 60000;
      svg.appendChild(node('text', {x: x(t), y: H - 6, 'text-anchor': 'middle'},
                           m === 60 ? 'now' : '-' + (60 - m) + ' min'));
    }
    svg.appendChild(node('line', {class: 'axis', x1: LEFT, x2: LEFT, y1: TOP, y2: H - BOTTOM}));
    svg.appendChild(node('line', {class: 'axis', x1: LEFT, x2: W - RIGHT, y1: H - BOTTOM,
                                  y2: H - BOTTOM}));
    let legendX = LEFT;
    for (const s of series) {
      const shown = samples.filter((row) => row[0] >= start);
      const points = shown.map((row) => x(row[0]).toFixed(1) + ',' + y(row[s.index]).toFixed(1));
      if (points.length === 1) points.push((x(shown[0][0]) + 2).toFixed(1) + ',' +
                                           y(shown[0][s.index]).toFixed(1));
      svg.appendChild(node('polyline', {points: points.join(' '), fill: 'none', stroke: s.color,
                                        'stroke-width': 2, 'data-series': s.label}));
      svg.appendChild(node('rect', {x: legendX, y: 6, width: 10, height: 10, fill: s.color}));
      svg.appendChild(node('text', {x: legendX + 14, y: 15}, s.label));
      legendX += 20 + 7 * s.label.length;
    }
    svg.setAttribute('data-samples', String(samples.length));
  }

  return {draw};
})();
