/**
 * Ships the framework typings written as declaration files (`src/vue.d.ts`,
 * `src/svelte.d.ts`): tsc never copies a `.d.ts` into its output. Each gets
 * the empty module that tsc writes for the types-only entries it compiles
 * (`dist/jsx.js`), so `import 'pay-checkout/vue'` resolves in every tool.
 * They are hand-written because this repository installs neither Vue nor
 * Svelte; the package tests check them with `vue-tsc` and `svelte-check`.
 *
 *   node scripts/copy-type-entries.mjs src dist
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The entries whose types are a declaration file in `src/`. */
const DECLARATION_ENTRIES = ['vue', 'svelte'];

const [source = 'src', target = 'dist'] = process.argv.slice(2);
for (const entry of DECLARATION_ENTRIES) {
  copyFileSync(join(source, `${entry}.d.ts`), join(target, `${entry}.d.ts`));
  writeFileSync(
    join(target, `${entry}.js`),
    `// pay-checkout/${entry} is types only: see ${entry}.d.ts.\nexport {};\n`,
  );
}
