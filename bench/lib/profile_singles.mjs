// The per-call profile (lib/profile.mjs) of one query at a time on the real all-MiniLM-L6-v2 (issue #41): single
// sentences at the 11–47 tokens of bench/data/cpu_peer_texts.json's sentences and its ~300-token text, 1 and 2
// threads, on the profiled copy of the package (build/g-wasm-prof/web: bench/run.sh builds it for the profile
// section). Writes the rows as JSON (bench/results/cpu-peer/profile-*.json, rendered by lib/report_cpu_peer.mjs).
//   node --no-experimental-fetch bench/lib/profile_singles.mjs [out.json] [reps=20]
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { perCallProfile } from './profile.mjs';
import { minilmSource } from './proc_peers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [out, repsArg] = process.argv.slice(2);
const seqs = [11, 22, 29, 47, 299];
const git = (c) => { try { return execSync(`git ${c}`, { cwd: ROOT, encoding: 'utf8' }).trim(); } catch { return null; } };
const loadavg = [os.loadavg().map((x) => +x.toFixed(2))];
const res = await perCallProfile({ profWeb: path.join(ROOT, 'build/g-wasm-prof/web'), modelsDir: null, minilm: minilmSource(ROOT), quick: true, log: (s) => console.error(s), seqs, models: [] });
if (repsArg) res.reps = Number(repsArg);
loadavg.push(os.loadavg().map((x) => +x.toFixed(2)));
const result = { what: 'per-call profile, all-MiniLM-L6-v2, batch 1 (lib/profile.mjs)', date: new Date().toISOString(), relpos_commit: git('rev-parse --short HEAD'),
  relpos_worktree_dirty: !!git('status --porcelain -- cpp web'), cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, loadavg, ...res };
if (out) fs.writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.log(JSON.stringify(result));
process.exit(0);
