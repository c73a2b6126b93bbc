"""A scripted stand-in for the model APIs agent programs talk to: the
Anthropic Messages API (Claude Code, opencode), the OpenAI Responses API
(Codex CLI), the Gemini API (Gemini CLI) and the OpenAI Chat Completions
API (Qwen Code, aider), each streamed as SSE the way the real one does.
What a user turn holds decides the answer:
- SPAWN: one call of the Agent tool that starts a teammate named researcher;
- BASH <command>: one call of the request's shell tool running <command>
  (so the program asks permission first); to a program that offers no
  tools (aider), a text with the command in a fenced bash block, which it
  offers to run;
- HOLD <path>: the answer waits until <path> exists (a turn under way;
  to aider, HOLD and BASH together give the bash block after the wait);
- anything else: a short text answer.
A tool's result gets a short text answer; Qwen Code's request for a
follow-up suggestion gets a short suggestion.

Usage: model_api.py [requests.jsonl]: with a path, each request's last
user text is appended to it as a JSON line, with whether it is a turn of
the agent's loop rather than a side request (a title, a suggestion, a
summary). Prints the port it listens on (127.0.0.1), then serves until
killed."""

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


def hold_if_asked(text):
    """HOLD <path>: waits until <path> exists (two minutes at most)."""
    hold = re.search(r"HOLD (\S+)", text)
    if hold:
        deadline = time.monotonic() + 120
        while not os.path.exists(hold.group(1)) and time.monotonic() < deadline:
            time.sleep(0.05)


def shell_command(text):
    bash = re.search(r"BASH (.+)", text)
    return bash.group(1).strip() if bash else None


def answer(request):
    """The answer to the last user turn (see the module's doc)."""
    messages = request.get("messages", [])
    tools = {tool.get("name") for tool in request.get("tools", [])}
    last = messages[-1].get("content") if messages else None
    answered_tool = isinstance(last, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in last
    )
    # After a declined tool, opencode sends the next prompt with the tool's
    # result: a text part makes it a user turn.
    text = latest_user_text(messages) if not answered_tool or user_text(last) else ""
    if "SPAWN" in json.dumps(messages[:1]) and "Agent" in tools and not answered_tool:
        return tool_call("Agent", TEAMMATE)
    command = shell_command(text)
    for name in ("Bash", "bash"):
        if command and name in tools:
            return tool_call(name, {"command": command, "description": "Run the command"})
    hold_if_asked(text)
    start = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": "ok"}
    return [(start, delta)], "end_turn"


# The OpenAI Responses API (Codex CLI).


def responses_user_text(items):
    """The text of the user messages since the model last spoke, and
    whether the last item is a tool's output."""
    texts = []
    for item in reversed(items):
        kind = item.get("type", "message")
        if kind == "function_call_output":
            if not texts:
                return "", True
            break
        if kind != "message" or item.get("role") == "assistant":
            break
        if item.get("role") == "user":
            parts = item.get("content")
            texts.append(user_text(parts) if isinstance(parts, str) else "\n".join(
                p.get("text", "") for p in parts or [] if isinstance(p, dict)))
    return "\n".join(reversed(texts)), False


def responses_events(request, text, answered_tool):
    """The SSE events of one response."""
    tools = {tool.get("name") for tool in request.get("tools", [])}
    stamp = time.monotonic_ns()
    response = {"id": f"resp_{stamp}", "object": "response", "status": "in_progress",
                "model": request.get("model", "stand-in"), "output": []}
    yield "response.created", {"type": "response.created", "response": response}
    yield "response.in_progress", {"type": "response.in_progress", "response": response}
    command = None if answered_tool else shell_command(text)
    if command and "exec_command" in tools:
        arguments = {"cmd": command, "sandbox_permissions": "require_escalated",
                     "justification": f"stand-in test wants to run: {command}"}
        item = {"type": "function_call", "id": f"fc_{stamp}", "call_id": f"call_{stamp}",
                "name": "exec_command", "arguments": json.dumps(arguments), "status": "completed"}
        yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                             "item": dict(item, arguments="", status="in_progress")}
    else:
        hold_if_asked(text)
        part = {"type": "output_text", "text": "STANDIN-REPLY: ok", "annotations": []}
        item = {"type": "message", "id": f"msg_{stamp}", "status": "completed", "role": "assistant",
                "content": [part]}
        ids = {"item_id": item["id"], "output_index": 0, "content_index": 0}
        yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                             "item": dict(item, status="in_progress", content=[])}
        yield "response.content_part.added", dict(ids, type="response.content_part.added",
                                                  part=dict(part, text=""))
        yield "response.output_text.delta", dict(ids, type="response.output_text.delta", delta=part["text"])
        yield "response.output_text.done", dict(ids, type="response.output_text.done", text=part["text"])
        yield "response.content_part.done", dict(ids, type="response.content_part.done", part=part)
    yield "response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}
    usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}
    done = dict(response, status="completed", output=[item], usage=usage)
    yield "response.completed", {"type": "response.completed", "response": done}


# The Gemini API (Gemini CLI).


def gemini_user_text(contents):
    """The text of the last user content, and whether it is a tool's
    response."""
    last = contents[-1] if contents else {}
    parts = last.get("parts", []) if last.get("role", "user") == "user" else []
    if any("functionResponse" in p for p in parts):
        return "", True
    return "\n".join(p.get("text", "") for p in parts if "text" in p), False


def from_schema(schema):
    """A value that fits a JSON schema (the model router's JSON answer)."""
    kind = (schema or {}).get("type", "object")
    kind = kind.lower() if isinstance(kind, str) else "object"
    if kind == "object":
        return {k: from_schema(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "stand-in"


def gemini_response(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}


def gemini_answer(request, text, answered_tool):
    config = request.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if config.get("responseMimeType") == "application/json":
        return gemini_response([{"text": json.dumps(from_schema(schema))}])
    tools = {f.get("name") for t in request.get("tools") or [] for f in t.get("functionDeclarations") or []}
    command = None if answered_tool else shell_command(text)
    if command and "run_shell_command" in tools:
        call = {"name": "run_shell_command", "args": {"command": command, "description": "Run the command"}}
        return gemini_response([{"functionCall": call}])
    hold_if_asked(text)
    return gemini_response([{"text": "STANDIN-REPLY: ok"}])


# The OpenAI Chat Completions API (Qwen Code, aider).

# The system prompts of the programs' own loops. Qwen Code's memory
# subagent offers tools too, and aider, which offers none, also asks for
# summaries and commit messages: their requests are side requests.
LOOP_PROMPTS = ("You are Qwen Code, an interactive CLI agent", "Act as an expert software developer")
# Qwen Code asks for the next prompt to suggest with its loop's own system
# prompt and tools, and this as the last user text.
SUGGESTION_PROMPT = "[SUGGESTION MODE:"
SUGGESTION = "STANDIN-SUGGESTION run the tests"
SHELL_TOOLS = ("run_shell_command", "shell", "bash", "Bash")


def chat_user_text(messages):
    """The text of the user messages since the model last spoke, without
    what the program adds to it (Qwen Code's <system-reminder> parts,
    aider's rules of its edit format after the text), and whether the last
    message is a tool's result."""
    if messages and messages[-1].get("role") == "tool":
        return "", True
    texts = []
    for message in reversed(messages):
        if message.get("role") != "user":
            break
        texts.append(user_text(message.get("content")))
    text = "\n".join(reversed(texts))
    text = re.sub(r"<system-reminder>.*?</system-reminder>\s*", "", text, flags=re.S)
    return text.split("\n\n# *SEARCH/REPLACE block* Rules:")[0].strip(), False


def chat_is_turn(messages, text):
    """Whether a request is a turn of the program's loop (see LOOP_PROMPTS)."""
    system = messages[0] if messages and messages[0].get("role") == "system" else {}
    own = user_text(system.get("content") or "").startswith(LOOP_PROMPTS)
    return own and not text.startswith(SUGGESTION_PROMPT)


def shell_arguments(tool, command):
    """The arguments of a call of `tool` running `command`: its schema's
    required ones, the command and a description."""
    schema = tool.get("parameters") or {}
    properties = schema.get("properties") or {}
    arguments = {name: from_schema(properties.get(name)) for name in schema.get("required") or []}
    arguments[next((n for n in ("command", "cmd") if n in properties), "command")] = command
    if "description" in properties:
        arguments["description"] = "Run the command"
    return arguments


def chat_answer(request, text, answered_tool, turn):
    """The answer's text and tool calls."""
    if not turn:
        return (SUGGESTION if text.startswith(SUGGESTION_PROMPT) else "STANDIN-REPLY: ok"), []
    command = None if answered_tool else shell_command(text)
    tools = [t.get("function") or {} for t in request.get("tools") or []]
    shell = next((t for t in tools if t.get("name") in SHELL_TOOLS), None)
    if command and shell:
        call = {"id": f"call_{time.monotonic_ns()}", "type": "function",
                "function": {"name": shell["name"], "arguments": json.dumps(shell_arguments(shell, command))}}
        return "", [call]
    hold_if_asked(text)
    if command:
        return f"STANDIN-REPLY: run this:\n\n```bash\n{command}\n```\n", []
    return "STANDIN-REPLY: ok", []


def chat_chunks(request, text, answered_tool, turn):
    """The SSE chunks of one answer: the role first, so that the program is
    in its working state while a HOLD waits."""
    stamp = time.monotonic_ns()
    head = {"id": f"chatcmpl-{stamp}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": request.get("model", "stand-in")}

    def chunk(delta, finish=None):
        return dict(head, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])

    yield chunk({"role": "assistant", "content": ""})
    content, calls = chat_answer(request, text, answered_tool, turn)
    if content:
        yield chunk({"content": content})
    if calls:
        yield chunk({"tool_calls": [dict(call, index=i) for i, call in enumerate(calls)]})
    yield chunk({}, "tool_calls" if calls else "stop")
    if (request.get("stream_options") or {}).get("include_usage"):
        yield dict(head, choices=[], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})


def chat_completion(request, text, answered_tool, turn):
    """The whole answer, for a request that does not stream."""
    content, calls = chat_answer(request, text, answered_tool, turn)
    message = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
    return {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion", "created": int(time.time()),
            "model": request.get("model", "stand-in"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


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
        if ":countTokens" in self.path:
            self.reply_json({"totalTokens": 1})
            return
        if self.path.split("?")[0].endswith("/responses"):
            text, answered_tool = responses_user_text(request.get("input") or [])
            self.note(text, bool(request.get("tools")))
            self.stream(responses_events(request, text, answered_tool))
            return
        if ":streamGenerateContent" in self.path or ":generateContent" in self.path:
            text, answered_tool = gemini_user_text(request.get("contents") or [])
            self.note(text, bool(request.get("tools")))
            if ":generateContent" in self.path:
                self.reply_json(gemini_answer(request, text, answered_tool))
                return
            self.stream_start()
            data = json.dumps(gemini_answer(request, text, answered_tool))
            self.wfile.write(f"data: {data}\r\n\r\n".encode())
            return
        if self.path.split("?")[0].endswith("/chat/completions"):
            messages = request.get("messages") or []
            text, answered_tool = chat_user_text(messages)
            turn = chat_is_turn(messages, text)
            self.note(text, turn)
            if not request.get("stream"):
                self.reply_json(chat_completion(request, text, answered_tool, turn))
                return
            self.stream_start()
            for data in chat_chunks(request, text, answered_tool, turn):
                self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            return
        self.note(latest_user_text(request.get("messages", [])), bool(request.get("tools")))
        blocks, stop_reason = answer(request)
        self.stream(events(request.get("model", "stand-in"), blocks, stop_reason))

    def note(self, last_user_text, turn):
        """Logs a request: its last user text, and whether it is a turn of
        the agent's loop (elsewhere: it offers tools) rather than a side
        request."""
        if REQUESTS:
            with open(REQUESTS, "a") as log:
                log.write(json.dumps({"last_user_text": last_user_text, "turn": turn}) + "\n")

    def stream_start(self):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()

    def stream(self, named_events):
        self.stream_start()
        for name, data in named_events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

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
