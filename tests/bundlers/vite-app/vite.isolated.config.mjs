// The same app with the response headers that make the page cross-origin isolated, so relpos may run
// its threads build, on the dev server (`vite`) and on `vite preview`.
import config from './vite.config.mjs';

const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default { ...config, server: { headers }, preview: { headers } };
