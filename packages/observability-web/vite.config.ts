import { defineConfig } from 'vite';

// The dashboard is served by the observability service from this build; asset names carry
// content hashes so the service can cache them as immutable.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npx vite` in this folder serves the app with live reload, its API calls going to a local
  // observability service (cookies and CSRF work because the browser sees one origin).
  server: {
    proxy: { '/api': process.env.OBSERVABILITY_URL ?? 'http://127.0.0.1:8081' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Inlined assets would need `data:` in the CSP for more than images; keep them as files.
    assetsInlineLimit: 0,
  },
});
