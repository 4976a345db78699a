#!/usr/bin/env python3
"""Writes the seed corpora under Tools/Fuzz/Corpus/<target>/ (committed; run again only to change the seeds).

Each target reads its input the way Sources/MalibuFuzz/FuzzInput.swift does: single bytes for choices, a length
byte before each short string, the rest of the input last.
"""
import gzip
import hashlib
import hmac
import json
import os
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus")


def short(text):
    data = text.encode() if isinstance(text, str) else text
    assert len(data) < 256
    return bytes([len(data)]) + data


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data)


# gzip: format (0 automatic, 1 gzip, 2 zlib, 3 raw deflate), piece size - 1, the stream.
text = b"Malibu " * 40 + b'{"board": "Balsa", "tags": ["a", "b"]}\n'
member = gzip.compress(text, mtime=0)
raw = zlib.compressobj(6, zlib.DEFLATED, -15)
raw_stream = raw.compress(text) + raw.flush()
write("gzip", "gzip-member", bytes([0, 255]) + member)
write("gzip", "gzip-two-members", bytes([1, 16]) + member + gzip.compress(b"second", mtime=0))
write("gzip", "gzip-truncated", bytes([0, 7]) + member[:-9])
write("gzip", "gzip-trailing-garbage", bytes([1, 255]) + member + b"garbage")
write("gzip", "zlib-stream", bytes([2, 3]) + zlib.compress(text))
write("gzip", "raw-deflate", bytes([3, 31]) + raw_stream)
write("gzip", "gzip-empty-body", bytes([0, 0]) + gzip.compress(b"", mtime=0))
write("gzip", "not-gzip", bytes([0, 255]) + b"HTTP/1.1 200 OK\r\n")

# json: whole documents.
for name, doc in {
    "object": b'{"id": 1, "title": "Balsa", "tags": ["a", "b"], "owner": {"name": "J\\u00f6rg"}, "x": null}',
    "numbers": b"[0, -0, 1.5e3, -2E-2, 9223372036854775807, 9223372036854775808, 1e308]",
    "escapes": b'"\\"\\\\\\/\\b\\f\\n\\r\\t \\ud83d\\ude00 caf\xc3\xa9"',
    "bom": b"\xef\xbb\xbf{\"a\": true, \"a\": false}",
    "nested": b"[" * 40 + b"]" * 40,
    "bad-lone-surrogate": b'"\\ud800"',
    "bad-trailing-comma": b'{"a": 1,}',
}.items():
    write("json", name, doc)

# response-head: lines as libcurl hands them over.
for name, head in {
    "ok": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nSet-Cookie: a=b\r\n\r\n",
    "interim": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
    b"HTTP/1.1 201 Created\r\nLocation: /b/1\r\n\r\n",
    "http2": b"HTTP/2 404 \r\ncontent-type: application/json\r\n\r\n",
    "folded": b"HTTP/1.0 200 OK\r\nX-Long: one\r\n  two\r\n\tthree\r\nBad Name: x\r\n\r\n",
    "redirect-then-final": b"HTTP/1.1 301 Moved\r\nLocation: /x\r\n\r\nHTTP/1.1 200 OK\r\nA: 1\r\n\r\n",
    "garbage": b"HTTP/1.1 abc\r\n\r\n",
}.items():
    write("response-head", name, head)

# media-type: allowEmpty, the text, another type or charset name, the body.
for name, (text, other, body) in {
    "json-utf8": ("application/json; charset=utf-8", "application/json", "{\"a\": \"\u00e9\"}".encode()),
    "accept-list": ("text/html, application/*;q=0.5, */*;q=0", "image/png", b""),
    "quoted": ('multipart/form-data; boundary="a b"; CHARSET="ISO-8859-1"', "iso-8859-1", b"caf\xe9"),
    "utf16": ("text/plain; charset=utf-16le", "utf-16", "h\u00e9".encode("utf-16")),
    "euc-jp": ("text/plain; charset=EUC-JP", "euc-jp", "\u65e5\u672c".encode("euc-jp")),
    "shift-jis": ("text/plain;charset=Shift_JIS", "windows-1252", "\u65e5".encode("shift_jis")),
    "bad": ("text/", "*/json", b""),
}.items():
    write("media-type", name, bytes([1]) + short(text) + short(other) + body)

# url-form: array style, bool style, resource, base, then parameters: count, (key, kind, value...).
write("url-form", "query", bytes([0, 0]) + short("boards?page=2") + short("http://127.0.0.1:8080/api")
      + bytes([2]) + short("q") + bytes([0]) + short("a b&c=d/?") + short("flag") + bytes([3, 1]))
write("url-form", "absolute", bytes([2, 1]) + short("https://example.com/x#frag") + short("")
      + bytes([1]) + short("tags") + bytes([8, 2, 0]) + short("\u00e9") + bytes([1, 7, 3]))
write("url-form", "nested", bytes([1, 0]) + short("/a//b/") + short("http://h/base/?x=1")
      + bytes([1]) + short("board") + bytes([9, 2]) + short("title") + bytes([0]) + short("Balsa")
      + short("n") + bytes([4]))

# multipart: chosen (1) or random (0) boundary; for a chosen one a byte 1-3 = from the boundary alphabet (a length
# byte, then one byte per character), 0 = any text (a short string); the part count; each part: name, kind (0 text, 1 data, 2 file),
# has file name, file name, media type choice, media type text, content; the read size - 1.
def part(name, kind, content, file_name=None, media=2, media_text=None):
    data = short(name) + bytes([kind])
    data += bytes([1]) + short(file_name) if file_name is not None else bytes([0])
    data += bytes([media])
    if media == 0:
        data += bytes([0])
    elif media == 1:
        data += short(media_text)
    return data + short(content)

def boundary_bytes(text):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=? "
    return bytes([1, 1, len(text)]) + bytes(alphabet.index(c) for c in text)

write("multipart", "text-and-file", boundary_bytes("Boundary-1") + bytes([2])
      + part("title", 0, "Balsa") + part("photo", 2, b"\x89PNG\r\n", "photo.png") + bytes([15]))
write("multipart", "delimiter-in-file", boundary_bytes("B") + bytes([1])
      + part("upload", 2, b"x\r\n--B\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\n1") + bytes([2]))
write("multipart", "random-boundary", bytes([0, 3]) + part("a\"b\r\n", 0, "v") + part("d", 1, b"\x00\xff", "f.bin", 0)
      + part("e", 1, b"", None, 1, "text/plain; charset=utf-8") + bytes([0]))
write("multipart", "bad-boundary", bytes([1, 0]) + short("no\"quotes") + bytes([1]) + part("a", 0, "v") + bytes([0]))

# stored-request: one entry file as the offline store writes it.
entry = {
    "version": 1, "method": "POST", "resource": "boards", "url": "http://127.0.0.1:8080/boards",
    "contentType": "json", "task": "data", "parameters": {"title": {"string": "Balsa"}},
    "headers": {"X-Trace": "1"}, "storePolicy": "offline", "cachePolicy": "useProtocolCachePolicy", "sequence": 3,
}
write("stored-request", "entry", json.dumps(entry).encode())
upload = dict(entry, task="uploadData", uploadData="aGVsbG8=", contentType="custom", customContentType="text/csv")
write("stored-request", "upload-data", json.dumps(upload).encode())
write("stored-request", "huge-sequence", json.dumps(dict(entry, sequence=18446744073709551615)).encode())
write("stored-request", "upload-file", json.dumps(dict(entry, task="uploadFile", uploadFile="file:///etc/passwd")).encode())


def signed(name, body):
    """An entry file under the fuzz target's fixed key: the header line with the HMAC of the name and JSON, then the JSON."""
    mac = hmac.new(bytes([0x5A]) * 32, name.encode() + b"\n" + body, hashlib.sha256).hexdigest()
    return b"malibu-offline-entry hmac-sha256=" + mac.encode() + b"\n" + body


write("stored-request", "signed-entry", signed("fuzz.json", json.dumps(entry).encode()))

# redactor: query, header name, header value, authority, body type (0 json, 1 form, 2 text, 3 +json), body.
write("redactor", "query-and-json", short("a=1&password=hunter2&api-key=x&Access%5FToken=t&plain") + short("Authorization")
      + short("Bearer abc") + short("user:pass@127.0.0.1:8080") + bytes([0])
      + b'{"user": {"password": "p", "list": [{"token": "t"}]}, "ok": 1}')
write("redactor", "form", short("client_secret=s") + short("X-Api-Key") + short("k") + short("127.0.0.1") + bytes([1])
      + b"name=J&refresh+token=r&x")

# json-codable: whole documents, decoded by Foundation and MalibuJSON as a generic value, as the benchmark's `[Item]`
# and as a struct of many optional types. Small api-mix documents from the benchmark's own generator, then the
# nasty cases: numbers at and past the edges, escapes, lone surrogates, invalid UTF-8, deep nesting, bad values.
import importlib.util  # noqa: E402

bench_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Benchmarks", "Scripts", "bench.py")
bench_spec = importlib.util.spec_from_file_location("bench", bench_path)
bench = importlib.util.module_from_spec(bench_spec)
bench_spec.loader.exec_module(bench)
for seed, size in ((1, 400), (2, 1200), (3, 3000)):
    write("json-codable", f"api-mix-{seed}", bench.json_document(size, seed=seed))
codable_seeds = {
    "item-null-note": b'[{"id":1,"uuid":"u","name":"n","score":-0.0,"active":false,"tags":[],'
                      b'"location":{"lat":1e-7,"lon":-180},"note":null}]',
    "item-missing-key": b'[{"id":1,"uuid":"u","name":"n","score":1,"active":true,"tags":["a"],"location":{"lat":0}}]',
    "item-wrong-type": b'[{"id":"1","uuid":"u","name":"n","score":1,"active":true,"tags":[],"location":{"lat":0,"lon":0}}]',
    "item-int-as-float": b'[{"id":1.0,"uuid":"u","name":"n","score":1,"active":true,"tags":[],'
                         b'"location":{"lat":0,"lon":0}}]',
    "numbers": b'[0,-0,-0.0,1e400,-1e400,1E-400,9223372036854775807,9223372036854775808,-9223372036854775809,'
               b'18446744073709551616,1.7976931348623157e308,5e-324,2.2250738585072011e-308,0.1,1e+2,1E2,'
               b'123456789012345678901234567890,0.30000000000000004]',
    "bad-numbers": b'[01,1.,.5,+1,1e,-,0x10,NaN,Infinity]',
    "escapes": b'["\\u0000","\\"\\\\\\/\\b\\f\\n\\r\\t","\\u00e9\\u20ac\\ud83d\\ude00","/","<>&\'"]',
    "lone-surrogate": b'["\\ud800"]',
    "lone-low-surrogate": b'{"a":"\\udc00x"}',
    "invalid-utf8": b'["\xff\xfe", "\xc0\xaf"]',
    "bom": b'\xef\xbb\xbf{"string":"bom"}',
    "utf16": '{"string":"utf16"}'.encode("utf-16"),
    "deep": b"[" * 600 + b"]" * 600,
    "deep-511": b"[" * 511 + b"]" * 511,
    "trailing-garbage": b'{"int":1} x',
    "truncated": b'{"int":1,"string":"abc',
    "duplicate-keys": b'{"int":1,"int":2,"map":{"a":1,"a":"b"}}',
    "empty": b"",
    "whitespace": b" \t\r\n",
    "top-level-scalars": b'"just a string"',
    "top-level-null": b"null",
    "mixed": b'{"int":-5,"int8":-128,"uint64":18446744073709551615,"float":3.4028235e38,"double":2.5,'
             b'"decimal":3.14159265358979323846264338327950288,"url":"https://example.com/a?b=c","date":-1.5,'
             b'"data":"aGVsbG8=","string":"s","bools":[true,false],"map":{"b":2,"a":1},"intMap":{"1":"one","-2":"two"},'
             b'"nested":[{"int":1},{"nested":[]}]}',
    "mixed-bad": b'{"int8":128,"uint64":-1,"float":1e39,"url":"","data":"!!","intMap":{"x":"y"},"decimal":"1"}',
    "mixed-nulls": b'{"int":null,"nested":[null],"map":{"a":null}}',
    # Found by the fuzzer: which member's error comes first depends on the order of allKeys.
    # Found by the fuzzer: Foundation refuses 0e3 as a Double (its true-zero check), not as an Int.
    "zero-short-exponent": b"0e3",
    "dictionary-member-order": b'{"intMap":{"1#":"onek","-2":"tw\x97"}}',
}
for name, doc in codable_seeds.items():
    write("json-codable", name, doc)

# cassette: one entry file as CassetteTransport writes it: a response with a body file and chunks, and a failure.
digest = hashlib.sha256(b"hello").hexdigest()
response_entry = {
    "format": 1,
    "request": {"method": "GET", "url": "http://127.0.0.1:8080/users?page=1", "headers": [{"name": "Accept", "value": "*/*"}],
                "body": {"size": 2, "sha256": digest, "text": "{}"}},
    "response": {"status": 200, "reason": "OK", "url": "http://127.0.0.1:8080/users?page=1",
                 "headers": [{"name": "Content-Type", "value": "application/json"}],
                 "body": {"file": "0001-GET-fuzz.body", "size": 5, "sha256": digest},
                 "chunks": [{"size": 2, "milliseconds": 0}, {"size": 3, "milliseconds": 40}]},
}
write("cassette", "response", json.dumps(response_entry, indent=2, sort_keys=True).encode())
write("cassette", "failure", json.dumps({"format": 1, "request": {"method": "POST", "url": "http://127.0.0.1/a", "headers": []},
                                         "failure": {"code": "connectionReset", "message": "reset"}}).encode())
write("cassette", "traversal", json.dumps(dict(response_entry, response=dict(response_entry["response"],
                                              body={"file": "../../etc/passwd", "size": 5, "sha256": digest}))).encode())
