"""The shop's calls to `pay-checkout serve`: its merchant API, with the shop's own key, and the
embed's integrity. Python's standard library only: urllib.request."""

import json
import os
import urllib.error
import urllib.parse
import urllib.request


def serve_url():
    """Where `pay-checkout serve` listens; the browser loads the embed and pays there too."""
    return os.environ.get("PAY_CHECKOUT_URL", "http://127.0.0.1:8787").rstrip("/")


def merchant_api(method, path, body=None):
    """Calls serve's merchant API with the shop's key (from the environment, never on a page)."""
    key = os.environ.get("PAY_CHECKOUT_API_KEY")
    if not key:
        raise RuntimeError("Set PAY_CHECKOUT_API_KEY: the key serve was started with")
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(serve_url() + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        message = json.load(error).get("error", {}).get("message", "no message")
        raise RuntimeError(f"{method} {path} answered {error.code}: {message}") from None


def create_checkout(line_items, reference):
    """A checkout for `line_items` under the shop's `reference`: its client secret goes to the page."""
    return merchant_api("POST", "/v1/checkouts", {"line_items": line_items, "reference": reference})


def paid_order(reference):
    """The first paid order of `reference`, as serve's journal holds it, or None while none is paid."""
    query = urllib.parse.urlencode({"reference": reference})
    orders = merchant_api("GET", f"/v1/orders?{query}")["data"]
    # Newest first: the last paid one was paid first. Any other paid order of it is refunded.
    paid = [order for order in orders if order["outcome"] == "paid"]
    return paid[-1] if paid else None


def embed_integrity():
    """The embed's Subresource Integrity, as serve publishes it with the file."""
    request = urllib.request.Request(serve_url() + "/pay-checkout.embed.js", method="HEAD")
    with urllib.request.urlopen(request, timeout=10) as answer:
        integrity = answer.headers.get("Integrity", "")
    if not integrity.startswith("sha384-"):
        raise RuntimeError("pay-checkout serve gave no integrity for its embed")
    return integrity
