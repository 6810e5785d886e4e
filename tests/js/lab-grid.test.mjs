// `npm run lab`'s generator (scripts/lab.mjs): a --quick run of one cell (shift-k, T5, seed 1) into a
// temporary docs page and cache writes the "Full grid" table between the GENERATED markers, keeps the
// text outside them verbatim, caches the cell, and a second run resumes from the cache.
// Needs build/native/relpos_lab_native (built by `npm run build` / `npm run lab`); skipped otherwise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'build/native/relpos_lab_native');
const skip = existsSync(bin) ? false : 'build/native/relpos_lab_native is not built (npm run build or npm run lab)';

test('lab.mjs --quick writes the grid table and resumes from its cache', { skip, timeout: 20000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relpos-lab-'));
  try {
    const out = path.join(dir, 'docs.md');
    const cache = path.join(dir, 'cache');
    writeFileSync(out, '# Title\n\nHand-written text that must survive.\n');
    const args = [path.join(root, 'scripts/lab.mjs'), '--quick', '--no-build', '--tasks', 'shift-k', '--schemes', 't5',
      '--seeds', '1', '--out', out, '--cache', cache];
    const r1 = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.equal(r1.status, 0, r1.stderr);
    assert.match(r1.stderr, /1 cells, 0 cached, 1 to run/);
    assert.deepEqual(readdirSync(cache), ['shift-k__t5__seed1__quick.json']);
    const doc = readFileSync(out, 'utf8');
    assert.ok(doc.startsWith('# Title\n\nHand-written text that must survive.\n'));
    assert.match(doc, /<!-- BEGIN GENERATED[^\n]*-->\n\n## Full grid/);
    assert.match(doc, /--quick` run/);
    assert.match(doc, /### shift-k/);
    assert.match(doc, /\| scheme \| acc@L \| acc@2L \| acc@4L \| seq@L \/ 2L \/ 4L \| loss \| GFLOP \| s\/cell \|/);
    // One seed: plain accuracies (no min–max range), three of them in [0, 1].
    const row = doc.split('\n').find((l) => l.startsWith('| t5 |'));
    assert.ok(row, doc);
    const accs = row.split('|').slice(2, 5).map((c) => Number(c.trim()));
    for (const a of accs) assert.ok(a >= 0 && a <= 1, row);
    assert.match(doc, /Seeds: 1 /);
    assert.match(doc, /SIMD `[^`]+`/);
    assert.match(doc, /relpos_lab_native --task shift-k --k 3 --symbols 8 --len 16 --steps 20 --batch 32 --d 64 --heads 4 --layers 2 --eval-batches 1 --threads 1 --seed S --schemes SCHEME --json/);
    assert.ok(doc.trimEnd().endsWith('<!-- END GENERATED -->'));

    // Second run: the cell comes from the cache; the generated block is replaced, not appended.
    const r2 = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.equal(r2.status, 0, r2.stderr);
    assert.match(r2.stderr, /1 cells, 1 cached, 0 to run/);
    const doc2 = readFileSync(out, 'utf8');
    assert.equal(doc2.split('## Full grid').length, 2);
    assert.equal(doc2.split('\n').find((l) => l.startsWith('| t5 |')), row);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
