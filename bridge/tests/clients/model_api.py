"""A scripted stand-in for the model API Claude Code talks to, for the
agent-teams test: Claude Code's first turn on a prompt with SPAWN gets one
call of its Agent tool that starts a teammate named researcher; every other
turn gets a short text answer. Streams as the Messages API does (SSE).

Prints the port it listens on (127.0.0.1), then serves until killed."""

import http.server
import json
import sys

TEAMMATE = {"description": "say hello", "prompt": "say hello", "name": "researcher"}


def events(model, blocks, stop_reason):
    """The SSE events of one assistant message made of `blocks`, each a
    (content_block_start payload, delta payload) pair."""
    yield "message_start", {
        "type": "message_start",
        "message": {
            "id": "msg_stand_in",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    for index, (start, delta) in enumerate(blocks):
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {"output_tokens": 1},
    }
    yield "message_stop", {"type": "message_stop"}


def answer(request):
    """Spawn the teammate on the lead's first turn, else say ok."""
    messages = request.get("messages", [])
    tools = {tool.get("name") for tool in request.get("tools", [])}
    last = messages[-1].get("content") if messages else None
    answered_tool = isinstance(last, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in last
    )
    if "SPAWN" in json.dumps(messages[:1]) and "Agent" in tools and not answered_tool:
        start = {"type": "tool_use", "id": "toolu_stand_in", "name": "Agent", "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(TEAMMATE)}
        return [(start, delta)], "tool_use"
    start = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": "ok"}
    return [(start, delta)], "end_turn"


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        request = json.loads(body or b"{}")
        if "count_tokens" in self.path:
            self.reply_json({"input_tokens": 1})
            return
        blocks, stop_reason = answer(request)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for name, data in events(request.get("model", "stand-in"), blocks, stop_reason):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

    def reply_json(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
