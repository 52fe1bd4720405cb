<?php
// The shop's calls to `pay-checkout serve`: its merchant API, with the shop's own key, and the
// embed's integrity. Plain PHP: file_get_contents with a stream context, no extension, no library.

declare(strict_types=1);

/** Where `pay-checkout serve` listens; the browser loads the embed and pays there too. */
function serve_url(): string
{
    return rtrim(getenv('PAY_CHECKOUT_URL') ?: 'http://127.0.0.1:8787', '/');
}

/** Sends one request to serve; answers [status, headers, body]. */
function serve_request(string $method, string $path, array $headers = [], ?string $body = null): array
{
    $options = ['method' => $method, 'header' => $headers, 'ignore_errors' => true,
        'follow_location' => 0, 'timeout' => 10];
    if ($body !== null) {
        $options['content'] = $body;
    }
    $answer = @file_get_contents(serve_url() . $path, false, stream_context_create(['http' => $options]));
    if ($answer === false) {
        throw new RuntimeException("pay-checkout serve did not answer $method $path");
    }
    // PHP 8.4 names the answer's headers with a function; before, only with a magic variable.
    $headers = function_exists('http_get_last_response_headers')
        ? http_get_last_response_headers() : $http_response_header;
    $status = (int) explode(' ', $headers[0])[1];
    return [$status, array_slice($headers, 1), $answer];
}

/** Calls serve's merchant API with the shop's key (from the environment, never on a page). */
function merchant_api(string $method, string $path, ?array $body = null): array
{
    $key = getenv('PAY_CHECKOUT_API_KEY');
    if ($key === false || $key === '') {
        throw new RuntimeException('Set PAY_CHECKOUT_API_KEY: the key serve was started with');
    }
    $headers = ["Authorization: Bearer $key", 'Accept: application/json'];
    if ($body !== null) {
        $headers[] = 'Content-Type: application/json';
    }
    $json = $body === null ? null : json_encode($body, JSON_THROW_ON_ERROR);
    [$status, , $answer] = serve_request($method, $path, $headers, $json);
    $decoded = json_decode($answer, true, 512, JSON_THROW_ON_ERROR);
    if ($status >= 300) {
        $message = $decoded['error']['message'] ?? 'no message';
        throw new RuntimeException("$method $path answered $status: $message");
    }
    return $decoded;
}

/** A checkout for `$lineItems` under the shop's `$reference`: its client secret goes to the page. */
function create_checkout(array $lineItems, string $reference): array
{
    return merchant_api('POST', '/v1/checkouts', ['line_items' => $lineItems, 'reference' => $reference]);
}

/** The first paid order of `$reference`, as serve's journal holds it, or null while none is paid. */
function paid_order(string $reference): ?array
{
    $orders = merchant_api('GET', '/v1/orders?reference=' . rawurlencode($reference))['data'];
    // Newest first: the last paid one was paid first. Any other paid order of it is refunded.
    $paid = array_values(array_filter($orders, fn ($order) => $order['outcome'] === 'paid'));
    return $paid === [] ? null : $paid[count($paid) - 1];
}

/** The embed's Subresource Integrity, as serve publishes it with the file. */
function embed_integrity(): string
{
    [$status, $headers] = serve_request('HEAD', '/pay-checkout.embed.js');
    foreach ($headers as $header) {
        if ($status === 200 && preg_match('/^integrity:\s*(sha384-\S+)$/i', $header, $match)) {
            return $match[1];
        }
    }
    throw new RuntimeException("pay-checkout serve gave no integrity for its embed ($status)");
}
