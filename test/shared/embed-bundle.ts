/**
 * `dist/pay-checkout.embed.js` as `npm run build` makes it (same Vite
 * config), built in memory once per process, for the browser tests, the
 * fault suite and the element benchmark: a concurrent `npm run build`
 * emptying `dist/` cannot pull it from under them.
 */
import { fileURLToPath } from 'node:url';
import { build, type Rollup } from 'vite';

let embedBundle: Promise<string> | undefined;

/** The embed script's code. */
export function embedBundleCode(): Promise<string> {
  embedBundle ??= build({
    configFile: fileURLToPath(new URL('../../vite.embed.config.ts', import.meta.url)),
    root: fileURLToPath(new URL('../../', import.meta.url)),
    logLevel: 'silent',
    build: { write: false, sourcemap: false },
  }).then((result) => {
    const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
    const chunks = outputs.flatMap((output) => output.output).filter((file) => file.type === 'chunk');
    const [chunk] = chunks;
    if (chunks.length !== 1 || chunk?.type !== 'chunk') {
      throw new Error(`The embed build should make one script; it made ${chunks.length}.`);
    }
    return chunk.code;
  });
  return embedBundle;
}
