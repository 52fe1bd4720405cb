/**
 * Buffers a Node request's body up to a byte limit before the handler runs,
 * counting bytes as they arrive, within a time limit: a body that stops
 * arriving must not hold its buffer, or its connection, for as long as the
 * client likes. Plain stream events with listeners shared by every request,
 * rather than `for await`: the async iterator costs more than a small
 * handler's own work.
 */
import type { IncomingMessage } from 'node:http';

/** What {@link readNodeBody} resolves to past the limit. */
export const TOO_LARGE = 'too-large';

/** What {@link readNodeBody} resolves to when the body did not end in time. */
export const TIMED_OUT = 'timed-out';

interface BodyReading {
  maxBytes: number;
  chunks: Buffer[];
  received: number;
  timer: NodeJS.Timeout | number | undefined;
  resolve: (body: Buffer | typeof TOO_LARGE | typeof TIMED_OUT) => void;
  reject: (error: Error) => void;
}

const BODY_READING = Symbol('bodyReading');
type ReadingMessage = IncomingMessage & { [BODY_READING]?: BodyReading };

/**
 * The whole body (undefined for GET and HEAD), {@link TOO_LARGE} past
 * `maxBytes`, or {@link TIMED_OUT} when it has not ended `timeoutMs` after
 * the reading began. Either way, what was buffered is let go.
 */
export function readNodeBody(
  incoming: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<Buffer | undefined | typeof TOO_LARGE | typeof TIMED_OUT> {
  if (incoming.method === 'GET' || incoming.method === 'HEAD') return Promise.resolve(undefined);
  // Under a framework that already read the stream, 'end' will not come again.
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (incoming.destroyed) return Promise.reject(new Error('The request was closed before its body ended.'));
  return new Promise((resolve, reject) => {
    const reading: BodyReading = { maxBytes, chunks: [], received: 0, timer: undefined, resolve, reject };
    reading.timer = setTimeout(onBodyTimeout, timeoutMs, incoming);
    (incoming as ReadingMessage)[BODY_READING] = reading;
    incoming.on('data', onBodyData);
    incoming.on('end', onBodyEnd);
    incoming.on('error', onBodyError);
    incoming.on('close', onBodyClose);
  });
}

function finishReading(incoming: ReadingMessage): BodyReading | undefined {
  const reading = incoming[BODY_READING];
  incoming[BODY_READING] = undefined;
  incoming.off('data', onBodyData);
  incoming.off('end', onBodyEnd);
  incoming.off('error', onBodyError);
  incoming.off('close', onBodyClose);
  clearTimeout(reading?.timer);
  return reading;
}

function onBodyData(this: ReadingMessage, chunk: Buffer): void {
  const reading = this[BODY_READING];
  if (!reading) return;
  reading.received += chunk.byteLength;
  if (reading.received > reading.maxBytes) {
    finishReading(this);
    // Read the rest into nothing, so the client, still sending, gets to read the 413
    // (which closes the connection) instead of a reset.
    this.resume();
    reading.resolve(TOO_LARGE);
    return;
  }
  reading.chunks.push(chunk);
}

function onBodyEnd(this: ReadingMessage): void {
  const reading = finishReading(this);
  reading?.resolve(
    reading.chunks.length === 1 ? (reading.chunks[0] as Buffer) : Buffer.concat(reading.chunks),
  );
}

function onBodyError(this: ReadingMessage, error: Error): void {
  finishReading(this)?.reject(error);
}

function onBodyClose(this: ReadingMessage): void {
  finishReading(this)?.reject(new Error('The request was closed before its body ended.'));
}

/**
 * The time is up, but a process busy with many requests runs its timers
 * before it reads the sockets that became readable meanwhile: the body may
 * already be here, unread. One turn of the event loop reads it first, so
 * only a body that truly did not come in time is refused.
 */
function onBodyTimeout(incoming: ReadingMessage): void {
  setImmediate(refuseUnfinished, incoming);
}

function refuseUnfinished(incoming: ReadingMessage): void {
  finishReading(incoming)?.resolve(TIMED_OUT);
}
