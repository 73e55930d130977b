#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""debuginfod-fake.py: servers a real debuginfod would never be.

    debuginfod-fake.py --stall STATE
    debuginfod-fake.py --trickle STATE
    debuginfod-fake.py --serve DIR STATE

--stall accepts every connection, reads the request and never answers.
--trickle answers every GET with a 10 MiB file at 2 KiB/s.
--serve answers GET /buildid/HEXID/executable (or /debuginfo) with the file
DIR/HEXID whatever it is (a server lying about a build id), 404 otherwise.

Both listen on 127.0.0.1 on a port of the kernel's choosing, written to
STATE/port once listening; each request line is appended to STATE/requests.
They end after --lifetime seconds (600) should nobody stop them.
"""
import argparse
import http.server
import os
import re
import socket
import socketserver
import sys
import threading
import time


def log_request(state, line):
    with open(os.path.join(state, "requests"), "a") as f:
        f.write(line + "\n")


def publish_port(state, port):
    tmp = os.path.join(state, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, os.path.join(state, "port"))


def stall(state):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    publish_port(state, srv.getsockname()[1])
    held = []
    while True:
        conn, _ = srv.accept()
        held.append(conn)  # open, unanswered, until the end
        data = b""
        conn.settimeout(5)
        try:
            while b"\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        log_request(state, data.split(b"\r\n", 1)[0].decode("latin-1"))


def serve(root, state):
    path_re = re.compile(r"^/buildid/([0-9a-f]+)/(executable|debuginfo)$")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            log_request(state, self.requestline)
            if root is None:
                self.trickle()
                return
            m = path_re.match(self.path)
            name = os.path.join(root, m.group(1)) if m else None
            if not name or not os.path.isfile(name):
                self.send_error(404)
                return
            with open(name, "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def trickle(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(10 << 20))
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"\0" * 1024)
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass

        def log_message(self, *args):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    httpd = Server(("127.0.0.1", 0), Handler)
    publish_port(state, httpd.server_address[1])
    httpd.serve_forever()


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stall", action="store_true")
    mode.add_argument("--trickle", action="store_true")
    mode.add_argument("--serve", metavar="DIR")
    ap.add_argument("--lifetime", type=float, default=600)
    ap.add_argument("state")
    args = ap.parse_args()
    timer = threading.Timer(args.lifetime, lambda: os._exit(0))
    timer.daemon = True
    timer.start()
    if args.stall:
        stall(args.state)
    else:
        serve(args.serve, args.state)


if __name__ == "__main__":
    sys.exit(main())
