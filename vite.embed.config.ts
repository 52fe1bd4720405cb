/**
 * Builds the one-file embed: `dist/pay-checkout.embed.js`, the element with
 * Lit bundled, for a single `<script>` tag. The unbundled ES
 * modules for npm come from `tsc -p tsconfig.build.json`.
 */
import { defineConfig, type Plugin } from 'vite';
import { minifyStylesModule } from './scripts/minify-css.mjs';

/**
 * Minifies the stylesheets of the element's `*.styles.ts` modules, as the
 * build does for the npm modules (scripts/minify-css.mjs). Only a module that
 * ends with its template is touched, so the source map stays exact (`map: null`).
 */
function minifyElementStyles(): Plugin {
  return {
    name: 'pay-checkout:minify-element-styles',
    transform: {
      filter: { id: /\/src\/element\/[^/]+\.styles\.ts$/ },
      handler(code) {
        const minified = minifyStylesModule(code);
        return minified === null ? null : { code: minified, map: null };
      },
    },
  };
}

/**
 * Puts French in the bundle: the element's `load-french-strings.ts` fetches
 * French as a chunk of its own, and the embed is one file with nothing else
 * to load (contract §1), so it takes `load-french-strings.embed.ts` instead.
 */
function bundleFrenchStrings(): Plugin {
  return {
    name: 'pay-checkout:bundle-french-strings',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source !== './load-french-strings.js' || !importer?.includes('/src/element/')) return null;
      return this.resolve('./load-french-strings.embed.js', importer);
    },
  };
}

export default defineConfig({
  plugins: [minifyElementStyles(), bundleFrenchStrings()],
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
