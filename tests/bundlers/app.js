// The bundled test app (tests/browser/bundlers.test.mjs builds it with Vite and with webpack 5 against
// the packed relpos tarball): init({ threads: 'auto' }), one rp.attention call and one forward of the
// fixture MODEL_CASE served at /fixtures/, then the results on the page and in globalThis.relposApp.
import { init } from 'relpos';

import { ATTENTION, MODEL_CASE, attentionInputs } from './inputs.js';

const MODEL = `/fixtures/${MODEL_CASE}/`;

async function run() {
  const rp = await init({ threads: 'auto' });
  const { output } = rp.attention({ ...attentionInputs(ATTENTION), ...ATTENTION, scheme: { type: 'none' } });
  const input = await (await fetch(`${MODEL}input.json`)).json();
  const model = await rp.loadModel(MODEL);
  const { lastHiddenState } = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask });
  model.dispose();
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    simd: rp.simd,
    threads: rp.threads,
    threadsReason: rp.threadsReason,
    attention: Array.from(output),
    lastHiddenState: { dims: lastHiddenState.dims, data: Array.from(lastHiddenState.data) },
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
