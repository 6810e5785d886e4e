// A plain webpack 5 production build: nothing relpos-specific is configured. The small plugin only
// copies index.html into the output (what html-webpack-plugin would do) so the config needs no packages.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const html = readFileSync(new URL('./index.html', import.meta.url), 'utf8');

export default {
  mode: 'production',
  context: fileURLToPath(new URL('.', import.meta.url)),
  entry: '../app.js',
  output: { path: fileURLToPath(new URL('./dist/', import.meta.url)), filename: 'main.js', clean: true },
  performance: { hints: false },
  plugins: [
    {
      apply(compiler) {
        compiler.hooks.thisCompilation.tap('EmitIndexHtml', (compilation) => {
          compilation.hooks.processAssets.tap({ name: 'EmitIndexHtml', stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
            compilation.emitAsset('index.html', new compiler.webpack.sources.RawSource(html));
          });
        });
      },
    },
  ],
};
