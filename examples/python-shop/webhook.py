"""The shop's webhook receiver: serve POSTs each paid order here, signed as Standard Webhooks says.
It believes only a signature by the shop's secret over the raw body, made within 5 minutes; it
handles each webhook-id once, and ships an order.paid once per reference (orders.py)."""

import base64
import hashlib
import hmac
import json
import os
import re
import time

from orders import record_paid_order

SEEN_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data", "webhooks")
TOLERANCE_SECONDS = 300


def webhook_verified(webhook_id, timestamp, signatures, body):
    """Whether the headers sign `body` with the shop's secret (SHOP_WEBHOOK_SECRET), within 5 minutes."""
    secret = os.environ.get("SHOP_WEBHOOK_SECRET", "")
    if not secret.startswith("whsec_"):
        raise RuntimeError("Set SHOP_WEBHOOK_SECRET: the whsec_… secret serve signs with")
    if not re.fullmatch(r"\d{1,12}", timestamp) or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    key = base64.b64decode(secret[len("whsec_"):])
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # Several signatures while serve's secret is rotated: any one by this secret will do.
    return any(hmac.compare_digest(expected, signature) for signature in signatures.split(" "))


def receive_webhook(headers, body):
    """Handles a POST to /webhooks/pay: 204 once handled (or handled before), 400 if not signed."""
    webhook_id = headers.get("webhook-id", "")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", webhook_id) or not webhook_verified(
        webhook_id, headers.get("webhook-timestamp", ""), headers.get("webhook-signature", ""), body
    ):
        return 400
    # One empty file per webhook-id handled: serve sends an event again when it missed the answer.
    seen = os.path.join(SEEN_DIRECTORY, webhook_id)
    event = json.loads(body)
    print(f"webhook {webhook_id}: {event['type']}" + (", handled before" if os.path.exists(seen) else ""), flush=True)
    if not os.path.exists(seen):
        if event["type"] == "order.paid":
            record_paid_order(event["data"])
        os.makedirs(SEEN_DIRECTORY, mode=0o700, exist_ok=True)
        open(seen, "a").close()
    return 204
