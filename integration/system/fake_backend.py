"""A minimal Supabase-shaped backend for the system test (Python standard library only).

Serves just enough of Auth (/auth/v1) and PostgREST (/rest/v1) for `auth.login`, `auth.whoami` and
`auth.logout` to succeed, handing out the distinctive tokens below, so the test can show that no
token (nor the password it was given) ever reaches the journal. Runs inside the test's network
namespace on 127.0.0.1 (see boot.sh), as a service of the private systemd.

    python3 fake_backend.py PORT
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ACCESS_TOKEN = "eyJhbGciOiJIUzI1NiJ9.sysTESTaccessTOKEN.c3lzdGVzdC1hY2Nlc3M"
REFRESH_TOKEN = "sysTESTrefreshTOKEN-9c41d0e7"
USER = {
    "id": "0b8f2c4e-5a6d-4e7f-8a9b-0c1d2e3f4a5b", "aud": "authenticated", "role": "authenticated",
    "email": "systest@example.com", "phone": "", "app_metadata": {}, "user_metadata": {"username": "systest"},
    "identities": [], "created_at": "2026-01-02T03:04:05.678+00:00", "updated_at": "2026-01-02T03:04:05.678+00:00",
    "last_sign_in_at": "2026-01-02T03:04:05.678+00:00", "is_anonymous": False,
}
PROFILE = {"id": USER["id"], "username": "systest", "email": USER["email"], "created_at": USER["created_at"],
           "updated_at": USER["updated_at"], "last_sign_in_at": USER["last_sign_in_at"]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # one line per request on stderr (the journal), no headers
        # Without the query: the live channel's websocket URL carries the anon key (`?apikey=`), as
        # Realtime asks, and the test searches the whole journal for it.
        sys.stderr.write("fake-backend: %s\n" % (fmt % args).replace(self.path, self.path.split("?", 1)[0]))

    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def session(self):
        now = int(time.time())
        return {"access_token": ACCESS_TOKEN, "token_type": "bearer", "expires_in": 3600,
                "expires_at": now + 3600, "refresh_token": REFRESH_TOKEN, "user": USER}

    def authorized(self):
        return self.headers.get("Authorization") == "Bearer " + ACCESS_TOKEN

    def do_POST(self):
        self.body()
        path = self.path.split("?")[0]
        if path == "/auth/v1/token":
            self.reply(200, self.session())
        elif path == "/auth/v1/logout":
            self.reply(204)
        elif path == "/rest/v1/rpc/user_count":
            self.reply(200, 1)
        elif path.startswith("/rest/v1/"):
            self.reply(201, [])
        else:
            self.reply(404, {"code": 404, "msg": "not found"})

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/auth/v1/user":
            self.reply(200, USER) if self.authorized() else self.reply(401, {"code": 401, "error_code": "no_authorization"})
        elif path == "/auth/v1/health":
            self.reply(200, {"name": "GoTrue"})
        elif path == "/rest/v1/profiles":
            self.reply(200, [PROFILE])
        elif path.startswith("/rest/v1/"):
            self.reply(200, [])
        else:
            self.reply(404, {"code": 404, "msg": "not found"})

    def do_PATCH(self):
        self.body()
        self.reply(200, [PROFILE])


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
