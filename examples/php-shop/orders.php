<?php
// The shop's own record of paid orders: one JSON file, one entry per reference, written under a
// lock so two thank-you pages loading at once never write over each other.

declare(strict_types=1);

const ORDERS_FILE = __DIR__ . '/.data/orders.json';

/** Records `$order` (verified with serve) once for its reference; answers whether it is new. */
function record_paid_order(array $order): bool
{
    if (!is_dir(dirname(ORDERS_FILE))) {
        mkdir(dirname(ORDERS_FILE), 0700, true);
    }
    $lock = fopen(ORDERS_FILE . '.lock', 'c');
    flock($lock, LOCK_EX);
    try {
        $orders = is_file(ORDERS_FILE) ? json_decode(file_get_contents(ORDERS_FILE), true) : [];
        if (isset($orders[$order['reference']])) {
            return false;
        }
        $orders[$order['reference']] = [
            'order_id' => $order['id'],
            'items' => array_map(fn ($item) => ['name' => $item['name'], 'quantity' => $item['quantity']],
                $order['line_items']),
            'amount' => $order['amount'],
            'paid_at' => $order['settled_at'],
        ];
        // A whole new file, then renamed over the old one: a crash leaves one or the other.
        file_put_contents(ORDERS_FILE . '.new', json_encode($orders, JSON_PRETTY_PRINT | JSON_THROW_ON_ERROR));
        rename(ORDERS_FILE . '.new', ORDERS_FILE);
        return true;
    } finally {
        flock($lock, LOCK_UN);
        fclose($lock);
    }
}
