/**
 * The Mocha globals web-test-runner provides in the browser (@types/mocha is
 * not installed): just what the browser tests use.
 */
type MochaCallback = (this: { timeout(ms: number): void }) => void | Promise<void>;

declare function describe(title: string, body: () => void): void;
declare function it(title: string, body: MochaCallback): void;
declare function beforeEach(body: MochaCallback): void;
declare function afterEach(body: MochaCallback): void;
