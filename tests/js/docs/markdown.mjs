// What the docs tests read from a Markdown file (README.md, docs/*.md): fenced code blocks with their
// info strings, links, and the anchors GitHub gives headings. CommonMark fences and ATX headings only,
// which is all these files use.
//   codeBlocks(text) → [{ lang, attrs, code, line }]   line: 1-based line of the block's first code line
//   links(text)      → [{ target, line }]              outside code blocks and inline code
//   anchors(text)    → Set of '#fragment' targets       headings (GitHub's slugs) and <a id=…> tags

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Info string `js id=quick after=setup browser="a File picker" gpu` → { lang: 'js', attrs: { id, after, browser, gpu: true } }. */
export function parseInfo(info) {
  const words = [...info.trim().matchAll(/([^\s=]+)(?:=("([^"]*)"|[^\s]*))?/g)];
  const lang = words.length && !words[0][2] ? words.shift()[1] : '';
  const attrs = {};
  for (const w of words) attrs[w[1]] = w[2] === undefined ? true : (w[3] ?? w[2]);
  return { lang, attrs };
}

export function codeBlocks(text) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; ++i) {
    const m = FENCE.exec(lines[i]);
    if (!m) continue;
    const fence = m[1];
    const { lang, attrs } = parseInfo(m[2]);
    const body = [];
    let j = i + 1;
    for (; j < lines.length; ++j) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j]);
    }
    out.push({ lang, attrs, code: body.join('\n'), line: i + 2 });
    i = j;
  }
  return out;
}

/** The text's lines with fenced code blocks blanked (line numbers kept). */
function prose(text) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; ++i) {
    const m = FENCE.exec(lines[i]);
    if (!m) continue;
    let j = i + 1;
    for (; j < lines.length; ++j) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === m[1][0] && close[1].length >= m[1].length) break;
    }
    for (let k = i; k <= Math.min(j, lines.length - 1); ++k) lines[k] = '';
    i = j;
  }
  return lines;
}

export function links(text) {
  const out = [];
  prose(text).forEach((raw, i) => {
    const line = raw.replace(/(`+)[^`]*?\1/g, '');  // inline code
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
    for (const m of line.matchAll(/<a\s[^>]*href="([^"]+)"/g)) out.push({ target: m[1], line: i + 1 });
  });
  return out;
}

/** GitHub's heading anchor: the rendered text lowercased, every character that is not a letter, mark,
 * digit, connector (_), hyphen or space dropped, spaces turned into hyphens (github-slugger's rule). */
export function slug(heading) {
  const rendered = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\*\*?|~~/g, '');
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const raw of prose(text)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add('#' + (n ? `${base}-${n}` : base));
    }
    for (const m of raw.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) out.add('#' + m[1]);
  }
  return out;
}

const JS_LANGS = new Set(['js', 'javascript', 'mjs']);

/** The ```js blocks of `files` (paths relative to root) as { lang, attrs, code, line, file, ids }; ids: the file's id= blocks. */
export function jsBlocks(root, files, readFile) {
  const blocks = [];
  for (const file of files) {
    const ids = new Map();
    for (const b of codeBlocks(readFile(`${root}/${file}`, 'utf8'))) {
      if (!JS_LANGS.has(b.lang)) continue;
      const block = { ...b, file, ids };
      if (b.attrs.id) {
        if (ids.has(b.attrs.id)) throw new Error(`${file}:${b.line}: id=${b.attrs.id} is used twice`);
        ids.set(b.attrs.id, block);
      }
      blocks.push(block);
    }
  }
  return blocks;
}

/** The blocks to run for `block`: the chain of `after=` ancestors, then the block. */
export function chain(block) {
  const out = [block];
  for (let b = block; b.attrs.after;) {
    const prev = b.ids.get(b.attrs.after);
    if (!prev) throw new Error(`${b.file}:${b.line}: after=${b.attrs.after}: no block with id=${b.attrs.after} in ${b.file}`);
    if (out.includes(prev)) throw new Error(`${b.file}:${b.line}: after= makes a loop`);
    out.unshift(prev);
    b = prev;
  }
  return out;
}

const IMPORT = /^\s*import\s+(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?(?:\s*\*\s+as\s+([\w$]+))?\s*(?:from\s+)?(['"][^'"]+['"]);?\s*$/;

/**
 * One ES module from a chain of blocks: their imports merged at the top, then each block nested in the
 * previous one's scope. rewrite(code, where) → { code } may change a block line for line (expect.mjs's
 * instrument); prelude: lines put after the imports. Returns { code, map } (map[i]: 'file:line' of line i + 1).
 */
export function compose(list, { rewrite = (code) => ({ code }), prelude = [] } = {}) {
  const defaults = new Map(), named = new Map(), star = new Map();
  const body = [], map = [];
  const push = (text, where) => { for (const l of text.split('\n')) { body.push(l); map.push(where); } };
  for (const b of list) {
    const docLines = b.code.split('\n');
    const where = (i) => `${b.file}:${b.line + i}`;
    const lines = rewrite(b.code, where).code.split('\n');
    lines.forEach((l, i) => {
      const m = IMPORT.exec(docLines[i]);
      if (!m) return;
      const from = m[4];
      if (m[1]) defaults.set(`${m[1]}|${from}`, `import ${m[1]} from ${from};`);
      if (m[3]) star.set(`${m[3]}|${from}`, `import * as ${m[3]} from ${from};`);
      if (m[2]) for (const s of m[2].split(',').map((x) => x.trim()).filter(Boolean)) {
        if (!named.has(from)) named.set(from, new Set());
        named.get(from).add(s);
      }
      lines[i] = '';
    });
    push(b === list[0] ? '' : '{', where(0));
    lines.forEach((l, i) => push(l, where(i)));
  }
  push('}'.repeat(list.length - 1), null);
  const head = [...defaults.values(), ...star.values(), ...[...named].map(([from, s]) => `import { ${[...s].join(', ')} } from ${from};`), ...prelude];
  return { code: [...head, ...body].join('\n'), map: [...head.map(() => null), ...map] };
}
