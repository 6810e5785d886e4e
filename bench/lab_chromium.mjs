// Lab training time in Chromium (issue #18: every scheme with the lab defaults within 60 s on one
// thread), two package builds interleaved: the `web/` being tested and another directory served as
// /web/ (e.g. a copy with the previous web/dist/relpos-lab-* files). Runs are sequential (one Worker
// at a time), alternating old/new per scheme; prints Run.seconds (training wall time in the worker).
//   node bench/lab_chromium.mjs <old web dir> [schemes]
// Needs tests/browser's playwright-core (npm ci in tests/browser) and /usr/bin/chromium.
import { launch, startServer } from '../tests/browser/helpers.mjs';

const oldWeb = process.argv[2];
const schemes = (process.argv[3] ?? 'none,sinusoidal,learned,alibi,t5,rope,shaw,deberta').split(',');
process.env.RELPOS_DEMO_WEB = oldWeb;
const oldServer = await startServer();
delete process.env.RELPOS_DEMO_WEB;
const newServer = await startServer();
const browser = await launch();
const pages = { old: browser.page, new: await browser.page.context().newPage() };
await pages.old.goto(new URL("/web/lab.js", oldServer.url).href);
await pages.new.goto(new URL("/web/lab.js", newServer.url).href);
const run = (page, scheme) =>
  page.evaluate(async (scheme) => {
    const { lab } = await import('/web/lab.js');
    const r = await lab.train({ scheme });
    const out = { seconds: r.seconds, build: r.config.build, loss: r.losses.at(-1) };
    r.dispose();
    return out;
  }, scheme);
console.log('scheme      old s   new s  speedup  build');
for (const [n, scheme] of schemes.entries()) {
  const res = {};
  for (const k of n % 2 ? ['new', 'old'] : ['old', 'new']) res[k] = await run(pages[k], scheme);
  console.log(`${scheme.padEnd(10)} ${res.old.seconds.toFixed(2).padStart(6)} ${res.new.seconds.toFixed(2).padStart(7)} ${(res.old.seconds / res.new.seconds).toFixed(2).padStart(7)}x  ${res.old.build}/${res.new.build}`);
}
await browser.close();
oldServer.close();
newServer.close();
