#!/usr/bin/env python3
"""A small forward proxy for the integration suite's proxy tests: HTTP, CONNECT and SOCKS5 on one port.

    proxy.py [PORT]         PORT 0 (the default) takes a free port

Listens on 127.0.0.1 only, on two ports: PORT, open to anyone, and a second port (free, chosen at start) that asks
every client for the credentials USER / PASSWORD below. Python's standard library only. Started by
Integration/Support/LocalServers.swift (`LocalServers.shared.proxy()`), one per test process.

On either port a connection speaks one of:

  SOCKS5 (RFC 1928)         first byte 0x05; CONNECT only, IPv4, IPv6 or a host name (resolved here: socks5h);
                            on the second port username/password (RFC 1929) is the only method accepted
  HTTP CONNECT host:port    a tunnel (200, then bytes both ways); 407 on the second port without good credentials
  GET http://host:port/...  an absolute-form request, forwarded in origin form with `Connection: close` (the
                            `Proxy-*` fields dropped); the answer is relayed until the server closes
  GET /health               200 "ok" from the proxy itself (the readiness probe), `Server: malibu-proxy`
  GET /stats                200 JSON: {"authPort": N, "relays": [the last 40], "rejected": N} (origin form)
  GET /reset                forgets the relays and rejections counted so far

Each relay is recorded as {"kind": "http" | "connect" | "socks5", "target": "host:port", "port": the proxy port it
came in on, "user": the user it authenticated as or null, "line": the first request line seen in plain text, or null
(TLS)}. A rejection (bad or missing credentials) counts in "rejected" and relays nothing.
"""

import base64
import json
import select
import socket
import struct
import sys
import threading

USER = "malibu"
PASSWORD = "proxy-secret"
HEAD_LIMIT = 64 * 1024

state_lock = threading.Lock()
relays = []
rejected = 0
auth_port = 0


def record(entry):
    with state_lock:
        relays.append(entry)


def reject():
    global rejected
    with state_lock:
        rejected += 1


def read_head(conn, initial=b""):
    """Reads up to the blank line; returns (head bytes, bytes read past it) or (None, b"") on a close."""
    data = initial
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_LIMIT:
            return None, b""
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def recv_exact(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def pipe(client, upstream, first=b""):
    """Copies bytes both ways until either side closes."""
    if first:
        upstream.sendall(first)
    sockets = [client, upstream]
    while True:
        readable, _, _ = select.select(sockets, [], [], 60)
        if not readable:
            return
        for sock in readable:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            other = upstream if sock is client else client
            try:
                other.sendall(data)
            except OSError:
                return


def first_line(data):
    line = data.split(b"\r\n", 1)[0]
    try:
        text = line.decode("ascii")
    except UnicodeDecodeError:
        return None
    return text if text.endswith("HTTP/1.1") or text.endswith("HTTP/1.0") else None


def plain_answer(conn, status, body, extra=""):
    payload = body.encode()
    conn.sendall(
        (
            f"HTTP/1.1 {status}\r\nServer: malibu-proxy\r\nContent-Length: {len(payload)}\r\n"
            f"Connection: close\r\n{extra}\r\n"
        ).encode()
        + payload
    )


def proxy_user(fields, needs_auth):
    """The user of good Proxy-Authorization credentials; None when not needed; False when refused."""
    if not needs_auth:
        return None
    value = fields.get("proxy-authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() == "basic":
        try:
            user, _, password = base64.b64decode(token).decode().partition(":")
        except Exception:
            return False
        if user == USER and password == PASSWORD:
            return user
    return False


def handle_http(conn, port, needs_auth, initial):
    global rejected
    head, rest = read_head(conn, initial)
    if head is None:
        return
    lines = head.decode("latin-1").split("\r\n")
    method, target, version = (lines[0].split(" ") + ["", "", ""])[:3]
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    if not target.startswith("http://") and method != "CONNECT":
        path = target.split("?", 1)[0]
        if path == "/health":
            plain_answer(conn, "200 OK", "ok\n")
        elif path == "/stats":
            with state_lock:
                body = json.dumps({"authPort": auth_port, "relays": relays[-40:], "rejected": rejected})
            plain_answer(conn, "200 OK", body, "Content-Type: application/json\r\n")
        elif path == "/reset":
            with state_lock:
                relays.clear()
                rejected = 0
            plain_answer(conn, "200 OK", "reset\n")
        else:
            plain_answer(conn, "404 Not Found", "not a proxy request\n")
        return
    user = proxy_user(fields, needs_auth)
    if user is False:
        reject()
        plain_answer(
            conn, "407 Proxy Authentication Required", "credentials needed\n",
            'Proxy-Authenticate: Basic realm="malibu-proxy"\r\n',
        )
        return
    if method == "CONNECT":
        host, _, target_port = target.rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(target_port)), timeout=10)
        except (OSError, ValueError):
            plain_answer(conn, "502 Bad Gateway", "cannot reach the target\n")
            return
        conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        first = rest
        if not first:
            readable, _, _ = select.select([conn], [], [], 10)
            first = conn.recv(65536) if readable else b""
        record({"kind": "connect", "target": target, "port": port, "user": user, "line": first_line(first)})
        with upstream:
            pipe(conn, upstream, first)
        return
    # Absolute form: http://host[:port]/path
    remainder = target[len("http://"):]
    authority, slash, path = remainder.partition("/")
    path = slash + path if slash else "/"
    host, _, target_port = authority.rpartition(":") if ":" in authority.split("]")[-1] else (authority, "", "80")
    try:
        upstream = socket.create_connection((host.strip("[]"), int(target_port)), timeout=10)
    except (OSError, ValueError):
        plain_answer(conn, "502 Bad Gateway", "cannot reach the target\n")
        return
    kept = [
        line for line in lines[1:]
        if line.partition(":")[0].strip().lower() not in ("proxy-authorization", "proxy-connection", "connection")
    ]
    request_line = f"{method} {path} {version}"
    forwarded = "\r\n".join([request_line] + kept + ["Connection: close", "", ""]).encode("latin-1")
    record({"kind": "http", "target": f"{host}:{target_port}", "port": port, "user": user, "line": request_line})
    with upstream:
        pipe(conn, upstream, forwarded + rest)


def handle_socks5(conn, port, needs_auth):
    version, count = recv_exact(conn, 2)
    methods = recv_exact(conn, count)
    user = None
    if needs_auth:
        if 2 not in methods:
            reject()
            conn.sendall(b"\x05\xff")
            return
        conn.sendall(b"\x05\x02")
        _, ulen = recv_exact(conn, 2)
        name = recv_exact(conn, ulen).decode(errors="replace")
        (plen,) = recv_exact(conn, 1)
        password = recv_exact(conn, plen).decode(errors="replace")
        if name != USER or password != PASSWORD:
            reject()
            conn.sendall(b"\x01\x01")
            return
        conn.sendall(b"\x01\x00")
        user = name
    else:
        if 0 not in methods:
            conn.sendall(b"\x05\xff")
            return
        conn.sendall(b"\x05\x00")
    _, command, _, address_type = recv_exact(conn, 4)
    if address_type == 1:
        host = socket.inet_ntop(socket.AF_INET, recv_exact(conn, 4))
    elif address_type == 4:
        host = socket.inet_ntop(socket.AF_INET6, recv_exact(conn, 16))
    elif address_type == 3:
        (length,) = recv_exact(conn, 1)
        host = recv_exact(conn, length).decode()
    else:
        conn.sendall(b"\x05\x08\x00\x01\x00\x00\x00\x00\x00\x00")
        return
    (target_port,) = struct.unpack("!H", recv_exact(conn, 2))
    if command != 1:
        conn.sendall(b"\x05\x07\x00\x01\x00\x00\x00\x00\x00\x00")
        return
    try:
        upstream = socket.create_connection((host, target_port), timeout=10)
    except OSError:
        conn.sendall(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")
        return
    conn.sendall(b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00")
    readable, _, _ = select.select([conn], [], [], 10)
    first = conn.recv(65536) if readable else b""
    record({"kind": "socks5", "target": f"{host}:{target_port}", "port": port, "user": user, "line": first_line(first)})
    with upstream:
        pipe(conn, upstream, first)


def serve_connection(conn, port, needs_auth):
    with conn:
        try:
            initial = conn.recv(1, socket.MSG_PEEK)
            if not initial:
                return
            if initial == b"\x05":
                handle_socks5(conn, port, needs_auth)
            else:
                handle_http(conn, port, needs_auth, b"")
        except (OSError, ConnectionError, ValueError, struct.error):
            pass


def listen(port):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(128)
    return server


def accept_loop(server, needs_auth):
    port = server.getsockname()[1]
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve_connection, args=(conn, port, needs_auth), daemon=True).start()


def main():
    global auth_port
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    open_server = listen(port)
    auth_server = listen(0)
    auth_port = auth_server.getsockname()[1]
    print(open_server.getsockname()[1], flush=True)
    threading.Thread(target=accept_loop, args=(auth_server, True), daemon=True).start()
    accept_loop(open_server, False)


if __name__ == "__main__":
    main()
