#!/usr/bin/env python3
"""A stand-in for Grafana Pyroscope's ingestion API, on 127.0.0.1, that checks
every request against the documented contract:

    POST /ingest?name=APP{k=v,...}&from=UNIX&until=UNIX&format=pprof
                &sampleRate=HZ&spyName=NAME
    Content-Type: multipart/form-data; the field "profile" holds a gzipped
    pprof profile.

pyroscope-receiver.py DIR [--port N] [--fail N] [--reset N] [--hang] [--header 'N: V']

Listens on port N (default: any free one) and writes it to DIR/port once
listening.  Each accepted request: its
profile as DIR/NNNN.pb.gz and a line "NNNN FROM UNTIL RATE SPY NAME" in
DIR/log.  A request that breaks the contract is answered 400 and its reason
appended to DIR/errors.  --fail N answers the first N requests 500,
--reset N closes the connection of the first N without an answer, --hang
never answers, --header requires that header on every request."""
import email.parser
import gzip
import os
import re
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
out = args.pop(0)
opts = {'port': 0, 'fail': 0, 'reset': 0, 'hang': False, 'header': None}
while args:
    a = args.pop(0)
    if a == '--hang':
        opts['hang'] = True
    elif a in ('--port', '--fail', '--reset'):
        opts[a[2:]] = int(args.pop(0))
    elif a == '--header':
        opts['header'] = args.pop(0)
    else:
        sys.exit('pyroscope-receiver: unknown option ' + a)
lock = threading.Lock()
state = {'requests': 0, 'accepted': 0}
NAME = re.compile(r'^[^{}]+\{([A-Za-z_][A-Za-z0-9_.]*=[^,{}=]*)(,[A-Za-z_][A-Za-z0-9_.]*=[^,{}=]*)*\}$')


def problems(handler, body):
    """Why the request breaks the contract, or None; and its profile bytes."""
    url = urllib.parse.urlsplit(handler.path)
    if url.path != '/ingest':
        return 'path %s' % url.path, None
    q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    for k in ('name', 'from', 'until', 'format', 'sampleRate', 'spyName'):
        if len(q.get(k, [])) != 1:
            return 'query %s: %s' % (k, q.get(k)), None
    if not NAME.match(q['name'][0]):
        return 'name %r' % q['name'][0], None
    labels = dict(kv.split('=', 1) for kv in q['name'][0].split('{', 1)[1][:-1].split(','))
    if 'hostname' not in labels or 'service_name' not in labels:
        return 'labels %r' % labels, None
    if q['format'][0] != 'pprof':
        return 'format %s' % q['format'][0], None
    try:
        f, u, r = int(q['from'][0]), int(q['until'][0]), int(q['sampleRate'][0])
    except ValueError:
        return 'from/until/sampleRate not integers', None
    if not f < u or r <= 0 or not q['spyName'][0]:
        return 'from %d until %d rate %d' % (f, u, r), None
    if opts['header']:
        n, v = opts['header'].split(':', 1)
        if handler.headers.get(n) != v.strip():
            return 'header %s: %r' % (n, handler.headers.get(n)), None
    ctype = handler.headers.get('Content-Type', '')
    if not ctype.startswith('multipart/form-data'):
        return 'content type %s' % ctype, None
    msg = email.parser.BytesParser().parsebytes(
        b'Content-Type: ' + ctype.encode() + b'\r\n\r\n' + body)
    parts = {p.get_param('name', header='content-disposition'): p.get_payload(decode=True)
             for p in msg.get_payload()} if msg.is_multipart() else {}
    prof = parts.get('profile')
    if not prof:
        return 'no profile field (fields %s)' % list(parts), None
    try:
        gzip.decompress(prof)
    except OSError as e:
        return 'profile not gzip: %s' % e, None
    return None, (f, u, r, q['spyName'][0], q['name'][0], prof)


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *a):
        pass

    def do_POST(self):
        with lock:
            state['requests'] += 1
            n = state['requests']
        if opts['hang']:
            time.sleep(3600)
        if n <= opts['reset']:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\1\0\0\0\0\0\0\0')
            self.close_connection = True
            self.connection.close()
            return
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        if n <= opts['fail']:
            return self.answer(500, b'failing on purpose\n')
        why, got = problems(self, body)
        if why:
            with open(os.path.join(out, 'errors'), 'a') as e:
                e.write(why + '\n')
            return self.answer(400, why.encode() + b'\n')
        with lock:
            state['accepted'] += 1
            k = state['accepted']
            with open(os.path.join(out, '%04d.pb.gz' % k), 'wb') as p:
                p.write(got[5])
            with open(os.path.join(out, 'log'), 'a') as log:
                log.write('%04d %d %d %d %s %s\n' % ((k,) + got[:5]))
        self.answer(200, b'')

    def answer(self, code, text):
        self.send_response(code)
        self.send_header('Content-Length', str(len(text)))
        self.end_headers()
        self.wfile.write(text)


srv = ThreadingHTTPServer(('127.0.0.1', opts['port']), Handler)
srv.daemon_threads = True
with open(os.path.join(out, 'port.tmp'), 'w') as p:
    p.write('%d\n' % srv.server_address[1])
os.rename(os.path.join(out, 'port.tmp'), os.path.join(out, 'port'))
srv.serve_forever()
