"""The gate's verdict as one pull-request comment, for the composite action (action.yml).

`python pr_comment.py SUMMARY.md` posts the Markdown summary `ragaudit gate --summary`
wrote as a comment on the pull request the workflow runs for, or updates the comment an
earlier run posted (found by MARKER, its first line). It speaks GitHub's REST API
(`GITHUB_API_URL`, so a test points it at a local stand-in) with the token in
`RAGAUDIT_GITHUB_TOKEN`, which it never prints or writes.

Where the token cannot comment (a fork's pull request under `pull_request`, a 403 or 404
without `pull-requests: write`, or GitHub not answering), it says so in one line, in the log
and in the job summary ($GITHUB_STEP_SUMMARY, which already holds the verdict), and exits
0: whether the job fails is the gate's to say, not the comment's. Standard library only:
it runs under whatever Python the job has."""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

MARKER = "<!-- ragaudit-gate -->"
"""The first line of the action's comment: how the next run finds it to update it."""
TOKEN_ENV = "RAGAUDIT_GITHUB_TOKEN"
BODY_LIMIT = 65_000
"""GitHub refuses a comment body over 65,536 characters; the full summary is on the run."""
TRUNCATED = "\n\n… (cut to fit a comment: the whole summary is on the workflow run's page)\n"
NEXT_PAGE = re.compile(r'<([^>]+)>;\s*rel="next"')


class CannotComment(Exception):
    """Why the comment was not written, in words safe to print (never the token); `status`
    is the HTTP status, 0 when GitHub did not answer."""

    def __init__(self, why: str, status: int = 0) -> None:
        super().__init__(why)
        self.status = status


@dataclass(frozen=True)
class PullRequest:
    """The pull request a workflow runs for, as its event payload names it."""

    repository: str
    """`owner/name` of the base repository, where the comment goes."""
    number: int
    head_repository: str | None
    """`owner/name` the head branch lives in; None when that fork was deleted."""

    @property
    def from_fork(self) -> bool:
        return self.head_repository != self.repository


def pull_request(event_path: str | None, repository: str) -> PullRequest | None:
    """The pull request of the event payload at `event_path`; None for any other event."""
    if not event_path or not Path(event_path).is_file():
        return None
    event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    pr = event.get("pull_request")
    if not isinstance(pr, dict) or "number" not in pr:
        return None
    base = ((pr.get("base") or {}).get("repo") or {}).get("full_name") or repository
    head = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
    return PullRequest(base, int(pr["number"]), head)


def comment_body(summary: str) -> str:
    """The comment: MARKER, then the gate's Markdown summary, cut to fit when too long."""
    body = f"{MARKER}\n{summary.strip()}\n"
    if len(body) <= BODY_LIMIT:
        return body
    cut = body[: BODY_LIMIT - len(TRUNCATED)]
    return cut[: cut.rfind("\n")] + TRUNCATED


class GitHub:
    """The three REST calls a comment takes, authenticated by a token it keeps to itself."""

    def __init__(self, api_url: str, token: str) -> None:
        self.api_url = api_url.rstrip("/")
        self._token = token

    def call(self, method: str, url: str, payload: dict | None = None) -> tuple[object, str]:
        """The JSON answer and the next page's URL ('' when none); CannotComment on an HTTP
        error or no answer, naming the status and GitHub's message."""
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self._token}")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", "ragaudit-gate-action")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                links = answer.headers.get("Link") or ""
                found = NEXT_PAGE.search(links)
                return json.loads(answer.read() or b"null"), found.group(1) if found else ""
        except urllib.error.HTTPError as error:
            why = f"{method} answered HTTP {error.code}{_message(error)}"
            raise CannotComment(why, error.code) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", None) or type(error).__name__
            raise CannotComment(f"{method} got no answer from {self.api_url} ({reason})") from None

    def find_comment(self, pr: PullRequest) -> int | None:
        """The id of the comment an earlier run posted (its body opens with MARKER)."""
        url = f"{self.api_url}/repos/{pr.repository}/issues/{pr.number}/comments?per_page=100"
        while url:
            comments, url = self.call("GET", url)
            for comment in comments or []:
                if str(comment.get("body") or "").startswith(MARKER):
                    return int(comment["id"])
        return None

    def post_or_update(self, pr: PullRequest, body: str) -> tuple[str, str]:
        """Update the earlier comment, else post one: ("updated" | "posted", its URL)."""
        found = self.find_comment(pr)
        if found is None:
            url = f"{self.api_url}/repos/{pr.repository}/issues/{pr.number}/comments"
            comment, _ = self.call("POST", url, {"body": body})
            return "posted", str(comment.get("html_url") or "")
        url = f"{self.api_url}/repos/{pr.repository}/issues/comments/{found}"
        comment, _ = self.call("PATCH", url, {"body": body})
        return "updated", str(comment.get("html_url") or "")


def _message(error: urllib.error.HTTPError) -> str:
    """GitHub's `message` from an error answer, when it sent one."""
    try:
        message = json.loads(error.read() or b"{}").get("message")
    except (ValueError, AttributeError, OSError):
        return ""
    return f" ({message})" if isinstance(message, str) and message else ""


def fall_back(line: str) -> None:
    """Say in one line, in the log and in the job summary, why there is no comment."""
    print(line)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(f"\n{line}\n")


def write_output(name: str, value: str) -> None:
    """A step output, for action.yml's `outputs`."""
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{name}={value}\n")


def main(argv: list[str]) -> int:
    """Comment the summary at argv[0] on this run's pull request, or say why not."""
    summary = Path(argv[0]).read_text(encoding="utf-8")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    pr = pull_request(os.environ.get("GITHUB_EVENT_PATH"), repository)
    event = os.environ.get("GITHUB_EVENT_NAME", "this event")
    if pr is None:
        print(f"ragaudit gate: no pull request in {event}: the verdict is in the job summary only")
        return 0
    # under pull_request a fork's token is read-only; pull_request_target's is the base's
    if pr.from_fork and event == "pull_request":
        fork = pr.head_repository or "a deleted fork"
        fall_back(
            f"ragaudit gate: pull request #{pr.number} comes from {fork}, whose token cannot "
            "comment: the verdict is in the job summary, not in a comment."
        )
        return 0
    github = GitHub(os.environ.get("GITHUB_API_URL") or "https://api.github.com", _token())
    try:
        done, url = github.post_or_update(pr, comment_body(summary))
    except CannotComment as why:
        # 401/403/404: the token may not write to the pull request
        denied = "; the job needs `permissions: pull-requests: write`"
        hint = denied if why.status in (401, 403, 404) else ""
        fall_back(
            f"ragaudit gate: could not comment on pull request #{pr.number} ({why}{hint}): "
            "the verdict is in the job summary, not in a comment."
        )
        return 0
    print(f"ragaudit gate: {done} the comment on pull request #{pr.number}: {url}")
    write_output("comment-url", url)
    return 0


def _token() -> str:
    return os.environ.get(TOKEN_ENV, "")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
