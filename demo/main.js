// Entry point: loads the relpos package (main thread, for the small interactive sections) and
// mounts the seven sections. Long work (encoder, real model, benchmark) runs in worker.js.
import { loadRelpos, describeBuild } from './lib/package.js';
import { errorBox } from './lib/dom.js';
import { describeThreads } from './lib/threads.js';
import * as explorer from './sections/explorer.js';
import * as why from './sections/why.js';
import * as inside from './sections/inside.js';
import * as encoder from './sections/encoder.js';
import * as real from './sections/real-model.js';
import * as lab from './sections/lab.js';
import * as bench from './sections/bench.js';

const status = document.getElementById('status');
const threadsLine = document.getElementById('threads');

// The header's thread line: what the worker's relpos reported (rp.threads, rp.threadsReason) in the
// latest encoder or benchmark result. The page's own instance (above) is single-threaded.
function showThreads(info) {
  if (!info) return;
  threadsLine.textContent = describeThreads(info);
  threadsLine.dataset.threads = String(info.threads ?? 1);
  if (info.threadsReason) threadsLine.dataset.reason = info.threadsReason;
  else delete threadsLine.dataset.reason;
}
const demo = (globalThis.relposDemo = { ready: false, error: null });

async function main() {
  const t0 = performance.now();
  let rp;
  try {
    rp = await loadRelpos('auto');
  } catch (err) {
    status.className = 'error';
    status.textContent = err.message;
    demo.error = err.message;
    for (const s of document.querySelectorAll('section .body')) s.append(errorBox('Unavailable: the relpos package did not load.'));
    return;
  }
  demo.rp = rp;
  status.textContent = `relpos loaded: ${describeBuild(rp)}${rp.version ? ` v${rp.version}` : ''} in ${(performance.now() - t0).toFixed(0)} ms.`;
  const sections = { explorer, why, inside, encoder, real, lab, bench };
  for (const [name, mod] of Object.entries(sections)) {
    const root = document.querySelector(`#${name} .body`);
    try {
      demo[name] = await mod.mount(root, { rp, showThreads });
    } catch (err) {
      console.error(`section ${name}:`, err);
      root.append(errorBox(`This section failed: ${err.message}`));
    }
  }
  demo.ready = true;
  document.body.dataset.ready = 'true';
}
main();
