// The bundled test app (tests/browser/bundlers.test.mjs builds it with Vite and with webpack 5 against
// the packed relpos tarball): init({ threads: 'auto' }), one rp.attention call and one forward of the
// fixture MODEL_CASE served at /fixtures/, then a tiny lab.train (its own Worker and lab .wasm), then the
// results on the page and in globalThis.relposApp.
import { init, lab } from 'relpos';

import { ATTENTION, LAB, MODEL_CASE, attentionInputs } from './inputs.js';

const MODEL = `/fixtures/${MODEL_CASE}/`;

const labSteps = [];

async function run() {
  const rp = await init({ threads: 'auto' });
  const { output } = rp.attention({ ...attentionInputs(ATTENTION), ...ATTENTION, scheme: { type: 'none' } });
  const input = await (await fetch(`${MODEL}input.json`)).json();
  const model = await rp.loadModel(MODEL);
  const { lastHiddenState } = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask });
  model.dispose();
  const run = await lab.train({ ...LAB, onProgress: ({ step }) => labSteps.push(step) });
  const labResult = { build: run.config.build, firstLoss: run.losses[0], loss: run.losses[run.losses.length - 1], steps: run.losses.length, progress: labSteps };
  run.dispose();
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    simd: rp.simd,
    threads: rp.threads,
    threadsReason: rp.threadsReason,
    attention: Array.from(output),
    lastHiddenState: { dims: lastHiddenState.dims, data: Array.from(lastHiddenState.data) },
    lab: labResult,
  };
}

const out = document.getElementById('out');
run().then(
  (result) => {
    const { attention, lastHiddenState, ...summary } = result;
    out.textContent = JSON.stringify({ ...summary, attention0: attention.slice(0, 4), hidden0: lastHiddenState.data.slice(0, 4) }, null, 2);
    globalThis.relposApp = { done: true, ...result };
  },
  (e) => {
    out.textContent = `error: ${e.stack ?? e}`;
    globalThis.relposApp = { done: true, error: String(e.stack ?? e) };
  },
);
