#!/usr/bin/python3
"""Writes PyTorch-checkpoint and sharded variants of every shared Hugging Face fixture, plus hostile
files, for tests/cpp/checkpoint_*_test.cpp and tests/js/checkpoints.test.mjs. Run with Debian's
python3-torch: /usr/bin/python3 scripts/make-checkpoint-variants.py [out] (default
build/checkpoint-variants). Not committed; scripts/test.sh runs it before the suites.
`--seeds <dir>` writes the fuzz seed corpora instead (fuzz/build.sh; needs the variants first).

  <out>/<fixture>/<variant>/   config.json (+ tokenizer files) and the weight files:
    bin-f32             pytorch_model.bin (torch.save of the state dict, zip format)
    bin-f16             pytorch_model.bin with every float tensor .half()
    safetensors-f16     model.safetensors with the same F16 values (reference for bin-f16)
    bin-sharded         pytorch_model-0000k-of-00003.bin + pytorch_model.bin.index.json
    safetensors-sharded model-0000k-of-00003.safetensors + model.safetensors.index.json
    bin-noncontiguous   every 2-D float tensor saved as a transposed view (w.t().contiguous().t())
    bin-shared-storage  every float tensor a view into one shared storage (offsets)
    bin-custom-root     archive root folder 'my_weights_v2/' instead of 'archive/'
    bin-zip64           the archive rewritten with ZIP64 records (zipfile force_zip64)
    bin-legacy          _use_new_zipfile_serialization=False (refused with advice)
    both-differ         model.safetensors (right weights) + a pytorch_model.bin with different weights
  <out>/hostile/<name>.bin     files the reader must refuse (see HOSTILE below)
  <out>/families-d/<case>/<variant>/  bin-f32, bin-f16, safetensors-f16, bin-sharded, safetensors-sharded of the
                      RoBERTa-family / ELECTRA fixtures of ../shared/fixtures/hf-families-d (FAMILIES_D_CASES)
"""
import io
import json
import os
import pickle
import shutil
import struct
import sys
import zipfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, '..', 'shared', 'fixtures', 'hf')
OUT = sys.argv[1] if len(sys.argv) == 2 else os.path.join(ROOT, 'build', 'checkpoint-variants')
SIDE_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'input.json']
DTYPES = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16, 'I64': torch.int64, 'I32': torch.int32}
NAMES = {v: k for k, v in DTYPES.items()}


def read_safetensors(path):
    data = open(path, 'rb').read()
    n = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == '__metadata__':
            continue
        b, end = e['data_offsets']
        t = torch.frombuffer(bytearray(data[8 + n + b:8 + n + end]), dtype=DTYPES[e['dtype']]) if end > b else torch.empty(0, dtype=DTYPES[e['dtype']])
        out[name] = t.reshape(e['shape']).clone()
    return out


def write_safetensors(path, sd):
    header, blobs, at = {}, [], 0
    for name, t in sd.items():
        raw = t.contiguous().numpy().tobytes() if t.dtype != torch.bfloat16 else t.contiguous().view(torch.int16).numpy().tobytes()
        header[name] = {'dtype': NAMES[t.dtype], 'shape': list(t.shape), 'data_offsets': [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    header['__metadata__'] = {'format': 'pt'}
    h = json.dumps(header).encode()
    h += b' ' * (-len(h) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))


def save_bin(path, sd, **kw):
    torch.save(sd, path, **kw)


def rezip(src, dst, rename_root=None, force_zip64=False):
    """Copies a torch zip archive entry by entry (stored), optionally renaming the root folder or
    forcing ZIP64 records."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w', compression=zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            name = info.filename
            if rename_root:
                name = rename_root + name[name.index('/'):]
            data = zin.read(info)
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_STORED
            with zout.open(zi, 'w', force_zip64=force_zip64) as f:
                f.write(data)
    if force_zip64:
        # zipfile writes ZIP64 extra fields in local headers; add the ZIP64 end records as well by
        # marking the central directory counts as "see ZIP64" (what big torch files do).
        data = bytearray(open(dst, 'rb').read())
        eocd = data.rfind(b'PK\x05\x06')
        entries, cd_size, cd_offset = struct.unpack('<HII', data[eocd + 10:eocd + 20])
        rec = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, entries, entries, cd_size, cd_offset)
        loc = struct.pack('<IIQI', 0x07064b50, 0, eocd, 1)
        end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
        open(dst, 'wb').write(bytes(data[:eocd]) + rec + loc + end)


def split(sd, k):
    names = list(sd)
    per = (len(names) + k - 1) // k
    return [{n: sd[n] for n in names[i * per:(i + 1) * per]} for i in range(k)]


def write_sharded(folder, sd, kind):
    parts = split(sd, 3)
    weight_map = {}
    for i, part in enumerate(parts):
        if kind == 'bin':
            name = f'pytorch_model-{i + 1:05d}-of-{len(parts):05d}.bin'
            save_bin(os.path.join(folder, name), part)
        else:
            name = f'model-{i + 1:05d}-of-{len(parts):05d}.safetensors'
            write_safetensors(os.path.join(folder, name), part)
        for n in part:
            weight_map[n] = name
    index = 'pytorch_model.bin.index.json' if kind == 'bin' else 'model.safetensors.index.json'
    total = sum(t.numel() * t.element_size() for t in sd.values())
    json.dump({'metadata': {'total_size': total}, 'weight_map': weight_map}, open(os.path.join(folder, index), 'w'), indent=1)


def noncontiguous(sd):
    out = {}
    for n, t in sd.items():
        if t.dim() == 2 and t.is_floating_point():
            v = t.t().contiguous().t()  # same values, column-major strides
            assert not v.is_contiguous() or min(t.shape) == 1
            out[n] = v
        else:
            out[n] = t
    return out


def shared_storage(sd):
    floats = [n for n, t in sd.items() if t.is_floating_point()]
    flat = torch.cat([sd[n].reshape(-1) for n in floats])
    out, at = {}, 0
    for n, t in sd.items():
        if t.is_floating_point():
            out[n] = flat[at:at + t.numel()].view(t.shape)
            at += t.numel()
        else:
            out[n] = t
    return out


def variant(case, name):
    folder = os.path.join(OUT, case, name)
    os.makedirs(folder, exist_ok=True)
    for f in SIDE_FILES:
        src = os.path.join(FIXTURES, case, f)
        if os.path.exists(src):
            shutil.copy(src, folder)
    return folder


def make_case(case):
    sd = read_safetensors(os.path.join(FIXTURES, case, 'model.safetensors'))
    half = {n: (t.half() if t.is_floating_point() else t) for n, t in sd.items()}
    save_bin(os.path.join(variant(case, 'bin-f32'), 'pytorch_model.bin'), sd)
    save_bin(os.path.join(variant(case, 'bin-f16'), 'pytorch_model.bin'), half)
    write_safetensors(os.path.join(variant(case, 'safetensors-f16'), 'model.safetensors'), half)
    write_sharded(variant(case, 'bin-sharded'), sd, 'bin')
    write_sharded(variant(case, 'safetensors-sharded'), sd, 'safetensors')
    save_bin(os.path.join(variant(case, 'bin-noncontiguous'), 'pytorch_model.bin'), noncontiguous(sd))
    save_bin(os.path.join(variant(case, 'bin-shared-storage'), 'pytorch_model.bin'), shared_storage(sd))
    plain = os.path.join(OUT, case, 'bin-f32', 'pytorch_model.bin')
    rezip(plain, os.path.join(variant(case, 'bin-custom-root'), 'pytorch_model.bin'), rename_root='my_weights_v2')
    rezip(plain, os.path.join(variant(case, 'bin-zip64'), 'pytorch_model.bin'), force_zip64=True)
    save_bin(os.path.join(variant(case, 'bin-legacy'), 'pytorch_model.bin'), sd, _use_new_zipfile_serialization=False)
    both = variant(case, 'both-differ')
    shutil.copy(os.path.join(FIXTURES, case, 'model.safetensors'), both)
    save_bin(os.path.join(both, 'pytorch_model.bin'), {n: (t + 1 if t.is_floating_point() else t) for n, t in sd.items()})


# ---- hostile files --------------------------------------------------------------------------------

class Evil:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


def pickle_zip(path, payload, root='archive', extra=None):
    with zipfile.ZipFile(path, 'w', compression=zipfile.ZIP_STORED) as z:
        z.writestr(f'{root}/data.pkl', payload)
        z.writestr(f'{root}/version', '3\n')
        for k, v in (extra or {}).items():
            z.writestr(f'{root}/{k}', v)


def raw_global(module, name):
    # PROTO 2, GLOBAL module.name, EMPTY_TUPLE, REDUCE, STOP — written by hand: never built by pickling
    return b'\x80\x02c' + module.encode() + b'\n' + name.encode() + b'\n)R.'


def make_hostile():
    folder = os.path.join(OUT, 'hostile')
    os.makedirs(folder, exist_ok=True)
    p = lambda n: os.path.join(folder, n)
    pickle_zip(p('os-system.bin'), raw_global('os', 'system'))
    pickle_zip(p('builtins-eval.bin'), raw_global('builtins', 'eval'))
    pickle_zip(p('builtin-eval-reduce.bin'), pickle.dumps(Evil(eval, '1+1'), protocol=2))  # protocol 2 names it __builtin__.eval
    pickle_zip(p('posix-system.bin'), pickle.dumps(Evil(os.system, 'echo pwned'), protocol=2))  # os.system pickles as posix.system
    pickle_zip(p('unknown-global.bin'), raw_global('mylib.layers', 'CustomTensor'))
    ok = os.path.join(OUT, 'bert-absolute', 'bin-f32', 'pytorch_model.bin')
    data = open(ok, 'rb').read()
    open(p('truncated.bin'), 'wb').write(data[:len(data) // 2])
    with zipfile.ZipFile(ok) as zin, zipfile.ZipFile(p('compressed.bin'), 'w') as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info), compress_type=zipfile.ZIP_DEFLATED)
    # A storage tensor by hand: pickle via a persistent_id hook over a small state dict.
    class Marker:
        pass
    def state_pickle(pid, size=(2, 2), stride=(2, 1), offset=0):
        buf = io.BytesIO()
        marker = Marker()
        class P(pickle.Pickler):
            def persistent_id(self, obj):
                return pid if obj is marker else None
        tensor_args = (marker, offset, size, stride, False, {})
        import collections
        rebuild = torch._utils._rebuild_tensor_v2
        class T:
            def __reduce__(self):
                return (rebuild, tensor_args)
        d = collections.OrderedDict([('w', T())])
        P(buf, protocol=2).dump(d)
        return buf.getvalue()
    four = struct.pack('<4f', 1, 2, 3, 4)
    pickle_zip(p('bad-persistent-id.bin'), state_pickle(('storage', torch.FloatStorage, '0', 'cpu')), extra={'data/0': four})
    pickle_zip(p('storage-too-small.bin'), state_pickle(('storage', torch.FloatStorage, '0', 'cpu', 4), size=(3, 2)), extra={'data/0': four})
    pickle_zip(p('unsupported-dtype.bin'), state_pickle(('storage', torch.DoubleStorage, '0', 'cpu', 2)),
               extra={'data/0': four})
    shutil.copy(os.path.join(OUT, 'bert-absolute', 'bin-legacy', 'pytorch_model.bin'), p('legacy.bin'))
    shutil.copy(os.path.join(FIXTURES, 'bert-absolute', 'config.json'), folder)


def make_seeds(out):
    """Small seed corpora for fuzz/fuzz_torch_zip.cpp (<out>/torch_zip) and fuzz/fuzz_pickle.cpp
    (<out>/pickle): tiny state dicts in each variant's form, plus the hostile files, all < 64 KiB."""
    zdir, pdir = os.path.join(out, 'torch_zip'), os.path.join(out, 'pickle')
    os.makedirs(zdir, exist_ok=True)
    os.makedirs(pdir, exist_ok=True)
    g = torch.Generator().manual_seed(0)
    w = torch.randn(3, 4, generator=g)
    base = {'w': w, 'b': torch.randn(4, generator=g), 'ids': torch.arange(5)}
    dicts = {
        'f32': base,
        'f16': {n: (t.half() if t.is_floating_point() else t) for n, t in base.items()},
        'bf16': {n: (t.bfloat16() if t.is_floating_point() else t) for n, t in base.items()},
        'noncontiguous': noncontiguous(base),
        'shared': shared_storage(base),
        'int32': {'i': torch.arange(6, dtype=torch.int32).reshape(2, 3)},
        'empty': {'e': torch.zeros(0, 3)},
    }
    for name, sd in dicts.items():
        path = os.path.join(zdir, name + '.bin')
        torch.save(sd, path)
        with zipfile.ZipFile(path) as z:
            open(os.path.join(pdir, name + '.pkl'), 'wb').write(z.read(next(n for n in z.namelist() if n.endswith('/data.pkl'))))
    rezip(os.path.join(zdir, 'f32.bin'), os.path.join(zdir, 'custom-root.bin'), rename_root='root')
    rezip(os.path.join(zdir, 'f32.bin'), os.path.join(zdir, 'zip64.bin'), force_zip64=True)
    hostile = os.path.join(OUT, 'hostile')
    for f in sorted(os.listdir(hostile)):
        if f.endswith('.bin') and os.path.getsize(os.path.join(hostile, f)) < 65536:
            shutil.copy(os.path.join(hostile, f), os.path.join(zdir, 'hostile-' + f))


FAMILIES_D = os.path.join(ROOT, '..', 'shared', 'fixtures', 'hf-families-d')
FAMILIES_D_CASES = ['xlm-roberta-a', 'electra-a', 'roberta-mlm']


def make_families_d_case(case):
    """The checkpoint formats of tests/cpp/hf_family_fixtures_roberta_electra_test.cpp."""
    sd = read_safetensors(os.path.join(FAMILIES_D, case, 'model.safetensors'))
    half = {n: (t.half() if t.is_floating_point() else t) for n, t in sd.items()}
    out = lambda v: variant(os.path.join('families-d', case), v)
    save_bin(os.path.join(out('bin-f32'), 'pytorch_model.bin'), sd)
    save_bin(os.path.join(out('bin-f16'), 'pytorch_model.bin'), half)
    write_safetensors(os.path.join(out('safetensors-f16'), 'model.safetensors'), half)
    write_sharded(out('bin-sharded'), sd, 'bin')
    write_sharded(out('safetensors-sharded'), sd, 'safetensors')


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--seeds':
        make_seeds(sys.argv[2])
        return
    cases = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
    for case in cases:
        make_case(case)
    if os.path.isdir(FAMILIES_D):
        for case in FAMILIES_D_CASES:
            make_families_d_case(case)
    make_hostile()
    print(f'checkpoint variants: {len(cases)} fixtures → {OUT}')


if __name__ == '__main__':
    main()
