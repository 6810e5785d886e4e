// One source for the API reference: the declarations (web/index.d.ts, web/lab.d.ts) say the types, the
// prose in README.md and docs/ says what each name does — and this test keeps the two together. Read
// with the TypeScript compiler API (the devDependency `typescript`), every name the package exports at
// runtime, and every member of the interfaces a user calls or passes options to, must appear as code
// (`name`, or in a code block) in README.md or docs/. A new export or option without a word of
// documentation fails here, naming it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import ts from 'typescript';

import { ROOT } from './helpers.mjs';
import { codeBlocks } from './docs/markdown.mjs';
import * as relpos from '../../web/index.js';
import * as relposLab from '../../web/lab.js';

const DOC_FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Every identifier written as code in the docs: inline `code` spans and fenced blocks. */
const documented = new Set();
for (const file of DOC_FILES) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const code = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]).concat(codeBlocks(text).map((b) => b.code));
  for (const c of code) for (const w of c.match(/[A-Za-z_$][\w$]*/g) ?? []) documented.add(w);
  // quoted names in code count whole: members that are not identifiers ('sparse+dense' of BgeM3Scores)
  for (const c of code) for (const m of c.matchAll(/'([^'\s]+)'/g)) documented.add(m[1]);
}

/** The interfaces whose members a user reads or passes: runtime, model, options, results, pipelines, lab. */
const INTERFACES = {
  'web/index.d.ts': ['InitOptions', 'Relpos', 'AttentionOptions', 'AttentionResult', 'Positions', 'LoadProgress', 'LoadModelOptions',
    'ForwardOptions', 'ForwardResult', 'ModelHead', 'ModelInfo', 'Model', 'PipelineLengthOptions', 'FeatureExtractionOptions',
    'TextClassificationOptions', 'TextClassificationTopKOptions', 'ZeroShotOptions', 'TokenClassificationOptions', 'QuestionAnsweringOptions',
    'FillMaskOptions', 'TokenEntity', 'EntityGroup', 'Answer', 'FillMaskResult', 'ZeroShotResult', 'PipelineLoadOptions', 'PipelineExtras', 'GgufInfo',
    'BgeM3EncodeOptions', 'BgeM3Output', 'BgeM3ScoreOptions', 'BgeM3Scores', 'BgeM3'],
  'web/lab.d.ts': ['Lab', 'LabTrainOptions', 'LabModelOptions', 'LabProgress', 'LabConfig', 'LabEvaluation', 'LabAttention', 'LabRun'],
};

function members(file, names) {
  const src = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Map();
  const visit = (node) => {
    if (ts.isInterfaceDeclaration(node) && names.includes(node.name.text)) {
      out.set(node.name.text, node.members.filter((m) => m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))).map((m) => m.name.text));
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

test('every runtime export of relpos and relpos/lab is documented in README.md or docs/', () => {
  const names = [...new Set([...Object.keys(relpos), ...Object.keys(relposLab)])].filter((n) => n !== 'default');
  assert.ok(names.length >= 10);
  assert.deepEqual(names.filter((n) => !documented.has(n)), []);
});

for (const [file, names] of Object.entries(INTERFACES)) {
  test(`every member of the public interfaces of ${file} is documented in README.md or docs/`, () => {
    const found = members(file, names);
    assert.deepEqual(names.filter((n) => !found.has(n)), [], `interfaces missing from ${file} (renamed?)`);
    const missing = [];
    for (const [iface, list] of found) for (const m of list) if (!documented.has(m)) missing.push(`${iface}.${m}`);
    assert.deepEqual(missing, []);
  });
}
