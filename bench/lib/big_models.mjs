// Real-size models (issue #34): load time, peak memory and forward time of random-weight BF16
// checkpoints of published shapes, one fresh Node process per row (dtype × threads), so each row's
// peak RSS (VmHWM, /proc/self/status) is its own.
//
//   node bench/lib/big_models.mjs [names] [--lengths 128,512,2048] [--dtypes q8,fp32] [--threads 1,2] [--reps N] [--no-reference]
//   BENCH_SECTIONS=bigmodels npm run bench                        (the same, as a bench section)
//   BIG_MODELS=gemma3-300m,qwen3-0.6b node bench/lib/big_models.mjs
//   node bench/lib/big_models.mjs --config path/to/config.json   (any llama / qwen3 / gemma3_text config)
//
// Checkpoints are written once to build/big-models/<name>/ (tests/support/random-checkpoint.mjs: chunks
// from a seeded generator, never the whole file in memory). Each row: load ms (loadModel from the
// folder, conversion included), VmHWM after the load and at the end, heap bytes, then per input length
// the median ms of `reps` forwards of one sequence after one warm-up (one run, no warm-up, when a
// forward is estimated to take > 20 s). GFLOP/s = (linear + attention multiply-adds × 2) / time (causal
// attention counts half the pairs); "reference" = the same count over the time of a one-layer model of
// the same widths (vocab 1024) at the same length in the same process — relpos's own GEMM (+ attention)
// rate at these shapes, without the depth — and the ratio of the two.
// Results: printed as a table and written to bench/results/big-models.json (rows keyed by CPU).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { writeRandomCheckpoint } from '../../tests/support/random-checkpoint.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const OUT = path.join(ROOT, 'build/big-models');

// Published shapes. The llama rows run today; qwen3 / gemma3_text need those families.
export const BIG_CONFIGS = {
  // Qwen3-Embedding-0.6B's widths in the llama family (head_dim = hidden / heads = 64, so q/o are 1024 wide)
  'llama-0.6b': {
    model_type: 'llama', hidden_size: 1024, num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 8,
    intermediate_size: 3072, vocab_size: 151669, rope_theta: 1e6, rms_norm_eps: 1e-6, hidden_act: 'silu',
    max_position_embeddings: 32768, tie_word_embeddings: true,
  },
  // EmbeddingGemma-300m's tensor shapes in the llama family (3 heads × 256 = 768, 1 kv head): 303 M parameters
  'llama-gemma-shape': {
    model_type: 'llama', hidden_size: 768, num_hidden_layers: 24, num_attention_heads: 3, num_key_value_heads: 1,
    intermediate_size: 1152, vocab_size: 262144, rope_theta: 1e6, rms_norm_eps: 1e-6, hidden_act: 'silu',
    max_position_embeddings: 2048, tie_word_embeddings: true,
  },
  // BGE-M3's shape (#40): XLM-RoBERTa-large, 8192 tokens (8194 position rows), 568 M parameters
  'bge-m3-shape': {
    architectures: ['XLMRobertaModel'], model_type: 'xlm-roberta', hidden_size: 1024, num_hidden_layers: 24, num_attention_heads: 16,
    intermediate_size: 4096, vocab_size: 250002, max_position_embeddings: 8194, type_vocab_size: 1, pad_token_id: 1,
    layer_norm_eps: 1e-5, hidden_act: 'gelu',
  },
  'qwen3-0.6b': {
    architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', hidden_size: 1024, num_hidden_layers: 28, num_attention_heads: 16,
    num_key_value_heads: 8, head_dim: 128, intermediate_size: 3072, vocab_size: 151669, rope_theta: 1e6, rms_norm_eps: 1e-6,
    hidden_act: 'silu', max_position_embeddings: 32768, tie_word_embeddings: true, attention_bias: false,
  },
  'gemma3-300m': {
    architectures: ['Gemma3TextModel'], model_type: 'gemma3_text', hidden_size: 768, num_hidden_layers: 24,
    num_attention_heads: 3, num_key_value_heads: 1, head_dim: 256, query_pre_attn_scalar: 256, intermediate_size: 1152,
    vocab_size: 262144, sliding_window: 512, rope_theta: 1e6, rope_local_base_freq: 1e4, rms_norm_eps: 1e-6,
    hidden_activation: 'gelu_pytorch_tanh', max_position_embeddings: 2048, use_bidirectional_attention: true,
    layer_types: Array.from({ length: 24 }, (_, i) => ((i + 1) % 6 === 0 ? 'full_attention' : 'sliding_attention')),
  },
};
const PREFIX = { 'qwen3-0.6b': '', 'gemma3-300m': '' }; // those checkpoints are saved without 'model.'

/**
 * Multiply-adds × 2 of one forward of `seq` tokens: linear layers + Q·Kᵀ and P·V over the seq² pairs
 * (half of them for causal stacks: llama, qwen3; all for bidirectional gemma3_text embeddings).
 */
export function forwardFlops(c, seq) {
  const H = c.hidden_size, heads = c.num_attention_heads, kv = c.num_key_value_heads ?? heads, d = c.head_dim ?? H / heads;
  const encoder = c.model_type === 'xlm-roberta'; // two MLP matrices (intermediate, output), not three (gate, up, down)
  const linear = 2 * seq * (H * heads * d * 2 + H * kv * d * 2 + (encoder ? 2 : 3) * H * c.intermediate_size);
  const pairs = (c.model_type === 'gemma3_text' && c.use_bidirectional_attention) || encoder ? 1 : 0.5;
  const attention = 4 * seq * seq * heads * d * pairs;
  return c.num_hidden_layers * (linear + attention);
}

function vmHwm() {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : null;
}

export function cpuName() {
  const text = fs.readFileSync('/proc/cpuinfo', 'utf8');
  return (/model name\s*:\s*(.*)/.exec(text) || [])[1] ?? 'unknown';
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

/**
 * The whole-file path for comparison (what every load did before streaming): the file into the heap
 * whole, then mod.loadModel; SIMD build, one thread, load + one forward of `tokens`.
 */
async function wholeFileChild([dir, dtype, tokens]) {
  const { loadModule } = await import('../../web/loader.js');
  const { Model } = await import('../../web/model.js');
  const { openSource } = await import('../../web/sources.js');
  const { readCheckpoint } = await import('../../web/weights.js');
  const { unwrap } = await import('../../web/positions.js');
  const row = { dtype, threads: 1, wholeFile: true, vmHwmBefore: vmHwm() };
  const mod = await loadModule('simd');
  const t0 = performance.now();
  let model;
  try {
    const src = await openSource(dir);
    const config = await src.text('config.json');
    const files = await readCheckpoint(mod, src, null, null);
    try {
      model = new Model(mod, unwrap(mod.loadModel(config, files, { dtype })), JSON.parse(config), null);
    } finally {
      files.forEach((f) => f.buffer.delete());
    }
  } catch (e) {
    row.error = `${e.constructor.name}: ${e.message}`;
    row.vmHwm = vmHwm();
    return row;
  }
  row.loadMs = performance.now() - t0;
  row.vmHwmAfterLoad = vmHwm();
  row.weightBytes = model.info.weightBytes;
  const L = Number(tokens);
  const t = performance.now();
  model.forward({ inputIds: Array.from({ length: L }, (_, i) => 1 + ((i * 104729) % 1000)) });
  row.inputs = [{ tokens: L, ms: performance.now() - t, runs: 1, gflops: 0, gemmGflops: 0, ofGemm: 0 }];
  row.vmHwm = vmHwm();
  return row;
}

async function child([dir, gemmDir, dtype, threads, lengths, reps]) {
  const { init } = await import('../../web/index.js');
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const row = { dtype, threads: Number(threads), vmHwmBefore: vmHwm() };
  const rp = await init({ threads: Number(threads) });
  row.threadsGot = rp.threads;
  const t0 = performance.now();
  let model;
  try {
    model = await rp.loadModel(dir, { dtype });
  } catch (e) {
    row.error = `${e.constructor.name}: ${e.message}`;
    row.vmHwm = vmHwm();
    return row;
  }
  row.loadMs = performance.now() - t0;
  row.vmHwmAfterLoad = vmHwm();
  row.weightBytes = model.info.weightBytes;
  const vocab = config.vocab_size;
  const ids = (n, seed) => Array.from({ length: n }, (_, i) => 1 + ((seed * 7919 + i * 104729) % (vocab - 1)));
  const gflops = (flops, ms) => flops / ms / 1e6;
  // The reference rate at these widths: a one-layer model of the same shapes at the same length
  let gemmModel = null;
  try {
    // --no-reference: no one-layer model beside the real one (a peak-memory row of the model alone)
    if (gemmDir !== 'none') gemmModel = await rp.loadModel(gemmDir, { dtype });
  } catch (e) {  // no room beside the model: rows without the reference
    row.referenceError = `${e.constructor.name}: ${e.message}`;
  }
  const gemmConfig = gemmModel ? JSON.parse(fs.readFileSync(path.join(gemmDir, 'config.json'), 'utf8')) : null;
  const reference = (L) => {
    if (!gemmModel) return 0;
    const gemmIds = ids(L, 9).map((x) => x % gemmConfig.vocab_size);
    gemmModel.forward({ inputIds: gemmIds });
    const times = [];
    for (let r = 0; r < 3; ++r) {
      const t = performance.now();
      gemmModel.forward({ inputIds: gemmIds });
      times.push(performance.now() - t);
    }
    return gflops(forwardFlops(gemmConfig, L), median(times));
  };
  row.inputs = [];
  for (const L of lengths.split(',').map(Number)) {
    const times = [];
    let gemmGflops, flops, n;
    try {
      gemmGflops = reference(L);
      flops = forwardFlops(config, L);
      const estimateMs = flops / ((gemmGflops || 20) * 1e6);
      n = estimateMs > 20000 ? 1 : Number(reps);
      if (estimateMs <= 20000) model.forward({ inputIds: ids(L, 1) });
      for (let r = 0; r < n; ++r) {
        const t = performance.now();
        const out = model.forward({ inputIds: ids(L, 2 + r) });
        times.push(performance.now() - t);
        if (!out.lastHiddenState.data.every(Number.isFinite)) row.nonFinite = true;
      }
    } catch (e) {  // e.g. a RangeError: the activations of a long input beside fp32 weights exceed the heap
      row.inputs.push({ tokens: L, error: `${e.constructor.name}: ${e.message}` });
      continue;
    }
    const ms = median(times);
    row.inputs.push({ tokens: L, ms, runs: n, gflops: gflops(flops, ms), gemmGflops, ofGemm: gflops(flops, ms) / gemmGflops });
  }
  gemmModel?.dispose();
  row.vmHwm = vmHwm();
  row.heapBytes = rp.heapBytes;
  model.dispose();
  return row;
}

function ensureCheckpoint(name, config) {
  const dir = path.join(OUT, name);
  const stamp = path.join(dir, 'written.json');
  const want = JSON.stringify(config);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return dir;
  const t = performance.now();
  const info = writeRandomCheckpoint(dir, config, { seed: 1, prefix: PREFIX[name] ?? 'model.' });
  fs.writeFileSync(stamp, want);
  console.log(`wrote ${dir}/model.safetensors: ${(info.bytes / 2 ** 30).toFixed(2)} GiB, ${(info.parameters / 1e6).toFixed(1)} M parameters, ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return dir;
}

/** Runs every row (fresh process each); returns { cpu, rows }. */
export function bigModels({ names, dtypes = ['q8', 'fp32'], threads = [1, 2], lengths = [128, 512, 2048], reps = 3, configs = BIG_CONFIGS, log = console.log, reference = true } = {}) {
  const cpu = cpuName();
  const rows = [];
  for (const name of names ?? Object.keys(configs)) {
    const config = configs[name];
    if (!config) throw new Error(`big_models: unknown config '${name}' (known: ${Object.keys(configs).join(', ')})`);
    const dir = ensureCheckpoint(name, config);
    const gemmDir = reference ? ensureCheckpoint(`${name}-1layer`, { ...config, num_hidden_layers: 1, vocab_size: 1024, layer_types: config.layer_types?.slice(0, 1) }) : 'none';
    const fileBytes = fs.statSync(path.join(dir, 'model.safetensors')).size;
    for (const dtype of dtypes)
      for (const t of threads) {
        let row;
        try {
          const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, gemmDir, dtype, String(t), lengths.join(','), String(reps)], {
            encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'],
          });
          row = { model: name, fileBytes, ...JSON.parse(out.trim().split('\n').at(-1)) };
        } catch (e) {
          row = { model: name, fileBytes, dtype, threads: t, error: `the child process failed: ${e.message.split('\n')[0]}`, vmHwm: 0 };
        }
        rows.push(row);
        log(describeRow(row));
      }
  }
  return { cpu, date: new Date().toISOString(), loadAverage: os.loadavg()[0], rows };
}

const gib = (b) => (b / 2 ** 30).toFixed(2);
export function describeRow(r) {
  if (r.error) return `${r.model} ${r.dtype} ${r.threads}t: ${r.error} (VmHWM ${gib(r.vmHwm)} GiB)`;
  const inputs = r.inputs.map((i) => i.error ? `${i.tokens} tok: ${i.error}` : !i.gemmGflops ? `${i.tokens} tok ${i.ms.toFixed(0)} ms` : `${i.tokens} tok ${i.ms.toFixed(0)} ms (${i.gflops.toFixed(1)} GFLOP/s, ${(100 * i.ofGemm).toFixed(0)} % of the one-layer reference ${i.gemmGflops.toFixed(1)}${i.runs === 1 ? ', 1 run' : ''})`).join('; ');
  return `${r.model} ${r.dtype} ${r.threads}t: load ${(r.loadMs / 1000).toFixed(1)} s, VmHWM ${gib(r.vmHwmAfterLoad)} GiB after load, ${gib(r.vmHwm)} GiB at the end (file ${gib(r.fileBytes)} GiB, weights ${gib(r.weightBytes)} GiB); ${inputs}`;
}

export function markdown({ cpu, date, rows, loadAverage, note }) {
  const load = note ?? (loadAverage !== undefined ? `load average ${loadAverage.toFixed(1)} at the end` : '');
  const L = [`CPU: ${cpu} · ${date} · Node ${process.version}${load ? ` · ${load}` : ''}`, '',
    '| model | dtype | threads | file GiB | load s | VmHWM after load GiB | VmHWM end GiB | tokens | ms | GFLOP/s | % of reference (GFLOP/s) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of rows) {
    if (r.error) {
      L.push(`| ${r.model} | ${r.dtype} | ${r.threads} | ${gib(r.fileBytes)} | — | — | ${gib(r.vmHwm)} | — | ${r.error.replace(/\|/g, '\\|')} | | |`);
      continue;
    }
    for (const i of r.inputs)
      if (i.error) L.push(`| ${r.model} | ${r.dtype} | ${r.threads} | ${gib(r.fileBytes)} | ${(r.loadMs / 1000).toFixed(1)} | ${gib(r.vmHwmAfterLoad)} | ${gib(r.vmHwm)} | ${i.tokens} | ${i.error.replace(/\|/g, '\\|')} | | |`);
      else L.push(`| ${r.model} | ${r.dtype} | ${r.threads} | ${gib(r.fileBytes)} | ${(r.loadMs / 1000).toFixed(1)} | ${gib(r.vmHwmAfterLoad)} | ${gib(r.vmHwm)} | ${i.tokens} | ${i.ms.toFixed(0)}${i.runs === 1 ? ' (1 run)' : ''} | ${i.gflops ? i.gflops.toFixed(1) : '—'} | ${i.gemmGflops ? `${(100 * i.ofGemm).toFixed(0)} (${i.gemmGflops.toFixed(1)})` : '—'} |`);
  }
  return L.join('\n');
}

/** Appends a run to bench/results/big-models.json and rewrites big-models.md from every run. */
export function saveResult(result) {
  const file = path.join(ROOT, 'bench/results/big-models.json');
  const all = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { runs: [] };
  all.runs.push(result);
  fs.writeFileSync(file, JSON.stringify(all, null, 1) + '\n');
  const md = ['# Real-size models (bench/lib/big_models.mjs)', '',
    'Random BF16 weights of published shapes, one fresh Node process per row; VmHWM = peak RSS of that process',
    '(/proc/self/status), so it includes Node itself (~0.05 GiB). Runs, oldest first:', ''];
  for (const run of all.runs) md.push(markdown(run), '');
  fs.writeFileSync(path.join(ROOT, 'bench/results/big-models.md'), md.join('\n'));
}

function option(args, name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    console.log(JSON.stringify(await child(args.slice(1))));
  } else if (args[0] === '--whole-file-child') {
    console.log(JSON.stringify(await wholeFileChild(args.slice(1))));
  } else if (args[0] === '--whole-file') {
    // node bench/lib/big_models.mjs --whole-file name[,name] [dtype]: the before row (whole-file path)
    const result = { cpu: cpuName(), date: new Date().toISOString(), rows: [] };
    for (const name of args[1].split(',')) {
      const dir = ensureCheckpoint(name, BIG_CONFIGS[name]);
      for (const dtype of (args[2] ?? 'q8').split(',')) {
        const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--whole-file-child', dir, dtype, '128'], {
          encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'],
        });
        const row = { model: `${name} (whole file)`, fileBytes: fs.statSync(path.join(dir, 'model.safetensors')).size, ...JSON.parse(out.trim().split('\n').at(-1)) };
        result.rows.push(row);
        console.log(describeRow(row));
      }
    }
    console.log('\n' + markdown(result));
    saveResult(result);
  } else {
    const lengths = option(args, '--lengths', '128,512,2048').split(',').map(Number);
    const dtypes = option(args, '--dtypes', 'q8,fp32').split(',');
    const threads = option(args, '--threads', '1,2').split(',').map(Number);
    const reps = Number(option(args, '--reps', '3'));
    const noReference = args.includes('--no-reference');
    if (noReference) args.splice(args.indexOf('--no-reference'), 1);
    const configFile = option(args, '--config', null);
    let configs = BIG_CONFIGS;
    let names = (args[0] ?? process.env.BIG_MODELS ?? 'llama-gemma-shape,llama-0.6b').split(',');
    if (configFile) {
      const name = path.basename(path.dirname(path.resolve(configFile))) || 'custom';
      configs = { [name]: JSON.parse(fs.readFileSync(configFile, 'utf8')) };
      names = [name];
    }
    const result = bigModels({ names, dtypes, threads, lengths, reps, configs, reference: !noReference });
    if (noReference) result.note = `load average ${result.loadAverage.toFixed(1)} at the end · no one-layer reference model beside the model (--no-reference): VmHWM is the model alone`;
    console.log('\n' + markdown(result));
    saveResult(result);
  }
}
