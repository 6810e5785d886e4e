// Re-renders bench/results/latest.{md,svg} (and the targets in latest.json) from the measured
// latest.json, e.g. after a change to report.mjs. No measurement happens here.
import fs from 'node:fs';
import path from 'node:path';
import { writeReports } from './report.mjs';

const dir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../results');
writeReports(JSON.parse(fs.readFileSync(path.join(dir, 'latest.json'), 'utf8')), dir);
