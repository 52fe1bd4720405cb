<?php
// Receives pay-checkout's signed webhooks (Standard Webhooks): php -S 127.0.0.1:8000 receiver.php
$configured = getenv('WEBHOOK_SECRET') ?: '';
$secret = base64_decode(substr($configured, strlen('whsec_')), true);
if (!str_starts_with($configured, 'whsec_') || !$secret) {
    error_log("WEBHOOK_SECRET is not set: give it this endpoint's whsec_ secret from your .env");
    http_response_code(500); // no secret: never check against an empty key, which anyone can sign with
    exit;
}
$id = $_SERVER['HTTP_WEBHOOK_ID'] ?? '';
$timestamp = $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? '';
$body = file_get_contents('php://input'); // the raw body: checked before any JSON parsing
$expected = 'v1,' . base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $secret, true));
$signed = false;
foreach (explode(' ', $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? '') as $signature) {
    $signed = hash_equals($expected, $signature) || $signed; // constant time
}
if (!$signed || !preg_match('/^\d+$/', $timestamp) || abs(time() - (int) $timestamp) > 300) {
    http_response_code(400); // forged, altered, or older than five minutes: a replay
    exit;
}
// De-duplicate on webhook-id: when our answer is lost, the same event comes again.
$seen = fopen(getenv('WEBHOOK_SEEN_FILE') ?: __DIR__ . '/webhook-ids.txt', 'c+');
flock($seen, LOCK_EX);
if (!in_array($id, explode("\n", stream_get_contents($seen)), true)) {
    $event = json_decode($body, true); // act on $event['type'] and $event['data'], or queue it
    fwrite($seen, "$id\n");
} else {
    error_log("$id again: answered, already acted on");
}
flock($seen, LOCK_UN);
http_response_code(204); // within 15 seconds; slow work belongs in a queue
