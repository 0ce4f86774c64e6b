"""A scripted judge: an OpenAI-compatible /v1/chat/completions server on 127.0.0.1 that
answers RAGAS's and DeepEval's prompts by a rule a test can apply by hand; with `--slots 4
--delay S` it is the 4-slot stand-in of the judges benchmark (benchmarks/judges.py) and the
test double of tests/test_judges_*.py.

Run as `python tests/helpers/judge_stand_in.py [--mode M] [--slots N] [--delay S]`; it
prints `PORT <n>` first. `GET /__stats` gives the calls answered and the peak in flight.

The rule (mode `good`; DeepEval's truths are the whole context): a statement, claim or
reference is supported when its text (lower case, spaces collapsed, a final full stop
dropped) occurs in the context. An
answer of NOT_IN_CONTEXT (an abstention) yields no statements and no claims. So:
- RAGAS faithfulness: the answer is one statement; 1.0 when supported, 0.0 when not,
  NaN for an abstention (no statements);
- RAGAS context recall: the reference is one statement; 1.0 or 0.0;
- DeepEval faithfulness: the answer is one claim; 1.0 ("yes") or 0.0 ("no"), and 1.0 for
  an abstention (DeepEval scores no claims as 1);
- DeepEval contextual recall: one verdict on the reference; 1.0 or 0.0.
Every reply reports usage: 100 prompt tokens and 10 completion tokens.

Other modes: `junk` answers every call with text that is not JSON (parse failures);
`http500` answers HTTP 500; `nocontent` answers 200 with a choice lacking content;
`hang` never answers within any test's deadline (sleeps 3600 s).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PROMPT_TOKENS, COMPLETION_TOKENS = 100, 10
ABSTAIN = "NOT_IN_CONTEXT"


def normal(text: str) -> str:
    return " ".join(str(text).lower().split()).rstrip(".")


def supported(statement: str, context: str) -> bool:
    return normal(statement) in normal(context)


def _between(text: str, start: str, end: str) -> str:
    head = text.split(start, 1)[1] if start and start in text else text if not start else ""
    return head.split(end, 1)[0].strip() if end in head else head.strip()


def _parsed(parse, text: str):
    try:
        return parse(text)
    except (ValueError, SyntaxError) as error:
        return error  # not this notation: the caller tries the next one


def _as_list(text: str) -> list:
    for parse in (json.loads, ast.literal_eval):
        value = _parsed(parse, text)
        if not isinstance(value, Exception):
            return value if isinstance(value, list) else [value]
    return [text]


def answer(prompt: str) -> dict:
    """The JSON a correct judge following the rule gives for one prompt."""
    try:
        return _answer(prompt)
    except (ValueError, KeyError, IndexError) as error:
        return {"unreadable_prompt": str(error)}


def _answer(prompt: str) -> dict:
    if "Now perform the same with the following input" in prompt:
        data = json.loads(_between(prompt.rsplit("input: ", 1)[1], "", "\nOutput:"))
        keys = set(data)
        if keys == {"question", "answer"}:
            text = data["answer"].strip()
            return {"statements": [] if text == ABSTAIN or not text else [text]}
        if keys == {"context", "statements"}:
            return {
                "statements": [
                    {
                        "statement": s,
                        "reason": "scripted",
                        "verdict": int(supported(s, data["context"])),
                    }
                    for s in data["statements"]
                ]
            }
        if keys == {"question", "context", "answer"}:
            return {
                "classifications": [
                    {
                        "statement": data["answer"],
                        "reason": "scripted",
                        "attributed": int(supported(data["answer"], data["context"])),
                    }
                ]
            }
    if 'with the "truths" key' in prompt:
        # the whole context is one truth: DeepEval checks claims against truths only
        contexts = _as_list(_between(prompt.rsplit("Text:\n", 1)[-1], "", "\n\nJSON:"))
        return {"truths": ["\n".join(str(c) for c in contexts)]}
    if 'with the "claims" key' in prompt:
        output = _between(prompt, "AI Output:\n", "\n\nJSON:")
        return {"claims": [] if output == ABSTAIN or not output else [output]}
    if "Claims:\n" in prompt and "Retrieval Contexts:\n" in prompt:
        context = _between(prompt, "Retrieval Contexts:\n", "\n\nClaims:")
        claims = _as_list(_between(prompt, "Claims:\n", "\n\nJSON:"))
        verdicts = ["yes" if supported(c, context) else "no" for c in claims]
        return {"verdicts": [{"verdict": v, "reason": "scripted"} for v in verdicts]}
    if "Expected Output:\n" in prompt and "Retrieval Context:\n" in prompt and "verdicts" in prompt:
        expected = _between(prompt, "Expected Output:\n", "\n\nRetrieval Context:")
        context = _between(prompt, "Retrieval Context:\n", "\n\nJSON:")
        verdict = "yes" if supported(expected, context) else "no"
        return {"verdicts": [{"verdict": verdict, "reason": "scripted"}]}
    if "'reason' key" in prompt:
        return {"reason": "The score is scripted."}
    return {"unknown_prompt": prompt[:80]}


class _Load:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = self.peak = self.calls = 0


class JudgeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    mode = "good"
    delay = 0.0
    slots = threading.BoundedSemaphore(1)
    load = _Load()
    log: str | None = None

    def log_message(self, *args) -> None:
        pass

    def _reply(self, status: int, body: dict | str) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/__stats":
            with self.load.lock:
                return self._reply(
                    200, {"calls": self.load.calls, "peak_in_flight": self.load.peak}
                )
        if self.path == "/v1/models":
            return self._reply(200, {"data": [{"id": "scripted-judge", "digest": "scripted-1"}]})
        self._reply(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/v1/chat/completions":
            return self._reply(404, {"error": {"message": f"no route {self.path}"}})
        with self.load.lock:
            self.load.calls += 1
            self.load.in_flight += 1
            self.load.peak = max(self.load.peak, self.load.in_flight)
        try:
            with self.slots:
                time.sleep(3600 if self.mode == "hang" else self.delay)
                self._answer(json.loads(raw))
        finally:
            with self.load.lock:
                self.load.in_flight -= 1

    def _answer(self, body: dict) -> None:
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        if self.log:
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(json.dumps({"prompt": prompt}) + "\n")
        if self.mode == "http500":
            return self._reply(500, {"error": {"message": "scripted server error"}})
        if self.mode == "nocontent":
            return self._reply(200, {"choices": [{"message": {"role": "assistant"}}]})
        content = "this is not JSON at all" if self.mode == "junk" else json.dumps(answer(prompt))
        self._reply(
            200,
            {
                "id": "scripted",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "scripted-judge"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": PROMPT_TOKENS,
                    "completion_tokens": COMPLETION_TOKENS,
                    "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
                },
            },
        )


@dataclass
class JudgeProcess:
    process: subprocess.Popen
    base_url: str

    def stats(self) -> dict:
        from helpers.control import get_json

        return get_json(self.base_url.removesuffix("/v1") + "/__stats")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_judge_server(mode: str = "good", slots: int = 4, delay: float = 0.0) -> JudgeProcess:
    """The scripted judge as a subprocess; its base URL ends in /v1."""
    command = [sys.executable, str(Path(__file__).resolve()), "--mode", mode]
    command += ["--slots", str(slots), "--delay", str(delay)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"the scripted judge did not start: {line!r}")
    return JudgeProcess(process, f"http://127.0.0.1:{int(line.split()[1])}/v1")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode", default="good", choices=("good", "junk", "http500", "nocontent", "hang")
    )
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--log", default=None, help="append each prompt to this file")
    args = parser.parse_args(argv)
    JudgeHandler.mode, JudgeHandler.delay, JudgeHandler.log = args.mode, args.delay, args.log
    JudgeHandler.slots = threading.BoundedSemaphore(args.slots)
    server = ThreadingHTTPServer(("127.0.0.1", 0), JudgeHandler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
