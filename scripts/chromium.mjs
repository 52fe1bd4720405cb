/**
 * Finds a Chromium for the browser and end-to-end tests, and installs one when
 * none is found: an explicit path from CHROMIUM_PATH, Playwright's own browser
 * when it is already installed, the system's Chromium; then Debian's package
 * when running as root. No browser is ever downloaded from anywhere else.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { explicitExecutable, isExecutable, printWhenRun } from './executable.mjs';

/** Flags for a headless Chromium on a machine with a closed network and no GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function playwrightsOwnChromium() {
  try {
    const { chromium } = createRequire(import.meta.url)('playwright-core');
    const path = chromium.executablePath();
    return path && isExecutable(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function locate() {
  return (
    explicitExecutable('CHROMIUM_PATH') ?? playwrightsOwnChromium() ?? SYSTEM_CHROMIUMS.find(isExecutable)
  );
}

function tryInstall() {
  if (process.platform === 'linux' && process.getuid?.() === 0) {
    console.error('No Chromium found; installing Debian’s package…');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
}

/** The path of a Chromium to drive, installing one when it can; throws with what to run when it cannot. */
export function findChromium() {
  const found = locate();
  if (found) return found;
  tryInstall();
  const installed = locate();
  if (installed) return installed;
  throw new Error(
    'No Chromium found and none could be installed. Install one, then run the tests again:\n' +
      '  Debian/Ubuntu:  sudo apt-get install -y chromium\n' +
      'or point CHROMIUM_PATH at a Chromium or Chrome executable.',
  );
}

printWhenRun(import.meta.url, findChromium);
