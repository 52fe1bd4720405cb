/**
 * Builds the one-file embed: `dist/pay-checkout.embed.js`, the element with
 * Lit and zod/mini bundled, for a single `<script>` tag. The unbundled ES
 * modules for npm come from `tsc -p tsconfig.build.json`.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: 'src/embed.ts',
      name: 'PayCheckout',
      formats: ['iife'],
      fileName: () => 'pay-checkout.embed.js',
    },
  },
});
