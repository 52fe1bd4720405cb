/**
 * The package as a merchant gets it (issue #6): lint the packed tarball with
 * publint and Are the Types Wrong, install it into a fresh project under the
 * system's temp directory, then import every entry in plain Node (20, 22 and
 * 24: test/fixtures/node-versions.ts), build a Vite
 * page that renders `<pay-checkout>` in Chromium, and type-check DOM and
 * server usage with the shipped declarations (each framework's typings:
 * framework-types.test.ts).
 *
 * Needs `npm run build` first (the `test` script runs it). The install reaches
 * the npm registry only for what the local cache lacks.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs';
import { NODE_VERSIONS, nodeBinary } from '../fixtures/node-versions.js';
import { CHECKOUT_MARKUP, consumerFiles, NO_FAVICON, writeConsumerProject } from './consumer-project.js';
import { installWithPackage, type PackReport, packRepository } from './packed-package.js';
import { runCommand } from './run-command.js';
import { serveDirectory } from './static-server.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(repositoryRoot, 'node_modules', '.bin', name);

/** The element's documentation in custom-elements.json, as far as these checks read it. */
interface ManifestElement {
  tagName?: string;
  attributes?: { name: string }[];
  members?: { name: string; kind: string }[];
  events?: { name: string; type?: { text: string } }[];
  cssParts?: { name: string }[];
  cssProperties?: { name: string }[];
}

interface Manifest {
  modules: { path: string; declarations?: ManifestElement[] }[];
}

describe('the packed package, installed by a consumer', { timeout: 240_000 }, () => {
  let workDirectory: string;
  let consumer: string;
  let tarball: string;
  let pack: PackReport;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-consumer-'));
    consumer = join(workDirectory, 'consumer');
    ({ tarball, report: pack } = await packRepository(workDirectory));
    await writeConsumerProject(consumer, await consumerFiles(repositoryRoot, tarball));
    await installWithPackage(consumer, tarball, 150_000);
  });

  after(async () => {
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('ships the built entries, the manifest and the sources, and nothing of the demo or tests', () => {
    const paths = new Set(pack.files.map((file) => file.path));
    for (const path of [
      'package.json',
      'custom-elements.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/pay-checkout.embed.js',
      'dist/pay-checkout.embed.js.sha384',
      'dist/react.js',
      'dist/jsx.d.ts',
      'dist/server/index.js',
      'dist/sandbox/index.js',
      'dist/vite/index.js',
      'dist/cli/pay-checkout.js',
      'dist/preact.d.ts',
      'dist/vue.d.ts',
      'dist/svelte.d.ts',
      'openapi/relay.json',
    ]) {
      assert.ok(paths.has(path), `${path} is missing from the tarball`);
    }
    const stray = [...paths].filter((path) => /^(dist\/demo|demo|test|bench|scripts)\//.test(path));
    assert.deepEqual(stray, []);
  });

  it('passes publint --strict', async () => {
    const result = await runCommand(bin('publint'), ['run', tarball, '--strict'], { cwd: workDirectory });
    assert.equal(result.code, 0, result.transcript);
  });

  it('passes Are the Types Wrong for an ESM-only package', async () => {
    // esm-only: every entry must resolve, with types, for Node 16+ ESM and bundlers. It leaves out
    // node10 (no "exports") and require() from CommonJS: the package and Lit are ESM only.
    const result = await runCommand(
      bin('attw'),
      [tarball, '--profile', 'esm-only', '--no-definitely-typed'],
      {
        cwd: workDirectory,
      },
    );
    assert.equal(result.code, 0, result.transcript);
  });

  for (const { major } of NODE_VERSIONS) {
    it(`imports every entry in plain Node ${major} without reading window or document, and the entries work`, async (t) => {
      const node = await nodeBinary(major);
      if ('skip' in node) {
        t.skip(node.skip);
        return;
      }
      t.diagnostic(`Node ${node.version}`);
      const result = await runCommand(node.path, ['node-imports.mjs'], {
        cwd: consumer,
        timeoutMs: 60_000,
      });
      assert.equal(result.code, 0, result.transcript);
      const report = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
        entries: Record<string, string[]>;
        packageReads: string[];
        rendered: string;
        createStatus: number;
        lookupStatus: number;
        paymentStatus: string;
        forgedLookupStatus: number;
      };
      assert.deepEqual(report.packageReads, []);
      assert.ok(report.entries.element?.includes('PayCheckout'));
      assert.ok(report.entries.server?.includes('createCheckoutRelay'));
      assert.ok(report.entries.server?.includes('verifyWebhook'));
      assert.ok(report.entries.server?.includes('WebhookVerificationError'));
      assert.ok(report.entries.sandbox?.includes('startSandbox'));
      assert.ok(report.entries.react?.includes('PayCheckout'));
      assert.deepEqual(
        [report.createStatus, report.lookupStatus, report.paymentStatus, report.forgedLookupStatus],
        [200, 200, 'requires_action', 403],
      );
    });
  }

  it('documents the element in custom-elements.json: attributes, properties, events, parts, CSS properties', async () => {
    const installed = join(consumer, 'node_modules', 'pay-checkout');
    const packageJson = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      customElements: string;
    };
    const manifest = JSON.parse(
      await readFile(join(installed, packageJson.customElements), 'utf8'),
    ) as Manifest;
    const element = manifest.modules
      .flatMap((module) => module.declarations ?? [])
      .find((declaration) => declaration.tagName === 'pay-checkout');
    assert.ok(element, 'no declaration with tagName pay-checkout');
    const names = (list: { name: string }[] | undefined) => new Set((list ?? []).map((entry) => entry.name));

    const attributes = names(element.attributes);
    for (const attribute of [
      'create-url',
      'lookup-url',
      'price-url',
      'checkout',
      'amount',
      'currency',
      'locale',
      'issuers',
      'customer-name',
      'phone',
      'poll-interval',
      'poll-timeout',
      'persist',
      'disabled',
      'state',
    ]) {
      assert.ok(attributes.has(attribute), `attribute ${attribute} is not documented`);
    }
    const members = names(element.members);
    for (const member of ['cart', 'createUrl', 'submit', 'reset', 'resume']) {
      assert.ok(members.has(member), `member ${member} is not documented`);
    }
    const events = new Map((element.events ?? []).map((event) => [event.name, event.type?.text]));
    for (const event of [
      'submit',
      'created',
      'requires-action',
      'paid',
      'failed',
      'timeout',
      'error',
      'state-change',
    ]) {
      assert.match(events.get(`pay-${event}`) ?? '', /^CustomEvent<Pay\w+Detail>$/, `event pay-${event}`);
    }
    const parts = names(element.cssParts);
    for (const part of ['form', 'field', 'label', 'input', 'issuer', 'submit', 'status', 'error', 'amount']) {
      assert.ok(parts.has(part), `part ${part} is not documented`);
    }
    const properties = [...names(element.cssProperties)];
    assert.ok(properties.length > 0, 'no CSS custom property is documented');
    assert.deepEqual(
      properties.filter((name) => !name.startsWith('--pay-checkout-')),
      [],
    );
    for (const module of manifest.modules) {
      await assert.doesNotReject(
        readFile(join(installed, module.path)),
        `${module.path} is not in the package`,
      );
    }
  });

  describe('in Chromium', () => {
    let browser: Browser;
    let closeServer: () => Promise<void>;
    let origin: string;

    before(async () => {
      const built = await runCommand(
        process.execPath,
        ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'],
        {
          cwd: consumer,
        },
      );
      assert.equal(built.code, 0, built.transcript);
      const site = join(consumer, 'dist');
      // The one-file embed from the installed package, loaded twice with its shipped integrity value.
      const embed = join(consumer, 'node_modules', 'pay-checkout', 'dist', 'pay-checkout.embed.js');
      await copyFile(embed, join(site, 'pay-checkout.embed.js'));
      const integrity = (await readFile(`${embed}.sha384`, 'utf8')).trim();
      const script = `<script src="/pay-checkout.embed.js" integrity="${integrity}" crossorigin="anonymous"></script>`;
      await writeFile(
        join(site, 'embed.html'),
        `<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>Embed</title>${NO_FAVICON}${script}${script}</head><body>${CHECKOUT_MARKUP}</body></html>\n`,
      );
      const server = await serveDirectory(site);
      origin = server.url;
      closeServer = server.close;
      browser = await chromium.launch({
        executablePath: findChromium(),
        args: CHROMIUM_ARGS,
        headless: true,
      });
    });

    after(async () => {
      await browser?.close();
      await closeServer?.();
    });

    for (const [page, what] of [
      ['/index.html', 'the Vite app that imports pay-checkout'],
      ['/embed.html', 'the embed script, loaded twice with its integrity value'],
    ] as const) {
      it(`upgrades and renders the form from ${what}`, async () => {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on('pageerror', (error) => problems.push(error.message));
        tab.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        try {
          await tab.goto(`${origin}${page}`);
          await tab.waitForFunction(
            () => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('input[name="number"]'),
            undefined,
            { timeout: 20_000 },
          );
          const rendered = await tab.evaluate(() => {
            const element = document.querySelector('pay-checkout');
            const root = element?.shadowRoot;
            return {
              defined: customElements.get('pay-checkout') !== undefined,
              state: element?.getAttribute('state'),
              fields: ['customer_name', 'number', 'issuer'].filter((name) =>
                root?.querySelector(`[name="${name}"]`),
              ),
              submit: root?.querySelector('button[type="submit"]') !== null,
            };
          });
          assert.deepEqual(rendered, {
            defined: true,
            state: 'idle',
            fields: ['customer_name', 'number', 'issuer'],
            submit: true,
          });
          assert.deepEqual(problems, []);
        } finally {
          await tab.close();
        }
      });
    }
  });

  for (const [project, what] of [
    ['tsconfig.json', 'DOM usage'],
    ['tsconfig.server.json', "a merchant's relay and sandbox server"],
  ] as const) {
    it(`type-checks ${what} with the shipped declarations`, async () => {
      const tsc = join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      const result = await runCommand(process.execPath, [tsc, '-p', project], { cwd: consumer });
      assert.equal(result.code, 0, result.transcript);
    });
  }
});
