// Horizontal SVG bar chart: one labelled bar per item, value printed at the end of the bar.
const NS = 'http://www.w3.org/2000/svg';
const el = (name, attrs = {}, text) => {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
};

/** @param {{title:string, items:{label:string, value:number, color?:string}[], min?:number, max?:number, format?:(v:number)=>string}} o */
export function bars(o) {
  const fmt = o.format ?? ((v) => v.toFixed(3));
  const W = o.width ?? 520, row = 22, labelW = Math.min(190, Math.round(W * 0.45)), H = o.items.length * row + 24;
  const lo = o.min ?? Math.min(0, ...o.items.map((i) => i.value));
  const hi = o.max ?? Math.max(...o.items.map((i) => i.value));
  const tx = (v) => labelW + ((v - lo) / (hi - lo || 1)) * (W - labelW - 60);
  const fig = document.createElement('figure');
  fig.className = 'bars';
  const cap = document.createElement('figcaption');
  cap.textContent = o.title;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': o.title });
  svg.style.width = '100%';
  svg.style.maxWidth = `${W}px`;
  const g = el('g', { 'font-size': 12, 'font-family': 'system-ui, sans-serif', fill: '#222' });
  o.items.forEach((it, k) => {
    const y = 4 + k * row;
    g.append(el('text', { x: labelW - 6, y: y + 14, 'text-anchor': 'end' }, it.label));
    const x0 = tx(Math.max(lo, Math.min(0, hi))), x1 = tx(it.value);
    g.append(el('rect', { x: Math.min(x0, x1), y: y + 3, width: Math.max(1, Math.abs(x1 - x0)), height: row - 8, fill: it.color ?? '#0072B2' }));
    g.append(el('text', { x: Math.max(x0, x1) + 4, y: y + 14 }, fmt(it.value)));
  });
  g.append(el('line', { x1: tx(lo), x2: tx(lo), y1: 0, y2: H - 20, stroke: '#888' }));
  g.append(el('text', { x: tx(lo), y: H - 6, 'text-anchor': 'middle' }, fmt(lo)));
  g.append(el('text', { x: tx(hi), y: H - 6, 'text-anchor': 'middle' }, fmt(hi)));
  svg.append(g);
  fig.append(cap, svg);
  return fig;
}
