#!/usr/bin/env python3
"""A local fake of the Anthropic Messages API for claude-code.test: the conversation's first
request (one that offers the Bash tool and holds no tool result) is answered with a tool_use
of Bash running argv[3]; the request that carries its tool_result is written whole to
argv[2] and answered with a final text. Anything else (titles, counts) gets a short text.
Streams as server-sent events when asked, else one JSON body. Prints its port on stdout once
it listens (argv[1]: the port file)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, RESULT_FILE, COMMAND = sys.argv[1], sys.argv[2], sys.argv[3]


def tool_results(body):
    for m in body.get("messages", []):
        if isinstance(m.get("content"), list):
            for c in m["content"]:
                if isinstance(c, dict) and c.get("type") == "tool_result":
                    yield c


def offers_bash(body):
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in body.get("tools", []))


def blocks_for(body):
    results = list(tool_results(body))
    if results:
        with open(RESULT_FILE + ".tmp", "w") as f:
            json.dump(results, f)
        import os
        os.replace(RESULT_FILE + ".tmp", RESULT_FILE)
        return [{"type": "text", "text": "done"}], "end_turn"
    if offers_bash(body):
        return [{"type": "tool_use", "id": "toolu_fake1", "name": "Bash",
                 "input": {"command": COMMAND, "description": "the test's command"}}], "tool_use"
    return [{"type": "text", "text": "ok"}], "end_turn"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, ctype, data):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send(200, "application/json", b"{}")

    def do_HEAD(self):
        self.send(200, "application/json", b"")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            body = {}
        if "count_tokens" in self.path:
            return self.send(200, "application/json", b'{"input_tokens": 10}')
        if not self.path.startswith("/v1/messages"):
            return self.send(200, "application/json", b"{}")
        blocks, stop = blocks_for(body)
        model = body.get("model", "claude-fake")
        usage = {"input_tokens": 10, "output_tokens": 5}
        msg = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
               "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send(200, "application/json", json.dumps(msg).encode())
        events = [("message_start", {"type": "message_start",
                                     "message": dict(msg, content=[], stop_reason=None)})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                               "content_block": {"type": "text", "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                               "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                               "content_block": dict(b, input={})}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                               "delta": {"type": "input_json_delta",
                                         "partial_json": json.dumps(b["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta",
                       "delta": {"stop_reason": stop, "stop_sequence": None},
                       "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        data = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events)
        self.send(200, "text/event-stream", data.encode())


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.replace(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()
