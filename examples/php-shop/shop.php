<?php
// The shop, for PHP's built-in server: `php -S 127.0.0.1:8000 shop.php`. A product page whose
// checkout is made by this backend, a thank-you page that believes serve, never the browser, and
// the webhook receiver serve tells of each paid order.

declare(strict_types=1);

require __DIR__ . '/pay.php';
require __DIR__ . '/orders.php';
require __DIR__ . '/webhook.php';

// The shop's prices: the checkout is made from these, whatever a page says.
const PRODUCTS = [
    'kente-tote' => ['name' => 'Kente tote', 'unit_price' => ['currency' => 'ghs', 'value' => 12500]],
    'adinkra-scarf' => ['name' => 'Adinkra scarf', 'unit_price' => ['currency' => 'ghs', 'value' => 4000]],
];

/** `$text` made safe for HTML, in an element or in a quoted attribute. */
function e(string|int $text): string
{
    return htmlspecialchars((string) $text, ENT_QUOTES | ENT_HTML5, 'UTF-8');
}

/** An amount in minor units as the shopper reads it: GH₵ 125.00. */
function money(array $amount): string
{
    $symbol = $amount['currency'] === 'ghs' ? 'GH₵' : strtoupper($amount['currency']);
    return $symbol . ' ' . number_format($amount['value'] / 100, 2);
}

/** The top of every page; `$head` is trusted markup. */
function page_top(string $title, string $head = ''): void
{ ?>
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title><?= e($title) ?>: Kente &amp; Co.</title>
  <?= $head ?>
</head>
<body>
  <h1><?= e($title) ?></h1>
<?php }

/** The product page: a new checkout for the chosen product and quantity, and the element to pay it. */
function product_page(): void
{
    $sku = $_GET['product'] ?? 'kente-tote';
    $quantity = filter_var($_GET['quantity'] ?? '1', FILTER_VALIDATE_INT,
        ['options' => ['min_range' => 1, 'max_range' => 10]]);
    if (!is_string($sku) || !isset(PRODUCTS[$sku]) || $quantity === false) {
        http_response_code(404);
        page_top('No such product');
        return;
    }
    $product = PRODUCTS[$sku];
    $reference = 'order-' . bin2hex(random_bytes(8));
    $checkout = create_checkout([['name' => $product['name'], 'quantity' => $quantity,
        'unit_price' => $product['unit_price'], 'sku' => $sku]], $reference);
    $serve = serve_url();
    page_top($product['name'], '<script src="' . e("$serve/pay-checkout.embed.js") . '" integrity="'
        . e(embed_integrity()) . '" crossorigin="anonymous" defer></script>'); ?>
  <form method="get" action="/">
    <label>Product <select name="product">
      <?php foreach (PRODUCTS as $id => $choice): ?>
      <option value="<?= e($id) ?>"<?= $id === $sku ? ' selected' : '' ?>><?= e($choice['name']) ?>, <?= e(money($choice['unit_price'])) ?></option>
      <?php endforeach ?>
    </select></label>
    <label>Quantity <input name="quantity" type="number" min="1" max="10" value="<?= e($quantity) ?>"></label>
    <button>Update</button>
  </form>
  <pay-checkout checkout="<?= e($checkout['client_secret']) ?>"
    create-url="<?= e("$serve/checkout/orders") ?>" lookup-url="<?= e("$serve/checkout/lookup") ?>"
    price-url="<?= e("$serve/checkout/price") ?>" amount="<?= e($checkout['amount']['value']) ?>"
    currency="<?= e($checkout['amount']['currency']) ?>"
    data-thank-you="<?= e('/thank-you?reference=' . rawurlencode($reference)) ?>"></pay-checkout>
  <script>
    const checkout = document.querySelector('pay-checkout');
    // The page's word is only a hint to move on: the thank-you page asks serve itself.
    checkout.addEventListener('pay-paid', () => location.assign(checkout.dataset.thankYou));
  </script>
<?php }

/** The thank-you page: the order of `reference` as serve knows it, recorded once when paid. */
function thank_you_page(): void
{
    $reference = $_GET['reference'] ?? '';
    if (!is_string($reference) || preg_match('/^order-[0-9a-f]{16}$/', $reference) !== 1) {
        http_response_code(404);
        page_top('No such order');
        return;
    }
    $order = paid_order($reference);
    if ($order === null) {
        // Not paid as far as serve knows (yet): this page asks again in a few seconds.
        page_top('Waiting for your payment', '<meta http-equiv="refresh" content="3">');
        echo '  <p>Approve the prompt on your phone; this page updates by itself.</p>';
        return;
    }
    record_paid_order($order);
    page_top('Thank you'); ?>
  <p id="paid">Order <?= e($reference) ?> is paid: <?= e(money($order['amount'])) ?>.</p>
  <ul>
    <?php foreach ($order['line_items'] as $item): ?>
    <li><?= e($item['name']) ?> × <?= e($item['quantity']) ?></li>
    <?php endforeach ?>
  </ul>
<?php }

try {
    match (parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH)) {
        '/' => product_page(),
        '/thank-you' => thank_you_page(),
        '/webhooks/pay' => $_SERVER['REQUEST_METHOD'] === 'POST' ? receive_webhook() : http_response_code(405),
        default => http_response_code(404),
    };
} catch (Throwable $error) {
    // Into the server's log, never onto the page.
    error_log('shop: ' . $error->getMessage());
    http_response_code(502);
    echo '<p>The shop cannot reach its payments server. Try again in a minute.</p>';
}
