/**
 * Finds a Firefox for the browser and end-to-end tests: an explicit path from
 * FIREFOX_PATH, else Debian's ESR or release package. Firefox is driven over
 * WebDriver BiDi by puppeteer-core, so no geckodriver is needed and nothing is
 * downloaded: a missing Firefox is an error that says what to install.
 */
import { explicitExecutable, isExecutable, printWhenRun } from './executable.mjs';

const SYSTEM_FIREFOXES = ['/usr/bin/firefox-esr', '/usr/bin/firefox'];

/** The path of a Firefox to drive; throws with what to run when there is none. */
export function findFirefox() {
  const found = explicitExecutable('FIREFOX_PATH') ?? SYSTEM_FIREFOXES.find(isExecutable);
  if (found) return found;
  throw new Error(
    'No Firefox found. Install one, then run the tests again:\n' +
      '  Debian/Ubuntu:  sudo apt-get install -y firefox-esr\n' +
      'or point FIREFOX_PATH at a Firefox executable (version 129 or later, for WebDriver BiDi).',
  );
}

printWhenRun(import.meta.url, findFirefox);
