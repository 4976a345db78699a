#!/usr/bin/env python3
"""The `make bench` runner: every contender x workload, interleaved, with repeats; one Markdown table.

Starts its own nginx on a free loopback port (Scripts/nginx.conf.template), generates the served files into
.build-bench/www once, runs one client process per measurement (bench-client for Malibu and URLSession,
bench-client-ahc for async-http-client, bench-client-floor for the async floor rows, bench-c for the C baseline),
takes medians, prints the table with the ratio of each row to the C row of its workload and the
targets of the benchmark issue, runs the ordo-one/benchmark micro-benchmarks and rewrites BENCHMARKS.md below its
hand-written preamble. nginx is stopped on every exit path (normal end, error, Ctrl-C, SIGTERM; and by the kernel's
parent-death signal if this process is killed outright).

Environment:
  BENCH_REPEATS   repeats per contender and workload (default 5; 2 with BENCH_QUICK=1)
  BENCH_QUICK=1   fewer requests (development; figures are indicative only)
  BENCH_ONLY      a regular expression on "workload/contender" to run a subset (BENCHMARKS.md is then left alone)
  BENCH_MICRO=0   skip the ordo-one/benchmark micro-benchmarks
  BENCH_MAX_SECONDS  a GET row stops after this long, its rate over the requests done (default 10; 0: never)
  BENCH_BIN       where the Swift clients are (default: Tools/Benchmarks/.build/release)
  BENCH_CURL_BUFFER  CurlTransport's receive buffer in bytes for the curl contenders (default: the library's)
  MALIBU_NGINX    the nginx binary (default: PATH, /usr/sbin/nginx, ...)
  BENCH_JSON=0    skip the Codable JSON rows (bench-json, bench-simdjson; `--json` runs only those)
  BENCH_JSON_STRIDE  the callgrind runs of the JSON rows read every N-th api-mix file (default 10; 20 quick)
  BENCH_EVENTS=0  skip the events row (bench-events; `--events` runs only that)
Only the Python standard library is used.

`bench.py --json` runs only the Codable JSON rows (no nginx) and rewrites their section of BENCHMARKS.md.
`bench.py --events` runs only the events row (no nginx) and rewrites its section of BENCHMARKS.md.
`bench.py --api-items` generates the api-mix files if needed and prints their folder (MalibuJSON's differential
test reads them there).
"""

import ctypes
import datetime
import gzip
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PACKAGE = os.path.join(ROOT, "Tools", "Benchmarks")
WORK = os.path.join(ROOT, ".build-bench")
WWW = os.path.join(WORK, "www")
TEMPLATE = os.path.join(PACKAGE, "Scripts", "nginx.conf.template")
REPORT = os.path.join(ROOT, "BENCHMARKS.md")
RESULTS_MARKER = "<!-- bench:results (everything below is rewritten by make bench) -->"

MIB = 1 << 20
SIZES = {"100b.bin": 100, "1k.bin": 1 << 10, "64k.bin": 64 << 10, "1m.bin": 1 << 20, "100m.bin": 100 << 20}
DATA_VERSION = "1"  # bump when the generated files change

QUICK = os.environ.get("BENCH_QUICK") == "1"
REPEATS = int(os.environ.get("BENCH_REPEATS", "2" if QUICK else "5"))
ONLY = re.compile(os.environ["BENCH_ONLY"]) if os.environ.get("BENCH_ONLY") else None
SEQUENTIAL_REQUESTS = 2_000 if QUICK else 20_000
CONCURRENT_REQUESTS = 5_000 if QUICK else 50_000
# A GET row stops starting requests after this many seconds and reports its rate over the requests done: it bounds
# the slowest rows (URLSession's, a few thousand requests/s) so that the full run stays near 15 minutes.
MAX_SECONDS = float(os.environ.get("BENCH_MAX_SECONDS", "10"))
RUN_TIMEOUT = 300  # seconds for one client process; a hung client is an error row, not a hung bench

SWIFT = ["malibu-curl", "facade-curl", "malibu-urlsession", "facade-urlsession", "ahc", "urlsession"]
# The same CurlTransport and facade rows with the workload running on the transport's loop thread
# (`CurlTransport.taskExecutor`): one thread, as the C client is, instead of the caller on the global pool.
LOOP = ["malibu-curl-loop", "facade-curl-loop"]
# Reference rows, not contenders: the least an async Swift client on libcurl does per request (bench-client-floor:
# CurlTransport's shape, a loop thread and a continuation per request, with none of its work), on the pool and on
# its loop. Their distance from C is the price of the async hand-off; the distance from them, CurlTransport's own.
FLOOR = ["floor-curl", "floor-curl-loop"]
STREAMING = ["malibu-curl", "malibu-urlsession", "ahc", "urlsession"]  # the facade collects; it cannot stream
# api-mix: the transfer floor (C, libcurl multi), CurlTransport alone (transfer only), then the decoding contenders:
# the facade (validate + decode into Codable types), async-http-client and URLSession with JSONDecoder.
# `facade-curl-data` is the facade with `toData()` (no decoding), against CurlTransport on the same row.
# `facade-curl-foundation` is `facade-curl` with Foundation's `JSONDecoder` passed to `decode(using:decoder:)`, beside
# the facade's default decoder.
API_CONTENDERS = ["c", "malibu-curl", "facade-curl-data", "facade-curl", "facade-curl-foundation", "ahc", "urlsession"]
API_REQUESTS = 2_000 if QUICK else 20_000
# An api-mix row stops starting requests after this long (BENCH_MAX_SECONDS, at most 5 s): the decoding rows run at
# a few thousand requests/s, and 27 rows x 5 repeats must stay near 10 minutes.
API_MAX_SECONDS = min(MAX_SECONDS, 5) if MAX_SECONDS > 0 else 0
REALISTIC = ("api-mix", "fan-out")  # workloads with tables of their own
FAN_OUT_REQUESTS = 2_000 if QUICK else 10_000
FAN_OUT_POOL = 64

# (id, label, client workload, extra options, contenders)
WORKLOADS = [
    ("get-seq", "GET 100 B sequential, keep-alive", "get-seq", [], ["c"] + SWIFT + LOOP + FLOOR),
    ("get-32", "GET 100 B, 32 in flight", "get-concurrent", ["--concurrency", "32"], ["c"] + SWIFT + LOOP + FLOOR),
    ("get-128", "GET 100 B, 128 in flight", "get-concurrent", ["--concurrency", "128"], ["c"] + SWIFT + LOOP + FLOOR),
    ("download-collect", "100 MiB download, collected", "download-collect", [], ["c"] + SWIFT),
    ("download-stream", "100 MiB download, streamed", "download-stream", [], ["c"] + STREAMING),
    ("download-file", "100 MiB download, to a file", "download-file", [], ["c"] + STREAMING),
    ("upload-file", "100 MiB upload from a file", "upload-file", [], ["c"] + STREAMING),
    ("gzip-decode", "~100 MiB gzip JSON decoded", "gzip-decode", [], ["c"] + STREAMING),
    # The facade's own cost per request in steady state: the same GET + decode of a 1 KiB JSON board on MockTransport,
    # alone and through Networking + validate() + decode(using:) (no network, no C row).
    ("json-seq", "GET + decode 1 KiB JSON, MockTransport, sequential", "json-seq", [], ["mock", "facade-mock"]),
] + [
    # api-mix: the realistic rows. 1,000 paths with query strings, JSON of 1-64 KiB, varied header values, 1 request
    # in 5 a JSON POST (Scripts/bench.py writes the plan); plain HTTP/1.1 and HTTPS (HTTP/2 where the client offers
    # it). `c` and `malibu-curl` only transfer and check the byte count; the others decode into Codable types.
    # URLSession runs the plain rows only: Foundation on Linux can trust no CA outside the system store (no server
    # trust challenge; this release reads no CA file setting), and the run's CA is not installed there.
    (f"api-{protocol}-{width}", f"api-mix, {label}, {width} in flight", "api-mix", ["--concurrency", str(width)],
     API_CONTENDERS if protocol == "h1" else [c for c in API_CONTENDERS if c != "urlsession"])
    for protocol, label in (("h1", "HTTP/1.1"), ("h2", "HTTPS + HTTP/2")) for width in (1, 32, 256)
] + [
    # fan-out: the api-mix plan's requests started by 1,000 tasks at once over a pool of FAN_OUT_POOL connections.
    ("fan-out", f"fan-out, 1,000 in flight, pool of {FAN_OUT_POOL}, HTTP/1.1", "fan-out",
     ["--concurrency", "1000", "--pool", str(FAN_OUT_POOL)], ["malibu-curl", "facade-curl", "ahc"]),
]


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


class Interrupted(Exception):
    """Raised from SIGTERM/SIGHUP so that every `finally` (nginx, temp files) runs."""


def on_signal(number, _frame):
    raise Interrupted(f"signal {number}")


# ---- data ---------------------------------------------------------------------------------------------------------


def json_document(target, seed=7):
    """A ~`target`-byte JSON array of varied records (compresses like real API payloads, not like zeros)."""
    rng = random.Random(seed)
    words = ["malibu", "curl", "swift", "linux", "nginx", "zlib", "promise", "request", "response", "header",
             "stream", "buffer", "socket", "encoder", "decoder", "latency", "throughput", "session", "token"]
    parts, size, index = ["["], 1, 0
    while size < target:
        record = json.dumps({
            "id": index,
            "uuid": "%032x" % rng.getrandbits(128),
            "name": " ".join(rng.choice(words) for _ in range(3)),
            "score": round(rng.random() * 1000, 3),
            "active": rng.random() < 0.5,
            "tags": [rng.choice(words) for _ in range(rng.randint(1, 5))],
            "location": {"lat": round(rng.uniform(-90, 90), 6), "lon": round(rng.uniform(-180, 180), 6)},
            "note": None if rng.random() < 0.3 else "".join(rng.choice("abcdefghij klmnop") for _ in range(40)),
        }, separators=(",", ":"))
        if index:
            parts.append(",")
        parts.append(record)
        size += len(record) + 1
        index += 1
    parts.append("]")
    return "".join(parts).encode()


def generate_data():
    """Writes the served files once; a stamp file says they are complete and of this version.

    The writing happens in a child process: building the 100 MiB document would leave this runner with a large
    peak RSS, which Linux carries over into ru_maxrss of every client it starts.
    """
    stamp = os.path.join(WWW, ".complete")
    if not (os.path.exists(stamp) and open(stamp).read() == DATA_VERSION):
        log("generating the served files into .build-bench/www (once)")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--generate"], check=True)
    return json.load(open(os.path.join(WWW, "sizes.json")))


API_DIR = os.path.join(WWW, "api")
API_VERSION = "1"  # bump when the api-mix files or plan change
API_PATHS = 1_000
API_PLAN_LENGTH = 4_000  # requests in the plan; a run takes them in turn, wrapping around
API_RECEIPT = b'{"accepted":true,"queue":"orders","eta":42}'  # nginx.conf.template's POST /api/orders answer
LANGUAGES = ["en-US", "de-DE,de;q=0.9,en;q=0.5", "fr-CH, fr;q=0.9", "ja-JP", "pt-BR,pt;q=0.8", "es-419", "nl", "sv-SE"]


def api_sizes():
    """The response size of each of the 1,000 paths: log-uniform over 1-64 KiB from a fixed seed (most responses are
    a few KiB, a few are large), the shape of a typical JSON API."""
    rng = random.Random(2323)
    return [int(1024 * 2 ** rng.uniform(0, 6)) for _ in range(API_PATHS)]


def write_api_data():
    """api/items/<n>.json (1,000 JSON arrays of records, 1-64 KiB) and api/plan.tsv: the request list every
    api-mix client replays, one request a line: method, path with query, expected body bytes, expected decoded
    records, X-Request-Id, Accept-Language, JSON body or '-'. 1 request in 5 is a POST of a JSON order.
    Each file is written under a temporary name and renamed, so that a reader never sees one half written."""
    os.makedirs(os.path.join(API_DIR, "items"), exist_ok=True)
    items = []
    for number_, size in enumerate(api_sizes()):
        document = json_document(size, seed=number_)
        write_atomically(os.path.join(API_DIR, "items", f"{number_}.json"), document)
        items.append((len(document), len(json.loads(document))))
    rng = random.Random(2324)
    sorts = ["id", "-score", "name", "-updated"]
    lines = []
    for index in range(API_PLAN_LENGTH):
        request_id = "%016x" % rng.getrandbits(64)
        language = rng.choice(LANGUAGES)
        if rng.random() < 0.2:
            order = {"sku": "SKU-%06d" % rng.randrange(1_000_000), "quantity": rng.randint(1, 9),
                     "note": "".join(rng.choice("abcdefghij klmnop") for _ in range(rng.randint(16, 1500)))}
            body = json.dumps(order, separators=(",", ":"))
            lines.append(["POST", "/api/orders?source=bench&attempt=%d" % rng.randint(1, 3), str(len(API_RECEIPT)),
                          "1", request_id, language, body])
        else:
            number_ = rng.randrange(API_PATHS)
            query = "page=%d&per_page=%d&sort=%s" % (rng.randint(1, 50), rng.choice([10, 25, 50]), rng.choice(sorts))
            size, records = items[number_]
            lines.append(["GET", f"/api/items/{number_}.json?{query}", str(size), str(records), request_id, language,
                          "-"])
    write_atomically(os.path.join(API_DIR, "plan.tsv"), "".join("\t".join(line) + "\n" for line in lines).encode())
    write_atomically(os.path.join(API_DIR, ".complete"), API_VERSION.encode())


def write_atomically(path, content):
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as file:
        file.write(content)
    os.replace(temporary, path)


def generate_api_data():
    stamp = os.path.join(API_DIR, ".complete")
    if not (os.path.exists(stamp) and open(stamp).read() == API_VERSION):
        log("generating the api-mix files into .build-bench/www/api (once)")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--generate-api"], check=True)
    return os.path.join(API_DIR, "plan.tsv")


# ---- the events row: one recorded text/event-stream ---------------------------------------------------------------

EVENTS_PATH = os.path.join(WORK, "events", "stream.sse")
EVENTS_VERSION = "1"  # bump when the generated stream changes
EVENTS_TARGET = 4 * MIB
EVENT_WORDS = ["the", " model", " streams", " tokens", ",", " one", " at", " a", " time", ".", " Server", "-sent",
               " events", " carry", " each", " delta", " as", " JSON", "\n", " café", " naïve", " 東京", " 🚀", " \"quoted\"",
               " 42", " –", " and", " then", " stops", " when", " done", "!"]


def write_events_stream():
    """A few MiB of `text/event-stream` as LLM completion APIs send it, from a fixed seed: completions of 20-400
    small `data: {json}` deltas, each event with its own `id`; OpenAI-shaped completions (no event type, a
    `data: [DONE]` at the end) and Anthropic-shaped ones (`event:` types); some events with multi-line data
    (a JSON document over several `data` lines), `: keep-alive` comments between events and comment lines inside
    them, a `retry` now and then, and one completion in four with CRLF line ends. Every event that has data has an
    `id`, so that swift-openapi-runtime's per-event `id` and Malibu's last event ID are the same."""
    rng = random.Random(3636)
    out = []
    size = 0
    completion = 0
    while size < EVENTS_TARGET:
        completion += 1
        end = "\r\n" if rng.random() < 0.25 else "\n"
        anthropic = rng.random() < 0.4
        name = "chatcmpl-%012x" % rng.getrandbits(48)
        lines = []
        if rng.random() < 0.1:
            lines += ["retry: %d" % rng.choice([1000, 3000, 5000]), ""]
        for index in range(rng.randint(20, 400)):
            if rng.random() < 0.05:
                lines += [": keep-alive", ""]
            event = []
            if rng.random() < 0.02:
                event.append(": comment %d" % index)
            event.append("id: %s-%d" % (name, index))
            token = "".join(rng.choice(EVENT_WORDS) for _ in range(rng.choice([1, 1, 1, 2, 3])))
            if anthropic:
                event.append("event: content_block_delta")
                document = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": token}}
            else:
                document = {"id": name, "object": "chat.completion.chunk", "created": 1732780800 + completion,
                            "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": token},
                                                                 "finish_reason": None}]}
            if rng.random() < 0.05:
                event += ["data: " + line for line in json.dumps(document, indent=1, ensure_ascii=False).split("\n")]
            else:
                event.append("data: " + json.dumps(document, separators=(",", ":"), ensure_ascii=False))
            lines += event + [""]
        lines += ["id: %s-done" % name] + (["event: message_stop", 'data: {"type":"message_stop"}'] if anthropic
                                           else ["data: [DONE]"]) + [""]
        text = "".join(line + end for line in lines)
        out.append(text)
        size += len(text.encode())
    write_atomically(EVENTS_PATH, "".join(out).encode())
    write_atomically(EVENTS_PATH + ".version", EVENTS_VERSION.encode())


def generate_events_stream():
    stamp = EVENTS_PATH + ".version"
    if not (os.path.exists(stamp) and open(stamp).read() == EVENTS_VERSION):
        log("generating the recorded event stream into .build-bench/events (once)")
        os.makedirs(os.path.dirname(EVENTS_PATH), exist_ok=True)
        write_events_stream()
    return EVENTS_PATH


def make_certificates(run_dir):
    """A CA and a server certificate for 127.0.0.1 and localhost, made afresh for the run with openssl; the clients
    trust the CA file (ca.crt) only."""
    if not shutil.which("openssl"):
        sys.exit("bench: openssl not found (it makes the HTTPS rows' certificates); run `apt-get install -y openssl`")

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, cwd=run_dir, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)

    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=Malibu bench CA", "-keyout", "ca.key", "-out", "ca.crt",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "server.key", "-out", "server.csr")
    open(os.path.join(run_dir, "server.ext"), "w").write(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-out", "server.crt", "-extfile", "server.ext")
    return os.path.join(run_dir, "ca.crt")


def write_data():
    stamp = os.path.join(WWW, ".complete")
    os.makedirs(WWW, exist_ok=True)
    rng = random.Random(42)
    for name, size in SIZES.items():
        with open(os.path.join(WWW, name), "wb") as file:
            remaining = size
            while remaining:
                count = min(remaining, 8 * MIB)
                file.write(rng.randbytes(count))
                remaining -= count
    document = json_document(100 * MIB)
    with open(os.path.join(WWW, "100m.json.gz"), "wb") as file:
        file.write(gzip.compress(document, compresslevel=6, mtime=0))
    sizes = {"json_decoded": len(document), "json_gzip": os.path.getsize(os.path.join(WWW, "100m.json.gz"))}
    json.dump(sizes, open(os.path.join(WWW, "sizes.json"), "w"))
    open(stamp, "w").write(DATA_VERSION)


# ---- nginx --------------------------------------------------------------------------------------------------------


def find_nginx():
    for candidate in [os.environ.get("MALIBU_NGINX"), shutil.which("nginx"), "/usr/sbin/nginx",
                      "/usr/local/sbin/nginx", "/usr/local/bin/nginx", "/opt/homebrew/bin/nginx"]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("bench: nginx not found; run `make setup-servers` (Debian's nginx) or set MALIBU_NGINX")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def die_with_parent():
    """In the nginx child: the kernel sends SIGTERM to it if this runner dies, even by SIGKILL."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Nginx:
    def __init__(self, binary, run_dir):
        self.binary, self.run_dir, self.process = binary, run_dir, None

    def start(self):
        for _ in range(5):
            self.port, self.tls_port = free_port(), free_port()
            config = open(TEMPLATE).read()
            for key, value in {"@PORT@": str(self.port), "@TLS_PORT@": str(self.tls_port),
                               "@RUN_DIR@": self.run_dir, "@WWW_DIR@": WWW,
                               "@USER_DIRECTIVE@": "user root;" if os.getuid() == 0 else ""}.items():
                config = config.replace(key, value)
            path = os.path.join(self.run_dir, "nginx.conf")
            open(path, "w").write(config)
            self.log = open(os.path.join(self.run_dir, "nginx.log"), "w+")
            self.process = subprocess.Popen([self.binary, "-p", self.run_dir, "-c", path, "-e", "stderr"],
                                            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                            preexec_fn=die_with_parent)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                    connection.request("GET", "/health")
                    if connection.getresponse().status == 200:
                        connection.close()
                        return f"http://127.0.0.1:{self.port}"
                except OSError:
                    time.sleep(0.05)
            self.stop()  # the port was taken meanwhile, or nginx failed: try another port
        self.log.seek(0)
        sys.exit(f"bench: nginx did not start:\n{self.log.read()[-2000:]}")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()  # the master stops its worker and exits
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


# ---- measurements -------------------------------------------------------------------------------------------------


def client_binary(contender):
    """The C baseline, async-http-client's and the floor's own binaries, or bench-client for Malibu and URLSession."""
    if contender == "c":
        return os.path.join(WORK, "bench-c")
    name = "bench-client-ahc" if contender == "ahc" else "bench-client-floor" if contender in FLOOR else "bench-client"
    return os.path.join(os.environ.get("BENCH_BIN", os.path.join(PACKAGE, ".build", "release")), name)


def client_command(contender, workload, base, run_dir, sizes):
    binary = client_binary(contender)
    key, _, name, extra, _ = workload
    if name == "api-mix" and key.startswith("api-h2"):
        base = base.replace("http://", "https://").replace(f":{sizes['port']}", f":{sizes['tls_port']}")
    args = [binary, contender, name, "--base", base] + extra
    if name == "api-mix":
        args += ["--requests", str(API_REQUESTS), "--plan", sizes["plan"], "--max-seconds", str(API_MAX_SECONDS)]
        if key.startswith("api-h2"):
            args += ["--ca", sizes["ca"]]
    elif name == "fan-out":
        args += ["--requests", str(FAN_OUT_REQUESTS), "--plan", sizes["plan"]]
    elif name == "json-seq":
        args += ["--requests", str(10 * SEQUENTIAL_REQUESTS)]  # ~1 s a run: steady state, not start-up
    elif name == "get-seq":
        args += ["--requests", str(SEQUENTIAL_REQUESTS), "--bytes", "100", "--max-seconds", str(MAX_SECONDS)]
    elif name == "get-concurrent":
        args += ["--requests", str(CONCURRENT_REQUESTS), "--bytes", "100", "--max-seconds", str(MAX_SECONDS)]
    elif name.startswith("download-"):
        args += ["--bytes", str(SIZES["100m.bin"]), "--out", os.path.join(run_dir, "download.out")]
    elif name == "upload-file":
        args += ["--file", os.path.join(WWW, "100m.bin")]
    elif name == "gzip-decode":
        args += ["--bytes", str(sizes["json_decoded"])]
        if contender == "c":
            args += ["--file", os.path.join(WWW, "100m.json.gz")]
    return args


def run_one(command, run_dir):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=run_dir,
                              preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        return {"errors": 1, "detail": f"timed out after {RUN_TIMEOUT} s"}
    finally:
        out = os.path.join(run_dir, "download.out")
        if os.path.exists(out):
            os.remove(out)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"errors": 1, "detail": f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-300:]}"}
    result = json.loads(lines[-1])
    if done.returncode != 0 and not result.get("errors"):
        result["errors"] = 1
    return result


def floors(base, run_dir):
    """The peak RSS of each client binary doing nothing (runtime, libraries, a client): the floor of its RSS."""
    found = {}
    for contender in ["c", "malibu-curl", "ahc"]:
        result = run_one([client_binary(contender), contender, "idle", "--base", base], run_dir)
        found[os.path.basename(client_binary(contender))] = result.get("peak_rss_mib", 0)
    return found


# The large files each workload reads (nginx serves them; the upload and the C gzip client read them directly).
BODY_FILES = {"download-collect": ["100m.bin"], "download-stream": ["100m.bin"], "download-file": ["100m.bin"],
              "upload-file": ["100m.bin"], "gzip-decode": ["100m.json.gz"]}


def warm(names):
    """Reads the files through so that they are in the page cache when the run starts. This VM's kernel pages cold
    memory out (a DAMON `pageout` scheme), page cache included: within a minute of its last use the 100 MiB body is
    gone, and a run then measures nginx reading the disk (~370 MiB/s, for every client alike) instead of the client."""
    for name in names:
        with open(os.path.join(WWW, name), "rb") as file:
            while file.read(1 << 20):
                pass


def measure(base, run_dir, sizes):
    """Runs the matrix: for each workload, `REPEATS` rounds of every contender in turn (A/B/C/A/B/C ...)."""
    results = {}
    for workload in WORKLOADS:
        key, label, _, _, contenders = workload
        chosen = [c for c in contenders if not ONLY or ONLY.search(f"{key}/{c}")]
        for repeat in range(REPEATS):
            for contender in chosen:
                warm(BODY_FILES.get(key, []))
                result = run_one(client_command(contender, workload, base, run_dir, sizes), run_dir)
                results.setdefault((key, contender), []).append(result)
                status = f"{result.get('value', 0):,.1f} {result.get('unit', '')}"
                if result.get("errors"):
                    status += f"  ERRORS {result['errors']} {result.get('detail', '')}"
                log(f"{key:17} {contender:18} #{repeat + 1}: {status}")
    return results


# ---- targets (the benchmark issue's "Targets" section) ------------------------------------------------------------


def targets(key, contender, stats):
    """(text, met) pairs for one row; `stats` maps contender -> summary of this workload."""
    row, out = stats[contender], []

    def ratio_to(other, at_least, name):
        if other in stats and stats[other]["median"]:
            value = row["median"] / stats[other]["median"]
            out.append((f"≥ {at_least:g}× {name}", value >= at_least))

    def rss_below(limit):
        out.append((f"RSS < {limit} MiB", row["rss"] < limit))

    if contender in ("malibu-curl", "malibu-curl-loop") and key in ("get-seq", "get-32"):
        ratio_to("c", 0.9 if key == "get-seq" else 0.75, "C")
    elif contender == "facade-curl-loop":
        ratio_to("malibu-curl-loop", 0.9, "CurlTransport on its loop")
    elif contender == "malibu-curl":
        if key == "download-stream":
            ratio_to("c", 0.9, "C")
            if "ahc" in stats:
                out.append(("> AHC", row["median"] > stats["ahc"]["median"]))
        elif key == "download-collect":
            ratio_to("c", 1.0, "C")
        elif key in ("download-file", "upload-file"):
            rss_below(40)
        elif key == "gzip-decode":
            ratio_to("c", 0.9, "zlib")
            rss_below(40)
    elif contender == "facade-curl":
        ratio_to("malibu-curl", 0.9, "CurlTransport")
    elif contender == "facade-mock" and stats.get("mock", {}).get("median") and row["median"]:
        overhead = facade_overhead(stats)
        out.append((f"facade overhead {overhead:.1f} µs/request < 10 µs", overhead < 10))
    elif contender == "facade-urlsession":
        ratio_to("malibu-urlsession", 0.9, "URLSessionTransport")
    elif contender == "malibu-urlsession":
        ratio_to("urlsession", 0.95, "URLSession")
    return out


def facade_overhead(stats):
    """µs per request the facade adds in the json-seq rows: the time per request of each median rate, subtracted."""
    return 1e6 / stats["facade-mock"]["median"] - 1e6 / stats["mock"]["median"]


EXTRA_FIELDS = ["cpu_us_per_request", "p50_ms", "p99_ms", "fds_before", "fds_peak", "fds_after", "threads_before",
                "threads_peak", "threads_after", "rss_before_mib", "rss_after_mib", "rss_trimmed_mib"]


def summarize(results):
    stats = {}
    for (key, contender), runs in results.items():
        good = [r for r in runs if not r.get("errors") and r.get("value")]
        values = [r["value"] for r in good]
        stats.setdefault(key, {})[contender] = {
            "median": statistics.median(values) if values else 0.0,
            "min": min(values) if values else 0.0,
            "max": max(values) if values else 0.0,
            "unit": next((r["unit"] for r in good), ""),
            "rss": max((r.get("peak_rss_mib", 0) for r in runs), default=0),
            "errors": sum(1 for r in runs if r.get("errors")),
            "requests": min((r.get("requests", 0) for r in good), default=0),
            "runs": len(runs),
            # api-mix and fan-out: the medians of the extra figures of the good runs
            **{field: statistics.median(r[field] for r in good if field in r) if any(field in r for r in good)
               else None for field in EXTRA_FIELDS},
            "detail": next((r.get("detail", "") for r in good), ""),
        }
    return stats


def number(value):
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def stopped_early(stats):
    """The GET rows that hit MAX_SECONDS before their request count: (label, contender, fewest requests done)."""
    found = []
    for key, label, name, _, contenders in WORKLOADS:
        planned = {"get-seq": SEQUENTIAL_REQUESTS, "api-mix": API_REQUESTS}.get(name, CONCURRENT_REQUESTS)
        for contender in contenders:
            row = stats.get(key, {}).get(contender)
            if (name.startswith("get-") or name == "api-mix") and row and 0 < row["requests"] < planned:
                found.append((label, contender, row["requests"]))
    return found


# The floor row each direct CurlTransport row is set against (printed beside its target).
FLOOR_OF = {"malibu-curl": "floor-curl", "malibu-curl-loop": "floor-curl-loop"}


def api_targets(key, contender, stats):
    """The benchmark issue's api-mix targets for one row: (text, met) pairs."""
    row, out = stats[contender], []

    def ratio_to(other, at_least, name):
        if stats.get(other, {}).get("median") and row["median"]:
            out.append((f"≥ {at_least:g}× {name}", row["median"] / stats[other]["median"] >= at_least))

    if contender == "malibu-curl" and not key.endswith("-1"):
        ratio_to("ahc", 2, "AHC")
        ratio_to("c", 0.7, "C")
        if key.endswith("-256") and stats.get("c", {}).get("p99_ms") and row.get("p99_ms"):
            out.append(("p99 ≤ 1.5× C's", row["p99_ms"] <= 1.5 * stats["c"]["p99_ms"]))
    elif contender == "facade-curl-data":
        ratio_to("malibu-curl", 0.85, "CurlTransport")
    elif contender == "facade-curl":
        if stats.get("ahc", {}).get("median") and row["median"]:
            out.append(("> AHC + JSONDecoder", row["median"] > stats["ahc"]["median"]))
        if not key.endswith("-1"):
            ratio_to("ahc", 3, "AHC + JSONDecoder (MalibuJSON, issue 32)")
        ratio_to("urlsession", 4, "URLSession + JSONDecoder")
    return out


def optional(value, digits=1):
    return "—" if value is None else f"{value:,.{digits}f}"


def api_table(stats):
    """The realistic rows (api-mix): rate, CPU per request, latency percentiles, peak RSS, ratio to C, targets."""
    lines = ["| workload | contender | req/s (median) | min–max | CPU µs/request | p50 ms | p99 ms | peak RSS (MiB) "
             "| × C | target |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for key, label, name, _, contenders in WORKLOADS:
        if name != "api-mix":
            continue
        for contender in contenders:
            row = stats.get(key, {}).get(contender)
            if not row:
                continue
            base = stats[key].get("c", {}).get("median")
            ratio = f"{row['median'] / base:.2f}" if base and row["median"] else "—"
            checks = api_targets(key, contender, stats[key])
            verdict = "; ".join(f"{'met' if met else 'MISSED'}: {text}" for text, met in checks) or "—"
            if row["errors"]:
                verdict = f"**{row['errors']}/{row['runs']} runs failed**; " + verdict
            lines.append(f"| {label} | {contender} | {number(row['median'])} | {number(row['min'])}–"
                         f"{number(row['max'])} | {optional(row['cpu_us_per_request'])} | "
                         f"{optional(row['p50_ms'], 2)} | {optional(row['p99_ms'], 2)} | {row['rss']:.0f} | {ratio} "
                         f"| {verdict} |")
    return "\n".join(lines)


def fan_out_table(stats):
    """fan-out: time to drain, descriptors, threads and RSS before / at peak / after, and the issue's targets."""
    lines = ["| contender | drain (s) | req/s | descriptors before / peak / after | threads before / peak / after "
             "| RSS before / peak / after / trimmed (MiB) | target |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for contender, row in stats.get("fan-out", {}).items():
        if not row["median"]:
            lines.append(f"| {contender} | — | — | — | — | — | **{row['errors']}/{row['runs']} runs failed** |")
            continue
        if any(row[f] is None for f in ("fds_before", "fds_peak", "fds_after", "threads_before", "threads_peak",
                                          "threads_after", "rss_before_mib", "rss_after_mib")):
            lines.append(f"| {contender} | — | {number(row['median'])} | — | — | — | **no fan-out figures in the "
                         "report: rebuild the client** |")
            continue
        fds = [row[f] for f in ("fds_before", "fds_peak", "fds_after")]
        threads = [row[f] for f in ("threads_before", "threads_peak", "threads_after")]
        rss = [row["rss_before_mib"], row["rss"], row["rss_after_mib"], row["rss_trimmed_mib"] or 0]
        checks = [(f"descriptors ≤ before + pool ({FAN_OUT_POOL})", fds[1] <= fds[0] + FAN_OUT_POOL),
                  ("threads flat (peak ≤ before + CPUs + 2)", threads[1] <= threads[0] + (os.cpu_count() or 1) + 2),
                  ("peak RSS < 64 MiB", rss[1] < 64),
                  ("RSS after ≤ 1.25× before", rss[2] <= 1.25 * rss[0]),
                  ("after malloc_trim ≤ 1.25× before", rss[3] <= 1.25 * rss[0])]
        verdict = "; ".join(f"{'met' if met else 'MISSED'}: {text}" for text, met in checks)
        if row["errors"]:
            verdict = f"**{row['errors']}/{row['runs']} runs failed**; " + verdict
        lines.append(f"| {contender} | {FAN_OUT_REQUESTS / row['median']:.2f} | {number(row['median'])} | "
                     + " / ".join(f"{v:.0f}" for v in fds) + " | " + " / ".join(f"{v:.0f}" for v in threads) + " | "
                     + " / ".join(f"{v:.1f}" for v in rss) + f" | {verdict} |")
    return "\n".join(lines)


def table(stats):
    lines = ["| workload | contender | median | min–max | unit | peak RSS (MiB) | × C | target |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for key, label, name, _, contenders in WORKLOADS:
        if name in REALISTIC:
            continue
        for contender in contenders:
            row = stats.get(key, {}).get(contender)
            if not row:
                continue
            base = stats[key].get("c", {}).get("median")
            ratio = f"{row['median'] / base:.2f}" if base and row["median"] else "—"
            checks = targets(key, contender, stats[key])
            verdict = "; ".join(f"{'met' if met else 'MISSED'}: {text}" for text, met in checks) or "—"
            floor = FLOOR_OF.get(contender)
            if floor and stats[key].get(floor, {}).get("median") and row["median"]:
                verdict += f" ({row['median'] / stats[key][floor]['median']:.2f}× {floor})"
            elif contender in FLOOR:
                verdict = "reference: the async floor"
            if row["errors"]:
                verdict = f"**{row['errors']}/{row['runs']} runs failed**; " + verdict
            lines.append(f"| {label} | {contender} | {number(row['median'])} | {number(row['min'])}–"
                         f"{number(row['max'])} | {row['unit']} | {row['rss']:.0f} | {ratio} | {verdict} |")
    return "\n".join(lines)


# ---- Codable JSON rows (bench-json, bench-simdjson) ---------------------------------------------------------------

# (group, contender, binary, what it does): decode rows over the api-mix files, encode rows over the plan's orders and
# the files' records. One process per row; MB/s is the best of JSON_REPEATS timed passes after a warm-up pass.
JSON_ROWS = [
    ("decode api-mix `[Item]`", "decode-foundation", "bench-json", "Foundation `JSONDecoder` into `[Item]`"),
    ("decode api-mix `[Item]`", "decode-malibujson", "bench-json", "`MalibuJSONDecoder` into `[Item]`"),
    ("decode api-mix `[Item]`", "decode-jsonparser", "bench-json",
     "Malibu's `JSONParser` DOM (`Response.toJsonArray()`), no Codable"),
    ("decode api-mix `[Item]`", "parse", "bench-simdjson", "simdjson's DOM parse to its tape: the physical reference"),
    ("encode `Order` (the plan's POST bodies)", "encode-orders-foundation", "bench-json", "Foundation `JSONEncoder`"),
    ("encode `Order` (the plan's POST bodies)", "encode-orders-malibujson", "bench-json", "`MalibuJSONEncoder`"),
    ("encode api-mix `[Item]`", "encode-items-foundation", "bench-json", "Foundation `JSONEncoder`"),
    ("encode api-mix `[Item]`", "encode-items-malibujson", "bench-json", "`MalibuJSONEncoder`"),
]
JSON_REPEATS = 3 if QUICK else 5
JSON_STRIDE = int(os.environ.get("BENCH_JSON_STRIDE", "20" if QUICK else "10"))
JSON_BEGIN, JSON_END = "<!-- bench:json -->", "<!-- /bench:json -->"


def json_binary(name):
    if name == "bench-simdjson":
        return os.path.join(WORK, "bench-simdjson")
    return os.path.join(os.environ.get("BENCH_BIN", os.path.join(PACKAGE, ".build", "release")), name)


def json_run(command):
    """One bench-json or bench-simdjson process: its JSON line, or an error."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return json.loads(lines[-1])


def callgrind_instructions(command, run_dir, passes):
    """Instructions of `command` (bench-json, bench-simdjson or bench-events) with `passes` passes and no warm-up,
    all threads (callgrind's summary)."""
    out = os.path.join(run_dir, f"callgrind.pass.{passes}")
    result = json_run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command,
                       "--warmup", "0", "--repeats", "1", "--passes", str(passes)])
    total = 0
    for name in os.listdir(run_dir):
        if name.startswith(f"callgrind.pass.{passes}"):
            path = os.path.join(run_dir, name)
            total += sum(int(line.split()[1]) for line in open(path) if line.startswith("summary:"))
            os.remove(path)
    return total, result


def json_measure(run_dir, plan):
    """Every JSON row: MB/s over all 1,000 files (best of JSON_REPEATS), then instructions per byte under callgrind
    over every JSON_STRIDE-th file: (run with 2 passes − run with 1 pass) / the bytes of one pass. Returns the rows
    and when the run started (UTC, and the load average then)."""
    started = (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), os.getloadavg()[0])
    items = os.path.join(API_DIR, "items")
    has_valgrind = shutil.which("valgrind") is not None
    if not has_valgrind:
        log("valgrind not found: the JSON rows get no instruction counts (`apt-get install -y valgrind`)")
    rows = []
    for group, contender, binary, what in JSON_ROWS:
        if ONLY and not ONLY.search(f"json/{'simdjson' if binary == 'bench-simdjson' else contender}"):
            continue
        base = [json_binary(binary), contender, "--dir", items, "--plan", plan]
        row = {"group": group, "contender": contender, "what": what, "binary": binary}
        try:
            wall = json_run(base + ["--repeats", str(JSON_REPEATS)])
            row.update(mb_per_s=wall["mb_per_s"], bytes=wall["bytes"], implementation=wall.get("implementation"))
            if has_valgrind:
                strided = base + ["--stride", str(JSON_STRIDE)]
                one, sampled = callgrind_instructions(strided, run_dir, 1)
                two, _ = callgrind_instructions(strided, run_dir, 2)
                row.update(ir_per_byte=(two - one) / sampled["bytes"], sampled_bytes=sampled["bytes"],
                           callgrind_implementation=sampled.get("implementation"))
        except (OSError, RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as error:
            row["error"] = str(error)[-300:]
        log(f"json {contender:26} {row.get('mb_per_s', 0):8,.1f} MB/s  "
            f"{row.get('ir_per_byte', 0):7,.1f} Ir/byte  {row.get('error', '')}")
        rows.append(row)
    return rows, started


def json_targets(row, by_contender):
    """The issue's targets: MalibuJSON decodes at ≤ 84 instructions per byte; it encodes an `Order` in ≤ ⅓ of
    `JSONEncoder`'s instructions."""
    ir = row.get("ir_per_byte")
    if ir is None:
        return []
    if row["contender"] == "decode-malibujson":
        return [("≤ 84 Ir/byte", ir <= 84)]
    foundation = by_contender.get("encode-orders-foundation", {}).get("ir_per_byte")
    if row["contender"] == "encode-orders-malibujson" and foundation:
        return [("≤ ⅓ of `JSONEncoder`'s instructions", ir <= foundation / 3)]
    return []


def cpu_model():
    try:
        return next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown CPU"


def json_section(rows, started, command):
    """The Markdown section of the JSON rows, between its markers (`bench.py --json` replaces just that)."""
    json_started, json_load = started
    by_contender = {row["contender"]: row for row in rows}
    reference = {"decode": "decode-foundation", "encode `Order`": "encode-orders-foundation",
                 "encode api-mix": "encode-items-foundation"}
    lines = [JSON_BEGIN, "", "### Codable JSON rows", "",
             f"Command: `{command}`. No network: each row is one process (`bench-json`, or `bench-simdjson` for the C++ "
             "reference, g++ -O2 on Debian's libsimdjson) over the api-mix files held in memory. MB/s: bytes of JSON "
             f"read (decode) or written (encode, as `JSONEncoder` writes them) per second of wall time, the best of "
             f"{JSON_REPEATS} passes over all 1,000 files (or the plan's orders) after a warm-up pass. Ir/byte: "
             f"instructions (callgrind, all threads) of a run with 2 passes minus a run with 1, over the bytes of one "
             f"pass, on every {JSON_STRIDE}th file (`BENCH_JSON_STRIDE`). × Foundation: the row's instructions per "
             "byte over Foundation's row of its group. Instruction counts repeat to within a percent from run to "
             "run; MB/s moves with whatever else the machine runs (the same code measured twice can differ by 2×).",
             "", f"Run: {json_started} UTC; {os.cpu_count()} CPUs, {cpu_model()}; load average "
             f"{json_load:.2f} when it started.", "",
             "| rows | contender | what it does | MB/s | Ir/byte | × Foundation (Ir) | bytes (wall / callgrind) | target |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        name = "simdjson" if row["binary"] == "bench-simdjson" else row["contender"]
        if "error" in row:
            lines.append(f"| {row['group']} | {name} | {row['what']} | — | — | — | — | **failed**: "
                         f"{row['error'].replace('|', '/')} |")
            continue
        base_key = next((v for k, v in reference.items() if row["group"].startswith(k)), None)
        base = by_contender.get(base_key, {}).get("ir_per_byte")
        ir = row.get("ir_per_byte")
        ratio = f"{ir / base:.2f}" if ir is not None and base else "—"
        verdict = "; ".join(f"{'met' if met else 'MISSED'}: {text}" for text, met in json_targets(row, by_contender))
        what = row["what"]
        if row.get("implementation"):
            what += f" ({row['implementation']} kernel"
            if row.get("callgrind_implementation") not in (None, row["implementation"]):
                what += f"; {row['callgrind_implementation']} under callgrind, which has no AVX-512"
            what += ")"
        lines.append(f"| {row['group']} | {name} | {what} | {number(row['mb_per_s'])} | {optional(ir)} | {ratio} | "
                     f"{row['bytes']:,} / {row.get('sampled_bytes', 0):,} | {verdict or '—'} |")
    lines += ["", "By hand (from the repository root, after `make bench-build`; `.build-bench/bench-simdjson parse` "
              "takes the same options):", "", "```sh",
              "Tools/Benchmarks/.build/release/bench-json decode-malibujson --dir .build-bench/www/api/items",
              "for n in 1 2; do valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \\",
              f"  Tools/Benchmarks/.build/release/bench-json decode-malibujson --dir .build-bench/www/api/items "
              f"--stride {JSON_STRIDE} \\",
              "  --warmup 0 --repeats 1 --passes $n; done   # (summary of 2 − summary of 1) / the line's bytes",
              "```", "", JSON_END]
    return "\n".join(lines)


def json_only():
    """`bench.py --json`: the JSON rows alone, printed and written over their section of BENCHMARKS.md."""
    for binary in ("bench-json", "bench-simdjson"):
        if not os.access(json_binary(binary), os.X_OK):
            sys.exit(f"bench: {json_binary(binary)} is missing; run `make bench-json` (it builds both)")
    plan = generate_api_data()
    os.makedirs(WORK, exist_ok=True)
    run_dir = tempfile.mkdtemp(prefix="json-", dir=WORK)
    try:
        command = ("BENCH_QUICK=1 " if QUICK else "") + "make bench-json"
        rows, started = json_measure(run_dir, plan)
        section = json_section(rows, started, command)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    print(section)
    if ONLY:
        log("BENCH_ONLY is set: BENCHMARKS.md left as it is")
        return 0
    write_section(JSON_BEGIN, JSON_END, section)
    log(f"wrote the JSON rows into {os.path.relpath(REPORT, ROOT)}")
    return 1 if any("error" in row for row in rows) else 0


def write_section(begin, end, section):
    """Writes `section` over the part of BENCHMARKS.md between `begin` and `end`, or after the results when it has
    none yet."""
    current = open(REPORT).read() if os.path.exists(REPORT) else ""
    if begin in current and end in current:
        before, rest = current.split(begin, 1)
        current = before + section + rest.split(end, 1)[1]
    elif RESULTS_MARKER in current:
        current = current.rstrip("\n") + "\n\n" + section + "\n"
    else:
        current = (current or "# Benchmarks\n\n") + RESULTS_MARKER + "\n\n" + section + "\n"
    with open(REPORT, "w") as file:
        file.write(current)


# ---- the events row -----------------------------------------------------------------------------------------------

# (contender, what it does); bench-events parses the recorded stream (write_events_stream) in the same chunks.
EVENTS_ROWS = [
    ("malibu-parser", "Malibu `ServerSentEventParser.parse(_:)` over `Data` chunks"),
    ("malibu-events", "Malibu `ServerSentEvents` (the public `AsyncSequence`, no reconnection) over the `Data` chunks"),
    ("openapi-runtime", "swift-openapi-runtime 1.13.4 `asDecodedServerSentEvents()` over `ArraySlice<UInt8>` chunks"),
]
EVENTS_REPEATS = 3 if QUICK else 7
EVENTS_BEGIN, EVENTS_END = "<!-- bench:events -->", "<!-- /bench:events -->"


def events_measure(run_dir):
    """Every events row: events/s of the best of EVENTS_REPEATS passes after a warm-up pass, then instructions per
    event under callgrind, (run with 2 passes − run with 1 pass) / the events of one pass. Returns the rows and when
    the run started (UTC, and the load average then)."""
    started = (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), os.getloadavg()[0])
    stream = generate_events_stream()
    has_valgrind = shutil.which("valgrind") is not None
    rows = []
    for contender, what in EVENTS_ROWS:
        if ONLY and not ONLY.search(f"events/{contender}"):
            continue
        base = [json_binary("bench-events"), contender, "--file", stream]
        row = {"contender": contender, "what": what}
        try:
            wall = json_run(base + ["--repeats", str(EVENTS_REPEATS)])
            row.update(events_per_s=wall["events_per_s"], mb_per_s=wall["mb_per_s"], events=wall["events"],
                       bytes=wall["bytes"], chunks=wall["chunks"])
            if has_valgrind:
                one, _ = callgrind_instructions(base, run_dir, 1)
                two, _ = callgrind_instructions(base, run_dir, 2)
                row.update(ir_per_event=(two - one) / wall["events"], ir_per_byte=(two - one) / wall["bytes"])
        except (OSError, RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as error:
            row["error"] = str(error)[-300:]
        log(f"events {contender:16} {row.get('events_per_s', 0):12,.0f} events/s  "
            f"{row.get('ir_per_event', 0):8,.0f} Ir/event  {row.get('error', '')}")
        rows.append(row)
    return rows, started


def events_section(rows, started, command):
    """The Markdown section of the events row, between its markers (`bench.py --events` replaces just that)."""
    events_started, events_load = started
    peer = next((row for row in rows if row["contender"] == "openapi-runtime" and "error" not in row), {})
    sample = next((row for row in rows if "events" in row), {})
    lines = [EVENTS_BEGIN, "", "### Events row: parsing a recorded `text/event-stream`", "",
             f"Command: `{command}`. No network: each row is one process (`bench-events`) over the same recorded "
             f"stream held in memory: {sample.get('bytes', 0):,} bytes, {sample.get('events', 0):,} events with data, "
             "LLM-completion-like (OpenAI- and Anthropic-shaped completions of small `data: {json}` deltas, each with "
             "an `id`; some multi-line data, keep-alive comments, `retry`, one completion in four with CRLF), written "
             "by `Scripts/bench.py` from a fixed seed into `.build-bench/events/stream.sse`, and cut into the same "
             f"{sample.get('chunks', 0):,} chunks of 1–16 KiB (log-uniform, seeded) for every contender. Each "
             "process first checks that all three contenders produce the same events (count, ids, types, data). "
             f"Events/s: the best of {EVENTS_REPEATS} passes after a warm-up pass, wall time. Ir/event: "
             "instructions (callgrind, all threads) of a run with 2 passes minus a run with 1, over the events of "
             "one pass. × openapi-runtime: the row's instructions per event over swift-openapi-runtime's.",
             "", f"Run: {events_started} UTC; {os.cpu_count()} CPUs, {cpu_model()}; load average "
             f"{events_load:.2f} when it started.", "",
             "| contender | what it does | events/s | MB/s | Ir/event | Ir/byte | × openapi-runtime (Ir) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['contender']} | {row['what']} | — | — | — | — | **failed**: "
                         f"{row['error'].replace('|', '/')} |")
            continue
        ir = row.get("ir_per_event")
        ratio = f"{ir / peer['ir_per_event']:.2f}" if ir is not None and peer.get("ir_per_event") else "—"
        lines.append(f"| {row['contender']} | {row['what']} | {row['events_per_s']:,.0f} | {row['mb_per_s']:,.1f} | "
                     f"{optional(ir, 0)} | {optional(row.get('ir_per_byte'))} | {ratio} |")
    lines += ["", "By hand (from the repository root, after `make bench-events` has written the stream):", "",
              "```sh",
              "Tools/Benchmarks/.build/release/bench-events malibu-parser --file .build-bench/events/stream.sse",
              "for n in 1 2; do valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \\",
              "  Tools/Benchmarks/.build/release/bench-events malibu-parser --file .build-bench/events/stream.sse \\",
              "  --warmup 0 --repeats 1 --passes $n; done   # (summary of 2 − summary of 1) / the line's events",
              "```", "", EVENTS_END]
    return "\n".join(lines)


def events_only():
    """`bench.py --events`: the events row alone, printed and written over its section of BENCHMARKS.md."""
    if not os.access(json_binary("bench-events"), os.X_OK):
        sys.exit(f"bench: {json_binary('bench-events')} is missing; run `make bench-events` (it builds it)")
    os.makedirs(WORK, exist_ok=True)
    run_dir = tempfile.mkdtemp(prefix="events-", dir=WORK)
    try:
        rows, started = events_measure(run_dir)
        section = events_section(rows, started, ("BENCH_QUICK=1 " if QUICK else "") + "make bench-events")
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    print(section)
    if ONLY:
        log("BENCH_ONLY is set: BENCHMARKS.md left as it is")
        return 0
    write_section(EVENTS_BEGIN, EVENTS_END, section)
    log(f"wrote the events row into {os.path.relpath(REPORT, ROOT)}")
    return 1 if any("error" in row for row in rows) else 0


# ---- micro-benchmarks (ordo-one/benchmark) ------------------------------------------------------------------------


def micro_benchmarks(run_dir):
    """Runs `swift package benchmark` and returns a Markdown table of its key figures, or None."""
    out = os.path.join(run_dir, "micro")
    os.makedirs(out, exist_ok=True)
    command = ["swift", "package", "--package-path", PACKAGE, "--allow-writing-to-directory", out,
               "benchmark", "--format", "jmh", "--path", out, "--no-progress"]
    log("micro-benchmarks: " + " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        log(f"micro-benchmarks failed (exit {done.returncode}):\n{(done.stderr or done.stdout)[-3000:]}")
        return None
    rows = {}
    for name in os.listdir(out):
        if not name.endswith(".json"):
            continue
        # JMH export: one element per benchmark; throughput is primary, the others are secondary metrics with
        # percentiles (wall clock in µs; mallocs as counts). Iterations are single operations (scalingFactor .one).
        for entry in json.load(open(os.path.join(out, name))):
            bench = entry["benchmark"].split("MalibuBenchmarks.", 1)[-1].replace("_", " ")
            rows[bench] = {key: metric["scorePercentiles"]["50.0"] for key, metric in entry["secondaryMetrics"].items()}
    lines = ["| benchmark | median time (µs) | operations/s | mallocs per operation |",
             "| --- | ---: | ---: | ---: |"]
    for bench in sorted(rows):
        wall, mallocs = rows[bench].get("Time (wall clock)"), rows[bench].get("Malloc (total)")
        ops = f"{1e6 / wall:,.0f}" if wall else "—"
        lines.append(f"| {bench} | {wall:,.2f} | {ops} | {mallocs:,.0f} |" if wall is not None and mallocs is not None
                     else f"| {bench} | — | — | — |")
    facade = next((v for k, v in rows.items() if k.startswith("Facade")), {}).get("Time (wall clock)")
    alone = next((v for k, v in rows.items() if k.startswith("MockTransport alone")), {}).get("Time (wall clock)")
    if facade is not None and alone is not None:
        lines += ["", f"Facade overhead per request here (Facade row minus MockTransport-alone row): "
                      f"{facade - alone:,.1f} µs. Each sample is one request, timed between two reads of the malloc "
                      "interposer's counters, so caches start cold and every allocation is counted: both rows are "
                      "about twice their steady-state time. The < 10 µs target is judged on the steady-state "
                      "json-seq rows of the table above (see Findings)."]
    return "\n".join(lines)


# ---- report -------------------------------------------------------------------------------------------------------


def command_output(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (done.stdout + done.stderr).strip()
    except OSError:
        return "unknown"


def machine(nginx):
    return [
        f"- Machine: {os.cpu_count()} CPUs (`nproc`: {command_output(['nproc'])}), {cpu_model()}",
        f"- Kernel: {command_output(['uname', '-sr'])}",
        f"- Swift: {command_output(['swift', '--version']).splitlines()[0]}",
        f"- libcurl: {command_output(['curl-config', '--version'])}; zlib: "
        f"{command_output(['pkg-config', '--modversion', 'zlib'])}",
        f"- nginx: {command_output([nginx, '-v']).replace('nginx version: ', '')} (1 worker, loopback)",
    ]


def write_report(text):
    preamble = "# Benchmarks\n\n(Findings and profiles go here, above the results marker.)\n\n"
    if os.path.exists(REPORT):
        current = open(REPORT).read()
        if RESULTS_MARKER in current:
            preamble = current.split(RESULTS_MARKER)[0]
    with open(REPORT, "w") as file:
        file.write(preamble + RESULTS_MARKER + "\n\n" + text + "\n")


def remove_stale_run_directories():
    """Run directories left by a runner that was killed outright (SIGKILL leaves no chance to clean up); its nginx
    is gone already (parent-death signal). A directory whose nginx is still running belongs to a live runner."""
    for name in os.listdir(WORK):
        path = os.path.join(WORK, name)
        if not name.startswith("run-") or not os.path.isdir(path) or time.time() - os.path.getmtime(path) < 120:
            continue
        try:
            os.kill(int(open(os.path.join(path, "nginx.pid")).read().strip()), 0)
            continue  # alive
        except (OSError, ValueError):
            shutil.rmtree(path, ignore_errors=True)


def main():
    for number_ in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number_, on_signal)
    started = time.monotonic()
    nginx_binary = find_nginx()
    needed = {client_binary(c) for w in WORKLOADS for c in w[4] if not ONLY or ONLY.search(f"{w[0]}/{c}")}
    for binary in sorted(needed):
        if not os.access(binary, os.X_OK):
            sys.exit(f"bench: {binary} is missing; run `make bench` (it builds both)")
    sizes = generate_data()
    sizes["plan"] = generate_api_data()
    remove_stale_run_directories()
    run_dir = tempfile.mkdtemp(prefix="run-", dir=WORK)
    server = Nginx(nginx_binary, run_dir)
    try:
        try:
            sizes["ca"] = make_certificates(run_dir)
            base = server.start()
            sizes["port"], sizes["tls_port"] = server.port, server.tls_port
            log(f"nginx on {base}; {REPEATS} repeats; {'quick' if QUICK else 'full'} mode")
            results = measure(base, run_dir, sizes)
            floor = floors(base, run_dir) if not ONLY else {}
        finally:
            server.stop()
        stats = summarize(results)
        results_table = table(stats)
        json_rows, json_started = json_measure(run_dir, sizes["plan"]) if os.environ.get("BENCH_JSON", "1") != "0" \
            else ([], None)
        events_rows, events_started = events_measure(run_dir) if os.environ.get("BENCH_EVENTS", "1") != "0" \
            else ([], None)
        micro = None
        if os.environ.get("BENCH_MICRO", "1") != "0" and not ONLY:
            try:
                micro = micro_benchmarks(run_dir)
            except subprocess.TimeoutExpired:
                log("micro-benchmarks timed out")
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "BENCH_QUICK=1 make bench" if QUICK else "make bench"
    mode = "quick mode, fewer requests: indicative figures only; " if QUICK else ""
    heading = [f"## Latest run: {date}", "",
               f"Command: `{command}` ({mode}{REPEATS} interleaved repeats per row; medians; "
               f"{SEQUENTIAL_REQUESTS:,} sequential and {CONCURRENT_REQUESTS:,} concurrent requests). "
               f"Wall time {time.monotonic() - started:,.0f} s.", ""] + machine(nginx_binary) + [""]
    text = "\n".join(heading) + "\n" + results_table + "\n"
    realistic = api_table(stats)
    if realistic.count("\n") > 1:
        text += ("\n### Realistic rows: api-mix\n\n1,000 paths with query strings, JSON of 1–64 KiB (a fixed seeded "
                 "distribution), varied `X-Request-Id` and `Accept-Language` values, 1 request in 5 a JSON POST; "
                 "plain HTTP/1.1, and HTTPS with HTTP/2 over a CA made for the run. `c` (libcurl multi) and "
                 "`malibu-curl` (CurlTransport) transfer and count bytes: the transfer floor and Malibu's transport; "
                 "`facade-curl-data` is the facade with `toData()`, no decoding. "
                 "`facade-curl` (`Networking` + `validate()` + `decode`, the facade's default decoder), "
                 "`facade-curl-foundation` (the same with `decode(using:decoder: JSONDecoder())`), `ahc` and "
                 "`urlsession` (`JSONDecoder`) decode into the same `Codable` types. `urlsession` has no HTTPS rows: Foundation on Linux cannot trust "
                 "a CA outside the system store, and the run's CA is not installed there. Its facade target on the "
                 "HTTPS rows is therefore not judged. CPU µs/request: the process's user + system time over the "
                 f"measured requests. {API_REQUESTS:,} requests a run (at most {API_MAX_SECONDS:g} s).\n\n"
                 + realistic + "\n")
    if stats.get("fan-out"):
        text += (f"\n### Realistic rows: fan-out\n\n{FAN_OUT_REQUESTS:,} requests of the api-mix plan (plain HTTP/1.1) "
                 f"started by 1,000 tasks at once over a pool of {FAN_OUT_POOL} connections; drain: the time until the "
                 "last response. Before: the client made and one request done; peak: sampled every 5 ms (RSS: VmHWM); "
                 "after: one second after the last response, the client still alive. Threads flat: at most one more "
                 "per CPU (the Swift pool widening) and two of the client's own than before. Trimmed: the RSS after "
                 "`malloc_trim(0)`, taken right after: what of 'after' is glibc keeping freed pages. `malibu-curl` transfers "
                 "only, "
                 "`facade-curl` and `ahc` decode.\n\n" + fan_out_table(stats) + "\n")
    text += ("\n× C: the row's median over the C row of its workload (libcurl; raw zlib inflate from memory for "
             "gzip). Peak RSS: the largest of the row's runs, as VmHWM (the process's own high-water mark); the C "
             "gzip row holds the whole compressed file in memory. `floor-curl` and `floor-curl-loop` (GET rows): the "
             "least an async Swift client on libcurl does per request — a loop thread running a multi handle, one "
             "continuation per request, no request or response types, header parsing, cancellation or timeouts "
             "(bench-client-floor); beside the direct CurlTransport rows, their median over the floor's.\n")
    early = stopped_early(stats)
    if early:
        text += (f"\nGET rows stop starting requests after {MAX_SECONDS:g} s (`BENCH_MAX_SECONDS`; api-mix rows after "
                 f"{API_MAX_SECONDS:g} s) and report the rate "
                 "over the requests done; these did (fewest requests of a run): "
                 + "; ".join(f"{label} / {contender}: {count:,}" for label, contender, count in early) + ".\n")
    if floor:
        text += ("\nPeak RSS of each client doing nothing (runtime, libraries, one client; the floor under its rows): "
                 + ", ".join(f"{name} {value:.1f} MiB" for name, value in floor.items()) + ".\n")
    if json_rows:
        text += "\n" + json_section(json_rows, json_started, command) + "\n"
    if events_rows:
        text += "\n" + events_section(events_rows, events_started, command) + "\n"
    if micro:
        text += "\n### Micro-benchmarks (ordo-one/benchmark)\n\n" + micro + "\n"
    print(text)
    if ONLY:
        log("BENCH_ONLY is set: BENCHMARKS.md left as it is")
    else:
        write_report(text)
        log(f"wrote {os.path.relpath(REPORT, ROOT)}")
    errors = sum(row["errors"] for workload in stats.values() for row in workload.values())
    return 1 if errors else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--generate"]:
        sys.exit(write_data())
    if sys.argv[1:] == ["--generate-api"]:
        sys.exit(write_api_data())
    if sys.argv[1:] == ["--api-items"]:
        # The api-mix files, generated once (stamped with API_VERSION) as for `make bench`: their folder on stdout.
        generate_api_data()
        print(os.path.join(API_DIR, "items"))
        sys.exit(0)
    if sys.argv[1:] == ["--json"]:
        sys.exit(json_only())
    if sys.argv[1:] == ["--events"]:
        sys.exit(events_only())
    try:
        sys.exit(main())
    except (KeyboardInterrupt, Interrupted) as stop:
        sys.exit(f"bench: stopped ({stop or 'interrupted'}); nginx and temporary files cleaned up")
