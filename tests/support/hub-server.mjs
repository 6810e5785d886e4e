// A local imitation of the Hugging Face Hub's file URLs, for tests (no dependencies):
//   GET {hub}/<owner>/<name>/resolve/<revision>/<file>   (or /<name>/resolve/…)
//   - 200 with the file's bytes for small files;
//   - 302 to {cdn}/lfs/<id>/<revision>/<file> for weight files (*.safetensors, *.bin), served by a
//     second server on another port — another origin, like the Hub's CDN;
//   - 404 for an unknown repository (x-error-code: RepoNotFound), revision (RevisionNotFound) or file
//     (EntryNotFound);
//   - failures on demand: fail({ path, status }) answers that status, fail({ path, cut: true }) sends
//     the headers and half the body, then drops the connection.
// CORS headers on every answer (the page and the two servers are three origins). 127.0.0.1, port 0,
// at most 32 connections, GET/HEAD/OPTIONS only, files only from inside a repository's folder.
//
//   const hub = await startHubServer({ repos: { 'relpos-test/bert': '/path/to/folder', 'relpos-test/bert@v1': '/other' } });
//   rp.loadModel('relpos-test/bert', { host: hub.url });  …  await hub.close();
//
// Command line: node tests/support/hub-server.mjs [--root DIR] [--repo ID[@REV]=DIR …] [--port N]
// (--root DIR serves DIR/<owner>/<name> as revision main). Prints "relpos hub: http://…".
import { createServer } from 'node:http';
import { createReadStream, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'range, content-type',
  'access-control-expose-headers': 'content-length, content-type, etag, location, x-error-code, x-repo-commit',
  'cross-origin-resource-policy': 'cross-origin',
};
const WEIGHTS = /\.(safetensors|bin)$/;

/**
 * Starts the hub and its CDN. options: { repos: { 'id' | 'id@rev': folder }, root: folder, port: hub port (0) }.
 * Returns { url, cdnUrl, requests, addRepo(id, folder, revision), fail(rule), clearFailures(), close() }.
 * requests: every request as { server: 'hub'|'cdn', method, path, status }.
 */
export async function startHubServer({ repos = {}, root = null, port = 0 } = {}) {
  const table = new Map(Object.entries(repos).map(([k, v]) => [k.includes('@') ? k : `${k}@main`, resolve(v)]));
  const failures = [];
  const requests = [];
  let cdnUrl = '';

  async function repoFolder(id, revision) {
    const folder = table.get(`${id}@${revision}`);
    if (folder) return { folder };
    if (root && revision === 'main') {
      const dir = resolve(root, id);
      if (dir.startsWith(resolve(root) + sep) && (await stat(dir).catch(() => null))?.isDirectory()) return { folder: dir };
    }
    const known = [...table.keys()].some((k) => k.startsWith(`${id}@`)) || (root && (await stat(resolve(root, id)).catch(() => null)));
    return { error: known ? 'RevisionNotFound' : 'RepoNotFound' };
  }

  function failureFor(server, path) {
    return failures.find((f) => (!f.server || f.server === server) && (typeof f.path === 'string' ? path.endsWith(f.path) : f.path.test(path)));
  }

  const handler = (server) => async (req, res) => {
    const raw = new URL(req.url, 'http://x').pathname;
    const done = (status, headers = {}, body = '') => {
      requests.push({ server, method: req.method, path: raw, status });
      res.writeHead(status, { ...CORS, 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method === 'OPTIONS') return done(204);
    if (req.method !== 'GET' && req.method !== 'HEAD') return done(405, {}, 'method not allowed\n');
    let parts;
    try {
      parts = raw.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return done(400, {}, 'bad url\n');
    }
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) return done(400, {}, 'bad path\n');
    // hub: [owner, name, 'resolve', rev, ...file] or [name, 'resolve', rev, ...file]; cdn: ['lfs', ...same without 'resolve']
    let id, revision, file;
    if (server === 'hub') {
      const at = parts.indexOf('resolve');
      if (at < 1 || at > 2 || parts.length < at + 3) return done(404, { 'x-error-code': 'RepoNotFound' }, 'not found\n');
      id = parts.slice(0, at).join('/');
      revision = parts[at + 1];
      file = parts.slice(at + 2).join('/');
    } else {
      if (parts[0] !== 'lfs' || parts.length < 4) return done(404, {}, 'not found\n');
      [, id, revision] = parts; // the id is one encoded segment here
      file = parts.slice(3).join('/');
    }
    const failure = failureFor(server, raw);
    if (failure && !failure.cut) return done(failure.status, {}, `failure on demand: ${failure.status}\n`);
    const { folder, error } = await repoFolder(id, revision);
    if (error) return done(404, { 'x-error-code': error }, `${error}\n`);
    const path = normalize(join(folder, file));
    if (!path.startsWith(folder + sep)) return done(400, {}, 'bad path\n');
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return done(404, { 'x-error-code': 'EntryNotFound' }, 'EntryNotFound\n');
    if (server === 'hub' && WEIGHTS.test(file)) {
      const location = `${cdnUrl}/lfs/${encodeURIComponent(id)}/${encodeURIComponent(revision)}/${file.split('/').map(encodeURIComponent).join('/')}`;
      return done(302, { location, 'x-linked-size': String(info.size) }, `Found. Redirecting to ${location}\n`);
    }
    const headers = { ...CORS, 'cache-control': 'no-store', 'content-type': 'application/octet-stream', 'content-length': info.size, etag: `"${info.size}-${info.mtimeMs}"` };
    requests.push({ server, method: req.method, path: raw, status: 200 });
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return res.end();
    if (failure?.cut) {
      // Half the announced body, then the connection drops (a download that fails midway).
      const half = readFileSync(path).subarray(0, Math.floor(info.size / 2));
      res.write(half, () => setTimeout(() => res.destroy(), 20));
      return;
    }
    createReadStream(path).on('error', () => res.destroy()).pipe(res);
  };

  const listen = (server, at = 0) =>
    new Promise((ok, fail) => {
      server.maxConnections = 32;
      server.headersTimeout = 10000;
      server.requestTimeout = 60000;
      server.once('error', fail);
      server.listen(at, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}`));
    });
  const hub = createServer(handler('hub'));
  const cdn = createServer(handler('cdn'));
  const url = await listen(hub, port);
  cdnUrl = await listen(cdn);
  const stop = (server) =>
    new Promise((ok) => {
      server.close(() => ok());
      server.closeAllConnections?.();
    });

  return {
    url,
    cdnUrl,
    requests,
    addRepo(id, folder, revision = 'main') {
      table.set(`${id}@${revision}`, resolve(folder));
    },
    /** rule: { path: string (suffix) | RegExp, status?: number, cut?: true, server?: 'hub' | 'cdn' }; returns a remover. */
    fail(rule) {
      failures.push(rule);
      return () => failures.splice(failures.indexOf(rule), 1);
    },
    clearFailures() {
      failures.length = 0;
    },
    close: () => Promise.all([stop(hub), stop(cdn)]).then(() => {}),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const repos = {};
  let root = null;
  let port = 0;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '--root') root = args[i + 1];
    else if (args[i] === '--repo') {
      const [key, dir] = args[i + 1].split('=');
      repos[key] = dir;
    } else if (args[i] === '--port') port = Number(args[i + 1]);
    else throw new Error(`unknown option ${args[i]}`);
  }
  const server = await startHubServer({ repos, root, port });
  console.log(`relpos hub: ${server.url} (CDN ${server.cdnUrl})`);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close().then(() => process.exit(0)));
}
