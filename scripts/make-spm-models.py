#!/usr/bin/python3
"""Makes small SentencePiece models with spm_train and the SentencePiece library's reference ids.

Run as /usr/bin/python3 (Debian's python3-sentencepiece). Writes into build/spm/ (not committed):
  <name>.model          one model per row of MODELS below
  reference.json        { models: {name: {file, options}}, texts: [...],
                          ids: {name: [[id, ...] per text]}, pieces: {name: [[piece, ...] per text]},
                          sweep: {model, points, ids, kept} (every code point between 'a' and 'b') }
tests/js/sentencepiece.test.mjs compares web/sentencepiece.js + @huggingface/tokenizers against it.

  /usr/bin/python3 scripts/make-spm-models.py [outdir]
"""
import json
import os
import random
import subprocess
import sys

import sentencepiece as spm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build', 'spm')

# Training text: English-like words with accents, digits and punctuation; a few rare symbols
# (CJK, emoji) stay under the character coverage, so they are unknown to the models.
WORDS = ('the quick brown fox jumps over lazy dog attention relative position encoder model token '
         'piece sentence word café naïve résumé über straße señor año déjà vu façade jalapeño '
         'hello world data 2024 3.14 100% e-mail user@example.com (parens) [brackets] "quotes" '
         "it's don't can't l'été Ünïcödé ÀÉÎÕÜ").split()
RARE = ['日本', '語', '😀', '中文', '☃']


def corpus(path):
    rnd = random.Random(1234)
    with open(path, 'w', encoding='utf-8') as f:
        for i in range(4000):
            n = rnd.randint(3, 14)
            line = ' '.join(rnd.choice(WORDS) for _ in range(n))
            if i % 9 == 0:
                line = line.capitalize() + '.'
            if i % 13 == 0:
                line += ', ' + str(rnd.randint(0, 99999))
            if i % 400 == 0:
                line += ' ' + rnd.choice(RARE)
            f.write(line + '\n')


COMMON = ['--character_coverage=0.9995', '--num_threads=1', '--minloglevel=2']
# name: (spm_train options, description)
MODELS = {
    'unigram-nfkc': ['--model_type=unigram', '--vocab_size=300'],
    'unigram-nfkc-rule': ['--model_type=unigram', '--vocab_size=300', '--normalization_rule_name=nfkc'],
    'unigram-identity': ['--model_type=unigram', '--vocab_size=300', '--normalization_rule_name=identity'],
    'unigram-bytefallback': ['--model_type=unigram', '--vocab_size=400', '--byte_fallback=true'],
    'unigram-keep-whitespace': ['--model_type=unigram', '--vocab_size=300', '--normalization_rule_name=identity',
                                '--remove_extra_whitespaces=false'],
    'unigram-no-dummy-prefix': ['--model_type=unigram', '--vocab_size=300', '--add_dummy_prefix=false'],
    'unigram-user-symbols': ['--model_type=unigram', '--vocab_size=300', '--user_defined_symbols=<sym>,@@',
                             '--control_symbols=<ctl>'],
    'bpe-user-symbols': ['--model_type=bpe', '--vocab_size=300', '--user_defined_symbols=<sym>,@@',
                         '--control_symbols=<ctl>'],
    'bpe-nfkc': ['--model_type=bpe', '--vocab_size=300'],
    'bpe-identity': ['--model_type=bpe', '--vocab_size=300', '--normalization_rule_name=identity'],
    'bpe-bytefallback': ['--model_type=bpe', '--vocab_size=400', '--byte_fallback=true'],
    'bpe-keep-whitespace': ['--model_type=bpe', '--vocab_size=300', '--remove_extra_whitespaces=false'],
    'bpe-no-dummy-prefix': ['--model_type=bpe', '--vocab_size=300', '--add_dummy_prefix=false',
                            '--normalization_rule_name=identity'],
    # DeBERTa-v3's layout: [PAD]=0 [CLS]=1 [SEP]=2 [UNK]=3 (control pieces), [MASK] user-defined.
    'deberta': ['--model_type=unigram', '--vocab_size=96', '--pad_id=0', '--pad_piece=[PAD]', '--bos_id=1',
                '--bos_piece=[CLS]', '--eos_id=2', '--eos_piece=[SEP]', '--unk_id=3', '--unk_piece=[UNK]',
                '--user_defined_symbols=[MASK]'],
    # T5's layout: <pad>=0 </s>=1 <unk>=2, no <s>.
    't5': ['--model_type=unigram', '--vocab_size=96', '--pad_id=0', '--eos_id=1', '--unk_id=2', '--bos_id=-1'],
}

TEXTS = [
    'Hello world',
    'the quick brown fox jumps over the lazy dog.',
    'Café naïve résumé über Straße, señor año: déjà vu!',
    'Ünïcödé ÀÉÎÕÜ àéîõü',
    'e\u0301 composed vs e\u0301\u0301 combining marks',
    '日本語のテキスト and 中文',
    'emoji 😀👍🏽 and ☃ snowman',
    'family 👨\u200d👩\u200d👧 joined by ZWJ',
    'multiple    spaces   between',
    '  leading and trailing spaces  ',
    ' ',
    '',
    'tabs\tand\nnewlines\r\nmixed \t \n whitespace',
    'numbers 2024 3.14159 100% -42 1,000,000',
    'punctuation!?.,;:()[]{}<>"\'`~@#$%^&*_-+=/\\|',
    'user@example.com (parens) [brackets] "quotes"',
    "it's don't can't l'été",
    'ＦＵＬＬＷＩＤＴＨ ｆｕｌｌ ① ﬁ ligature ㎏',
    'zero\u200bwidth\u00a0nbsp\u3000ideographic space',
    'control\u0001chars\u007fhere',
    '\u2581lower one eighth block',
    'UPPER lower MiXeD',
    'x',
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    'unknown ҖҗӜӝ Ωψ ⅷ ✓',
    'a<sym>b @@ c <ctl> d [MASK] e',
    '<sym>start and end<sym>',
    '<0x41> <s> </s> <unk> literal piece names',
    'café CAFÉ Café',
    'Hello World',
]

# Random strings over a pool that mixes what the fixed texts test one by one.
POOL = list('abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ 0123456789 .,;:!?-()[]"\'') + \
    ['  ', '   ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u200b', 'é', 'e\u0301', 'ü', 'ß', 'ñ', 'À', 'ｆ', '①', 'ﬁ',
     '日', '本', '語', '😀', '👍🏽', '☃', 'Ω', '\u0001', '\u2581', '<sym>', '@@', '<ctl>', 'the ', 'model ', 'café ', '000']


def random_texts(n):
    rnd = random.Random(99)
    return [''.join(rnd.choice(POOL) for _ in range(rnd.randint(1, 30))) for _ in range(n)]


TEXTS += random_texts(200)


def main():
    os.makedirs(OUT, exist_ok=True)
    text_path = os.path.join(OUT, 'corpus.txt')
    corpus(text_path)
    ref = {'models': {}, 'texts': TEXTS, 'ids': {}, 'pieces': {}}
    for name, opts in MODELS.items():
        prefix = os.path.join(OUT, name)
        subprocess.run(['spm_train', f'--input={text_path}', f'--model_prefix={prefix}', *COMMON, *opts],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sp = spm.SentencePieceProcessor(model_file=prefix + '.model')
        ref['models'][name] = {'file': name + '.model', 'options': opts, 'vocab_size': sp.get_piece_size()}
        ref['ids'][name] = [sp.encode(t, out_type=int) for t in TEXTS]
        ref['pieces'][name] = [sp.encode(t, out_type=str) for t in TEXTS]
        ref['models'][name]['piece_ids'] = {p: sp.piece_to_id(p) for p in ['[CLS]', '[SEP]', '[PAD]', '[UNK]', '[MASK]', '</s>', '<pad>', '<unk>']
                                            if sp.id_to_piece(sp.piece_to_id(p)) == p}
    # Every code point (BMP, plane 1, tags) alone between 'a' and 'b' through the nmt_nfkc model:
    # the charsmap of SentencePiece against the normalizer of the tokenizers library.
    sp = spm.SentencePieceProcessor(model_file=os.path.join(OUT, 'unigram-nfkc.model'))
    points = [c for c in range(1, 0x20000) if not 0xD800 <= c < 0xE000] + list(range(0xE0000, 0xE0080))
    ref['sweep'] = {'model': 'unigram-nfkc', 'points': points,
                    'ids': [sp.encode('a' + chr(c) + 'b') for c in points],
                    'kept': [c for c in points if chr(c) in ''.join(sp.encode('a' + chr(c) + 'b', out_type=str))]}
    with open(os.path.join(OUT, 'reference.json'), 'w', encoding='utf-8') as f:
        json.dump(ref, f, ensure_ascii=False)
    print(f'make-spm-models: {len(MODELS)} models × {len(TEXTS)} texts → {OUT}')


if __name__ == '__main__':
    main()
