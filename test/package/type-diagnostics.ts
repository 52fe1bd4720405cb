/**
 * Negative type tests for checkers that have no `@ts-expect-error` of their
 * own (templates of Vue, Svelte and Angular), and the same form for JSX: a
 * comment `expect-error TS2322: why` says the next line must fail with that
 * error. The expected set comes from the files, the reported set from the
 * checker's output, and the two must be equal: a loose typing shows as a
 * missing error, a wrong marker or a broken file as an extra one.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';

/** `path:line TS1234`, with `/` in the path and 1-based lines. */
export type DiagnosticKey = string;

const MARKER = /expect-error (TS\d+)/;

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

function key(project: string, file: string, line: number, code: string): DiagnosticKey {
  const path = relative(project, resolve(project, file)).split(sep).join('/');
  return `${path}:${line} ${code}`;
}

/** The errors the `expect-error` comments of every file under `project/directory` call for. */
export async function expectedErrors(project: string, directory: string): Promise<DiagnosticKey[]> {
  const expected: DiagnosticKey[] = [];
  for (const file of await filesUnder(join(project, directory))) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((text, index) => {
      const code = MARKER.exec(text)?.[1];
      // `index` is the comment's 0-based line: the line after it is `index + 2` counted from 1.
      if (code) expected.push(key(project, relative(project, file), index + 2, code));
    });
  }
  return expected.sort();
}

/**
 * Errors as tsc prints them: `file(line,column): error TS1234: …` (tsc and vue-tsc with `--pretty
 * false`), or `file:line:column - error TS1234: …` in colour (ngc prints that way whatever its options).
 */
export function tscErrors(project: string, output: string): DiagnosticKey[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ngc's colours are escape sequences.
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const reported = [
    ...plain.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+):/gm),
    ...plain.matchAll(/^(\S+?):(\d+):\d+ - error (TS\d+):/gm),
  ].map(([, file, line, code]) => key(project, file ?? '', Number(line), code ?? ''));
  return reported.sort();
}

/** Errors in `svelte-check --output machine-verbose`: one JSON object per line, 0-based lines. */
export function svelteCheckErrors(project: string, output: string): DiagnosticKey[] {
  const reported: DiagnosticKey[] = [];
  for (const line of output.split('\n')) {
    const json = line.slice(line.indexOf('{'));
    if (!line.includes(' {') || !json.startsWith('{')) continue;
    const diagnostic = JSON.parse(json) as {
      type: string;
      filename: string;
      start: { line: number };
      code?: number | string;
    };
    if (diagnostic.type !== 'ERROR') continue;
    reported.push(key(project, diagnostic.filename, diagnostic.start.line + 1, `TS${diagnostic.code}`));
  }
  return reported.sort();
}
