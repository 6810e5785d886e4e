// SVG line plot with axes, optional log scales and a legend. Points carry <title> tooltips; pair it
// with a data table for keyboard and screen-reader users.
import { lineColor } from './colors.js';

const NS = 'http://www.w3.org/2000/svg';
const el = (name, attrs = {}, text) => {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
};
const fmt = (v) => (Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0) ? v.toPrecision(2) : +v.toPrecision(3) + '');

function ticks(lo, hi, log, count = 5) {
  if (log) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
      for (const m of [1, 2, 5]) {
        const v = m * 10 ** e;
        if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
      }
    return out.length >= 2 ? out : [lo, hi];
  }
  const span = hi - lo || 1;
  const step0 = span / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

/**
 * @param {object} o
 * @param {{name:string, xs:number[], ys:number[], color?:string, dashed?:boolean, width?:number}[]} o.series
 * @param {string} o.title  @param {string} o.xLabel  @param {string} o.yLabel
 * @param {boolean} [o.xLog]  @param {boolean} [o.yLog]
 */
export function lineplot(o) {
  const W = o.width ?? 560, H = o.height ?? 320;
  const m = { l: 56, r: 12, t: 10, b: 44 };
  const all = o.series.flatMap((s) => s.xs.map((x, i) => [x, s.ys[i]])).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!o.yLog || y > 0));
  let [x0, x1] = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  let [y0, y1] = [Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[1]))];
  if (!all.length) [x0, x1, y0, y1] = [0, 1, 0, 1];
  if (!o.yLog && o.yZero !== false) y0 = Math.min(0, y0);
  if (y1 === y0) y1 = y0 + 1;
  if (x1 === x0) x1 = x0 + 1;
  if (!o.yLog) {
    const pad = (y1 - y0) * 0.05;
    y1 += pad;
    if (y0 < 0) y0 -= pad;
  }
  const tx = (x) => m.l + ((o.xLog ? Math.log(x / x0) / Math.log(x1 / x0) : (x - x0) / (x1 - x0)) * (W - m.l - m.r));
  const ty = (y) => H - m.b - ((o.yLog ? Math.log(y / y0) / Math.log(y1 / y0) : (y - y0) / (y1 - y0)) * (H - m.t - m.b));

  const fig = document.createElement('figure');
  fig.className = 'lineplot';
  fig.style.width = `${W}px`;
  const cap = document.createElement('figcaption');
  cap.textContent = o.title;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${o.title}: ${o.yLabel} against ${o.xLabel}` });
  svg.style.width = '100%';
  svg.style.maxWidth = `${W}px`;
  svg.append(el('rect', { x: 0, y: 0, width: W, height: H, fill: '#fff' }));
  const g = el('g', { 'font-size': 11, fill: '#222', 'font-family': 'system-ui, sans-serif' });
  for (const v of ticks(x0, x1, o.xLog)) {
    g.append(el('line', { x1: tx(v), x2: tx(v), y1: m.t, y2: H - m.b, stroke: '#e5e5e5' }));
    g.append(el('text', { x: tx(v), y: H - m.b + 14, 'text-anchor': 'middle' }, fmt(v)));
  }
  for (const v of ticks(y0, y1, o.yLog)) {
    g.append(el('line', { x1: m.l, x2: W - m.r, y1: ty(v), y2: ty(v), stroke: '#e5e5e5' }));
    g.append(el('text', { x: m.l - 5, y: ty(v) + 4, 'text-anchor': 'end' }, fmt(v)));
  }
  if (!o.yLog && y0 < 0 && y1 > 0) g.append(el('line', { x1: m.l, x2: W - m.r, y1: ty(0), y2: ty(0), stroke: '#999' }));
  g.append(el('rect', { x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, fill: 'none', stroke: '#888' }));
  g.append(el('text', { x: (m.l + W - m.r) / 2, y: H - 8, 'text-anchor': 'middle' }, o.xLabel + (o.xLog ? ' (log)' : '')));
  g.append(el('text', { x: 12, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})` }, o.yLabel + (o.yLog ? ' (log)' : '')));
  svg.append(g);
  o.series.forEach((s, idx) => {
    const color = s.color ?? lineColor(idx);
    const pts = s.xs.map((x, i) => [x, s.ys[i]]).filter(([x, y]) => Number.isFinite(y) && (!o.yLog || y > 0));
    if (!pts.length) return;
    svg.append(el('polyline', {
      points: pts.map(([x, y]) => `${tx(x).toFixed(1)},${ty(y).toFixed(1)}`).join(' '),
      fill: 'none', stroke: color, 'stroke-width': s.width ?? 1.6, 'stroke-dasharray': s.dashed ? '6 4' : 'none',
    }));
    if (pts.length <= 40)
      for (const [x, y] of pts) {
        const c = el('circle', { cx: tx(x), cy: ty(y), r: 3, fill: color });
        c.append(el('title', {}, `${s.name}: ${o.xLabel} ${fmt(x)} → ${fmt(y)}`));
        svg.append(c);
      }
  });
  fig.append(cap, svg);
  if (o.series.length > 1) {
    const legend = document.createElement('ul');
    legend.className = 'legend';
    o.series.forEach((s, idx) => {
      const li = document.createElement('li');
      const sw = document.createElement('span');
      sw.className = 'swatch' + (s.dashed ? ' dashed' : '');
      sw.style.borderColor = s.color ?? lineColor(idx);
      li.append(sw, document.createTextNode(s.name));
      legend.append(li);
    });
    fig.append(legend);
  }
  return fig;
}
