/**
 * What the element costs a page, gzip -9: the one-file embed (budget
 * 17 KiB, the build's own gate) and the npm entry `pay-checkout` bundled and
 * minified with Lit left out, as an app that already has Lit pays for it
 * (target 10,160 B, its size before the element became a session, a form
 * controller and templates);
 * the French texts are a chunk of their own that only French pages fetch.
 * It runs `npm run build` first and bundles the ES modules in `dist/` as
 * npm ships them, so no figure comes from a stale build. Writes
 * bench/results/size.json, with every module of the ESM entry, heaviest first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { EMBED_BUDGET_GZIP_BYTES } from '../scripts/size-budget.mjs';
import { writeResults } from './lib.js';

const ESM_WITHOUT_LIT_BUDGET_GZIP_BYTES = 10_160;
/** Lit and its parts: a dependency the host app shares, so not the element's weight. */
const LIT = /^(lit|lit-html|lit-element|@lit\/[^/]+|@lit-labs\/[^/]+)(\/.*)?$/;
const root = fileURLToPath(new URL('../', import.meta.url));

/** One built bundle's figures. */
interface BundleSize {
  bytes: number;
  gzipBytes: number;
  budgetGzipBytes?: number;
  withinBudget?: boolean;
}

/** One module's share of a bundle: its code after tree-shaking, before minification. */
interface Contributor {
  module: string;
  renderedBytes: number;
  /** Of the rendered bytes of all modules. */
  share: number;
  /** That code gzipped on its own: a rough weight, since gzip does better on the whole bundle. */
  gzipBytesAlone: number;
}

function sizeOf(code: string, budgetGzipBytes?: number): BundleSize {
  const gzipBytes = gzipSync(code, { level: 9 }).byteLength;
  const figures: BundleSize = { bytes: Buffer.byteLength(code), gzipBytes };
  if (budgetGzipBytes === undefined) return figures;
  return { ...figures, budgetGzipBytes, withinBudget: gzipBytes <= budgetGzipBytes };
}

function chunksOf(result: Awaited<ReturnType<typeof build>>): Rolldown.OutputChunk[] {
  const outputs = Array.isArray(result) ? result : [result];
  return outputs.flatMap((output) =>
    'output' in output ? output.output.filter((item) => item.type === 'chunk') : [],
  );
}

/** The chunk a page loads first; others (French) load only when needed. */
function entryChunk(result: Awaited<ReturnType<typeof build>>): Rolldown.OutputChunk {
  const entry = chunksOf(result).find((chunk) => chunk.isEntry);
  if (!entry) throw new Error('The build produced no entry chunk.');
  return entry;
}

function contributors(chunk: Rolldown.OutputChunk): Contributor[] {
  const modules = Object.entries(chunk.modules).map(([id, info]) => ({
    module: id.startsWith(root) ? id.slice(root.length) : id,
    renderedBytes: info.renderedLength,
    gzipBytesAlone: info.code ? gzipSync(info.code, { level: 9 }).byteLength : 0,
  }));
  const total = modules.reduce((sum, entry) => sum + entry.renderedBytes, 0) || 1;
  return modules
    .sort((a, b) => b.renderedBytes - a.renderedBytes)
    .map((entry) => ({ ...entry, share: Math.round((entry.renderedBytes / total) * 1000) / 1000 }));
}

/** `dist/index.js` as an app's bundler would ship it: minified, with or without Lit. */
async function buildEsm(withLit: boolean): Promise<Awaited<ReturnType<typeof build>>> {
  return build({
    root,
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      target: 'es2022',
      minify: true,
      sourcemap: false,
      lib: { entry: `${root}dist/index.js`, formats: ['es'], fileName: 'index' },
      rollupOptions: {
        external: withLit ? [] : (id) => LIT.test(id),
        // Vite's library mode keeps the whitespace and comments of an ES build
        // (so that the app bundling it can still tree-shake); the app's own
        // build then strips them. Measure what the app ships, not the halfway step.
        output: { minify: true, comments: false },
      },
    },
  });
}

const buildStarted = Date.now();
try {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
} catch (error) {
  // The build's last checks (the embed's size gate, the manifest) come after
  // both bundles are written: measure them, so that an over-budget build
  // still gets its figures. A build that stopped earlier wrote nothing new.
  const wrote = (file: string) => statSync(`${root}${file}`, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (Math.min(wrote('dist/index.js'), wrote('dist/pay-checkout.embed.js')) < buildStarted) throw error;
  console.warn(
    'npm run build failed after writing both bundles (see scripts/check-size.mjs); measuring them.',
  );
}
// The embed exactly as the build just wrote it, the file a `<script>` tag loads.
const embed = sizeOf(readFileSync(`${root}dist/pay-checkout.embed.js`, 'utf8'), EMBED_BUDGET_GZIP_BYTES);
const withoutLit = await buildEsm(false);
const withoutLitChunk = entryChunk(withoutLit);
const esmWithoutLit = sizeOf(withoutLitChunk.code, ESM_WITHOUT_LIT_BUDGET_GZIP_BYTES);
const esmWithLit = sizeOf(entryChunk(await buildEsm(true)).code);
const frenchChunk = chunksOf(withoutLit).find((chunk) =>
  chunk.moduleIds.some((id) => id.endsWith('/locale/fr.js')),
);
if (!frenchChunk || frenchChunk.isEntry) throw new Error('French should be a chunk of its own.');
const esmFrenchChunk = sizeOf(frenchChunk.code);

const path = await writeResults('size', {
  settings: {
    compression: 'gzip level 9 (node:zlib)',
    bundler: 'Vite (Rolldown), minified, target es2022',
    esmEntry: 'dist/index.js (after npm run build), lit, lit-html, lit-element and @lit/* external',
  },
  embed,
  esmWithoutLit,
  esmWithLit,
  /** Fetched only by a checkout that speaks French. */
  esmFrenchChunk,
  esmWithoutLitContributors: contributors(withoutLitChunk),
});

const line = (name: string, size: BundleSize) =>
  `${name}: ${size.bytes} B, ${size.gzipBytes} B gzip${
    size.budgetGzipBytes === undefined
      ? ''
      : ` (budget ${size.budgetGzipBytes} B: ${size.withinBudget ? 'within' : 'OVER'})`
  }`;
console.log(line('embed', embed));
console.log(line('ESM entry without Lit', esmWithoutLit));
console.log(line('ESM entry with Lit', esmWithLit));
console.log(line('French, fetched on demand', esmFrenchChunk));
console.log(`written to ${path}`);
