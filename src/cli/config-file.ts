/**
 * serve's configuration file as the commands read it: `serve` and
 * `webhooks` take the same `--config`, default `pay-checkout.json` in the
 * working directory, and a missing default file means every default.
 */
import { readFile } from 'node:fs/promises';

/** The configuration file read without `--config`. */
export const DEFAULT_CONFIG_FILE = 'pay-checkout.json';

/** The configuration file's content, `{}` when the default file is absent, or why it cannot be read. */
export async function readConfigFile(
  path: string,
  named: boolean,
): Promise<{ value: unknown } | { error: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!named && (error as NodeJS.ErrnoException).code === 'ENOENT') return { value: {} };
    return { error: `cannot read it: ${(error as Error).message}` };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: `(the file): expected JSON: ${(error as Error).message}` };
  }
}
