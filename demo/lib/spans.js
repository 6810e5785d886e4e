// Cutting a text into plain and marked pieces for highlighting character spans (token-classification
// entities, a question-answering answer) — pure, so the page and the tests agree on what is marked.

/**
 * text and spans [{ start, end, ... }] (character offsets, end exclusive) → pieces [{ text, span }] in
 * order, span null for unmarked text. Spans are taken by start; one that overlaps an earlier kept span,
 * is empty, or lacks integer offsets inside the text is left out (listed in `skipped`).
 */
export function markPieces(text, spans) {
  const ok = (s) => Number.isInteger(s?.start) && Number.isInteger(s?.end) && s.start >= 0 && s.end <= text.length && s.start < s.end;
  const sorted = spans.filter(ok).sort((a, b) => a.start - b.start || b.end - a.end);
  const pieces = [];
  const skipped = spans.filter((s) => !ok(s));
  let at = 0;
  for (const s of sorted) {
    if (s.start < at) {
      skipped.push(s);
      continue;
    }
    if (s.start > at) pieces.push({ text: text.slice(at, s.start), span: null });
    pieces.push({ text: text.slice(s.start, s.end), span: s });
    at = s.end;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), span: null });
  return { pieces, skipped };
}
