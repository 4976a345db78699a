#!/usr/bin/env python3
"""A misbehaving HTTP/1.1 server for the integration suite's fault-injection tests.

    faults.py [PORT]        PORT 0 (the default) takes a free port

Listens on 127.0.0.1 only and prints the bound port alone on its first stdout line, then one line per request.
Python's standard library only; every answer is written as raw bytes, so a route can break HTTP at the byte level.
Connections are kept alive between requests unless a route ends them or the request asks for `Connection: close`.
Started by Integration/Support/LocalServers.swift (`LocalServers.shared.faults()`), one per test process.

Routes (query parameters in brackets, with their defaults):

  /ok                       200 "ok", keep-alive: the good request after a fault
  /echo/headers             200 JSON {"headers": [the request's field names, lower-cased]}
  /reset/before-head        reads the request, then resets the connection (SO_LINGER 0) without a byte of answer
  /reset/mid-body           head with Content-Length 100000, 1000 body bytes, then a reset
  /fin/mid-body             head with Content-Length 100000, 1000 body bytes, then an orderly close (FIN)
  /stall/head               reads the request, answers nothing [seconds=30] (ends early when the client leaves)
  /stall/body               head with Content-Length 1000, 10 body bytes, then nothing [seconds=30]
  /slow/body                an 8-byte body sent one byte at a time [interval=0.25] (slow drip)
  /slow/head                the whole head sent one byte at a time [interval=0.1], then "ok"
  /interim                  100 Continue and 103 Early Hints before a 200 with the body "final"
  /http10                   HTTP/1.0 200 without Content-Length: the close ends the body
  /length/non-numeric       Content-Length: abc
  /length/conflicting       Content-Length: 5 and Content-Length: 6 in one head
  /length/short             Content-Length 1000, 500 bytes, then a close
  /length/excess            Content-Length 5 ("hello"), followed on the same connection by a forged response
                            ("smuggled"); the connection stays open and answers its next request normally
  /garbage/status           the status line "HTTP/1.1 abc"
  /garbage/bytes            bytes that are not HTTP at all
  /chunked/bad-size         chunked body whose first size is "zz"
  /chunked/missing-crlf     chunked body whose chunk data is not followed by CRLF
  /headers/huge             one header field of 1 MiB [size=1048576]
  /headers/many             10,000 header fields [count=10000]
  /gzip/truncated           Content-Encoding: gzip, the first half of a gzip stream (Content-Length matches)
  /gzip/not-gzip            Content-Encoding: gzip over plain text
  /gzip/bomb                Content-Encoding: gzip, about 2 MiB that inflate to 2 GiB of zeros (made once at start
                            from one 1 MiB segment sent again and again; never held inflated)
  /redirect/loop            302 to itself
  /redirect/cross-origin    302 to http://localhost:PORT/echo/headers (another origin, the same server)
  /upload/early-413         reads the request head only, answers 413 and closes; with `Expect: 100-continue` it
                            never sends 100. The connection is half-closed and the unread body drained before the
                            close, so the 413 is not lost to a reset
  /download/ignores-if-range  a resource that changes and a server that ignores If-Range, per [key]: the first
                            request without Range gets 200, ETag "v1", Content-Length 100000 and 50000 bytes of
                            version 1, then a FIN; a request with Range gets 206, ETag "v2",
                            Content-Range bytes N-199999/200000 and version 2 from N, whatever its If-Range; a later
                            request without Range gets version 2 whole (200, ETag "v2"). Version 1's byte i is
                            (i*31+7) mod 256, version 2's (i*17+3) mod 256
  /download/endless         200, ETag "endless", a chunked body that never ends: chunks of [size=65536] bytes every
                            [interval=0] seconds, until the client leaves
  /reuse/reset              the first request of a connection: 200 JSON {"method", "received"} (keep-alive); any later
                            request on that connection: its body is read, then a reset without an answer
  /reuse/close              the first request of a connection: 200 JSON {"method", "received"} (keep-alive); any later
                            request on that connection: its body is read, then an orderly close (FIN) without an answer
  /headers/oversized        a head of about 400 KiB in all [size=409600]: 40 KiB fields, each under libcurl's 100 KiB
                            cap per field, together over its 300 KiB cap per head
  /endless                  the same as /download/endless
  /events/completion        POST {"prompt": ...}: an LLM-style stream of `data: {"text": ...}` events, one per word
                            [interval=0.1] seconds apart, then `data: [DONE]`
  /count                    200 JSON {"count": N}: how many requests to [path] with the query parameter [key] this
                            server has read whole so far, body included (every route counts them; a test picks a
                            fresh key)
"""

import json
import select
import socket
import struct
import sys
import threading
import time
import zlib
from urllib.parse import parse_qs, urlsplit

HEAD_LIMIT = 64 * 1024
COUNTS = {}  # (path, the query's "key") → requests read, for /count
COUNTS_LOCK = threading.Lock()
BOMB_SEGMENT = 1 << 20
BOMB_SEGMENTS = 2048  # 2 GiB inflated, a power of two (see crc32_of_zeros)


class Request:
    """One request read from a connection: its method, path, query, header fields, and a way to read its body."""

    def __init__(self, method, target, fields, reader):
        self.method = method
        parts = urlsplit(target)
        self.path = parts.path
        self.query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
        self.fields = fields  # [(lower-cased name, value)]
        self.reader = reader
        self.received = None  # the body's length, once the server has read it

    def field(self, name):
        for key, value in self.fields:
            if key == name:
                return value
        return None

    def number(self, name, default):
        try:
            return float(self.query[name])
        except (KeyError, ValueError):
            return default

    def read_body(self):
        """Reads the body the head announces (Content-Length or chunked) and returns its length."""
        if (self.field("transfer-encoding") or "").lower() == "chunked":
            total = 0
            while True:
                size = int(self.reader.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.reader.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return total
                total += len(self.reader.read(size))
                self.reader.readline()
        length = int(self.field("content-length") or "0")
        remaining = length
        while remaining > 0:
            chunk = self.reader.read(min(remaining, 65536))
            if not chunk:
                break
            remaining -= len(chunk)
        return length - remaining


class Connection:
    """One accepted socket with its buffered reader, and the byte-level tricks the routes play on it."""

    def __init__(self, sock, port):
        self.sock = sock
        self.port = port
        self.reader = sock.makefile("rb")
        self.served = 0  # requests answered on this connection so far

    def send(self, data):
        self.sock.sendall(data)

    def read_request(self):
        """The next request's head, or None when the client closed the connection."""
        line = self.reader.readline(HEAD_LIMIT)
        while line in (b"\r\n", b"\n"):
            line = self.reader.readline(HEAD_LIMIT)
        if not line:
            return None
        method, target, _ = line.decode("latin-1").split(" ", 2)
        fields = []
        while True:
            line = self.reader.readline(HEAD_LIMIT)
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            fields.append((name.strip().lower(), value.strip()))
        return Request(method, target, fields, self.reader)

    def reset(self):
        """Ends the connection with a TCP reset: SO_LINGER with a zero timeout, then close."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def close(self):
        """Ends the connection with an orderly close (FIN)."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        self.sock.close()

    def linger_close(self, seconds=2.0):
        """Half-closes, then drains what the client still sends (at most `seconds`) before closing, so that data
        left unread does not turn the close into a reset that could destroy the answer in flight."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        self.wait(seconds)
        self.sock.close()

    def wait(self, seconds):
        """Sends nothing for `seconds`, discarding what arrives; returns early when the client closes."""
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.sock], [], [], remaining)
            if readable:
                try:
                    if not self.sock.recv(65536):
                        return
                except OSError:
                    return

    def drip(self, data, interval):
        """Sends `data` one byte at a time, `interval` seconds apart."""
        for index in range(len(data)):
            if index:
                time.sleep(interval)
            self.send(data[index : index + 1])


def head(status, fields=(), reason=None, version="HTTP/1.1"):
    """A response head as bytes: the status line, the fields given, the blank line."""
    reasons = {100: "Continue", 103: "Early Hints", 200: "OK", 302: "Found", 404: "Not Found", 413: "Content Too Large"}
    lines = [f"{version} {status} {reason or reasons.get(status, 'Status')}"]
    lines += [f"{name}: {value}" for name, value in fields]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def answer(connection, status, body, fields=()):
    """A complete keep-alive response with a Content-Length."""
    connection.send(head(status, [("Content-Length", len(body)), *fields]) + body)
    return True


# MARK: - Routes. Each takes the connection and the request; it returns True to keep the connection for another
# request, False once it has ended or given up the connection.


def ok(connection, request):
    return answer(connection, 200, b"ok", [("Content-Type", "text/plain"), ("Server", "malibu-faults")])


def echo_headers(connection, request):
    body = json.dumps({"headers": [name for name, _ in request.fields]}).encode()
    return answer(connection, 200, body, [("Content-Type", "application/json")])


def reset_before_head(connection, request):
    connection.reset()
    return False


def reset_mid_body(connection, request):
    connection.send(head(200, [("Content-Length", 100000)]) + b"x" * 1000)
    time.sleep(0.05)  # lets the client read the bytes before the reset destroys what is still in flight
    connection.reset()
    return False


def fin_mid_body(connection, request):
    connection.send(head(200, [("Content-Length", 100000)]) + b"x" * 1000)
    connection.close()
    return False


def stall_head(connection, request):
    connection.wait(request.number("seconds", 30))
    connection.close()
    return False


def stall_body(connection, request):
    connection.send(head(200, [("Content-Length", 1000)]) + b"x" * 10)
    connection.wait(request.number("seconds", 30))
    connection.close()
    return False


def slow_body(connection, request):
    body = b"dripping"
    connection.send(head(200, [("Content-Length", len(body)), ("Content-Type", "text/plain")]))
    connection.drip(body, request.number("interval", 0.25))
    return True


def slow_head(connection, request):
    connection.drip(head(200, [("Content-Length", 2)]), request.number("interval", 0.1))
    connection.send(b"ok")
    return True


def interim(connection, request):
    connection.send(head(100))
    connection.send(head(103, [("Link", "</style.css>; rel=preload; as=style")]))
    return answer(connection, 200, b"final", [("Content-Type", "text/plain")])


def http10(connection, request):
    connection.send(head(200, [("Content-Type", "text/plain")], version="HTTP/1.0") + b"close-delimited body")
    connection.close()
    return False


def length_non_numeric(connection, request):
    connection.send(head(200, [("Content-Length", "abc")]) + b"hello")
    connection.close()
    return False


def length_conflicting(connection, request):
    connection.send(head(200, [("Content-Length", 5), ("Content-Length", 6)]) + b"hello!")
    connection.close()
    return False


def length_short(connection, request):
    connection.send(head(200, [("Content-Length", 1000)]) + b"x" * 500)
    connection.close()
    return False


def length_excess(connection, request):
    # A client that reuses this connection would take the forged response for the answer to its next request.
    forged = head(200, [("Content-Length", 8), ("Content-Type", "text/plain")]) + b"smuggled"
    connection.send(head(200, [("Content-Length", 5), ("Content-Type", "text/plain")]) + b"hello" + forged)
    return True


def garbage_status(connection, request):
    connection.send(b"HTTP/1.1 abc\r\nContent-Length: 2\r\n\r\nok")
    connection.close()
    return False


def garbage_bytes(connection, request):
    connection.send(b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1 this is \x00\xff\xfe not HTTP at all\r\n\r\n")
    connection.close()
    return False


def chunked_bad_size(connection, request):
    connection.send(head(200, [("Transfer-Encoding", "chunked")]) + b"zz\r\nhello\r\n0\r\n\r\n")
    connection.close()
    return False


def chunked_missing_crlf(connection, request):
    connection.send(head(200, [("Transfer-Encoding", "chunked")]) + b"5\r\nhelloXY5\r\nhello\r\n0\r\n\r\n")
    connection.close()
    return False


def headers_huge(connection, request):
    size = int(request.number("size", 1 << 20))
    return answer(connection, 200, b"ok", [("X-Huge", "a" * size)])


def headers_oversized(connection, request):
    size = int(request.number("size", 400 * 1024))
    field = 40 * 1024
    fields = [(f"X-Oversized-{index:03d}", "a" * field) for index in range(max(1, size // field))]
    return answer(connection, 200, b"ok", fields)


def headers_many(connection, request):
    count = int(request.number("count", 10000))
    return answer(connection, 200, b"ok", [(f"X-Field-{index:05d}", "v") for index in range(count)])


def gzip_truncated(connection, request):
    text = b"".join(b"%08d the quick brown fox jumps over the lazy dog\n" % index for index in range(2000))
    stream = zlib.compressobj(6, zlib.DEFLATED, 31)
    whole = stream.compress(text) + stream.flush()
    return answer(connection, 200, whole[: len(whole) // 2], [("Content-Encoding", "gzip")])


def gzip_not_gzip(connection, request):
    return answer(connection, 200, b"this body is plain text, not gzip", [("Content-Encoding", "gzip")])


def gzip_bomb(connection, request):
    header, segment, trailer = BOMB
    length = len(header) + len(segment) * BOMB_SEGMENTS + len(trailer)
    fields = [("Content-Length", length), ("Content-Encoding", "gzip"), ("Content-Type", "application/octet-stream")]
    connection.send(head(200, fields) + header)
    for _ in range(BOMB_SEGMENTS // 64):
        connection.send(segment * 64)
    connection.send(trailer)
    return True


def redirect_loop(connection, request):
    return answer(connection, 302, b"", [("Location", "/redirect/loop")])


def redirect_cross_origin(connection, request):
    return answer(connection, 302, b"", [("Location", f"http://localhost:{connection.port}/echo/headers")])


def upload_early_413(connection, request):
    connection.send(head(413, [("Content-Length", 8), ("Connection", "close")]) + b"too big\n")
    connection.linger_close()
    return False


def reuse_reset(connection, request):
    # The body was read even when resetting: the client has then sent everything and waits for an answer, so what it
    # sees is always the reset of a reused connection, never a failure while sending.
    if connection.served > 0:
        connection.reset()
        return False
    body = json.dumps({"method": request.method, "received": request.received}).encode()
    return answer(connection, 200, body, [("Content-Type", "application/json")])


def reuse_close(connection, request):
    # As /reuse/reset, with an orderly close: a server that crashed after reading, or a proxy ending an idle connection.
    if connection.served > 0:
        connection.close()
        return False
    body = json.dumps({"method": request.method, "received": request.received}).encode()
    return answer(connection, 200, body, [("Content-Type", "application/json")])


def count(connection, request):
    with COUNTS_LOCK:
        number = COUNTS.get((request.query.get("path", ""), request.query.get("key")), 0)
    return answer(connection, 200, json.dumps({"count": number}).encode(), [("Content-Type", "application/json")])


DOWNLOAD_V1 = bytes((i * 31 + 7) & 0xFF for i in range(100_000))
DOWNLOAD_V2 = bytes((i * 17 + 3) & 0xFF for i in range(200_000))
download_requests = {}  # key → how many requests without Range it has had
download_lock = threading.Lock()


def download_ignores_if_range(connection, request):
    key = request.query.get("key", "")
    ranged = request.field("range")
    if ranged is not None and ranged.startswith("bytes=") and ranged.endswith("-"):
        start = int(ranged[len("bytes="):-1] or "0")
        body = DOWNLOAD_V2[start:]
        fields = [("ETag", '"v2"'), ("Content-Range", f"bytes {start}-{len(DOWNLOAD_V2) - 1}/{len(DOWNLOAD_V2)}")]
        connection.send(head(206, [("Content-Length", len(body)), *fields], reason="Partial Content") + body)
        return True
    with download_lock:
        seen = download_requests.get(key, 0)
        download_requests[key] = seen + 1
    if seen == 0:
        connection.send(head(200, [("Content-Length", len(DOWNLOAD_V1)), ("ETag", '"v1"')]) + DOWNLOAD_V1[:50_000])
        time.sleep(0.05)
        connection.close()
        return False
    return answer(connection, 200, DOWNLOAD_V2, [("ETag", '"v2"'), ("Content-Type", "application/octet-stream")])


def download_endless(connection, request):
    connection.send(head(200, [("Transfer-Encoding", "chunked"), ("ETag", '"endless"')]))
    size = int(request.number("size", 65536))
    interval = request.number("interval", 0)
    chunk = b"%x\r\n" % size + b"e" * size + b"\r\n"
    while True:
        connection.send(chunk)  # raises once the client has gone
        if interval:
            time.sleep(interval)


def events(connection, request):
    """Server-sent events (Integration/EventsTests.swift). Without `Last-Event-ID`: `retry: 300`, events 1 and 2,
    then the connection drops mid-event (a chunked body closed before its last chunk). With `Last-Event-ID: 2`: a
    comment, event 3 and a clean end. With `Last-Event-ID: 3`: 204, the end. Any other ID: 409 naming it.
    `?type=json`: a JSON answer, the wrong content type. `?endless=1&key=K`: an event every 20 ms until the client
    closes the connection, which is then counted under the path `/events/closed` (see /count)."""
    if request.query.get("type") == "json":
        return answer(connection, 200, b'{"data": 1}', [("Content-Type", "application/json")])
    if request.query.get("endless"):
        connection.send(head(200, [("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked")]))
        number = 0
        try:
            while True:
                number += 1
                part = b"id: %d\ndata: %d\n\n" % (number, number)
                connection.send(b"%x\r\n" % len(part) + part + b"\r\n")
                time.sleep(0.02)
        except OSError:
            with COUNTS_LOCK:
                key = ("/events/closed", request.query.get("key"))
                COUNTS[key] = COUNTS.get(key, 0) + 1
        return False
    last = request.field("last-event-id")
    if last is None:
        connection.send(head(200, [("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked")]))
        for part in (b"retry: 300\nid: 1\ndata: one\n\n", b"id: 2\ndata: two\n\n", b"id: 9\ndata: cut in the mi"):
            connection.send(b"%x\r\n" % len(part) + part + b"\r\n")
            time.sleep(0.05)
        connection.close()
        return False
    if last == "2":
        body = b": resumed\nid: 3\ndata: three\n\n"
        return answer(connection, 200, body, [("Content-Type", "text/event-stream")])
    if last == "3":
        connection.send(head(204, [], reason="No Content"))
        return True
    return answer(connection, 409, f"unexpected Last-Event-ID {last!r}\n".encode(), [("Content-Type", "text/plain")])


def events_completion(connection, request):
    """An LLM-style completion stream (the demo, Integration/Surf): a POST whose JSON body has a "prompt" gets one
    `data: {"text": ...}` event per word of a fixed answer, [interval=0.1] seconds apart, then `data: [DONE]` and the
    end of the chunked body. Another method: 405; a body that is not a JSON object with a "prompt": 400."""
    length = int(request.field("content-length") or "0")
    body = request.reader.read(length) if length > 0 else b""
    request.received = len(body)
    if request.method != "POST":
        return answer(connection, 405, b"POST a JSON prompt\n", [("Content-Type", "text/plain"), ("Allow", "POST")])
    try:
        prompt = json.loads(body)["prompt"]
    except (ValueError, KeyError, TypeError):
        return answer(connection, 400, b'a JSON body {"prompt": ...} is required\n', [("Content-Type", "text/plain")])
    connection.send(head(200, [("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked")]))
    words = f"You asked: {prompt}. Three sharks: hammerhead, mako and whale shark.".split(" ")
    parts = [b"data: %s\n\n" % json.dumps({"text": (" " if index else "") + word}).encode()
             for index, word in enumerate(words)]
    for part in parts + [b"data: [DONE]\n\n"]:
        connection.send(b"%x\r\n" % len(part) + part + b"\r\n")
        time.sleep(request.number("interval", 0.1))
    connection.send(b"0\r\n\r\n")
    return True


# path → (route, whether the server reads the request body before calling it)
ROUTES = {
    "/ok": (ok, True),
    "/echo/headers": (echo_headers, True),
    "/reset/before-head": (reset_before_head, True),
    "/reset/mid-body": (reset_mid_body, True),
    "/fin/mid-body": (fin_mid_body, True),
    "/stall/head": (stall_head, True),
    "/stall/body": (stall_body, True),
    "/slow/body": (slow_body, True),
    "/slow/head": (slow_head, True),
    "/interim": (interim, True),
    "/http10": (http10, True),
    "/length/non-numeric": (length_non_numeric, True),
    "/length/conflicting": (length_conflicting, True),
    "/length/short": (length_short, True),
    "/length/excess": (length_excess, True),
    "/garbage/status": (garbage_status, True),
    "/garbage/bytes": (garbage_bytes, True),
    "/chunked/bad-size": (chunked_bad_size, True),
    "/chunked/missing-crlf": (chunked_missing_crlf, True),
    "/headers/huge": (headers_huge, True),
    "/headers/many": (headers_many, True),
    "/gzip/truncated": (gzip_truncated, True),
    "/gzip/not-gzip": (gzip_not_gzip, True),
    "/gzip/bomb": (gzip_bomb, True),
    "/redirect/loop": (redirect_loop, True),
    "/redirect/cross-origin": (redirect_cross_origin, True),
    "/upload/early-413": (upload_early_413, False),
    "/reuse/reset": (reuse_reset, True),
    "/reuse/close": (reuse_close, True),
    "/headers/oversized": (headers_oversized, True),
    "/endless": (download_endless, True),
    "/count": (count, True),
    "/download/ignores-if-range": (download_ignores_if_range, True),
    "/download/endless": (download_endless, True),
    "/events": (events, True),
    "/events/completion": (events_completion, False),
}


def crc32_of_zeros(power):
    """The CRC-32 of 2**power zero bytes without feeding them all: running the CRC over zeros is an affine map of
    its 32-bit state, known by its value at 0 and at each bit; composing the map with itself doubles the length."""

    def apply(table, state):
        result = table[0]
        for bit in range(32):
            if state >> bit & 1:
                result ^= table[bit + 1] ^ table[0]
        return result

    table = [zlib.crc32(b"\0", 0)] + [zlib.crc32(b"\0", 1 << bit) for bit in range(32)]
    for _ in range(power):
        table = [apply(table, entry) for entry in table]
    return apply(table, 0)


def make_bomb():
    """The gzip bomb in three parts: the gzip header; one deflate segment that inflates to 1 MiB of zeros and ends on
    a full flush, so that copies of it can follow one another; the trailer (a final empty block, then the CRC-32 and
    the size of the 2 GiB of zeros). The server sends the segment BOMB_SEGMENTS times."""
    stream = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = stream.compress(bytes(BOMB_SEGMENT)) + stream.flush(zlib.Z_FULL_FLUSH)
    final = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    size = BOMB_SEGMENT * BOMB_SEGMENTS
    trailer = final + struct.pack("<II", crc32_of_zeros(size.bit_length() - 1), size & 0xFFFFFFFF)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff", segment, trailer


def serve(sock, port):
    connection = Connection(sock, port)
    try:
        while True:
            request = connection.read_request()
            if request is None:
                break
            route, reads_body = ROUTES.get(request.path, (None, True))
            print(f"{request.method} {request.path} (request {connection.served + 1} of its connection)", flush=True)
            if reads_body:
                request.received = request.read_body()
            # A request counts once it reached the server whole: a head whose body never came is not one.
            if not reads_body or request.received == int(request.field("content-length") or request.received):
                with COUNTS_LOCK:
                    key = (request.path, request.query.get("key"))
                    COUNTS[key] = COUNTS.get(key, 0) + 1
            if route is None:
                keep = answer(connection, 404, b"no such route\n", [("Content-Type", "text/plain")])
            else:
                keep = route(connection, request)
            if not keep:
                return
            connection.served += 1
            if (request.field("connection") or "").lower() == "close":
                connection.close()
                return
    except (OSError, ValueError) as error:
        # The client left or sent something this server does not parse: the connection ends, the server goes on.
        print(f"connection ended: {error!r}", flush=True)
    try:
        connection.sock.close()
    except OSError:
        pass


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    port = listener.getsockname()[1]
    print(port, flush=True)
    while True:
        sock, _ = listener.accept()
        threading.Thread(target=serve, args=(sock, port), daemon=True).start()


BOMB = make_bomb()

if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
