// Where the RoBERTa-family / ELECTRA / BGE-M3 fixtures are (../shared/fixtures/hf-families-d; RELPOS_HF_FAMILIES_D
// overrides), shared by tests/js/families-roberta.test.mjs and tests/js/webgpu-roberta.test.mjs.
import { resolve } from 'node:path';

import { ROOT } from './helpers.mjs';

export const FAMILIES_D = process.env.RELPOS_HF_FAMILIES_D ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families-d');
