// Colour maps: viridis (sequential) and a blue–white–red diverging map for signed values.

const VIRIDIS = [
  [68, 1, 84], [72, 35, 116], [64, 67, 135], [52, 94, 141], [41, 120, 142],
  [32, 144, 140], [34, 167, 132], [68, 190, 112], [121, 209, 81], [189, 222, 38], [253, 231, 37],
];
const DIVERGING = [
  [33, 102, 172], [67, 147, 195], [146, 197, 222], [209, 229, 240], [247, 247, 247],
  [253, 219, 199], [244, 165, 130], [214, 96, 77], [178, 24, 43],
];

function ramp(stops, t) {
  if (!(t >= 0)) t = 0;
  if (t > 1) t = 1;
  const x = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = stops[i], b = stops[i + 1];
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f].map(Math.round);
}

export const colormaps = {
  viridis: (t) => ramp(VIRIDIS, t),
  diverging: (t) => ramp(DIVERGING, t),
};

export const rgb = ([r, g, b]) => `rgb(${r},${g},${b})`;

// Readable text colour on top of a cell colour.
export const textOn = ([r, g, b]) => (0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#111' : '#fff');

// Distinct line colours for plots (Okabe–Ito plus extras), index → CSS colour.
const LINES = ['#000000', '#E69F00', '#56B4E9', '#009E73', '#D55E00', '#0072B2', '#CC79A7', '#8c564b', '#7f7f7f', '#bcbd22', '#17becf', '#9467bd'];
export const lineColor = (i) => LINES[i % LINES.length];
