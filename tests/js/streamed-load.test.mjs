// Safetensors checkpoints of the llama-style families (and BERT's, the RoBERTa family's, DeBERTa-v2/v3's, MPNet's) are converted as they stream in (issue #34,
// models/layers/streamed_checkpoint.h, web/weights.js): no heap copy of the file. Proven here, for the
// SIMD and scalar builds:
//   - the streamed load gives bitwise the outputs and weightBytes of the whole-file load (the same
//     bytes through mod.loadModel), fp32 and q8, on the llama fixture and on a random BF16 llama whose
//     matrices span several row blocks (uneven last block) fed in chunks of odd sizes;
//   - a sharded set (index + 2 shards) streams too, with the same outputs;
//   - the threads build (2 threads) streams to the same bits as the SIMD build's whole-file load;
//   - onProgress reports the conversion ({ stage: 'convert', … }) up to the whole file;
//   - a file whose converted tensors cannot fit fails before converting them, with a RangeError that
//     names the bytes needed and available and suggests dtype 'q8'; the runtime then loads a model.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { loadModule } from '../../web/loader.js';
import { loadModel, Model } from '../../web/model.js';
import { openSource } from '../../web/sources.js';
import { readCheckpoint } from '../../web/weights.js';
import { unwrap } from '../../web/positions.js';
import { writeHeaderOnlyCheckpoint, writeRandomCheckpoint } from '../support/random-checkpoint.mjs';

const FIXTURE = new URL('../../../shared/fixtures/hf/llama-rope/', import.meta.url).pathname;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'relpos-streamed-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// hidden 256, 2600 intermediate rows: gate/up [2600, 256] BF16 = 1.3 MB → row blocks 2048 + 552;
// the table [5000, 256] → 3 blocks; q_proj [256, 256] one block of 256 rows.
const RANDOM = {
  model_type: 'llama', architectures: ['LlamaModel'], hidden_size: 256, intermediate_size: 2600, num_hidden_layers: 2,
  num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 5000, max_position_embeddings: 512, rms_norm_eps: 1e-6,
  rope_theta: 10000, hidden_act: 'silu', tie_word_embeddings: false,
};
const randomDir = path.join(tmp, 'random-llama');
writeRandomCheckpoint(randomDir, RANDOM, { seed: 7 });

/** The same files through the whole-file path: every weight file into the heap, then mod.loadModel. */
async function wholeFile(mod, dir, dtype) {
  const src = await openSource(dir);
  const config = await src.text('config.json');
  const files = await readCheckpoint(mod, src, null, null);
  assert.ok(files.length > 0);
  let handle;
  try {
    handle = unwrap(mod.loadModel(config, files, { dtype }));
  } finally {
    files.forEach((f) => f.buffer.delete());
  }
  return new Model(mod, handle, JSON.parse(config), null);
}

/** A Blob over `bytes` whose stream() yields chunks of 1, 7, 8, 1000, 65537, 3 MB, … bytes. */
function oddChunks(bytes) {
  const sizes = [1, 7, 8, 1000, 65537, 3 << 20, 13];
  const blob = {
    size: bytes.length,
    stream() {
      let at = 0, i = 0;
      return new ReadableStream({
        pull(controller) {
          if (at >= bytes.length) return controller.close();
          const n = sizes[i++ % sizes.length];
          controller.enqueue(bytes.slice(at, at + n));
          at += n;
        },
      });
    },
  };
  Object.setPrototypeOf(blob, Blob.prototype);
  return blob;
}

const ids = (vocab, n, seed) => Array.from({ length: n }, (_, i) => (seed * 7919 + i * 104729) % vocab);

function sameOutputs(a, b, inputIds, what) {
  const x = a.forward({ inputIds }, { outputHiddenStates: true });
  const y = b.forward({ inputIds }, { outputHiddenStates: true });
  assert.ok(x.lastHiddenState.data.every(Number.isFinite), `${what}: finite`);
  assert.deepEqual(x.lastHiddenState.data, y.lastHiddenState.data, `${what}: last hidden state`);
  x.hiddenStates.forEach((h, i) => assert.deepEqual(h.data, y.hiddenStates[i].data, `${what}: hidden state ${i}`));
  assert.equal(a.info.weightBytes, b.info.weightBytes, `${what}: weightBytes`);
  assert.equal(a.info.dtype, b.info.dtype);
}

for (const build of ['simd', 'scalar']) {
  const module = loadModule(build);

  test(`${build} build: llama checkpoints converted as they stream in give bitwise the whole-file outputs, fp32 and q8`, async () => {
    const mod = await module;
    for (const dtype of ['fp32', 'q8']) {
      for (const [dir, vocab] of [[FIXTURE, 100], [randomDir, RANDOM.vocab_size]]) {
        const events = [];
        const streamed = await loadModel(mod, dir, { dtype, onProgress: (e) => events.push(e) });
        assert.ok(events.some((e) => e.stage === 'convert'), 'the load streamed');
        const whole = await wholeFile(mod, dir, dtype);
        sameOutputs(streamed, whole, [ids(vocab, 40, 1), ids(vocab, 40, 2)], `${path.basename(dir)} ${dtype}`);
        streamed.dispose();
        whole.dispose();
      }
      // the random checkpoint again, from a file map whose Blob arrives in chunks of odd sizes
      const bytes = fs.readFileSync(path.join(randomDir, 'model.safetensors'));
      const config = fs.readFileSync(path.join(randomDir, 'config.json'), 'utf8');
      const odd = await loadModel(mod, { 'config.json': config, 'model.safetensors': oddChunks(bytes) }, { dtype });
      const whole = await wholeFile(mod, randomDir, dtype);
      sameOutputs(odd, whole, [ids(RANDOM.vocab_size, 70, 3)], `odd chunks ${dtype}`);
      odd.dispose();
      whole.dispose();
    }
  });

  test(`${build} build: DeBERTa-v2/v3, MPNet, ModernBERT and NomicBERT checkpoints, task heads too, stream as they arrive with bitwise the whole-file outputs, fp32 and q8`, async () => {
    const mod = await module;
    const shared = new URL('../../../shared/fixtures/', import.meta.url).pathname;
    for (const dir of ['hf/deberta-v2-a-v2like', 'hf/deberta-v2-b-v3like', 'hf/deberta-v2-c-c2p-only', 'hf-tasks/deberta-v2-fill-mask',
                       'hf-tasks/deberta-v2-text-pair-classification', 'hf-families/mpnet-a', 'hf-families/mpnet-b',
                       'hf-families/modernbert-a', 'hf-families/modernbert-b', 'hf-families/nomic-bert-a', 'hf-families/nomic-bert-b']) {
      const config = JSON.parse(fs.readFileSync(path.join(shared, dir, 'config.json'), 'utf8'));
      for (const dtype of ['fp32', 'q8']) {
        const events = [];
        const streamed = await loadModel(mod, path.join(shared, dir), { dtype, onProgress: (e) => events.push(e) });
        assert.ok(events.some((e) => e.stage === 'convert'), `${dir}: the load streamed`);
        const whole = await wholeFile(mod, path.join(shared, dir), dtype);
        const inputIds = [ids(config.vocab_size, 12, 6), ids(config.vocab_size, 12, 7)];
        sameOutputs(streamed, whole, inputIds, `${dir} ${dtype}`);
        if (whole.head) {
          const [x, y] = [streamed, whole].map((m) => m.forward({ inputIds }, { logits: true }));
          assert.deepEqual(x.logits.data, y.logits.data, `${dir} ${dtype}: the task head's logits`);
        }
        streamed.dispose();
        whole.dispose();
      }
    }
  });

  test(`${build} build: a sharded llama set streams shard by shard with the outputs of the single file`, async () => {
    const mod = await module;
    // split the fixture's tensors into two shards (safetensors written here, index naming them)
    const file = fs.readFileSync(path.join(FIXTURE, 'model.safetensors'));
    const n = Number(file.readBigUInt64LE(0));
    const header = JSON.parse(file.subarray(8, 8 + n).toString('utf8'));
    delete header.__metadata__;
    const names = Object.keys(header).sort();
    const dir = path.join(tmp, `sharded-${build}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(FIXTURE, 'config.json'), path.join(dir, 'config.json'));
    const weightMap = {};
    [names.slice(0, 7), names.slice(7)].forEach((part, s) => {
      const shard = `model-0000${s + 1}-of-00002.safetensors`;
      const h = {};
      const chunks = [];
      let at = 0;
      for (const name of part) {
        const { dtype, shape, data_offsets: [b, e] } = header[name];
        h[name] = { dtype, shape, data_offsets: [at, at + e - b] };
        chunks.push(file.subarray(8 + n + b, 8 + n + e));
        at += e - b;
        weightMap[name] = shard;
      }
      const json = Buffer.from(JSON.stringify(h));
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(json.length));
      fs.writeFileSync(path.join(dir, shard), Buffer.concat([len, json, ...chunks]));
    });
    fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    for (const dtype of ['fp32', 'q8']) {
      const events = [];
      const sharded = await loadModel(mod, dir, { dtype, onProgress: (e) => events.push(e) });
      assert.deepEqual([...new Set(events.filter((e) => e.stage === 'convert').map((e) => e.file))],
                       ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
      const single = await wholeFile(mod, FIXTURE, dtype);
      sameOutputs(sharded, single, [ids(100, 33, 4)], `sharded ${dtype}`);
      sharded.dispose();
      single.dispose();
    }
  });

  test(`${build} build: onProgress reports the conversion of every chunk, up to the whole file`, async () => {
    const mod = await module;
    const events = [];
    const model = await loadModel(mod, randomDir, { dtype: 'q8', onProgress: (e) => events.push(e) });
    const size = fs.statSync(path.join(randomDir, 'model.safetensors')).size;
    const convert = events.filter((e) => e.stage === 'convert');
    assert.ok(convert.length >= 2, `${convert.length} conversion events`);
    assert.ok(convert.every((e) => e.file === 'model.safetensors' && e.total === size));
    for (let i = 1; i < convert.length; ++i) {
      assert.ok(convert[i].loaded > convert[i - 1].loaded);
      assert.ok(convert[i].convertedBytes >= convert[i - 1].convertedBytes);
    }
    assert.equal(convert.at(-1).loaded, size);
    // every tensor converted by the last event: the bytes the model holds (weightBytes) + nothing lost
    assert.equal(convert.at(-1).convertedBytes, model.info.weightBytes);
    model.dispose();
  });

  test(`${build} build: converted weights that cannot fit → RangeError naming the bytes and suggesting q8 before converting, then a model loads`, async () => {
    const mod = await module;
    // A llama whose embedding table alone is 600,000 × 1024 (2.46 GB as float32, 2.0 GB + 2.4 MB
    // as q8): the header is real, the data a sparse file (never read: the check runs at the header).
    const config = { ...RANDOM, vocab_size: 600000, hidden_size: 1024, intermediate_size: 64, num_hidden_layers: 1 };
    const dir = path.join(tmp, `huge-${build}`);
    writeHeaderOnlyCheckpoint(dir, config);
    const heap = mod.HEAP8.buffer.byteLength;
    const events = [];
    await assert.rejects(loadModel(mod, dir, { onProgress: (e) => events.push(e) }), (e) => {
      assert.equal(e.constructor, RangeError, e.message);
      assert.match(e.message, /^model\.safetensors: its tensors need (\d+) bytes of WebAssembly memory as fp32, more than the \d+ bytes still available \(limit 2147483648 bytes, \d+ in use\); with dtype 'q8' they need about \d+ bytes$/);
      const need = Number(/need (\d+) bytes/.exec(e.message)[1]);
      assert.ok(need > 4 * 600000 * 1024, `needs ${need}`);
      return true;
    });
    assert.ok(events.every((e) => e.stage !== 'convert' || e.loaded <= 8 << 20), 'stopped within the first chunks');
    assert.ok(mod.HEAP8.buffer.byteLength - heap < 64 << 20, 'the heap did not grow by the weights');
    const model = await loadModel(mod, FIXTURE);
    const whole = await wholeFile(mod, FIXTURE, 'fp32');
    sameOutputs(model, whole, [ids(100, 9, 5)], 'after the error');
    model.dispose();
    whole.dispose();
  });
}

test('simd-threads build on 2 threads: the streamed load gives bitwise the SIMD whole-file outputs, fp32 and q8', async () => {
  const rp = await init({ threads: 2 });
  const mod = await loadModule('simd');
  for (const dtype of ['fp32', 'q8']) {
    const streamed = await rp.loadModel(randomDir, { dtype });
    const whole = await wholeFile(mod, randomDir, dtype);
    sameOutputs(streamed, whole, [ids(RANDOM.vocab_size, 130, 6)], `threads ${dtype}`);
    streamed.dispose();
    whole.dispose();
  }
  assert.equal(rp.threads, 2, rp.threadsReason ?? '');
  rp.dispose();
});
