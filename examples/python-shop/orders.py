"""The shop's own record of paid orders: one JSON file, one entry per reference, written under a
lock so two thank-you pages loading at once never write over each other."""

import fcntl
import json
import os

ORDERS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data", "orders.json")


def record_paid_order(order):
    """Records `order` (verified with serve) once for its reference; answers whether it is new."""
    os.makedirs(os.path.dirname(ORDERS_FILE), mode=0o700, exist_ok=True)
    with open(ORDERS_FILE + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        orders = {}
        if os.path.exists(ORDERS_FILE):
            with open(ORDERS_FILE, encoding="utf-8") as file:
                orders = json.load(file)
        if order["reference"] in orders:
            return False
        orders[order["reference"]] = {
            "order_id": order["id"],
            "items": [{"name": item["name"], "quantity": item["quantity"]} for item in order["line_items"]],
            "amount": order["amount"],
            "paid_at": order["settled_at"],
        }
        # A whole new file, then renamed over the old one: a crash leaves one or the other.
        with open(ORDERS_FILE + ".new", "w", encoding="utf-8") as file:
            json.dump(orders, file, indent=2)
        os.replace(ORDERS_FILE + ".new", ORDERS_FILE)
        return True
