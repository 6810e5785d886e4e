// Hugging Face Hub ids: which strings are ids, and the URL of a file of a repository.
//
//   rp.loadModel('microsoft/deberta-v3-xsmall')                  → https://huggingface.co/microsoft/deberta-v3-xsmall/resolve/main/<file>
//   rp.loadModel('hf:bert-base-uncased', { revision: 'v1.0' })  → https://huggingface.co/bert-base-uncased/resolve/v1.0/<file>
//   rp.loadModel('me/tiny', { host: 'https://hub.example.com' }) → https://hub.example.com/me/tiny/resolve/main/<file>
//
// The rule (docs/models.md, "Hub ids and the browser cache"): a string source is a Hub id when
//   1. it starts with 'hf:' (the rest must be an id), or
//   2. the options give `host` or `revision` (the string must be an id), or
//   3. it has the shape of an id — 'name' or 'owner/name', each part made of ASCII letters, digits,
//      '-', '_' and '.', beginning and ending with a letter, digit or '_', without '--' or '..', at
//      most 96 characters — and, under Node, no folder of that path exists (an existing folder wins).
// Anything else is what it was before: a URL (with a scheme), a relative URL prefix or a folder path.
// So './models/bert', '/models/bert', 'models/bert/' and 'a/b/c' are never ids.
import { describe } from './validation.js';

export const DEFAULT_HOST = 'https://huggingface.co';
export const DEFAULT_REVISION = 'main';
const PREFIX = 'hf:';
const PART = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;

/** True when `text` has the shape of a Hub repository id ('name' or 'owner/name'), without 'hf:'. */
export function isHubIdShape(text) {
  if (typeof text !== 'string') return false;
  const parts = text.split('/');
  return parts.length <= 2 && parts.every((p) => PART.test(p) && !p.includes('--') && !p.includes('..'));
}

/** True when `text` is explicitly a Hub id ('hf:' prefix). */
export const hasHubPrefix = (text) => typeof text === 'string' && text.startsWith(PREFIX);

/** The options that make a string a Hub id whatever its shape. */
export const forcesHub = (options) => options.host !== undefined || options.revision !== undefined;

/**
 * The Hub repository a string source names: { id, host, revision, url(file) }. Throws a TypeError
 * when the string (without 'hf:') is not an id or host/revision are malformed.
 */
export function hubRepo(source, options = {}) {
  const id = hasHubPrefix(source) ? source.slice(PREFIX.length) : source;
  if (!isHubIdShape(id))
    throw new TypeError(
      `loadModel: source: ${describe(source)} is not a Hub id: expected 'owner/name' or 'name' (ASCII letters, digits, '-', '_', '.'), ` +
        `optionally after 'hf:'${forcesHub(options) ? ' (host and revision apply only to Hub ids)' : ''}`,
    );
  const host = hubHost(options.host);
  const revision = options.revision ?? DEFAULT_REVISION;
  if (typeof revision !== 'string' || revision === '')
    throw new TypeError(`loadModel: revision: expected a branch, tag or commit name such as 'main', got ${describe(revision)}`);
  // Like huggingface_hub: the revision is one path segment ('refs/pr/1' → 'refs%2Fpr%2F1'), a file
  // name keeps its folders.
  const base = `${host}/${id}/resolve/${encodeURIComponent(revision)}/`;
  return { id, host, revision, url: (file) => base + file.split('/').map(encodeURIComponent).join('/') };
}

function hubHost(host) {
  if (host === undefined) return DEFAULT_HOST;
  const text = host instanceof URL ? host.href : host;
  if (typeof text !== 'string' || text === '')
    throw new TypeError(`loadModel: host: expected the URL of a Hub (such as '${DEFAULT_HOST}' or a mirror), got ${describe(host)}`);
  let url;
  try {
    url = new URL(text, typeof location === 'object' && location ? location.href : undefined);
  } catch {
    throw new TypeError(`loadModel: host: expected an absolute http(s) URL such as '${DEFAULT_HOST}', got ${describe(host)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`loadModel: host: expected an http(s) URL, got ${describe(host)}`);
  if (url.search || url.hash) throw new TypeError(`loadModel: host: expected a URL without query or fragment, got ${describe(host)}`);
  return url.href.replace(/\/+$/, '');
}

/** A hint appended to HTTP errors of Hub files (the Hub answers 401 for unknown and private repos). */
export function hubHint(status) {
  if (status === 401) return ' (the Hub answers 401 when the repository does not exist, is private or is gated; relpos sends no credentials)';
  return '';
}
