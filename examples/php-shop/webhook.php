<?php
// The shop's webhook receiver: serve POSTs each paid order here, signed as Standard Webhooks says.
// It believes only a signature by the shop's secret over the raw body, made within 5 minutes; it
// handles each webhook-id once, and ships an order.paid once per reference (orders.php).

declare(strict_types=1);

const SEEN_DIRECTORY = __DIR__ . '/.data/webhooks';
const TOLERANCE_SECONDS = 300;

/** Whether the headers sign `$body` with the shop's secret (SHOP_WEBHOOK_SECRET), within 5 minutes. */
function webhook_verified(string $id, string $timestamp, string $signatures, string $body): bool
{
    $secret = getenv('SHOP_WEBHOOK_SECRET') ?: '';
    if (!str_starts_with($secret, 'whsec_')) {
        throw new RuntimeException('Set SHOP_WEBHOOK_SECRET: the whsec_… secret serve signs with');
    }
    if (preg_match('/^\d{1,12}$/', $timestamp) !== 1 || abs(time() - (int) $timestamp) > TOLERANCE_SECONDS) {
        return false;
    }
    $key = base64_decode(substr($secret, strlen('whsec_')), true);
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
    // Several signatures while serve's secret is rotated: any one by this secret will do.
    foreach (explode(' ', $signatures) as $signature) {
        if (hash_equals("v1,$expected", $signature)) {
            return true;
        }
    }
    return false;
}

/** Handles the request to /webhooks/pay: 204 once handled (or handled before), 400 if not signed. */
function receive_webhook(): void
{
    $id = $_SERVER['HTTP_WEBHOOK_ID'] ?? '';
    $body = file_get_contents('php://input');
    if (preg_match('/^[A-Za-z0-9_-]{1,64}$/', $id) !== 1 || !webhook_verified($id,
        $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? '', $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? '', $body)) {
        http_response_code(400);
        return;
    }
    // One empty file per webhook-id handled: serve sends an event again when it missed the answer.
    $seen = SEEN_DIRECTORY . "/$id";
    $event = json_decode($body, true, 512, JSON_THROW_ON_ERROR);
    file_put_contents('php://stdout', "webhook $id: {$event['type']}" . (is_file($seen) ? ', handled before' : '') . "\n");
    if (!is_file($seen)) {
        if ($event['type'] === 'order.paid') {
            record_paid_order($event['data']);
        }
        if (!is_dir(SEEN_DIRECTORY)) {
            mkdir(SEEN_DIRECTORY, 0700, true);
        }
        touch($seen);
    }
    http_response_code(204);
}
