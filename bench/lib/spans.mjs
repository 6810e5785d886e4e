// Issue #28: wide logit spans. On Intel CPUs every float operation that reads or produces a subnormal
// takes a microcode assist, and WebAssembly cannot flush subnormals to zero; a softmax row whose logits
// span more than ~87 fed probabilities below FLT_MIN (and subnormal products p·v) into the P·V GEMM and
// made attention up to 5× slower (AMD CPUs handle subnormals at full speed, so the same code showed
// nothing there). This section times the npm package's rp.attention (one thread, batch 1, 8 heads,
// head_dim 64, seq 512, the bench's seeded q/k/v) with no position scheme and with ALiBi (bias
// m_h·(j − i)) at small slopes (1/256: the bias spans 2), BLOOM's slopes (2^−1 … 2^−8: up to 256) and
// slope 0.2 on every head (102: keys farther than 435 fall below max − 87), interleaved; and a real
// model's forward at a long input (T5-small's encoder layer, relative bias; all-MiniLM-L6-v2 when
// installed, on real text) with the share of its attention probabilities that are exactly 0 (x − max < −40, the
// softmax cut-off of kernels/softmax_f32.h). Every row carries the CPU it ran on (/proc/cpuinfo
// vendor_id and model name): a performance claim about this section must name it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { interleave } from './util.mjs';
import { makeBenchData } from './data.mjs';
import { tokenIds } from './e2e_models.mjs';

const fmt = (x, d = 2) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));

/** { vendor_id, model_name } from /proc/cpuinfo (os.cpus() model where there is none). */
export function cpuInfo() {
  let text = '';
  try { text = fs.readFileSync('/proc/cpuinfo', 'utf8'); } catch {}
  const field = (name) => text.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1]?.trim() ?? null;
  return { vendor_id: field('vendor_id') ?? 'unknown', model_name: field('model name') ?? os.cpus()[0]?.model ?? 'unknown' };
}

const SEQ = 512, H = 8, D = 64;

// name → { scheme, span: the bias's largest max − min over a row, small: the row it is compared with }
function cases() {
  const same = (m) => Float32Array.from({ length: H }, () => m);
  const bloom = Array.from({ length: H }, (_, h) => 2 ** (-(8 / H) * (h + 1)));
  return {
    none: { scheme: { type: 'none' }, span: 0 },
    alibi_small: { scheme: { type: 'alibi', slopes: same(1 / 256) }, span: (SEQ - 1) / 256, small: 'none' },
    alibi_bloom: { scheme: { type: 'alibi', slopes: 'bloom' }, span: (SEQ - 1) * Math.max(...bloom), small: 'alibi_small' },
    alibi_0_2: { scheme: { type: 'alibi', slopes: same(0.2) }, span: (SEQ - 1) * 0.2, small: 'alibi_small' },
  };
}

// English prose for the real model's tokenizer: the README's words (code blocks and symbols dropped).
function prose(root, words) {
  let text = '';
  try { text = fs.readFileSync(path.join(root, 'README.md'), 'utf8'); } catch {}
  const w = text.replace(/```[\s\S]*?```/g, ' ').replace(/[^A-Za-z,.;: ]+/g, ' ').split(/\s+/).filter((x) => x && x.length < 15);
  return w.slice(0, words).join(' ');
}

async function modelRows({ rp, modelsDir, minilm, quick, log, root }) {
  const rows = [];
  const models = [{ name: 't5-small-encoder-layer', dir: path.join(modelsDir, 't5-small-encoder-layer') }];
  if (minilm) models.push({ name: 'all-MiniLM-L6-v2', dir: minilm.dir, files: minilm.files });
  for (const m of models) {
    if (!fs.existsSync(m.dir)) { rows.push({ model: m.name, seq: SEQ, error: `${m.dir} missing` }); continue; }
    try {
      const src = m.files ? Object.fromEntries(Object.entries(m.files).map(([k, f]) => [k, k.endsWith('.json') ? fs.readFileSync(f, 'utf8') : new Uint8Array(fs.readFileSync(f))])) : m.dir;
      const model = await rp.loadModel(src);
      // MiniLM: real text through its tokenizer (~480 tokens); the T5 layer: the bench's token ids at 512.
      const inputs = m.files ? { text: prose(root, 340) } : { inputIds: tokenIds(m.dir, SEQ) };
      const probe = model.forward(inputs, { outputAttentions: true });
      const seq = probe.lastHiddenState.dims[1];
      let zero = 0, total = 0;
      for (const a of probe.attentions ?? []) for (const p of a.data) { total++; if (p === 0) zero++; }
      const r = await interleave({ relpos: () => model.forward(inputs) }, { reps: quick ? 5 : 11, warm: 2, warmMs: 1000 });
      const row = { model: m.name, seq, input: m.files ? 'README prose' : 'bench token ids', ms: +r.relpos.median.toFixed(3), wall_ms: +r.relpos.wall_median.toFixed(3),
        zero_prob_share: total ? +(zero / total).toFixed(5) : null, probs: total };
      rows.push(row);
      log(`spans model ${m.name} seq ${seq}: ${row.ms} ms, attention probabilities exactly 0: ${row.zero_prob_share == null ? '–' : fmt(100 * row.zero_prob_share, 2) + ' %'} of ${total}`);
      model.dispose?.();
    } catch (e) {
      rows.push({ model: m.name, seq: SEQ, error: e.message });
    }
  }
  return rows;
}

/** The section: { cpu, attention: rows, models: rows }. rpModule: the npm package's index.js module. */
export async function logitSpans({ rpModule, modelsDir, minilm, quick, log }) {
  const cpu = cpuInfo();
  log(`spans: CPU ${cpu.vendor_id} / ${cpu.model_name}`);
  const rp = await rpModule.init({ simd: true, threads: 1 });
  const data = makeBenchData(SEQ, H, D);
  const cs = cases();
  const args = (c) => ({ q: data.q, k: data.k, v: data.v, batch: 1, heads: H, seqLen: SEQ, headDim: D, scheme: c.scheme });
  const contestants = {};
  for (const [name, c] of Object.entries(cs)) contestants[name] = () => rp.attention(args(c));
  const r = await interleave(contestants, { reps: quick ? 7 : 21, warm: 2, warmMs: 1500 });
  const attention = Object.entries(cs).map(([name, c]) => ({ scheme: name, seq: SEQ, bias_span: +c.span.toFixed(2),
    ms: r[name]?.median != null ? +r[name].median.toFixed(3) : null, wall_ms: r[name]?.wall_median != null ? +r[name].wall_median.toFixed(3) : null,
    error: r[name]?.error ?? null, small: c.small ?? null }));
  const none = attention.find((x) => x.scheme === 'none');
  for (const x of attention) {
    x.ratio_to_none = x.ms && none?.ms ? +(x.ms / none.ms).toFixed(3) : null;
    const s = x.small && attention.find((y) => y.scheme === x.small);
    x.ratio_to_small = s?.ms && x.ms ? +(x.ms / s.ms).toFixed(3) : null;
  }
  log('spans attention seq 512: ' + attention.map((x) => `${x.scheme} ${x.ms ?? 'ERR'} ms (×none ${x.ratio_to_none ?? '-'})`).join(', '));
  const models = await modelRows({ rp, modelsDir, minilm, quick, log, root: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..') });
  return { cpu, attention, models };
}

export function spansTargets(r, add) {
  const s = r.spans;
  const cpu = s ? ` (${s.cpu.vendor_id}, ${s.cpu.model_name})` : '';
  const alibi = (s?.attention || []).filter((x) => x.scheme.startsWith('alibi'));
  const worst = alibi.filter((x) => x.ratio_to_none != null).sort((a, b) => b.ratio_to_none - a.ratio_to_none)[0];
  add('ALiBi (any slopes, logits spanning up to 256) within 1.05× of plain attention at seq 512', alibi.length ? alibi.every((x) => x.ratio_to_none != null && x.ratio_to_none <= 1.05) : null,
    worst ? `worst ${worst.scheme} ${fmt(worst.ratio_to_none, 3)}×${cpu}` : '');
  const vs = (s?.attention || []).filter((x) => x.small);
  const w2 = vs.filter((x) => x.ratio_to_small != null).sort((a, b) => b.ratio_to_small - a.ratio_to_small)[0];
  add('no scheme slower than 1.05× its row with small logits (seq 512)', vs.length ? vs.every((x) => x.ratio_to_small != null && x.ratio_to_small <= 1.05) : null,
    w2 ? `worst ${w2.scheme} ${fmt(w2.ratio_to_small, 3)}× ${w2.small}${cpu}` : '');
}

function table(s, L) {
  L.push(`CPU: ${s.cpu.vendor_id}, ${s.cpu.model_name}. Bias span: the largest max − min of the ALiBi bias over a row (beyond ~87, probabilities below FLT_MIN before issue #28).`, '');
  L.push('| scheme (rp.attention, seq 512) | bias span | ms | × none | × small-logit row |', '| --- | ---: | ---: | ---: | ---: |');
  for (const x of s.attention)
    L.push(`| ${x.scheme} | ${fmt(x.bias_span, 0)} | ${x.error ? 'error: ' + x.error : fmt(x.ms)} | ${fmt(x.ratio_to_none, 3)} | ${x.small ? `${fmt(x.ratio_to_small, 3)} (${x.small})` : '–'} |`);
  L.push('');
  if (s.models?.length) {
    L.push('| model (forward) | seq | ms | attention probabilities exactly 0 |', '| --- | ---: | ---: | ---: |');
    for (const x of s.models)
      L.push(x.error ? `| ${x.model} | ${x.seq} | error: ${x.error} | |` : `| ${x.model} (${x.input}) | ${x.seq} | ${fmt(x.ms, 1)} | ${x.zero_prob_share == null ? '–' : fmt(100 * x.zero_prob_share, 2) + ' %'} |`);
    L.push('');
  }
}

export function spansMarkdown(r, L) {
  if (!r.spans) return;
  L.push('## Wide logit spans (issue #28: subnormal floats)', '');
  L.push('rp.attention, one thread, batch 1, 8 heads, head_dim 64, interleaved; ALiBi bias m_h·(j − i) with slopes 1/256 on every head (small), BLOOM\'s, and 0.2 on every head. Softmax probabilities of keys more than 40 below a row\'s best are exactly 0 (kernels/softmax_f32.h), so no subnormal float reaches the P·V GEMM. Intel CPUs slow down on subnormals, AMD CPUs do not: compare rows only on the CPU named.', '');
  table(r.spans, L);
}

export function spansReadme(r, L) {
  if (!r.spans) return;
  L.push('Wide logit spans (issue #28): rp.attention at seq 512 with ALiBi slopes whose bias spans up to 256',
    '(before the fix, probabilities below FLT_MIN made Intel CPUs up to 5× slower; AMD CPUs are not affected), and',
    'real models at a long input:', '');
  table(r.spans, L);
}
