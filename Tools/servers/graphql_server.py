#!/usr/bin/env python3
"""A small GraphQL server for the integration suite's GraphQL tests (graphql-core, pinned in requirements.txt).

    graphql_server.py [PORT]     PORT 0 (the default) takes a free port

Listens on 127.0.0.1 only. Started by Integration/Support/LocalServers.swift (`LocalServers.shared.graphQL()`), one
per test process.

  POST /graphql   {"query", "variables", "operationName"} as JSON; answers {"data": ...} and, when a resolver or
                  the document fails, {"errors": [{"message", "path", "locations"}], "data": ...}: 200 once the
                  document executed (partial data included), 400 for a body or document that cannot run (no data)
  GET /health     200 "ok", `Server: malibu-graphql` (the readiness probe)

The schema: `posts(first: Int): [Post!]!` (three posts; the second one's `author` fails with "author 2 is hidden",
so asking for authors gives partial data and an error at ["posts", 1, "author"]), `post(id: ID!): Post` ("no post
with id X" for an unknown id), and the mutation `addPost(title: String!): Post!` (kept for the process's life).
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from graphql import build_schema, graphql_sync

SCHEMA = build_schema(
    """
    type Author { name: String! }
    type Post { id: ID!, title: String!, author: Author }
    type Query {
      posts(first: Int): [Post!]!
      post(id: ID!): Post
    }
    type Mutation { addPost(title: String!): Post! }
    """
)

lock = threading.Lock()
posts = [
    {"id": "1", "title": "Balsa", "author": "Ada"},
    {"id": "2", "title": "Foam", "author": None},
    {"id": "3", "title": "Glass", "author": "Lin"},
]


def resolve_posts(_root, _info, first=None):
    with lock:
        chosen = list(posts)
    return chosen if first is None else chosen[:first]


def resolve_post(_root, _info, id):
    with lock:
        for post in posts:
            if post["id"] == id:
                return post
    raise ValueError("no post with id " + id)


def resolve_add_post(_root, _info, title):
    with lock:
        post = {"id": str(len(posts) + 1), "title": title, "author": "Malibu"}
        posts.append(post)
    return post


def resolve_author(post, _info):
    if post["author"] is None:
        raise ValueError("author " + post["id"] + " is hidden")
    return {"name": post["author"]}


SCHEMA.query_type.fields["posts"].resolve = resolve_posts
SCHEMA.query_type.fields["post"].resolve = resolve_post
SCHEMA.mutation_type.fields["addPost"].resolve = resolve_add_post
SCHEMA.type_map["Post"].fields["author"].resolve = resolve_author


class Handler(BaseHTTPRequestHandler):
    server_version = "malibu-graphql"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, b"ok\n", "text/plain")
        else:
            self.reply(404, {"errors": [{"message": "POST your queries to /graphql"}]})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/graphql":
            self.reply(404, {"errors": [{"message": "POST your queries to /graphql"}]})
            return
        try:
            request = json.loads(raw)
            query = request["query"]
        except (ValueError, KeyError, TypeError):
            self.reply(400, {"errors": [{"message": "the body is not {\"query\": ...} JSON"}]})
            return
        result = graphql_sync(
            SCHEMA,
            query,
            variable_values=request.get("variables"),
            operation_name=request.get("operationName"),
        )
        body = {}
        if result.errors:
            body["errors"] = [error.formatted for error in result.errors]
        # No data at all: the document could not run (a syntax or validation error) — a 400, as GraphQL over HTTP has it.
        if result.data is None and result.errors:
            self.reply(400, body)
            return
        body["data"] = result.data
        self.reply(200, body)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print("graphql_server listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
