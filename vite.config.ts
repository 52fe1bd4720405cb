/**
 * Builds the sales demo page: `index.html` at the root, its script
 * `demo/main.ts` (which bundles the element from source) and its styles, into
 * `dist/demo/`, which `demo/server.ts` serves. The embed bundle has its own
 * config, `vite.embed.config.ts`.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  root: '.',
  publicDir: false,
  build: {
    outDir: 'dist/demo',
    emptyOutDir: true,
    target: 'es2022',
    // Files, not data: URLs: the CSP allows data: images, but a file is cached once for every visit.
    assetsInlineLimit: 0,
    // The polyfill is an inline-free script, but no browser we target needs it.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
