/**
 * The documentation's webhook receivers in PHP, Python and Ruby, each run as
 * a real process on 127.0.0.1 and sent real deliveries signed by our signer
 * through our sender: a valid delivery is acted on once however often it
 * comes, a tampered, forged or old one is refused, either secret of a
 * rotation verifies, and the Standard Webhooks test vectors hold.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sendWebhook } from '../../../src/server/webhooks/webhook-sender.js';
import {
  createWebhookSigner,
  generateWebhookSecret,
  webhookSignatureHeaders,
} from '../../../src/server/webhooks/webhook-signature.js';
import { freePort } from '../../fixtures/free-port.js';
import {
  amongOtherSignatures,
  VECTOR_ID,
  VECTOR_INVALID_SIGNATURES,
  VECTOR_PAYLOAD,
  VECTOR_SECRET,
  VECTOR_SIGNATURE,
  VECTOR_TIMESTAMP,
} from '../../fixtures/standard-webhooks-vectors.js';
import { eventually } from '../../fixtures/wait.js';

const receivers = fileURLToPath(new URL('../../../examples/webhook-receivers/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-receivers-'));
const running = new Set<ChildProcess>();

after(async () => {
  for (const child of running) {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'close');
  }
  rmSync(scratch, { recursive: true, force: true });
});

const LANGUAGES = {
  php: {
    program: 'php',
    args: (port: number) => ['-S', `127.0.0.1:${port}`, join(receivers, 'php/receiver.php')],
  },
  python: {
    program: 'python3',
    args: (port: number) => [join(receivers, 'python/receiver.py'), String(port)],
  },
  ruby: { program: 'ruby', args: (port: number) => [join(receivers, 'ruby/receiver.rb'), String(port)] },
} as const;

const BODY = JSON.stringify({
  type: 'order.paid',
  timestamp: '2026-11-28T08:00:00.000Z',
  data: { order_id: 'ord_1', reference: 'A-1', customer: { name: 'Ama', phone_number: null } },
});

/** Resolves once something accepts connections on `port`. */
async function listening(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the receiver exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(false));
      socket.once('connect', () => socket.end());
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the receiver of `language` with `secret`; answers its URL and the file of event ids it acted on. */
async function startReceiver(language: keyof typeof LANGUAGES, secret: string) {
  const port = await freePort();
  const seenFile = join(scratch, `${language}-${port}.txt`);
  const { program, args } = LANGUAGES[language];
  const child = spawn(program, args(port), {
    env: { ...process.env, WEBHOOK_SECRET: secret, WEBHOOK_SEEN_FILE: seenFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let said = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    said += chunk;
  });
  await listening(port, child);
  const actedOn = () => {
    try {
      return readFileSync(seenFile, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return { url: `http://127.0.0.1:${port}/hooks/pay`, actedOn, said: () => said };
}

/** Delivers `body` with `headers` to `url` as the relay does; answers the receiver's status. */
async function deliver(url: string, headers: Record<string, string>, body = BODY): Promise<number | null> {
  const result = await sendWebhook({ url, headers, body }, { allowPrivateTargets: true, timeoutMs: 10_000 });
  return result.status;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

for (const language of Object.keys(LANGUAGES) as (keyof typeof LANGUAGES)[]) {
  const installed = spawnSync(LANGUAGES[language].program, ['--version'], { stdio: 'ignore' }).status === 0;

  describe(`the ${language} receiver`, {
    skip: installed ? false : `${LANGUAGES[language].program} is not installed`,
  }, () => {
    it('acts once on a valid delivery however often it comes, and refuses altered, forged or old ones', async () => {
      const secret = generateWebhookSecret();
      const receiver = await startReceiver(language, secret);
      const signer = createWebhookSigner(secret);
      const valid = await webhookSignatureHeaders(signer, 'msg_valid000000000000000000', nowSeconds(), BODY);
      assert.equal(await deliver(receiver.url, valid), 204);
      assert.equal(await deliver(receiver.url, valid), 204, 'a duplicate is acknowledged');
      const retry = await webhookSignatureHeaders(
        signer,
        'msg_valid000000000000000000',
        nowSeconds() + 1,
        BODY,
      );
      assert.equal(await deliver(receiver.url, retry), 204, 'a retry, signed anew, is acknowledged');
      assert.equal(await deliver(receiver.url, valid, BODY.replace('ord_1', 'ord_2')), 400, 'tampered body');
      assert.equal(await deliver(receiver.url, { ...valid, 'webhook-id': 'msg_other' }), 400, 'tampered id');
      const shifted = { ...valid, 'webhook-timestamp': String(Number(valid['webhook-timestamp']) + 1) };
      assert.equal(await deliver(receiver.url, shifted), 400, 'tampered timestamp');
      const old = await webhookSignatureHeaders(signer, 'msg_old', nowSeconds() - 301, BODY);
      assert.equal(await deliver(receiver.url, old), 400, 'older than five minutes');
      const ahead = await webhookSignatureHeaders(signer, 'msg_ahead', nowSeconds() + 301, BODY);
      assert.equal(await deliver(receiver.url, ahead), 400, 'more than five minutes ahead');
      const forged = await webhookSignatureHeaders(
        createWebhookSigner(generateWebhookSecret()),
        'msg_f',
        nowSeconds(),
        BODY,
      );
      assert.equal(await deliver(receiver.url, forged), 400, 'another secret');
      const { 'webhook-signature': _dropped, ...unsigned } = valid;
      assert.equal(await deliver(receiver.url, unsigned), 400, 'no signature');
      assert.deepEqual(receiver.actedOn(), ['msg_valid000000000000000000']);
      // Its log is read beside its answers: waited for, not assumed read.
      await eventually(
        () => `each repeat said so; it said:\n${receiver.said()}`,
        () =>
          receiver.said().match(/msg_valid000000000000000000 again: answered, already acted on/g)?.length ===
          2,
      );
    });

    it('acts on nothing without its secret, never checking against an empty key', async () => {
      const port = await freePort();
      const seenFile = join(scratch, `${language}-unset-${port}.txt`);
      const { WEBHOOK_SECRET: _unset, ...environment } = process.env;
      const { program, args } = LANGUAGES[language];
      const child = spawn(program, args(port), {
        env: { ...environment, WEBHOOK_SEEN_FILE: seenFile },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      running.add(child);
      let said = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        said += chunk;
      });
      const exited = new Promise<'exited'>((resolve) => child.once('close', () => resolve('exited')));
      const started = await Promise.race([listening(port, child).then(() => 'listening' as const), exited]);
      if (started === 'exited') {
        // Refused to start, so nothing can reach it; and it says why.
        assert.match(said, /WEBHOOK_SECRET is not set/);
        return;
      }
      // Signed with an empty key, which is what a receiver that read no secret would check against.
      const id = 'msg_emptykey';
      const timestamp = String(nowSeconds());
      const signature = createHmac('sha256', Buffer.alloc(0))
        .update(`${id}.${timestamp}.${BODY}`)
        .digest('base64');
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': `v1,${signature}`,
      };
      const status = await deliver(`http://127.0.0.1:${port}/hooks/pay`, headers);
      assert.ok(status !== null && (status < 200 || status > 299), `answered ${status}`);
      assert.equal(existsSync(seenFile) ? readFileSync(seenFile, 'utf8') : '', '');
    });

    it('verifies with either secret of a rotation', async () => {
      const [before, after] = [generateWebhookSecret(), generateWebhookSecret()];
      const signer = createWebhookSigner([before, after]);
      for (const secret of [before, after]) {
        const receiver = await startReceiver(language, secret);
        const headers = await webhookSignatureHeaders(signer, 'msg_rotation', nowSeconds(), BODY);
        assert.equal(await deliver(receiver.url, headers), 204);
        assert.deepEqual(receiver.actedOn(), ['msg_rotation']);
      }
    });

    it('holds to the Standard Webhooks test vectors', async () => {
      const receiver = await startReceiver(language, VECTOR_SECRET);
      const fresh = await webhookSignatureHeaders(
        createWebhookSigner(VECTOR_SECRET),
        VECTOR_ID,
        nowSeconds(),
        VECTOR_PAYLOAD,
      );
      for (const signature of VECTOR_INVALID_SIGNATURES) {
        assert.equal(
          await deliver(receiver.url, { ...fresh, 'webhook-signature': signature }, VECTOR_PAYLOAD),
          400,
          signature,
        );
      }
      const published = {
        ...fresh,
        'webhook-timestamp': String(VECTOR_TIMESTAMP),
        'webhook-signature': VECTOR_SIGNATURE,
      };
      assert.equal(
        await deliver(receiver.url, published, VECTOR_PAYLOAD),
        400,
        'the published vector is years old',
      );
      assert.deepEqual(receiver.actedOn(), []);
      const multi = { ...fresh, 'webhook-signature': amongOtherSignatures(fresh['webhook-signature']) };
      assert.equal(await deliver(receiver.url, multi, VECTOR_PAYLOAD), 204);
      assert.deepEqual(receiver.actedOn(), [VECTOR_ID]);
    });
  });
}
