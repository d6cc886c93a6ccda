import { defineConfig } from 'vite';

// The dashboard is served by the observability service from this build; asset names carry
// content hashes so the service can cache them as immutable.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Inlined assets would need `data:` in the CSP for more than images; keep them as files.
    assetsInlineLimit: 0,
  },
});
