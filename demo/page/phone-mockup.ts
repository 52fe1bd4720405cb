/**
 * The payer's phone beside the checkout: it shows the mobile-money prompt as
 * the payer would get it (network, amount, merchant, masked number) and
 * answers it through the sandbox's control surface, so the whole story plays
 * on one screen. It follows the element's events; it never drives the element.
 */
import { formatAmount } from '../../src/element/format-amount.js';
import type { PaymentPromptJson } from '../../src/sandbox/index.js';
import { classifyPaymentStatus } from '../../src/shared/service-contract.js';
import type { DemoLocale } from '../demo-config.js';
import { createNode } from './dom.js';
import { PHONE_STRINGS, type PhoneFailure, type PhoneStrings } from './phone-strings.js';
import { carrierName, type SandboxControls, walletName } from './sandbox-controls.js';

/** What the phone screen shows. */
export type PhoneScreen = 'home' | 'service' | 'loading' | 'prompt' | 'paid' | 'failed' | 'unreachable';

/** The nodes of the phone mock-up in the page. */
export interface PhoneNodes {
  /** The phone frame; carries `data-screen` and `data-issuer` for styling and tests. */
  root: HTMLElement;
  /** Where each screen is drawn. */
  screen: HTMLElement;
  /** The network name in the status bar. */
  network: HTMLElement;
  /** The clock in the status bar. */
  clock: HTMLElement;
}

/** What the phone needs to know about the demo. */
export interface PhoneOptions {
  /** The sandbox's control surface; null when a real service answers (nothing to simulate). */
  controls: SandboxControls | null;
  merchantName: string;
  /** The sandbox's approval delay, for the hint under the prompt. */
  approveAfterMs: number | null;
  locale: DemoLocale;
}

/** The phone mock-up; see the module comment. */
export class PhoneMockup {
  readonly #nodes: PhoneNodes;
  readonly #controls: SandboxControls | null;
  readonly #merchantName: string;
  readonly #approveAfterMs: number | null;
  #locale: DemoLocale;
  #screen: PhoneScreen;
  #orderId: string | undefined;
  #prompt: PaymentPromptJson | undefined;
  #answering: 'approve' | 'decline' | undefined;
  /** Why the payment failed, once it did. */
  #failure: PhoneFailure = 'other';
  #timedOut = false;
  #load: AbortController | undefined;

  constructor(nodes: PhoneNodes, options: PhoneOptions) {
    this.#nodes = nodes;
    this.#controls = options.controls;
    this.#merchantName = options.merchantName;
    this.#approveAfterMs = options.approveAfterMs;
    this.#locale = options.locale;
    this.#screen = this.#controls ? 'home' : 'service';
    this.#tickClock();
    setInterval(() => this.#tickClock(), 15_000);
    this.#render(false);
  }

  /** The order whose prompt the phone shows, if any. */
  get orderId(): string | undefined {
    return this.#orderId;
  }

  /** Speaks the checkout's language. */
  setLocale(locale: DemoLocale): void {
    this.#locale = locale;
    this.#render(false);
  }

  /** Back to the home screen: no request pending. */
  showHome(): void {
    this.#load?.abort();
    this.#orderId = undefined;
    this.#prompt = undefined;
    this.#answering = undefined;
    this.#failure = 'other';
    this.#timedOut = false;
    this.#screen = this.#controls ? 'home' : 'service';
    this.#render(false);
  }

  /** Fetches and shows the prompt of `orderId`, as the payer's phone would ring. */
  async showPromptFor(orderId: string): Promise<void> {
    if (!this.#controls) return;
    if (this.#orderId === orderId && this.#screen !== 'unreachable') return;
    this.#load?.abort();
    const load = new AbortController();
    this.#load = load;
    this.#orderId = orderId;
    this.#prompt = undefined;
    this.#answering = undefined;
    this.#failure = 'other';
    this.#timedOut = false;
    this.#screen = 'loading';
    this.#render(false);
    try {
      const prompt = await this.#controls.prompt(orderId, load.signal);
      if (load.signal.aborted) return;
      this.#prompt = prompt;
      this.#screen = screenForStatus(prompt.status);
    } catch {
      if (load.signal.aborted) return;
      this.#screen = 'unreachable';
    }
    this.#render(false);
  }

  /**
   * The payment of `orderId` ended: the phone shows the wallet's confirmation,
   * and for a failure what happened (`failureCode`), when known.
   */
  showOutcome(orderId: string, outcome: 'paid' | 'failed', failureCode?: string): void {
    if (!this.#controls) return;
    if (this.#orderId !== orderId) {
      this.#orderId = orderId;
      this.#failure = 'other';
      void this.#refreshPrompt(orderId);
    }
    if (failureCode === 'declined' || failureCode === 'insufficient_funds') this.#failure = failureCode;
    this.#answering = undefined;
    this.#screen = outcome;
    this.#render(false);
  }

  /** The checkout stopped waiting; the prompt stays open on the phone. */
  noteTimeout(orderId: string): void {
    if (this.#orderId !== orderId) void this.showPromptFor(orderId);
    this.#timedOut = true;
    this.#render(false);
  }

  async #refreshPrompt(orderId: string): Promise<void> {
    try {
      const prompt = await this.#controls?.prompt(orderId);
      if (prompt && this.#orderId === orderId) {
        this.#prompt = prompt;
        this.#render(false);
      }
    } catch {
      // The outcome screen reads well without the amount.
    }
  }

  async #answer(action: 'approve' | 'decline'): Promise<void> {
    const orderId = this.#orderId;
    if (!this.#controls || !orderId || this.#answering) return;
    this.#answering = action;
    this.#render(true);
    try {
      await this.#controls[action](orderId);
      if (this.#orderId !== orderId) return;
      this.#screen = action === 'approve' ? 'paid' : 'failed';
      if (action === 'decline') this.#failure = 'declined';
    } catch {
      if (this.#orderId !== orderId) return;
      // Most often the payer of the sandbox answered first: show what the payment became.
      try {
        this.#prompt = await this.#controls.prompt(orderId);
        this.#screen = screenForStatus(this.#prompt.status);
      } catch {
        this.#screen = 'unreachable';
      }
    }
    this.#answering = undefined;
    this.#render(true);
  }

  #tickClock(): void {
    const now = new Date();
    this.#nodes.clock.textContent = `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`;
  }

  /**
   * Draws the current screen; `moveFocus` after the visitor acted on the
   * phone. Focus inside the old screen (the Decline just pressed, say) moves
   * to the new one too, whatever redrew it, rather than fall to the page's body.
   */
  #render(moveFocus: boolean): void {
    const strings = PHONE_STRINGS[this.#locale];
    const { root, screen, network } = this.#nodes;
    const focusWasHere = screen.contains(document.activeElement);
    root.dataset.screen = this.#screen;
    root.lang = this.#locale;
    if (this.#prompt) root.dataset.issuer = this.#prompt.issuer;
    else delete root.dataset.issuer;
    network.textContent = this.#prompt ? carrierName(this.#prompt.issuer) : '';
    screen.setAttribute('aria-label', strings.screenLabel);
    screen.replaceChildren(this.#screenContent(strings));
    if (moveFocus || focusWasHere) {
      const target =
        screen.querySelector<HTMLElement>('button:not([disabled])') ?? screen.querySelector('h3');
      target?.focus();
    }
  }

  #screenContent(strings: PhoneStrings): HTMLElement {
    switch (this.#screen) {
      case 'home':
        return this.#notice('home', strings.homeTitle, strings.homeBody);
      case 'service':
        return this.#notice('home', strings.homeTitle, strings.serviceBody);
      case 'loading':
        return this.#notice('loading', strings.loading, '');
      case 'unreachable':
        return this.#notice('failed', strings.unreachable, '');
      case 'prompt':
        return this.#promptCard(strings);
      case 'paid':
        return this.#outcome('paid', strings.paidTitle, strings.paidBody(this.#amount(), this.#merchant()));
      case 'failed': {
        const failed = strings.failed[this.#failure];
        return this.#outcome('failed', failed.title, failed.body);
      }
      default:
        throw new Error(`Unknown phone screen: ${String(this.#screen)}`);
    }
  }

  #notice(kind: string, title: string, body: string): HTMLElement {
    return createNode('div', { className: `phone-notice phone-notice--${kind}` }, [
      kind === 'loading'
        ? createNode('span', { className: 'spinner', attributes: { 'aria-hidden': 'true' } })
        : null,
      createNode('h3', { className: 'phone-notice__title', attributes: { tabindex: '-1' } }, [title]),
      body ? createNode('p', { className: 'phone-notice__body' }, [body]) : null,
    ]);
  }

  #promptCard(strings: PhoneStrings): HTMLElement {
    const prompt = this.#prompt as PaymentPromptJson;
    const busy = this.#answering !== undefined;
    const button = (action: 'approve' | 'decline', label: string, busyLabel: string): HTMLButtonElement => {
      const node = createNode(
        'button',
        {
          className: `phone-button phone-button--${action}`,
          attributes: { type: 'button', 'data-action': action, disabled: busy },
        },
        [this.#answering === action ? busyLabel : label],
      );
      node.addEventListener('click', () => void this.#answer(action));
      return node;
    };
    const seconds =
      this.#approveAfterMs === null ? null : (this.#approveAfterMs / 1000).toLocaleString(this.#locale);
    return createNode(
      'div',
      { className: 'phone-prompt', attributes: { role: 'group', 'aria-labelledby': 'phone-prompt-title' } },
      [
        createNode('div', { className: 'phone-prompt__bar' }, [walletName(prompt.issuer)]),
        createNode('div', { className: 'phone-prompt__body' }, [
          createNode(
            'h3',
            { className: 'phone-prompt__lead', attributes: { id: 'phone-prompt-title', tabindex: '-1' } },
            [strings.promptLead(this.#merchant())],
          ),
          createNode(
            'p',
            { className: 'phone-prompt__amount', attributes: { 'data-testid': 'phone-amount' } },
            [this.#amount()],
          ),
          createNode('dl', { className: 'phone-prompt__facts' }, [
            createNode('div', {}, [
              createNode('dt', {}, [strings.fromLabel]),
              createNode('dd', { attributes: { 'data-testid': 'phone-number' } }, [prompt.number_masked]),
            ]),
            createNode('div', {}, [
              createNode('dt', {}, [strings.referenceLabel]),
              createNode('dd', { className: 'phone-prompt__reference' }, [shortReference(prompt.order_id)]),
            ]),
          ]),
          createNode('div', { className: 'phone-prompt__actions' }, [
            button('decline', strings.decline, strings.declining),
            button('approve', strings.approve, strings.approving),
          ]),
          this.#timedOut
            ? createNode('p', { className: 'phone-prompt__note phone-prompt__note--warning' }, [
                strings.timedOut,
              ])
            : seconds
              ? createNode('p', { className: 'phone-prompt__note' }, [strings.autoApprove(seconds)])
              : null,
        ]),
      ],
    );
  }

  #outcome(kind: 'paid' | 'failed', title: string, body: string): HTMLElement {
    return createNode('div', { className: `phone-outcome phone-outcome--${kind}` }, [
      createNode('span', { className: 'phone-outcome__icon', attributes: { 'aria-hidden': 'true' } }),
      createNode('h3', { className: 'phone-outcome__title', attributes: { tabindex: '-1' } }, [title]),
      createNode('p', { className: 'phone-outcome__body' }, [body]),
      this.#orderId
        ? createNode('p', { className: 'phone-outcome__reference' }, [
            `${PHONE_STRINGS[this.#locale].referenceLabel} ${shortReference(this.#orderId)}`,
          ])
        : null,
    ]);
  }

  #amount(): string {
    return formatAmount(this.#prompt?.amount, this.#locale);
  }

  #merchant(): string {
    return this.#prompt?.merchant_name ?? this.#merchantName;
  }
}

/** The screen of a payment status: its outcome once final, else the prompt. */
function screenForStatus(status: string): PhoneScreen {
  const outcome = classifyPaymentStatus(status);
  return outcome === 'pending' ? 'prompt' : outcome;
}

/** `or_7Hk…Q2xz`: enough of the id to match it with the shop's receipt. */
function shortReference(orderId: string): string {
  return orderId.length > 14 ? `${orderId.slice(0, 7)}…${orderId.slice(-4)}` : orderId;
}
