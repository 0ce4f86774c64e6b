"""A stand-in generator for `ragaudit cases` tests: speaks Ollama's HTTP API on 127.0.0.1
(tests/helpers/stand_in.py's server) and answers the three prompts of ragaudit.casemining by
fixed rules, so which fact is kept or dropped, and why, is decided by the fact's own text:

- a phrasing request: "What default does the manual give for <anchor>?" and "how is
  <anchor> set by default" (in German for a German request; every fact of the fixtures is
  a default); an anchor holding LEAK gets its answer written into the questions, one holding
  TWIN two identical questions, one holding MUTE a reply with one line;
- a rewrite of a casual phrasing (asked when a reply's two are one question): the same
  question again for TWIN, else "quick " and the precise question in lower case;
- an oracle question: the context paragraph itself (it states the answer), unless the
  paragraph holds BLIND (then "I do not know");
- a closed-book question: "5432" (so a fact whose answer is 5432 is known without context).
A request holding FAILME is answered HTTP 500 every time (a failed call).

Run as `python tests/helpers/cases_stand_in.py`; `start_cases_stand_in` runs it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.helpers.stand_in import StandInHandler, StandInProcess  # noqa: E402


def cases_reply(messages: list[dict]) -> str:
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    if user.startswith("Rewrite this question"):
        question = user.rsplit("Question: ", 1)[1]
        return question if "TWIN" in question else f"quick {question.lower()}"
    if system.startswith("You write the questions"):
        anchor = re.search(r'The statement gives "(.*)" for (.*)\.\n', user)
        answer, subject = anchor.group(1), anchor.group(2)
        if "MUTE" in subject:
            return "Only one line here?"
        if "TWIN" in subject:
            return f"What is the default of {subject}?\nWhat is the default of {subject}?"
        if "LEAK" in subject:
            return f"Is {subject} set to {answer}?\nis {subject} {answer} by default?"
        if "in German" in user:
            return (f"Welchen Standardwert hat {subject} laut Handbuch?\n"
                    f"wie ist {subject} standardmäßig eingestellt")  # fmt: skip
        return f"What default does the manual give for {subject}?\nhow is {subject} set by default"
    if system.startswith("Answer the question from the context"):
        context = user.split("Question:")[0]
        return "I do not know." if "BLIND" in context else context.strip()
    return "5432"


class CasesHandler(StandInHandler):
    def _answer(self, raw: bytes) -> None:
        if self.path != "/api/chat":
            return super()._answer(raw)
        if b"FAILME" in raw:
            return self._reply(500, {"error": "stand-in failure for a marked input"})
        body = json.loads(raw)
        message = {"role": "assistant", "content": cases_reply(body["messages"])}
        self._reply(200, {"model": body.get("model", ""), "message": message, "done": True,
                          "done_reason": "stop"})  # fmt: skip


def start_cases_stand_in() -> StandInProcess:
    process = subprocess.Popen([sys.executable, str(Path(__file__).resolve())],
                               stdout=subprocess.PIPE, text=True)  # fmt: skip
    line = process.stdout.readline().strip()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"the cases stand-in did not start: {line!r}")
    return StandInProcess(process, f"http://127.0.0.1:{int(line.split()[1])}")


if __name__ == "__main__":
    CasesHandler.slots = threading.BoundedSemaphore(4)
    server = ThreadingHTTPServer(("127.0.0.1", 0), CasesHandler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()
