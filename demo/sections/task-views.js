// Part of the "Load a real Hugging Face model" panel (load-model.js): once a checkpoint with a task
// head is loaded, the view for the pipeline that head supports, run in the worker ('model-pipeline'):
//   token-classification  pipeline('token-classification', model)(text, { aggregationStrategy })
//                         → [{ entity_group | entity, score, word, start, end }]: entities marked in the text
//   question-answering    pipeline('question-answering', model)({ question, context }, { topK })
//                         → { score, start, end, answer } (or a list): the answer span marked in the context
//   fill-mask             pipeline('fill-mask', model)('… [MASK] …', { topK }) → [{ score, token, token_str, sequence }]
//   text-classification   pipeline('text-classification', model)(text or { text, textPair }, { topK: null }) → [{ label, score }]
// The pipeline's own return value is kept as state.task.output (the tests compare the page with it).
import { h, errorBox } from '../lib/dom.js';
import { markPieces } from '../lib/spans.js';
import { timingLine } from '../lib/timing-view.js';

// Light tints (Okabe–Ito hues) for entity labels; text stays dark on them.
const TINTS = ['#ffe3a3', '#bfe3f7', '#b9ead7', '#f9c9b0', '#c7d8f0', '#f3cfe3', '#e6e0a8', '#d9d2ec'];
const entityLabel = (e) => e.entity_group ?? e.entity ?? '?';
const bare = (label) => label.replace(/^[BI]-/, '');
const pct = (s) => `${(100 * s).toFixed(1)} %`;

function area(id, label, value, rows = 3, help) {
  const input = h('textarea', { id, name: id, rows, 'aria-describedby': help ? `${id}-help` : undefined }, value);
  return { input, root: h('div', { class: 'field field-textarea' }, h('label', { for: id }, label), input, help ? h('small', { id: `${id}-help` }, help) : null) };
}
function select(id, label, options, value) {
  const input = h('select', { id, name: id }, options.map(([v, t]) => h('option', { value: v, selected: String(v) === String(value) }, t)));
  return { input, root: h('div', { class: 'field field-select' }, h('label', { for: id }, label), input) };
}

/** The text with the entities that have character offsets marked: <mark data-label data-start data-end>. */
export function entitiesInText(text, entities, colourOf) {
  const { pieces, skipped } = markPieces(text, entities);
  const p = h('p', { class: 'marked-text entities-text' }, pieces.map(({ text: t, span }) => {
    if (!span) return t;
    const label = entityLabel(span);
    return h('mark', { class: 'entity', 'data-label': label, 'data-start': span.start, 'data-end': span.end, 'data-score': span.score, style: `background:${colourOf(label)}`, title: `${label} ${pct(span.score)}` },
      t, h('small', { class: 'tag' }, ` ${label} ${span.score.toFixed(2)}`));
  }));
  return { p, skipped };
}

/** The context with the answer span [start, end) marked. */
export function answerInContext(context, answer) {
  const { pieces } = markPieces(context, answer ? [answer] : []);
  return h('p', { class: 'marked-text answer-context' }, pieces.map(({ text: t, span }) =>
    span ? h('mark', { class: 'answer', 'data-start': span.start, 'data-end': span.end, title: `answer, score ${span.score.toFixed(3)}` }, t) : t));
}

const VIEWS = {
  'token-classification': {
    title: 'Entities in a text',
    form() {
      const text = area('task-ner-text', 'Text', 'My name is Sarah and I live in London. Wolfgang works for the Red Cross in Berlin.', 3);
      const agg = select('task-ner-agg', 'aggregationStrategy', [
        ['simple', "'simple': consecutive tokens of one entity"], ['first', "'first': whole words, first token's label"],
        ['average', "'average': whole words, mean scores"], ['max', "'max': whole words, best token"], ['none', "'none': one row per token"],
      ], 'simple');
      return { controls: [text.root, agg.root], read: () => ({ input: text.input.value, options: { aggregationStrategy: agg.input.value } }) };
    },
    show(out, { input }, head) {
      const labels = [...new Set([...(head.labels ?? []).map(bare), ...out.map((e) => bare(entityLabel(e)))])].filter((l) => l !== 'O');
      const colourOf = (label) => TINTS[Math.max(0, labels.indexOf(bare(label))) % TINTS.length];
      const { p, skipped } = entitiesInText(input, out, colourOf);
      return [
        out.length ? p : h('p', { class: 'note' }, 'No entities found (labels other than O).'),
        labels.length ? h('ul', { class: 'legend entity-legend', 'aria-label': 'entity labels' }, labels.map((l) => h('li', {}, h('mark', { style: `background:${colourOf(l)}` }, l)))) : null,
        skipped.length ? h('p', { class: 'note' }, `${skipped.length} entit${skipped.length > 1 ? 'ies have' : 'y has'} no character offsets (or overlaps another) and is listed below only.`) : null,
        out.length ? h('div', { class: 'scroll' }, h('table', { class: 'entities' },
          h('caption', { class: 'note' }, 'The pipeline’s output: label, score, word and character offsets (end exclusive)'),
          h('thead', {}, h('tr', {}, ['Label', 'Score', 'Word', 'Start', 'End'].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, out.map((e) => h('tr', {}, h('td', {}, entityLabel(e)), h('td', {}, e.score.toFixed(4)), h('td', {}, e.word), h('td', {}, String(e.start ?? '—')), h('td', {}, String(e.end ?? '—'))))))) : null,
      ];
    },
  },
  'question-answering': {
    title: 'Answer a question from a context',
    form() {
      const question = area('task-qa-question', 'Question', 'Where does Sarah live?', 1);
      const context = area('task-qa-context', 'Context', 'Sarah is a doctor. She lives in London with her two cats and works at a hospital near the river.', 3);
      const topK = select('task-qa-topk', 'Answers', [[1, '1'], [3, '3'], [5, '5']], 3);
      return { controls: [question.root, context.root, topK.root], read: () => ({ input: { question: question.input.value, context: context.input.value }, options: { topK: Number(topK.input.value) } }) };
    },
    show(out, { input }) {
      const answers = Array.isArray(out) ? out : [out];
      return [
        h('p', { class: 'note' }, 'The best answer, marked in the context:'),
        answerInContext(input.context, answers[0]),
        h('ol', { class: 'answers', 'aria-label': 'answers, best first' }, answers.map((a) => h('li', { 'data-start': a.start, 'data-end': a.end, 'data-score': a.score },
          h('q', {}, a.answer), ` — score ${a.score.toFixed(4)}, characters ${a.start}–${a.end}`))),
      ];
    },
  },
  'fill-mask': {
    title: 'Fill in the masked word',
    form(head) {
      const mask = head.maskToken ?? '[MASK]';
      const text = area('task-mask-text', `Text with ${mask}`, `The capital of France is ${mask}.`, 2, `one ${mask} token`);
      const topK = select('task-mask-topk', 'Candidates', [[5, '5'], [10, '10']], 5);
      return { controls: [text.root, topK.root], read: () => ({ input: text.input.value, options: { topK: Number(topK.input.value) } }) };
    },
    show(out) {
      // one mask: a list of candidates; several masks: one list per mask
      const lists = Array.isArray(out[0]) ? out : [out];
      return lists.flatMap((list, m) => [
        lists.length > 1 ? h('p', { class: 'note' }, `Mask ${m + 1} of ${lists.length}:`) : null,
        h('ol', { class: 'topk', 'aria-label': `candidates${lists.length > 1 ? ` for mask ${m + 1}` : ''}, best first` }, list.map((c) => h('li', { 'data-token': c.token, 'data-score': c.score },
          h('span', { class: 'bar', style: `width:${(c.score * 8).toFixed(2)}em`, 'aria-hidden': 'true' }),
          h('strong', { class: 'token-str' }, c.token_str), ` ${pct(c.score)} — `, h('span', { class: 'sequence' }, c.sequence)))),
      ]);
    },
  },
  'text-classification': {
    title: 'Classify a text',
    form() {
      const text = area('task-cls-text', 'Text', 'I loved this film.', 2);
      const pair = area('task-cls-pair', 'Second text (optional)', '', 2, 'a text pair, e.g. premise and hypothesis for an NLI head');
      return {
        controls: [text.root, pair.root],
        read: () => ({ input: pair.input.value.trim() ? { text: text.input.value, textPair: pair.input.value } : text.input.value, options: { topK: null } }),
      };
    },
    show(out) {
      const list = Array.isArray(out) ? out : [out];
      return [h('ol', { class: 'topk labels', 'aria-label': 'labels, best first' }, list.map((c) => h('li', { 'data-label': c.label, 'data-score': c.score },
        h('span', { class: 'bar', style: `width:${(c.score * 8).toFixed(2)}em`, 'aria-hidden': 'true' }), h('strong', {}, c.label), ` ${pct(c.score)}`)))];
    },
  },
};
export const TASKS = Object.keys(VIEWS);

/**
 * The view for head.task ({ task, labels, architecture, maskToken } from the worker), or a note
 * when the head has no view. request(cmd, payload) → Promise (the panel's worker); state.task gets
 * { task, input, options, output, timing } after each run.
 */
export function taskView(head, { request, state }) {
  const root = h('div', { class: 'task-view', 'data-task': head?.task ?? '' });
  if (!head?.task) {
    root.append(h('p', { class: 'note' }, 'This checkpoint has no task head (a bare encoder): its forward pass is shown below.'));
    return root;
  }
  const view = VIEWS[head.task];
  const labels = head.labels?.length ? `; labels ${head.labels.join(', ')}` : '';
  root.append(h('h4', {}, view ? view.title : head.task),
    h('p', { class: 'note head-info' }, `Task head: ${head.task}${head.architecture ? ` (${head.architecture})` : ''}${labels}. `,
      view ? [h('code', {}, `pipeline('${head.task}', model)`), ' runs it in the worker.'] : 'The demo has no view for this task.'));
  if (!view) return root;
  const form = view.form(head);
  const btn = h('button', { type: 'button' }, 'Run the pipeline');
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' });
  const out = h('div', { class: 'task-out' });
  root.append(h('div', { class: 'controls', role: 'group', 'aria-label': `${head.task} input` }, form.controls, btn), status, out);
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    status.textContent = `Running pipeline('${head.task}') and timing it…`;
    const { input, options } = form.read();
    try {
      const r = await request('model-pipeline', { task: head.task, input, options });
      state.task = { task: head.task, input, options, output: r.output, timing: r.timing };
      state.taskRuns = (state.taskRuns ?? 0) + 1;
      status.textContent = '';
      out.replaceChildren(...view.show(r.output, { input, options }, head).filter(Boolean), timingLine(`pipeline('${head.task}')`, r, 'task-timing'));
    } catch (err) {
      status.textContent = '';
      state.task = { task: head.task, input, options, error: err.message };
      state.taskRuns = (state.taskRuns ?? 0) + 1;
      out.replaceChildren(errorBox(err.message));
    } finally {
      btn.disabled = false;
    }
  });
  return root;
}
