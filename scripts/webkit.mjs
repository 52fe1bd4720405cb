/**
 * WebKit for the browser and end-to-end tests: Debian's WebKitGTK, driven by
 * its own W3C WebDriver server (`WebKitWebDriver`, package webkit2gtk-driver),
 * which opens WebKitGTK's MiniBrowser. A GTK browser needs a screen, so each
 * start gets a virtual one (Xvfb, on a display number Xvfb picks itself) and
 * the driver on a free loopback port; `stop()` ends both, and a process that
 * exits without calling it still ends them. Nothing is downloaded: a missing
 * program is an error that says what to install.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { freePort } from './free-port.mjs';

/** What the tests ask WebKitWebDriver for: its MiniBrowser, the only browser it drives. */
export const WEBKIT_CAPABILITIES = { browserName: 'MiniBrowser' };

const INSTALL_HINT = '  Debian/Ubuntu:  sudo apt-get install -y webkit2gtk-driver xvfb';
const STARTUP_TIMEOUT_MS = 20_000;

function findProgram(envName, candidates) {
  const explicit = process.env[envName];
  const paths = explicit ? [explicit] : candidates;
  return paths.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The paths of WebKitWebDriver and Xvfb; throws with what to run when either is missing. */
export function findWebKit() {
  const driver = findProgram('WEBKIT_WEBDRIVER_PATH', ['/usr/bin/WebKitWebDriver']);
  const xvfb = findProgram('XVFB_PATH', ['/usr/bin/Xvfb']);
  if (driver && xvfb) return { driver, xvfb };
  const missing = [driver ? '' : 'WebKitWebDriver', xvfb ? '' : 'Xvfb'].filter(Boolean).join(' and ');
  throw new Error(
    `No ${missing} found. Install them, then run the tests again:\n${INSTALL_HINT}\n` +
      'or point WEBKIT_WEBDRIVER_PATH and XVFB_PATH at the programs.',
  );
}

/** The last few kilobytes a program wrote to stderr, to explain a failed start. */
function tailOf(stream) {
  let tail = '';
  stream.on('data', (chunk) => {
    tail = (tail + chunk).slice(-4096);
  });
  return () => tail;
}

/** Kills a process group we started, if it still runs. */
function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function stopGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  killGroup(child, 'SIGTERM');
  const forced = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(forced);
}

/** Starts Xvfb on a display it chooses (`-displayfd`), resolving once it accepts clients. */
async function startXvfb(path) {
  const child = spawn(path, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stderr = tailOf(child.stderr);
  let written = '';
  const display = await new Promise((resolve, reject) => {
    child.stdio[3].on('data', (chunk) => {
      written += chunk;
      if (written.includes('\n')) resolve(`:${written.trim()}`);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`Xvfb exited (${code}) before it was ready:\n${stderr()}`)),
    );
  });
  return { child, display };
}

/** Resolves once the driver answers `/status` as ready; rejects if it exits first. */
async function driverReady(child, url, stderr) {
  const exited = new Promise((_, reject) => {
    child.once('exit', (code) => reject(new Error(`WebKitWebDriver exited (${code}):\n${stderr()}`)));
  });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  const poll = async () => {
    for (;;) {
      try {
        const answer = await fetch(`${url}/status`);
        if (answer.ok && (await answer.json()).value?.ready) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not start in time:\n${stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await Promise.race([poll(), exited]);
}

async function startDriverOnce(path, display) {
  const port = await freePort();
  const child = spawn(path, [`--port=${port}`, '--host=local'], {
    env: { ...process.env, DISPLAY: display },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const stderr = tailOf(child.stderr);
  const url = `http://127.0.0.1:${port}`;
  try {
    await driverReady(child, url, stderr);
  } catch (error) {
    await stopGroup(child);
    throw error;
  }
  return { child, port, url };
}

/**
 * Starts a virtual screen and WebKitWebDriver on it. Resolves to the driver's
 * `url`, `hostname` and `port`, and `stop()`, which ends the driver, every
 * browser it opened and the screen.
 */
export async function startWebKitDriver() {
  const programs = findWebKit();
  const started = [];
  const killNow = () => {
    for (const child of started) killGroup(child, 'SIGKILL');
  };
  process.on('exit', killNow);
  try {
    const xvfb = await startXvfb(programs.xvfb);
    started.push(xvfb.child);
    // A free port may be taken before the driver binds it: a failed start is tried on a new one.
    let driver;
    for (let attempt = 1; !driver; attempt += 1) {
      try {
        driver = await startDriverOnce(programs.driver, xvfb.display);
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    started.unshift(driver.child);
    return {
      url: driver.url,
      hostname: '127.0.0.1',
      port: driver.port,
      async stop() {
        for (const child of started) await stopGroup(child);
        process.off('exit', killNow);
      },
    };
  } catch (error) {
    for (const child of started) await stopGroup(child);
    process.off('exit', killNow);
    throw error;
  }
}
