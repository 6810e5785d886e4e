// The browser cache of downloaded model files: the Cache API (globalThis.caches) under one
// relpos-named cache, keyed by the file's URL as requested (a Hub file's /resolve/ URL, before any
// redirect). Where there is no Cache API (Node, insecure http: pages) every call here is a no-op.
//
//   - A 200 response is stored while the caller streams it: the body is teed, one branch goes to
//     the caller, the other to Cache.put. Cache.put commits only once its branch ends cleanly, so a
//     download that fails or is abandoned midway (the fetch is aborted) leaves no entry, and a body
//     shorter than its Content-Length is deleted again. Nothing buffers the whole file in JS.
//   - A 404 is stored as an "absent" record (by sources.js only once another file of the same
//     repository or folder was found), so a later load takes the same file-layout decisions with no
//     network at all.
//   - Other responses are never stored. Entries never expire: clearCache() empties the cache (pin a
//     commit as the revision, or clear it, to see new files of a moving branch such as 'main').
//   - Storing is best effort: a quota error or a refused entry loses the cache entry, never the load.

/** Name of the Cache API cache relpos writes. */
export const CACHE_NAME = 'relpos-files-v1';
const ABSENT = 'x-relpos-absent';

/** True when this environment has a usable Cache API. */
export function cacheSupported() {
  const c = globalThis.caches;
  return typeof c === 'object' && c !== null && typeof c.open === 'function';
}

const cacheable = (url) => /^https?:/i.test(url);

/**
 * The file cache, or null when the environment has none. Methods:
 *   match(url)        → null (not cached) | { absent: true } | { response } (a stored 200)
 *   putAbsent(url)    → records that the server answered 404 (awaited, errors ignored)
 *   store(url, r, abort) → a Response for the caller whose body is teed into the cache, and
 *                       `settled(bytesSeen)`: call after the caller read the whole body; resolves
 *                       once the entry is committed (or dropped).
 */
export async function openFileCache() {
  if (!cacheSupported()) return null;
  let cache;
  try {
    cache = await globalThis.caches.open(CACHE_NAME);
  } catch {
    return null; // e.g. storage disabled for this origin: load without a cache
  }
  return {
    async match(url) {
      if (!cacheable(url)) return null;
      let hit;
      try {
        hit = await cache.match(url);
      } catch {
        return null;
      }
      if (!hit) return null;
      return hit.headers.has(ABSENT) ? { absent: true } : { response: hit };
    },
    async putAbsent(url) {
      if (!cacheable(url)) return;
      await cache.put(url, new Response(null, { status: 404, headers: { [ABSENT]: '1' } })).catch(() => {});
    },
    store(url, response) {
      if (!cacheable(url) || response.status !== 200 || !response.body || typeof response.body.tee !== 'function')
        return { response, settled: async () => {} };
      const [mine, theirs] = response.body.tee();
      // Content-Length is only the body's length when the body is not content-encoded.
      const encoding = response.headers.get('content-encoding');
      const identity = !encoding || encoding === 'identity';
      const length = identity ? response.headers.get('content-length') : null;
      const headers = { 'content-type': response.headers.get('content-type') ?? 'application/octet-stream' };
      if (length !== null) headers['content-length'] = length;
      const put = cache.put(url, new Response(theirs, { status: 200, headers })).then(
        () => true,
        () => false,
      );
      return {
        response: new Response(mine, { status: response.status, statusText: response.statusText, headers: response.headers }),
        async settled(bytesSeen) {
          const stored = await put;
          if (stored && length !== null && Number(length) !== bytesSeen) await cache.delete(url).catch(() => {});
        },
      };
    },
  };
}

/**
 * Empties the relpos file cache. Resolves to the number of files it held (0 where there is no Cache
 * API or nothing was cached).
 */
export async function clearCache() {
  if (!cacheSupported() || !(await globalThis.caches.has(CACHE_NAME))) return 0;
  const cache = await globalThis.caches.open(CACHE_NAME);
  let files = 0;
  for (const request of await cache.keys()) {
    const r = await cache.match(request);
    if (r && !r.headers.has(ABSENT)) files += 1;
  }
  await globalThis.caches.delete(CACHE_NAME);
  return files;
}
