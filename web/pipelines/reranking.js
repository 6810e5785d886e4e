// Qwen3-Reranker through pipeline('text-classification', model) on (query, document) pairs. A causal LM judges
// whether the document meets the query and the score is its probability of answering "yes", exactly as the
// Qwen3-Reranker model card computes it:
//   prompt  <|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the
//           Instruct provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n
//           + "<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {document}"
//           + <|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n
//           (prefix, middle and suffix tokenized separately without special tokens and concatenated, as the card
//           does; truncation shortens the middle so that the whole fits maxLength)
//   score   softmax(logit[no], logit[yes])[yes] at the last token (forward's logitsAt: one vocabulary row per pair)
// A checkpoint is such a reranker when its head is a causal LM (config.json architectures Qwen3ForCausalLM:
// model.head.task 'text-generation'): text-classification has no other meaning for a causal LM. The "yes" and
// "no" token ids come from the tokenizer (tokens 'yes' and 'no'; options yesToken / noToken override).
import { checkKnownOptions, describe } from '../validation.js';
import { batchSizeOption, forwardBatched, LENGTH_OPTIONS, lengthOptions, softmax } from './batching.js';
import { checkTopK, requireTokenizer } from './common.js';

export const RERANKER_PREFIX =
  '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. ' +
  'Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n';
export const RERANKER_SUFFIX = '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';
export const RERANKER_INSTRUCTION = 'Given a web search query, retrieve relevant passages that answer the query';

/** Whether pipeline('text-classification') runs `model` as a yes/no reranker (a causal-LM head). */
export const isReranker = (model) => model.head?.task === 'text-generation';

/** The middle of the prompt for one pair (the model card's format_instruction). */
export const rerankerMiddle = (instruction, query, document) => `<Instruct>: ${instruction}\n<Query>: ${query}\n<Document>: ${document}`;

function tokenId(tokenizer, token, option, task) {
  if (typeof token !== 'string' || token === '') throw new TypeError(`${task}: ${option}: expected a token string such as 'yes', got ${describe(token)}`);
  const id = tokenizer.token_to_id(token);
  if (id === undefined || id === null)
    throw new Error(`${task}: the tokenizer has no token ${JSON.stringify(token)} for the reranker's answer (pass ${option} with a token of its vocabulary)`);
  return id;
}

function pair(x, where) {
  if (x !== null && typeof x === 'object' && !Array.isArray(x) && typeof x.text === 'string') {
    const doc = x.textPair ?? x.text_pair;
    if (typeof doc === 'string') return { query: x.text, document: doc };
  }
  throw new TypeError(`${where}: a reranker scores (query, document) pairs: expected { text: query, textPair: document }, got ${describe(x)}`);
}

export function reranking(model, task = 'text-classification') {
  return async function rerank(input, options = {}) {
    checkKnownOptions(options, `${task}: options`, ['topK', 'functionToApply', 'instruction', 'yesToken', 'noToken', ...LENGTH_OPTIONS]);
    requireTokenizer(model, task);
    const tok = model.tokenizer;
    const legacy = !('topK' in options);
    const topK = legacy ? 1 : checkTopK(options.topK, task, { allowNull: true });
    const instruction = options.instruction ?? RERANKER_INSTRUCTION;
    if (typeof instruction !== 'string') throw new TypeError(`${task}: instruction: expected a string, got ${describe(instruction)}`);
    if (options.functionToApply !== undefined && options.functionToApply !== 'softmax')
      throw new Error(`${task}: functionToApply: a reranker's score is softmax(logit[no], logit[yes])[yes]; got ${describe(options.functionToApply)}`);
    const yes = tokenId(tok, options.yesToken ?? 'yes', 'yesToken', task);
    const no = tokenId(tok, options.noToken ?? 'no', 'noToken', task);
    // A GGUF reranker's head (RANK pooling) holds only its answer rows, in classifier.output_labels order.
    const labels = model.gguf?.rankLabels ?? null;
    const answer = (id, token) => (labels ? labels.indexOf(token) : id);
    const yesAt = answer(yes, options.yesToken ?? 'yes'), noAt = answer(no, options.noToken ?? 'no');
    if (yesAt < 0 || noAt < 0) throw new Error(`${task}: the GGUF reranker's labels are ${JSON.stringify(labels)}, without ${JSON.stringify(yesAt < 0 ? options.yesToken ?? 'yes' : options.noToken ?? 'no')}`);
    const { truncation, maxLength } = lengthOptions(model, options, task);
    const batchSize = batchSizeOption(options, task);
    const many = Array.isArray(input);
    if (many && input.length === 0) throw new TypeError(`${task}: expected { text: query, textPair: document } or a non-empty array of them, got Array(0)`);
    const items = (many ? input : [input]).map((x, i) => pair(x, many ? `${task}: input[${i}]` : task));
    const ids = (text) => tok.encode(text, { add_special_tokens: false }).ids;
    const prefix = ids(RERANKER_PREFIX), suffix = ids(RERANKER_SUFFIX);
    const encodings = items.map(({ query, document }, i) => {
      let middle = ids(rerankerMiddle(instruction, query, document));
      if (maxLength !== null) {
        const room = maxLength - prefix.length - suffix.length;
        if (room < 1) throw new RangeError(`${task}: maxLength ${maxLength} leaves no room for the pair after the prompt's ${prefix.length + suffix.length} tokens`);
        if (middle.length > room) {
          if (!truncation) throw new RangeError(`${task}: ${many ? `input[${i}]` : 'the input'} has ${prefix.length + middle.length + suffix.length} tokens with the prompt, more than maxLength ${maxLength}`);
          middle = middle.slice(0, room);
        }
      }
      return { ids: [...prefix, ...middle, ...suffix] };
    });
    const results = new Array(items.length);
    const at = (idx) => ({ logits: true, logitsAt: idx.map((i, b) => [b, encodings[i].ids.length - 1]) });
    await forwardBatched(model, encodings, batchSize, at, (r, row, i) => {
      const V = r.logits.dims[1];
      const [pNo, pYes] = softmax([r.logits.data[row * V + noAt], r.logits.data[row * V + yesAt]]);
      const scores = [{ label: 'yes', score: pYes }, { label: 'no', score: pNo }];
      results[i] = legacy ? scores[0] : scores.sort((a, b) => b.score - a.score).slice(0, topK ?? undefined);
    });
    if (!legacy) return many ? results : results[0];
    return many ? results : [results[0]];
  };
}
