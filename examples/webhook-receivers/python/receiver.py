"""Receives pay-checkout's signed webhooks (Standard Webhooks): python3 receiver.py 8000"""
import base64, fcntl, hashlib, hmac, json, os, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

if not os.environ.get("WEBHOOK_SECRET", "").startswith("whsec_"):  # never check against an empty key
    sys.exit("WEBHOOK_SECRET is not set: give it this endpoint's whsec_ secret from your .env")
SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))
SEEN_FILE = os.environ.get("WEBHOOK_SEEN_FILE", "webhook-ids.txt")

class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))  # raw bytes, checked before parsing
        msg_id, timestamp = self.headers.get("webhook-id", ""), self.headers.get("webhook-timestamp", "")
        digest = hmac.new(SECRET, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
        expected = b"v1," + base64.b64encode(digest)
        signatures = self.headers.get("webhook-signature", "").encode().split(b" ")
        signed = sum(hmac.compare_digest(expected, signature) for signature in signatures) > 0  # constant time
        if not signed or not (timestamp.isascii() and timestamp.isdigit()) or abs(time.time() - int(timestamp)) > 300:
            return self.answer(400)  # forged, altered, or older than five minutes: a replay
        with open(SEEN_FILE, "a+") as seen:  # de-duplicate on webhook-id: a lost answer brings the event again
            fcntl.flock(seen, fcntl.LOCK_EX)
            seen.seek(0)
            if msg_id not in seen.read().split("\n"):
                event = json.loads(body)  # act on event["type"] and event["data"], or queue it
                seen.write(msg_id + "\n")
            else:
                print(f"{msg_id} again: answered, already acted on", file=sys.stderr)
        self.answer(204)  # within 15 seconds; slow work belongs in a queue

    def answer(self, status):
        self.send_response(status)
        self.end_headers()

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8000), Receiver).serve_forever()
