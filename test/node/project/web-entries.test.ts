/**
 * `pay-checkout/server` and `pay-checkout/sandbox` on web runtimes (issue
 * #14). Bundlers for a web platform (wrangler, Vercel and Netlify Edge) take
 * the `default` export condition: web.ts, which must hold no `node:` import
 * anywhere in its graph, or the bundle stops on `Could not resolve
 * "node:http"`. Node, Bun and Deno take the `node` condition and lose
 * nothing. Both entries export the same names with the same types (one set of
 * declarations ships); the web entry's Node-only functions reject with what
 * to use instead.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import * as sandboxNode from '../../../src/sandbox/index.js';
import * as sandboxWeb from '../../../src/sandbox/web.js';
import * as serverNode from '../../../src/server/node.js';
import * as serverWeb from '../../../src/server/web.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

// The type check is the test: each web entry fits the declarations merchants get (index.d.ts).
const sandboxWebAsDeclared: typeof import('../../../src/sandbox/index.js') = sandboxWeb;
const serverWebAsDeclared: typeof import('../../../src/server/index.js') = serverWeb;

const scratch = await mkdtemp(join(tmpdir(), 'pay-checkout-web-entries-'));
after(() => rm(scratch, { recursive: true, force: true }));

/** The message of what `promise` rejects with. */
async function rejectionOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('it resolved'),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof Error);
  return error.message;
}

describe('the package’s web and Node entries', () => {
  it('are what package.json gives each condition, with one set of types', async () => {
    const manifest = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>;
    };
    assert.deepEqual(manifest.exports['./sandbox'], {
      types: './dist/sandbox/index.d.ts',
      node: './dist/sandbox/index.js',
      default: './dist/sandbox/web.js',
    });
    assert.deepEqual(manifest.exports['./server'], {
      types: './dist/server/index.d.ts',
      node: './dist/server/node.js',
      default: './dist/server/web.js',
    });
  });

  it('export the same names', () => {
    assert.deepEqual(Object.keys(sandboxWebAsDeclared).sort(), Object.keys(sandboxNode).sort());
    assert.deepEqual(Object.keys(serverWebAsDeclared).sort(), Object.keys(serverNode).sort());
  });

  for (const entry of ['src/sandbox/web.ts', 'src/server/web.ts']) {
    it(`${entry} bundles for a web platform with nothing external`, async () => {
      // As wrangler bundles a Worker: a `node:` import anywhere in the graph fails the build.
      const result = await build({
        absWorkingDir: repositoryRoot,
        entryPoints: [entry],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'neutral',
        conditions: ['workerd', 'worker', 'browser'],
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      const nodeOnly = [
        'src/http/node/listen.ts',
        'src/sandbox/start-sandbox.ts',
        'src/server/journal/open-journal.ts',
      ];
      assert.deepEqual(
        inputs.filter((input) => nodeOnly.includes(input) || input.includes('node_modules/undici/')),
        [],
      );
    });
  }

  it('web: startSandbox and listen reject, naming the node condition and what to serve instead', async () => {
    const started = await rejectionOf(sandboxWeb.startSandbox({ port: 0 }));
    assert.match(
      started,
      /^startSandbox\(\) needs Node, and pay-checkout\/sandbox resolved to its web entry/,
    );
    assert.match(started, /"node" condition/);
    assert.match(started, /Deno\.serve\(sandbox\.handle\)/);
    for (const [entry, listen] of [
      ['pay-checkout/sandbox', sandboxWeb.listen],
      ['pay-checkout/server', serverWeb.listen],
    ] as const) {
      const listened = await rejectionOf(listen(sandboxWeb.createSandbox().node));
      assert.match(listened, new RegExp(`^listen\\(\\) needs Node, and ${entry} resolved to its web entry`));
    }
  });

  it('web: openJournal opens memory:, and refuses sqlite: and postgres: without quoting the URL', async () => {
    const journal = await serverWeb.openJournal('memory:');
    assert.equal(await journal.get('no-such-key'), undefined);
    await journal.close();
    const sqlite = await rejectionOf(serverWeb.openJournal('sqlite:.data/merchant-shop.db'));
    assert.match(
      sqlite,
      /^openJournal\('sqlite:…'\) needs Node, and pay-checkout\/server resolved to its web entry/,
    );
    assert.match(sqlite, /only memory: opens/);
    assert.doesNotMatch(sqlite, /merchant-shop/);
    const postgres = await rejectionOf(serverWeb.openJournal('postgres://shop:hunter2@db.example/shop'));
    assert.match(postgres, /^openJournal\('postgres:\/\/…'\) needs Node/);
    assert.doesNotMatch(postgres, /hunter2|db\.example/);
    await assert.rejects(serverWeb.openJournal('mysql://shop@db.example/shop'), TypeError);
  });

  it('Node: startSandbox serves the sandbox, and openJournal opens sqlite:', async () => {
    const running = await sandboxNode.startSandbox({ basePath: '/sandbox' });
    try {
      const answer = await fetch(`${running.url}/orders/page`, { method: 'POST', body: '{}' });
      assert.equal(answer.status, 401, 'the sandbox answers, and asks for a key');
    } finally {
      await running.close();
    }
    const journal = await serverNode.openJournal(`sqlite:${join(scratch, 'journal.db')}`);
    assert.equal(await journal.get('no-such-key'), undefined);
    await journal.close();
  });
});
