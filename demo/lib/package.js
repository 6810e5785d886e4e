// Loads the relpos package the way an npm user would: `import { init } from 'relpos'` (resolved by
// the import map in index.html to the package entry point web/index.js) and init() with the
// location of its web/dist .wasm files. Workers cannot use import maps, so they pass the
// entry point's URL explicitly (see worker.js).

export const PACKAGE_URL = new URL('../../web/index.js', import.meta.url).href;
export const WASM_DIR = new URL('../../web/dist/', import.meta.url).href;

// simd: 'auto' | true | false
export async function loadRelpos(simd = 'auto', entry = 'relpos') {
  let mod;
  try {
    mod = await import(entry);
  } catch (err) {
    throw new Error(
      `Could not import the relpos package (${entry} → web/index.js): ${err.message}. ` +
        'Build it with `bash scripts/build.sh` (or `npm start`, which builds when needed).',
    );
  }
  const init = mod.init ?? mod.default?.init ?? mod.default;
  if (typeof init !== 'function') throw new Error('relpos: web/index.js exports no init()');
  return init({ simd, wasmPaths: WASM_DIR });
}

// A short human description of which build is running.
export function describeBuild(rp) {
  if (rp.standIn) return 'JS stand-in (not the WebAssembly package)';
  return rp.simd ? 'WebAssembly SIMD128 build' : 'WebAssembly scalar build';
}
