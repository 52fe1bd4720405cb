/**
 * The framework typings as each framework's own checker sees them (issue
 * #14): the packed tarball installed into the example apps of
 * `examples/frameworks/` (React 19, Preact, Vue with `vue-tsc`, Svelte with
 * `svelte-check`, Angular with `ngc` and `strictTemplates`), each with only
 * its own framework and `skipLibCheck` off. The example passes its checker;
 * its `type-errors/` fails it exactly on the lines marked `expect-error`
 * (wrong values, wrong handlers, a `detail` field that does not exist). The
 * framework snippets of docs/frameworks.md are these files, word for word.
 *
 * Needs `npm run build` first (the `test` script runs it). Each app installs
 * its own checker (Vue, Svelte and Angular need TypeScript 5 or 6); the
 * installs reach the npm registry only for what the local cache lacks.
 */
import assert from 'node:assert/strict';
import { access, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { installWithPackage, packRepository } from './packed-package.js';
import { runCommand } from './run-command.js';
import { type DiagnosticKey, expectedErrors, svelteCheckErrors, tscErrors } from './type-diagnostics.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const examplesRoot = join(repositoryRoot, 'examples', 'frameworks');

/** One example app and how its framework checks it. */
interface FrameworkExample {
  /** Its folder under `examples/frameworks/`. */
  folder: string;
  title: string;
  /** Each command (a tool of `node_modules/.bin` and its arguments) must exit 0. */
  passes: { what: string; command: readonly string[] }[];
  /** Checks `type-errors/`, which must fail exactly where its comments say. */
  fails: readonly string[];
  errorsIn: (project: string, output: string) => DiagnosticKey[];
  /** Packages the app must not have: its types may not need them. */
  absent: readonly string[];
}

const TSC_PLAIN = ['--pretty', 'false'];

const EXAMPLES: readonly FrameworkExample[] = [
  {
    folder: 'react',
    title: 'React 19 (tsc)',
    passes: [
      {
        what: 'the element with pay-checkout/jsx and the wrapper',
        command: ['tsc', '-p', 'tsconfig.json', ...TSC_PLAIN],
      },
      {
        what: "the tag's JSX typings brought by pay-checkout/react alone",
        command: ['tsc', '-p', 'tsconfig.wrapper.json', ...TSC_PLAIN],
      },
    ],
    fails: ['tsc', '-p', 'tsconfig.type-errors.json', ...TSC_PLAIN],
    errorsIn: tscErrors,
    absent: ['preact', 'vue', 'svelte', '@angular/core'],
  },
  {
    folder: 'preact',
    title: 'Preact (tsc)',
    passes: [
      { what: 'the element with pay-checkout/preact', command: ['tsc', '-p', 'tsconfig.json', ...TSC_PLAIN] },
    ],
    fails: ['tsc', '-p', 'tsconfig.type-errors.json', ...TSC_PLAIN],
    errorsIn: tscErrors,
    absent: ['react', '@types/react', 'vue', 'svelte', '@angular/core'],
  },
  {
    folder: 'vue',
    title: 'Vue 3.5 (vue-tsc)',
    passes: [
      {
        what: 'the component with pay-checkout/vue',
        command: ['vue-tsc', '-p', 'tsconfig.json', ...TSC_PLAIN],
      },
      {
        what: 'vite.config.ts with isCustomElement',
        command: ['vue-tsc', '-p', 'tsconfig.node.json', ...TSC_PLAIN],
      },
    ],
    fails: ['vue-tsc', '-p', 'tsconfig.type-errors.json', ...TSC_PLAIN],
    errorsIn: tscErrors,
    absent: ['react', '@types/react', 'preact', 'svelte', '@angular/core'],
  },
  {
    folder: 'svelte',
    title: 'Svelte 5 (svelte-check)',
    passes: [
      {
        what: 'the component with pay-checkout/svelte',
        command: [
          'svelte-check',
          '--tsconfig',
          './tsconfig.json',
          '--output',
          'machine-verbose',
          '--fail-on-warnings',
        ],
      },
    ],
    fails: ['svelte-check', '--tsconfig', './tsconfig.type-errors.json', '--output', 'machine-verbose'],
    errorsIn: svelteCheckErrors,
    absent: ['react', '@types/react', 'preact', 'vue', '@angular/core'],
  },
  {
    folder: 'angular',
    title: 'Angular (ngc, strictTemplates)',
    passes: [{ what: 'the component with CUSTOM_ELEMENTS_SCHEMA', command: ['ngc', '-p', 'tsconfig.json'] }],
    fails: ['ngc', '-p', 'tsconfig.type-errors.json'],
    errorsIn: tscErrors,
    absent: ['react', '@types/react', 'preact', 'vue', 'svelte'],
  },
];

/** The page's code block after `<!-- example: examples/frameworks/PATH -->`, by path. */
function readmeExamples(readme: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of readme.matchAll(
    /<!-- example: (examples\/frameworks\/\S+) -->\n```\w*\n([\s\S]*?)```/g,
  )) {
    blocks.set(match[1] ?? '', match[2] ?? '');
  }
  return blocks;
}

describe('the framework snippets of docs/frameworks.md', () => {
  it('are the example files the checkers run, word for word', async () => {
    const blocks = readmeExamples(await readFile(join(repositoryRoot, 'docs', 'frameworks.md'), 'utf8'));
    assert.ok(blocks.size >= EXAMPLES.length, `only ${blocks.size} framework examples in docs/frameworks.md`);
    for (const [path, block] of blocks) {
      assert.match(path, /^examples\/frameworks\//);
      assert.equal(
        block,
        await readFile(join(repositoryRoot, path), 'utf8'),
        `${path} differs from docs/frameworks.md`,
      );
    }
    for (const example of EXAMPLES) {
      assert.ok(
        [...blocks.keys()].some((path) => path.startsWith(`examples/frameworks/${example.folder}/`)),
        `docs/frameworks.md shows no file of examples/frameworks/${example.folder}`,
      );
    }
  });
});

// Two apps are checked at a time: each checker is mostly one thread, and CI has two cores or more.
describe('the framework typings, checked by each framework on the packed tarball', {
  timeout: 420_000,
  concurrency: 2,
}, () => {
  let workDirectory: string;
  const projects = new Map<string, string>();

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-frameworks-'));
    const { tarball } = await packRepository(workDirectory);

    // The apps install side by side: the time is the registry's and the disk's, not the CPU's.
    const installs = EXAMPLES.map(async ({ folder }) => {
      const project = join(workDirectory, folder);
      await cp(join(examplesRoot, folder), project, {
        recursive: true,
        filter: (source) => !/[/\\](node_modules|dist)$/.test(source),
      });
      await installWithPackage(project, tarball, 300_000);
      projects.set(folder, project);
    });
    // Every install ends before a failure is reported, so `after` never deletes a folder npm still writes.
    for (const outcome of await Promise.allSettled(installs)) {
      if (outcome.status === 'rejected') throw outcome.reason;
    }
  });

  after(async () => {
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('loads each types-only entry as an empty module, for code that imports it without `type`', async () => {
    const script = `for (const entry of ['jsx', 'preact', 'vue', 'svelte']) {
      const module = await import('pay-checkout/' + entry);
      if (Object.keys(module).length > 0) throw new Error('pay-checkout/' + entry + ' exports values');
    }`;
    const result = await runCommand(process.execPath, ['--input-type=module', '--eval', script], {
      cwd: projects.get('react') ?? assert.fail('react is not installed'),
    });
    assert.equal(result.code, 0, result.transcript);
  });

  for (const example of EXAMPLES) {
    describe(example.title, () => {
      const project = () => projects.get(example.folder) ?? assert.fail(`${example.folder} is not installed`);
      const run = (command: readonly string[]) =>
        runCommand(join(project(), 'node_modules', '.bin', command[0] ?? ''), command.slice(1), {
          cwd: project(),
          timeoutMs: 180_000,
        });

      it(`has none of ${example.absent.join(', ')} installed`, async () => {
        for (const name of example.absent) {
          await assert.rejects(access(join(project(), 'node_modules', name)), `${name} is installed`);
        }
      });

      for (const { what, command } of example.passes) {
        it(`passes ${command[0]}: ${what}`, async () => {
          const result = await run(command);
          assert.equal(result.code, 0, result.transcript);
        });
      }

      it(`fails ${example.fails[0]} on each wrong value and handler of type-errors/, and on nothing else`, async () => {
        const result = await run(example.fails);
        assert.notEqual(result.code, 0, result.transcript);
        assert.deepEqual(
          example.errorsIn(project(), result.stdout + result.stderr),
          await expectedErrors(project(), 'type-errors'),
          result.transcript,
        );
      });
    });
  }
});
