// Labelled canvas heatmap with a colour bar. Hover (or focus + arrow keys) shows i, j and value
// in a live readout. The figure element keeps its data as `figure.relposData` for tests.
import { colormaps, rgb, textOn } from './colors.js';

const fmtDefault = (v) => (Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(2) : v.toFixed(3));

/**
 * @param {object} o
 * @param {ArrayLike<number>} o.data  row-major [rows, cols]
 * @param {number} o.rows
 * @param {number} o.cols
 * @param {string} o.title
 * @param {string} [o.rowLabel]  e.g. 'i (query)'
 * @param {string} [o.colLabel]  e.g. 'j (key)'
 * @param {'viridis'|'diverging'} [o.colormap]  diverging is centred on 0
 * @param {boolean} [o.annotate]  draw values in cells (when they fit)
 * @param {number} [o.maxWidth]  CSS pixels
 * @param {boolean} [o.square]  cells exactly as tall as wide (default: at least 2 px, map ≤ ~300 px tall)
 * @param {(v:number)=>string} [o.format]
 * @param {string[]} [o.rowNames] [o.colNames]  tick names (tokens)
 * @returns {HTMLElement} a <figure>
 */
export function heatmap(o) {
  const { data, rows, cols, title } = o;
  const rowLabel = o.rowLabel ?? 'i (query)';
  const colLabel = o.colLabel ?? 'j (key)';
  const fmt = o.format ?? fmtDefault;
  const cmapName = o.colormap ?? 'viridis';
  const cmap = colormaps[cmapName];
  let vmin = Infinity, vmax = -Infinity;
  for (let t = 0; t < rows * cols; t++) {
    const v = data[t];
    if (Number.isFinite(v)) {
      if (v < vmin) vmin = v;
      if (v > vmax) vmax = v;
    }
  }
  if (o.vmin !== undefined) vmin = o.vmin;
  if (o.vmax !== undefined) vmax = o.vmax;
  if (cmapName === 'diverging') {
    const m = Math.max(Math.abs(vmin), Math.abs(vmax)) || 1;
    vmin = -m;
    vmax = m;
  }
  if (!(vmax > vmin)) vmax = vmin + 1;
  const norm = (v) => (v - vmin) / (vmax - vmin);

  const names = o.rowNames || o.colNames;
  const left = o.rowNames ? 78 : 40, top = 6, right = 8, bottom = 76;
  const W = o.maxWidth ?? 380;
  const plotW = W - left - right;
  const cellW = plotW / cols;
  // square: cells as tall as wide whatever their size (long sequences: a 256 × 256 map stays square)
  const cellH = o.square ? cellW : Math.max(2, Math.min(cellW * (o.aspect ?? 1), 300 / rows, 28));
  const plotH = cellH * rows;
  const H = top + plotH + bottom + (o.colNames ? 30 : 0);

  const fig = document.createElement('figure');
  fig.className = 'heatmap';
  fig.relposData = { data: Array.from(data), rows, cols, title };
  const cap = document.createElement('figcaption');
  cap.textContent = title;
  const canvas = document.createElement('canvas');
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${title}: ${rows} by ${cols} heatmap, values ${fmt(vmin)} to ${fmt(vmax)}. Use arrow keys to read cells.`);
  const dpr = Math.min(2, globalThis.devicePixelRatio || 1);
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  canvas.style.width = `${W}px`;
  canvas.style.maxWidth = '100%';
  canvas.style.aspectRatio = `${W} / ${H}`;
  const readout = document.createElement('output');
  readout.className = 'readout';
  readout.setAttribute('aria-live', 'polite');
  readout.textContent = 'Hover or focus the map and use arrow keys.';
  fig.append(cap, canvas, readout);

  const ctx = canvas.getContext('2d');
  const draw = (cursor) => {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, H);
    const fontPx = Math.max(8, Math.min(12, cellH * 0.55, cellW * 0.5));
    const annotate = o.annotate !== false && cellW >= 16 && cellH >= 12 && rows * cols <= 1024;
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) {
        const v = data[i * cols + j];
        const c = Number.isFinite(v) ? cmap(norm(v)) : [200, 200, 200];
        ctx.fillStyle = rgb(c);
        const x = left + j * cellW, y = top + i * cellH;
        ctx.fillRect(x, y, Math.ceil(cellW), Math.ceil(cellH));
        if (annotate) {
          ctx.fillStyle = textOn(c);
          ctx.font = `${fontPx}px system-ui, sans-serif`;
          ctx.textAlign = 'center';
          ctx.textBaseline = 'middle';
          const s = Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 10 ? 0 : 1);
          ctx.fillText(s, x + cellW / 2, y + cellH / 2 + 0.5);
        }
      }
    if (cursor) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 2;
      ctx.strokeRect(left + cursor.j * cellW + 1, top + cursor.i * cellH + 1, Math.max(2, cellW - 2), Math.max(2, cellH - 2));
    }
    // axes: ticks every few cells
    ctx.fillStyle = '#222';
    ctx.font = '11px system-ui, sans-serif';
    const step = (n, size) => Math.max(1, Math.ceil(n / Math.max(1, Math.floor(n * size / 26))));
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const rs = o.rowNames ? 1 : step(rows, cellH);
    for (let i = 0; i < rows; i += rs) ctx.fillText(o.rowNames ? String(o.rowNames[i]).slice(0, 10) : String(i), left - 4, top + (i + 0.5) * cellH);
    ctx.textBaseline = 'top';
    const cs = step(cols, cellW);
    let yAfterTicks = top + plotH + 4 + 14;
    if (o.colNames) {
      ctx.save();
      for (let j = 0; j < cols; j++) {
        ctx.save();
        ctx.translate(left + (j + 0.5) * cellW, top + plotH + 4);
        ctx.rotate(-Math.PI / 4);
        ctx.textAlign = 'right';
        ctx.textBaseline = 'middle';
        ctx.fillText(String(o.colNames[j]).slice(0, 9), 0, 0);
        ctx.restore();
      }
      ctx.restore();
      yAfterTicks += 30;
    } else {
      ctx.textAlign = 'center';
      for (let j = 0; j < cols; j += cs) ctx.fillText(String(j), left + (j + 0.5) * cellW, top + plotH + 4);
    }
    ctx.textAlign = 'center';
    ctx.fillText(colLabel + ' →', left + plotW / 2, yAfterTicks);
    ctx.save();
    ctx.translate(10, top + plotH / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = 'middle';
    ctx.fillText('← ' + rowLabel, 0, 0);
    ctx.restore();
    // colour bar
    const by = yAfterTicks + 18, bw = Math.min(plotW, 240), bx = left + (plotW - bw) / 2;
    for (let x = 0; x < bw; x++) {
      ctx.fillStyle = rgb(cmap(x / (bw - 1)));
      ctx.fillRect(bx + x, by, 1.5, 10);
    }
    ctx.strokeStyle = '#666';
    ctx.lineWidth = 1;
    ctx.strokeRect(bx, by, bw, 10);
    ctx.fillStyle = '#222';
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText(fmt(vmin), bx, by + 12);
    ctx.textAlign = 'right';
    ctx.fillText(fmt(vmax), bx + bw, by + 12);
    ctx.textAlign = 'center';
    ctx.fillText(fmt((vmin + vmax) / 2), bx + bw / 2, by + 12);
  };

  let cursor = null;
  const show = (c) => {
    cursor = c;
    draw(c);
    if (!c) return;
    const v = data[c.i * cols + c.j];
    const rn = o.rowNames ? ` “${o.rowNames[c.i]}”` : '';
    const cn = o.colNames ? ` “${o.colNames[c.j]}”` : '';
    readout.textContent = `${rowLabel.split(' ')[0]} = ${c.i}${rn}, ${colLabel.split(' ')[0]} = ${c.j}${cn}: ${fmt(v)}`;
  };
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const x = ((e.clientX - r.left) / r.width) * W, y = ((e.clientY - r.top) / r.height) * H;
    const j = Math.floor((x - left) / cellW), i = Math.floor((y - top) / cellH);
    if (i >= 0 && i < rows && j >= 0 && j < cols) show({ i, j });
  });
  canvas.addEventListener('mouseleave', () => draw(null));
  canvas.addEventListener('focus', () => show(cursor ?? { i: 0, j: 0 }));
  canvas.addEventListener('blur', () => draw(null));
  canvas.addEventListener('keydown', (e) => {
    const c = cursor ?? { i: 0, j: 0 };
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -cols], End: [0, cols] };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    show({ i: Math.min(rows - 1, Math.max(0, c.i + m[0])), j: Math.min(cols - 1, Math.max(0, c.j + m[1])) });
  });
  draw(null);
  return fig;
}
