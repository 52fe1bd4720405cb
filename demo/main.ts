/**
 * The sales demo page: a product priced by the server, `<pay-checkout>`, the
 * payer's phone, the live event log, theme and language switches and the
 * embed snippet for the current settings. Every node is built with
 * `createElement`/`textContent`, so the page runs under Trusted Types. The
 * language switch moves the whole page, not only the checkout.
 */
import { onPayEvent } from './page/event-capture.js';
import '../src/index.js';
import { formatAmount } from '../src/element/format-amount.js';
import {
  DEMO_CART_PATH,
  DEMO_CONFIG_PATH,
  type DemoCart,
  type DemoCartAnswer,
  type DemoConfig,
  type DemoProduct,
} from './demo-config.js';
import { requireById } from './page/dom.js';
import {
  cssSnippet,
  htmlSnippet,
  renderSnippet,
  type SnippetToken,
  snippetText,
} from './page/embed-snippet.js';
import { EventLog } from './page/event-log.js';
import { FulfilmentView } from './page/fulfilment-view.js';
import { type PageSettings, readPageSettings, writePageSettings } from './page/page-settings.js';
import { applyPageText, PAGE_TEXT } from './page/page-text.js';
import { PhoneMockup } from './page/phone-mockup.js';
import { createSandboxControls } from './page/sandbox-controls.js';
import { THEME_PROPERTY_NAMES } from './page/theme.js';

/** The demo's own memory of the order the phone follows, so a reload can show its prompt again. */
const ORDER_STORAGE_KEY = 'pay-checkout-demo:order-id';

const checkout = findCheckout();
const quantity = requireById('quantity', HTMLSelectElement);
const startOver = requireById('start-over', HTMLButtonElement);
const shopNote = requireById('shop-note', HTMLElement);
const log = new EventLog(requireById('event-log', HTMLOListElement));

let settings: PageSettings = readPageSettings(
  location.search,
  matchMedia('(prefers-color-scheme: dark)').matches,
);
let config: DemoConfig | undefined;
let phone: PhoneMockup | undefined;
/** The cart's reference as the server gave it: the server keeps the cart's session in an HttpOnly cookie. */
let cartReference: string | undefined;

applySettings();
bindSettingsForm();
requireById('clear-log', HTMLButtonElement).addEventListener('click', () => log.clear());
bindCopyButton('copy-html', 'snippet-html');
bindCopyButton('copy-css', 'snippet-css');
startOver.addEventListener('click', async () => {
  // A new payment is a new cart, from the server: it must not read as a second payment of the one just paid.
  const cart = await readCart('POST');
  checkout.reset();
  if (cart) cartReference = cart.reference;
  updateCart();
  // The button hides with the new attempt: hand focus to the form rather than lose it.
  await checkout.updateComplete;
  checkout.shadowRoot?.querySelector<HTMLElement>('[name="customer_name"]')?.focus();
});
quantity.addEventListener('change', () => {
  updateCart();
  renderSnippets();
});
onPayEvent(handlePayEvent);
void loadConfig();
new FulfilmentView(
  requireById('fulfilment-list', HTMLOListElement),
  requireById('fulfilment-status', HTMLElement),
  () => PAGE_TEXT[settings.locale],
).start();

function findCheckout(): HTMLElementTagNameMap['pay-checkout'] {
  const found = document.querySelector('pay-checkout');
  if (!found) throw new Error('The demo page has no <pay-checkout>.');
  return found;
}

async function loadConfig(): Promise<void> {
  try {
    const response = await fetch(DEMO_CONFIG_PATH, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`The demo server answered ${response.status}.`);
    config = (await response.json()) as DemoConfig;
    const cart = await readCart('GET');
    if (!cart) throw new Error('The demo server gave no cart.');
    cartReference = cart.reference;
  } catch {
    shopNote.dataset.text = 'shopUnreachable';
    shopNote.textContent = PAGE_TEXT[settings.locale].shopUnreachable;
    shopNote.classList.add('shop__note--error');
    return;
  }
  const product = currentProduct();
  quantity.replaceChildren(
    ...Array.from(
      { length: product.maxQuantity },
      (_, index) => new Option(String(index + 1), String(index + 1)),
    ),
  );
  requireById('merchant-name', HTMLElement).textContent = config.merchantName;
  renderConfigText();
  phone = new PhoneMockup(
    {
      root: requireById('phone', HTMLElement),
      screen: requireById('phone-screen', HTMLElement),
      network: requireById('phone-network', HTMLElement),
      clock: requireById('phone-time', HTMLElement),
    },
    {
      controls: config.sandbox ? createSandboxControls(config.sandbox.controlUrl) : null,
      merchantName: config.merchantName,
      approveAfterMs: config.sandbox?.approveAfterMs ?? null,
      locale: settings.locale,
    },
  );
  updateCart();
  renderProductText();
  renderSnippets();
  checkout.removeAttribute('disabled');
  followState(checkout.getAttribute('state') ?? 'idle');
  restorePhone();
}

function currentProduct(): DemoProduct {
  const product = config?.products[0];
  if (!product) throw new Error('The demo catalogue is empty.');
  return product;
}

function currentCart(): DemoCart {
  const items = [{ product_id: currentProduct().id, quantity: Number(quantity.value) || 1 }];
  // The reference only tells the element when the cart changed; the server reads its own.
  return cartReference ? { reference: cartReference, items } : { items };
}

/** This browser's cart from the server (`GET`), or a new one (`POST`); undefined if the server did not answer. */
async function readCart(method: 'GET' | 'POST'): Promise<DemoCartAnswer | undefined> {
  try {
    const response = await fetch(DEMO_CART_PATH, { method, headers: { accept: 'application/json' } });
    return response.ok ? ((await response.json()) as DemoCartAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** The amount the page shows; the server prices the same cart itself, whatever this says. */
function displayedAmount(): number {
  return currentProduct().price.value * (Number(quantity.value) || 1);
}

function updateCart(): void {
  if (!config) return;
  checkout.cart = currentCart();
  checkout.setAttribute('amount', String(displayedAmount()));
  checkout.setAttribute('currency', currentProduct().price.currency);
}

function renderProductText(): void {
  if (!config) return;
  const product = currentProduct();
  const text = product.text[settings.locale];
  const price = requireById('product-price', HTMLDataElement);
  requireById('product-name', HTMLElement).textContent = text.name;
  requireById('product-description', HTMLElement).textContent = text.description;
  price.value = String(product.price.value);
  price.textContent = formatAmount(product.price, settings.locale);
}

/** The words that depend on what the demo server said: its mode and its payer's delay. */
function renderConfigText(): void {
  const text = PAGE_TEXT[settings.locale];
  const sandbox = config?.sandbox;
  requireById('mode-badge', HTMLElement).textContent =
    config?.mode === 'service' ? text.modeService : text.modeSandbox;
  requireById('approve-delay-cell', HTMLElement).textContent = !config
    ? text.approvesSoon
    : sandbox
      ? text.approvesAfter(sandbox.approveAfterMs / 1000)
      : text.approvesOnPhone;
}

function applySettings(): void {
  const root = document.documentElement;
  root.dataset.theme = settings.theme;
  root.dataset.brand = settings.brand;
  applyPageText(settings.locale);
  renderConfigText();
  checkout.setAttribute('locale', settings.locale);
  if (settings.pollTimeout !== undefined) checkout.setAttribute('poll-timeout', String(settings.pollTimeout));
  if (settings.pollInterval !== undefined)
    checkout.setAttribute('poll-interval', String(settings.pollInterval));
  for (const input of requireById('settings', HTMLFormElement).querySelectorAll('input')) {
    const value = settings[input.name as 'theme' | 'brand' | 'locale'];
    input.checked = input.value === value;
  }
  phone?.setLocale(settings.locale);
  renderProductText();
  renderSnippets();
}

function bindSettingsForm(): void {
  const form = requireById('settings', HTMLFormElement);
  // On a phone the switches fold behind this button (styles.css); wider screens never show it.
  const toggle = requireById('settings-toggle', HTMLButtonElement);
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    form.classList.toggle('settings--open', open);
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('change', () => {
    const data = new FormData(form);
    settings = {
      ...settings,
      theme: data.get('theme') === 'dark' ? 'dark' : 'light',
      brand: data.get('brand') === 'indigo' ? 'indigo' : 'gold',
      locale: data.get('locale') === 'fr' ? 'fr' : 'en',
    };
    // The URL keeps the settings, so a reload or a shared link shows the same page.
    history.replaceState(null, '', `${location.pathname}${writePageSettings(location.search, settings)}`);
    applySettings();
  });
}

function renderSnippets(): void {
  if (!config) return;
  const product = currentProduct();
  const html = htmlSnippet({
    version: config.embed.version,
    integrity: config.embed.integrity,
    createUrl: config.checkout.create,
    lookupUrl: config.checkout.lookup,
    priceUrl: config.checkout.price,
    amount: displayedAmount(),
    currency: product.price.currency,
    locale: settings.locale,
    // The page's cart id stays out of a snippet meant to be copied.
    cart: { items: currentCart().items },
  });
  // The values the element really computes now, so the copied theme looks like this page.
  const style = getComputedStyle(checkout);
  const css = cssSnippet(
    THEME_PROPERTY_NAMES.map((name) => [name, style.getPropertyValue(name).trim()] as const).filter(
      ([, value]) => value !== '',
    ),
  );
  showSnippet('snippet-html', html);
  showSnippet('snippet-css', css);
}

function showSnippet(id: string, tokens: readonly SnippetToken[]): void {
  const code = requireById(id, HTMLElement);
  renderSnippet(code, tokens);
  code.dataset.text = snippetText(tokens);
}

function bindCopyButton(buttonId: string, codeId: string): void {
  const status = requireById('copy-status', HTMLElement);
  requireById(buttonId, HTMLButtonElement).addEventListener('click', async () => {
    const text = requireById(codeId, HTMLElement).dataset.text ?? '';
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = PAGE_TEXT[settings.locale].copied;
    } catch {
      // No clipboard permission: select the text so Ctrl-C copies it.
      const selection = getSelection();
      selection?.selectAllChildren(requireById(codeId, HTMLElement));
      status.textContent = PAGE_TEXT[settings.locale].selected;
    }
  });
}

function handlePayEvent(event: CustomEvent<unknown>): void {
  log.add(event.type, event.detail);
  const detail = event.detail as { orderId?: string; state?: string; failureCode?: string } | null;
  switch (event.type) {
    case 'pay-created':
    case 'pay-requires-action':
      if (detail?.orderId) {
        sessionStorage.setItem(ORDER_STORAGE_KEY, detail.orderId);
        void phone?.showPromptFor(detail.orderId);
      }
      break;
    case 'pay-paid':
      if (detail?.orderId) phone?.showOutcome(detail.orderId, 'paid');
      break;
    case 'pay-failed':
      if (detail?.orderId) phone?.showOutcome(detail.orderId, 'failed', detail.failureCode);
      break;
    case 'pay-timeout':
      if (detail?.orderId) phone?.noteTimeout(detail.orderId);
      break;
    case 'pay-state-change':
      if (detail?.state) followState(detail.state);
      break;
    default:
      break;
  }
}

function followState(state: string): void {
  // Once an attempt is under way (any state but idle), the cart it prices is fixed.
  quantity.disabled = state !== 'idle';
  startOver.hidden = state !== 'paid';
  if (state === 'idle') {
    sessionStorage.removeItem(ORDER_STORAGE_KEY);
    phone?.showHome();
  }
}

/** After a reload the element resumes without firing its once-per-attempt events again. */
function restorePhone(): void {
  const orderId = sessionStorage.getItem(ORDER_STORAGE_KEY);
  const state = checkout.getAttribute('state');
  if (!orderId || !phone) return;
  if (state === 'requires_action') void phone.showPromptFor(orderId);
  else if (state === 'timeout') phone.noteTimeout(orderId);
  else if (state === 'paid') phone.showOutcome(orderId, 'paid');
  else if (state === 'failed') phone.showOutcome(orderId, 'failed');
}
