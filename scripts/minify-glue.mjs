// Minifies an Emscripten glue file of the npm package in place (cmake/wasm_package.cmake runs it
// after each package link): terser's compress + local-name mangling, module mode (the glue is an
// ES module factory). Emscripten's own -O3 output only strips whitespace — it leaves that to Closure
// Compiler, which Debian does not package — so this takes the SIMD glue from ~14 to ~10 KiB gzip.
// Property names are never mangled (Module['…'], Embind's registries, the wasm's export names).
//   node scripts/minify-glue.mjs web/dist/relpos-simd.js [...]
import { readFileSync, writeFileSync } from 'node:fs';

let minify;
try {
  ({ minify } = await import('terser'));
} catch (e) {
  console.error(`minify-glue: the terser package is missing (${e.message}); run npm ci (scripts/bootstrap.sh does)`);
  process.exit(1);
}

for (const file of process.argv.slice(2)) {
  const code = readFileSync(file, 'utf8');
  const out = await minify(code, { module: true, compress: { passes: 2 }, mangle: true, format: { comments: false } });
  if (!out.code) throw new Error(`minify-glue: ${file}: terser returned nothing`);
  writeFileSync(file, out.code);
  console.log(`minify-glue: ${file}: ${code.length} → ${out.code.length} bytes`);
}
