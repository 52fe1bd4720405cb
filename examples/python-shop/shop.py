"""The shop, on Python's standard library: `python3 shop.py`. A product page whose checkout is made
by this backend, a thank-you page that believes serve, never the browser, and the webhook receiver
serve tells of each paid order."""

import html
import os
import re
import secrets
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from orders import record_paid_order
from pay import create_checkout, embed_integrity, paid_order, serve_url
from webhook import receive_webhook

# The shop's prices: the checkout is made from these, whatever a page says.
PRODUCTS = {
    "kente-tote": {"name": "Kente tote", "unit_price": {"currency": "ghs", "value": 12500}},
    "adinkra-scarf": {"name": "Adinkra scarf", "unit_price": {"currency": "ghs", "value": 4000}},
}


def e(text):
    """`text` made safe for HTML, in an element or in a quoted attribute."""
    return html.escape(str(text), quote=True)


def money(amount):
    """An amount in minor units as the shopper reads it: GH₵ 125.00."""
    symbol = "GH₵" if amount["currency"] == "ghs" else amount["currency"].upper()
    return f"{symbol} {amount['value'] / 100:.2f}"


def page(title, body, head=""):
    """A whole page; `body` and `head` are markup already escaped."""
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{e(title)}: Kente &amp; Co.</title>
  {head}
</head>
<body>
  <h1>{e(title)}</h1>
{body}
</body>
</html>
"""


def product_page(query):
    """The product page: a new checkout for the chosen product and quantity, and the element to pay it."""
    sku = query.get("product", "kente-tote")
    quantity = query.get("quantity", "1")
    if sku not in PRODUCTS or not re.fullmatch(r"[1-9]|10", quantity):
        return 404, page("No such product", "")
    product, quantity = PRODUCTS[sku], int(quantity)
    reference = "order-" + secrets.token_hex(8)
    checkout = create_checkout(
        [{"name": product["name"], "quantity": quantity, "unit_price": product["unit_price"], "sku": sku}],
        reference,
    )
    serve = serve_url()
    head = (f'<script src="{e(serve + "/pay-checkout.embed.js")}" integrity="{e(embed_integrity())}"'
            ' crossorigin="anonymous" defer></script>')
    options = "\n".join(
        f'      <option value="{e(choice_id)}"{" selected" if choice_id == sku else ""}>'
        f"{e(choice['name'])}, {e(money(choice['unit_price']))}</option>"
        for choice_id, choice in PRODUCTS.items()
    )
    thank_you = "/thank-you?" + urllib.parse.urlencode({"reference": reference})
    return 200, page(product["name"], f"""  <form method="get" action="/">
    <label>Product <select name="product">
{options}
    </select></label>
    <label>Quantity <input name="quantity" type="number" min="1" max="10" value="{e(quantity)}"></label>
    <button>Update</button>
  </form>
  <pay-checkout checkout="{e(checkout["client_secret"])}"
    create-url="{e(serve + "/checkout/orders")}" lookup-url="{e(serve + "/checkout/lookup")}"
    price-url="{e(serve + "/checkout/price")}" amount="{e(checkout["amount"]["value"])}"
    currency="{e(checkout["amount"]["currency"])}" data-thank-you="{e(thank_you)}"></pay-checkout>
  <script>
    const checkout = document.querySelector('pay-checkout');
    // The page's word is only a hint to move on: the thank-you page asks serve itself.
    checkout.addEventListener('pay-paid', () => location.assign(checkout.dataset.thankYou));
  </script>""", head)


def thank_you_page(query):
    """The thank-you page: the order of `reference` as serve knows it, recorded once when paid."""
    reference = query.get("reference", "")
    if not re.fullmatch(r"order-[0-9a-f]{16}", reference):
        return 404, page("No such order", "")
    order = paid_order(reference)
    if order is None:
        # Not paid as far as serve knows (yet): this page asks again in a few seconds.
        return 200, page("Waiting for your payment",
                         "  <p>Approve the prompt on your phone; this page updates by itself.</p>",
                         '<meta http-equiv="refresh" content="3">')
    record_paid_order(order)
    items = "\n".join(f"    <li>{e(item['name'])} × {e(item['quantity'])}</li>" for item in order["line_items"])
    return 200, page("Thank you", f"""  <p id="paid">Order {e(reference)} is paid: {e(money(order["amount"]))}.</p>
  <ul>
{items}
  </ul>""")


class Shop(BaseHTTPRequestHandler):
    """Routes the shop's two pages and its webhook receiver; anything else is 404."""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = {name: values[0] for name, values in urllib.parse.parse_qs(url.query).items()}
        pages = {"/": product_page, "/thank-you": thank_you_page}
        try:
            status, body = pages[url.path](query) if url.path in pages else (404, page("Not found", ""))
        except Exception as error:
            # Into the server's log, never onto the page.
            self.log_error("shop: %s", error)
            status, body = 502, page("Try again in a minute", "  <p>The shop cannot reach its payments server.</p>")
        self.answer(status, body)

    def do_POST(self):
        if urllib.parse.urlsplit(self.path).path != "/webhooks/pay":
            return self.answer(404, page("Not found", ""))
        # The signature is over the body's very bytes: read them raw, parse only once verified.
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            status = receive_webhook(self.headers, body)
        except Exception as error:
            self.log_error("shop: webhook: %s", error)
            status = 500
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def answer(self, status, body):
        """Sends `body`, a page, with `status`."""
        encoded = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(encoded)))
        self.end_headers()
        self.wfile.write(encoded)


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "8000"))
    server = ThreadingHTTPServer(("127.0.0.1", port), Shop)
    print(f"Shop on http://127.0.0.1:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
