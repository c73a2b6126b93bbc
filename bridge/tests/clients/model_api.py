"""A scripted stand-in for the model APIs agent programs talk to: the
Anthropic Messages API (Claude Code, opencode), the OpenAI Responses API
(Codex CLI), the Gemini API (Gemini CLI) and the OpenAI Chat Completions
API (Qwen Code, aider), each streamed as SSE the way the real one does.
What a user turn holds decides the answer:
- SPAWN: one call of the Agent tool that starts a teammate named researcher;
- BASH <command>: one call of the request's shell tool running <command>
  (so the program asks permission first, unless it deems the command
  harmless: Claude Code, Gemini CLI and Qwen Code run `echo hi` unasked,
  Codex and opencode ask); to a program that offers no
  tools (aider), a text with the command in a fenced bash block, which it
  offers to run;
- TOOLTEXT <command>: like BASH, but the call follows a text
  "STANDIN-BEFORE-TOOL: running it." in the same assistant message, and
  the tool's result is answered "STANDIN-AFTER-TOOL: done.";
- HOLD <path>: the answer waits until <path> exists (a turn under way;
  to aider, HOLD and BASH together give the bash block after the wait);
  HOLDCALL <path> makes BASH's tool call wait so (a question that comes
  later in the turn);
- LONG: the text of fixtures/long-reply.md (read at each request), in
  about eight pieces: markdown, a 300-character line, a code block, wide
  characters and an emoji, for tests that compare what a program keeps of
  a reply byte for byte;
- SAY <word>: "STANDIN-SAID <word>", so that agents asked at once each
  get a reply of their own;
- anything else: a short text answer.
LONG and SAY apply to a turn of the agent's loop only, not to a side request (a
title, a suggestion, the model router's JSON). A tool's result gets a
short text answer; Qwen Code's request for a follow-up suggestion gets a
short suggestion.

Usage: model_api.py [requests.jsonl]: with a path, each request's last
user text is appended to it as a JSON line, with whether it is a turn of
the agent's loop rather than a side request (a title, a suggestion, a
summary); and once its answer's last byte went, a line
{"finished": <that text>, "turn": <the same>, "at": <Unix time>}. Prints the port it listens on (127.0.0.1), then serves until
killed."""

import http.server
import json
import os
import re
import sys
import time

REQUESTS = sys.argv[1] if len(sys.argv) > 1 else None

TEAMMATE = {"description": "say hello", "prompt": "say hello", "name": "researcher"}

LONG_REPLY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "long-reply.md")
BEFORE_TOOL = "STANDIN-BEFORE-TOOL: running it."
AFTER_TOOL = "STANDIN-AFTER-TOOL: done."


def long_reply():
    """fixtures/long-reply.md as it is now, so a test compares with the
    very bytes it was sent (no newline translation)."""
    with open(LONG_REPLY, encoding="utf-8", newline="") as f:
        return f.read()


def reply_text(text, turn, short):
    """The text answer to a user turn of the loop: the long reply if it
    asks for it (LONG), "STANDIN-SAID <word>" for SAY <word>; else `short`."""
    said = re.search(r"SAY (\S+)", text)
    if turn and "LONG" in text:
        return long_reply()
    if turn and said:
        return f"STANDIN-SAID {said.group(1)}"
    return short


def pieces(text, count=8):
    """`text` in about `count` pieces, cut between characters (never
    inside one's UTF-8 bytes); a short text stays whole, as it always was."""
    if len(text) < 200:
        return [text]
    size = -(-len(text) // count)
    return [text[i:i + size] for i in range(0, len(text), size)]


def after_tool(history, short):
    """The answer to a tool's result: AFTER_TOOL when the call came with
    BEFORE_TOOL's text (a TOOLTEXT turn), found in the last few entries of
    the history (the result, the call, the text if kept apart)."""
    return AFTER_TOOL if BEFORE_TOOL in json.dumps(history[-3:]) else short


def events(model, blocks, stop_reason):
    """The SSE events of one assistant message made of `blocks`, each a
    (content_block_start payload, delta payloads) pair."""
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
    for index, (start, deltas) in enumerate(blocks):
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
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


def text_block(text):
    start = {"type": "text", "text": ""}
    return start, [{"type": "text_delta", "text": piece} for piece in pieces(text)]


def tool_call(name, arguments, text=None):
    """A call of tool `name`, after a text block if `text`."""
    start = {"type": "tool_use", "id": f"toolu_stand_in_{time.monotonic_ns()}", "name": name, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
    return ([text_block(text)] if text else []) + [(start, [delta])], "tool_use"


def hold_if_asked(text, word="HOLD"):
    """HOLD <path> (or `word`): waits until <path> exists (two minutes at
    most)."""
    hold = re.search(word + r" (\S+)", text)
    if hold:
        deadline = time.monotonic() + 120
        while not os.path.exists(hold.group(1)) and time.monotonic() < deadline:
            time.sleep(0.05)


def shell_command(text):
    bash = re.search(r"(?:BASH|TOOLTEXT) (.+)", text)
    return bash.group(1).strip() if bash else None


def before_tool(text):
    """The text that comes with a shell call (TOOLTEXT), or None."""
    return BEFORE_TOOL if "TOOLTEXT" in text else None


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
            hold_if_asked(text, "HOLDCALL")
            return tool_call(name, {"command": command, "description": "Run the command"}, before_tool(text))
    hold_if_asked(text)
    if answered_tool and not text:
        return [text_block(after_tool(messages, "ok"))], "end_turn"
    # A title request offers no tools: only the loop's turns do.
    return [text_block(reply_text(text, bool(tools), "ok"))], "end_turn"


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


def message_item_events(stamp, index, text):
    """The events of a message item of `text` at output `index`, streamed
    in pieces (the done events carry the whole text); returns the item."""
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"type": "message", "id": f"msg_{stamp}_{index}", "status": "completed", "role": "assistant",
            "content": [part]}
    ids = {"item_id": item["id"], "output_index": index, "content_index": 0}
    yield "response.output_item.added", {"type": "response.output_item.added", "output_index": index,
                                         "item": dict(item, status="in_progress", content=[])}
    yield "response.content_part.added", dict(ids, type="response.content_part.added",
                                              part=dict(part, text=""))
    for piece in pieces(text):
        yield "response.output_text.delta", dict(ids, type="response.output_text.delta", delta=piece)
    yield "response.output_text.done", dict(ids, type="response.output_text.done", text=text)
    yield "response.content_part.done", dict(ids, type="response.content_part.done", part=part)
    yield "response.output_item.done", {"type": "response.output_item.done", "output_index": index,
                                        "item": item}
    return item


def function_call_events(stamp, index, command):
    """The events of a call of exec_command running `command`; returns the
    item."""
    arguments = {"cmd": command, "sandbox_permissions": "require_escalated",
                 "justification": f"stand-in test wants to run: {command}"}
    item = {"type": "function_call", "id": f"fc_{stamp}", "call_id": f"call_{stamp}",
            "name": "exec_command", "arguments": json.dumps(arguments), "status": "completed"}
    yield "response.output_item.added", {"type": "response.output_item.added", "output_index": index,
                                         "item": dict(item, arguments="", status="in_progress")}
    yield "response.output_item.done", {"type": "response.output_item.done", "output_index": index,
                                        "item": item}
    return item


def responses_events(request, text, answered_tool):
    """The SSE events of one response."""
    tools = {tool.get("name") for tool in request.get("tools", [])}
    stamp = time.monotonic_ns()
    response = {"id": f"resp_{stamp}", "object": "response", "status": "in_progress",
                "model": request.get("model", "stand-in"), "output": []}
    yield "response.created", {"type": "response.created", "response": response}
    yield "response.in_progress", {"type": "response.in_progress", "response": response}
    command = None if answered_tool else shell_command(text)
    output = []
    if command and "exec_command" in tools:
        hold_if_asked(text, "HOLDCALL")
        if before_tool(text):
            output.append((yield from message_item_events(stamp, 0, BEFORE_TOOL)))
        output.append((yield from function_call_events(stamp, len(output), command)))
    else:
        hold_if_asked(text)
        short = "STANDIN-REPLY: ok"
        if answered_tool:
            short = after_tool(request.get("input") or [], short)
        # The title request offers no tools: only the loop's turns do.
        output.append((yield from message_item_events(stamp, 0, reply_text(text, bool(tools), short))))
    usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}
    done = dict(response, status="completed", output=output, usage=usage)
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


def gemini_response(parts, last=True):
    """A GenerateContentResponse of `parts`; only the last chunk of a
    stream says why it ended."""
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if last:
        candidate["finishReason"] = "STOP"
    return {"candidates": [candidate],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}


def gemini_answer(request, text, answered_tool):
    """The parts of the answer."""
    config = request.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if config.get("responseMimeType") == "application/json":
        return [{"text": json.dumps(from_schema(schema))}]
    tools = {f.get("name") for t in request.get("tools") or [] for f in t.get("functionDeclarations") or []}
    command = None if answered_tool else shell_command(text)
    if command and "run_shell_command" in tools:
        hold_if_asked(text, "HOLDCALL")
        call = {"name": "run_shell_command", "args": {"command": command, "description": "Run the command"}}
        return ([{"text": BEFORE_TOOL}] if before_tool(text) else []) + [{"functionCall": call}]
    hold_if_asked(text)
    if answered_tool:
        return [{"text": after_tool(request.get("contents") or [], "STANDIN-REPLY: ok")}]
    return [{"text": reply_text(text, bool(tools), "STANDIN-REPLY: ok")}]


def gemini_chunks(parts):
    """The streamed answer: a chunk for each piece of a text part and for
    each call."""
    chunks = [[{"text": piece}] for part in parts if "text" in part for piece in pieces(part["text"])]
    chunks += [[part] for part in parts if "text" not in part]
    for index, chunk in enumerate(chunks):
        yield gemini_response(chunk, last=index == len(chunks) - 1)


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
        hold_if_asked(text, "HOLDCALL")
        call = {"id": f"call_{time.monotonic_ns()}", "type": "function",
                "function": {"name": shell["name"], "arguments": json.dumps(shell_arguments(shell, command))}}
        return before_tool(text) or "", [call]
    hold_if_asked(text)
    if command:
        return f"STANDIN-REPLY: run this:\n\n```bash\n{command}\n```\n", []
    if answered_tool:
        return after_tool(request.get("messages") or [], "STANDIN-REPLY: ok"), []
    return reply_text(text, turn, "STANDIN-REPLY: ok"), []


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
    for piece in pieces(content) if content else []:
        yield chunk({"content": piece})
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
        self.noted, self.noted_turn = None, False
        self.respond()
        # When the answer's last byte went: a bench's clock for what the
        # program does after it.
        if REQUESTS and self.noted is not None:
            with open(REQUESTS, "a") as log:
                finished = {"finished": self.noted, "turn": self.noted_turn, "at": time.time()}
                log.write(json.dumps(finished) + "\n")

    def respond(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.body = body
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
                self.reply_json(gemini_response(gemini_answer(request, text, answered_tool)))
                return
            self.stream_start()
            for chunk in gemini_chunks(gemini_answer(request, text, answered_tool)):
                self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
                self.wfile.flush()
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
        self.noted, self.noted_turn = last_user_text, turn
        # The words `REMEMBER-…` anywhere in the request: what it carries
        # of the conversation so far.
        carries = sorted(set(re.findall(r"REMEMBER-[A-Za-z0-9]+", self.body.decode("utf-8", "replace"))))
        if REQUESTS:
            with open(REQUESTS, "a") as log:
                log.write(json.dumps({"last_user_text": last_user_text, "turn": turn, "carries": carries}) + "\n")

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
