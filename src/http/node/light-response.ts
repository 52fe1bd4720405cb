/**
 * A JSON answer that the Node listener writes without a web `Response` (the
 * idea is `@hono/node-server`'s lightweight Response, as node-request.ts is
 * its lightweight Request). On Node 20, `new Response(text)` and reading its
 * body back cost about 12 µs: a `Headers`, a transferable web stream, a
 * reader. This one keeps the text, the status and the headers as given; the
 * listener writes them as they are, and anything else a `Response` offers
 * (`body`, `clone()`, `blob()`…) builds the real one the first time it is
 * touched, so every standard use works. It is `instanceof Response`.
 *
 * Only an answer to a request the Node listener made is light: its requests
 * offer this answer to `jsonAnswer` (json-response.ts), and that listener is
 * the one consumer of it, so no runtime's native code ever receives one.
 */
import { JSON_HEADERS } from '../json-response.js';

const STATE = Symbol('lightResponseState');

interface LightState {
  text: string;
  status: number;
  /** The headers as given, until something asks for `headers`. */
  record: Readonly<Record<string, string>>;
  headers: Headers | undefined;
  real: Response | undefined;
  bodyUsed: boolean;
}

type StateHolder = { [STATE]: LightState };

/** What the Node listener writes of a light answer not made real: status, headers and text. */
export interface LightAnswer {
  status: number;
  headers: Headers | Readonly<Record<string, string>>;
  text: string;
}

/** `jsonResponse(body, status)`, light: the Node listener's requests answer `jsonAnswer` with it. */
export function lightJsonResponse(body: unknown, status: number): Response {
  const state: LightState = {
    text: JSON.stringify(body),
    status,
    record: JSON_HEADERS,
    headers: undefined,
    real: undefined,
    bodyUsed: false,
  };
  const response = Object.create(LightResponse.prototype) as StateHolder;
  response[STATE] = state;
  return response as unknown as Response;
}

/** The parts of a light answer for the listener to write, or `undefined` for any other `Response`. */
export function lightAnswerOf(response: Response): LightAnswer | undefined {
  const state = (response as unknown as Partial<StateHolder>)[STATE];
  if (state === undefined || state.real !== undefined || state.bodyUsed) return undefined;
  return { status: state.status, headers: state.headers ?? state.record, text: state.text };
}

function realResponseOf(state: LightState): Response {
  if (!state.real) {
    state.real = new Response(state.text, { status: state.status, headers: headersOf(state) });
    // The text was already handed out: the real response's body is used, as it would be.
    if (state.bodyUsed) state.real.arrayBuffer().catch(() => undefined);
  }
  return state.real;
}

function headersOf(state: LightState): Headers {
  state.headers ??= new Headers(state.record);
  return state.headers;
}

/** The text, once, as the body mixin would give it. */
function takeText(state: LightState): string {
  if (state.bodyUsed) throw new TypeError('Body is unusable: the body has already been read.');
  state.bodyUsed = true;
  return state.text;
}

class LightResponse {
  declare [STATE]: LightState;

  get status(): number {
    return this[STATE].status;
  }

  get ok(): boolean {
    const { status } = this[STATE];
    return status >= 200 && status <= 299;
  }

  get headers(): Headers {
    const state = this[STATE];
    return state.real ? state.real.headers : headersOf(state);
  }

  get bodyUsed(): boolean {
    const state = this[STATE];
    return state.real ? state.real.bodyUsed : state.bodyUsed;
  }

  async text(): Promise<string> {
    const state = this[STATE];
    return state.real ? state.real.text() : takeText(state);
  }

  async json(): Promise<unknown> {
    const state = this[STATE];
    return state.real ? state.real.json() : JSON.parse(takeText(state));
  }
}

Object.setPrototypeOf(LightResponse.prototype, Response.prototype);
// Everything else a Response has is the real one's: body, clone(), arrayBuffer(), statusText…
for (const key of Reflect.ownKeys(Response.prototype)) {
  if (key === 'constructor' || key === Symbol.toStringTag || Object.hasOwn(LightResponse.prototype, key))
    continue;
  const descriptor = Object.getOwnPropertyDescriptor(Response.prototype, key);
  if (descriptor?.get) {
    Object.defineProperty(LightResponse.prototype, key, {
      configurable: true,
      get(this: StateHolder) {
        return Reflect.get(realResponseOf(this[STATE]), key);
      },
    });
  } else if (typeof descriptor?.value === 'function') {
    Object.defineProperty(LightResponse.prototype, key, {
      configurable: true,
      writable: true,
      value(this: StateHolder, ...args: unknown[]) {
        const real = realResponseOf(this[STATE]);
        return (Reflect.get(real, key) as (...params: unknown[]) => unknown).apply(real, args);
      },
    });
  }
}

// On Node 20, undici keeps a Response's insides under symbols (`new Response(body, response)`
// and the stream helpers read them): those too are the real response's.
for (const key of Object.getOwnPropertySymbols(new Response(null))) {
  Object.defineProperty(LightResponse.prototype, key, {
    configurable: true,
    get(this: StateHolder) {
      return Reflect.get(realResponseOf(this[STATE]), key);
    },
  });
}
