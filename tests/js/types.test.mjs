// The hand-written web/index.d.ts type-checks a consumer (tests/js/types/consumer.ts) that imports
// the package by name, through the "exports" map's "types" condition: `tsc --noEmit`, strict.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';

test('tsc --noEmit accepts tests/js/types/consumer.ts against web/index.d.ts', () => {
  const tsc = resolve(ROOT, 'node_modules/typescript/bin/tsc');
  assert.ok(existsSync(tsc), 'typescript is not installed: run npm ci');
  let output = '';
  try {
    output = execFileSync(process.execPath, [tsc, '--noEmit', '-p', resolve(ROOT, 'tests/js/types'), '--listFiles'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
  }
  assert.match(output, /web\/index\.d\.ts/, 'consumer.ts did not resolve to web/index.d.ts');
});
