"""A scripted stand-in for the model API Claude Code talks to. Streams as
the Messages API does (SSE). What a user turn holds decides the answer:
- SPAWN: one call of the Agent tool that starts a teammate named researcher;
- BASH <command>: one call of the Bash tool running <command> (so Claude
  Code asks permission first);
- HOLD <path>: the answer waits until <path> exists (a turn under way);
- anything else: a short text answer.
A tool's result gets a short text answer.

Usage: model_api.py [requests.jsonl]: with a path, each request's last
user text is appended to it as a JSON line, with whether it is a turn of
the agent's loop (it offers tools) rather than a side request (a title). Prints the port it listens on
(127.0.0.1), then serves until killed."""

import http.server
import json
import os
import re
import sys
import time

REQUESTS = sys.argv[1] if len(sys.argv) > 1 else None

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


def user_text(content):
    """The text parts of a user message's content."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text")


def latest_user_text(messages):
    """The text of the user messages since the model last spoke."""
    texts = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        texts.append(user_text(message.get("content")))
    return "\n".join(reversed(texts))


def tool_call(name, arguments):
    start = {"type": "tool_use", "id": f"toolu_stand_in_{time.monotonic_ns()}", "name": name, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
    return [(start, delta)], "tool_use"


def answer(request):
    """The answer to the last user turn (see the module's doc)."""
    messages = request.get("messages", [])
    tools = {tool.get("name") for tool in request.get("tools", [])}
    last = messages[-1].get("content") if messages else None
    answered_tool = isinstance(last, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in last
    )
    text = "" if answered_tool else latest_user_text(messages)
    if "SPAWN" in json.dumps(messages[:1]) and "Agent" in tools and not answered_tool:
        return tool_call("Agent", TEAMMATE)
    bash = re.search(r"BASH (.+)", text)
    if bash and "Bash" in tools:
        return tool_call("Bash", {"command": bash.group(1).strip(), "description": "Run the command"})
    hold = re.search(r"HOLD (\S+)", text)
    if hold:
        deadline = time.monotonic() + 120
        while not os.path.exists(hold.group(1)) and time.monotonic() < deadline:
            time.sleep(0.05)
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
        if REQUESTS:
            messages = request.get("messages", [])
            last = latest_user_text(messages)
            with open(REQUESTS, "a") as log:
                turn = bool(request.get("tools"))
                log.write(json.dumps({"last_user_text": last, "turn": turn}) + "\n")
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
