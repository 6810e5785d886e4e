// A plain production build: nothing relpos-specific is configured.
export default {
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true },
};
