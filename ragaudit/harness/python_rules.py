"""The harness-check rules over Python, read through `ast` (and its comments, which `ast`
drops, through `tokenize`)."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from ragaudit.harness.findings import Finding, snippet_of
from ragaudit.harness.handling import Handling, promise_in
from ragaudit.harness.vocabulary import (
    CONTROL_FLOW_EXCEPTIONS,
    FAILURE_NAME,
    HTTP_ERROR_NAMES,
    HTTP_STATUS_ATTRS,
    LOG_FUNCTIONS,
    LOG_ROOTS,
    NETWORK_EXCEPTION,
    RETRY_NAME,
    SLEEP_NAME,
    counts_a_failure,
    is_retry_status,
)

LOG_METHODS = frozenset({"warning", "warn", "error", "exception", "critical", "info", "debug"})


@dataclass(frozen=True)
class Catch:
    """One `except` clause and the `try` it belongs to."""

    try_node: ast.Try
    handler: ast.ExceptHandler


def python_findings(file: str, text: str, tree: ast.Module) -> list[Finding]:
    """Every finding of every rule in one parsed Python file."""
    lines = text.splitlines()
    catches = [
        Catch(node, handler)
        for node in ast.walk(tree)
        if isinstance(node, ast.Try | ast.TryStar)
        for handler in node.handlers
    ]
    findings = [f for c in catches if (f := _catch_finding(file, lines, c)) is not None]
    findings += [_suppress_finding(file, lines, node) for node in _suppressing_withs(tree)]
    findings += _retry_findings(file, lines, tree)
    findings += _comment_findings(file, text, lines, catches)
    return findings


def exception_names(handler: ast.ExceptHandler) -> list[str]:
    """The exception types a clause catches, as written (`requests.HTTPError`); [] = bare."""
    if handler.type is None:
        return []
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return [ast.unparse(t) for t in types]


def handling(body: list[ast.stmt], error_name: str | None) -> Handling:
    """What a handler's body does with the failure."""
    logs = counts = marks = raises = False
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Raise):
            raises = True
        elif isinstance(node, ast.AugAssign):
            counts = True
        elif isinstance(node, ast.Call):
            is_log = _is_log_call(node.func)  # logger.error(...) logs; it counts nothing
            logs = logs or is_log
            counts = counts or (not is_log and _is_counting_call(node.func))
            marks = marks or any(FAILURE_NAME.search(k.arg or "") for k in node.keywords)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            marks = marks or any(FAILURE_NAME.search(ast.unparse(t)) for t in targets)
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            marks = marks or any(isinstance(k, str) and FAILURE_NAME.search(k) for k in keys)
        elif isinstance(node, ast.Name) and error_name and node.id == error_name:
            marks = True  # the error is passed on: into the result, a message, a list
    return Handling(logs=logs, counts=counts, marks=marks, raises=raises)


def _root_name(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _is_log_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in LOG_FUNCTIONS
    if isinstance(func, ast.Attribute):
        return _root_name(func) in LOG_ROOTS or func.attr in LOG_METHODS
    return False


def _is_counting_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return counts_a_failure(func.id, None)  # record_failure(...), mark_degraded()
    if isinstance(func, ast.Attribute):
        return counts_a_failure(func.attr, ast.unparse(func.value))
    return False


def _is_empty(body: list[ast.stmt]) -> bool:
    # `pass`, `...` or a lone string: nothing happens
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )


def _clause(handler: ast.ExceptHandler) -> str:
    if handler.type is None:
        return "a bare `except:`"
    return f"`except {ast.unparse(handler.type)}`"


def _catch_finding(file: str, lines: list[str], catch: Catch) -> Finding | None:
    handler = catch.handler
    body = handler.body
    snippet = snippet_of(lines, handler.lineno, handler.end_lineno or handler.lineno)
    if _is_empty(body):
        message = f"{_clause(handler)} does nothing: the failure is swallowed, uncounted"
        return Finding("empty-catch", file, handler.lineno, snippet, message)
    if all(isinstance(s, ast.Pass | ast.Continue | ast.Break) for s in body):
        message = (
            f"{_clause(handler)} only skips on: the failed item leaves the run uncounted "
            "(dropped from the denominator)"
        )
        return Finding("empty-catch", file, handler.lineno, snippet, message)
    names = exception_names(handler)
    if names and all(n.split(".")[-1] in CONTROL_FLOW_EXCEPTIONS for n in names):
        return None  # a missing key or an optional import, not a failed call
    if handling(body, handler.name).visible:
        return None
    fallback = _fallback(body)
    if fallback is None:
        return None
    message = (
        f"{_clause(handler)} {fallback} without counting or logging the failure: "
        "whoever reads the result cannot tell it from a real one"
    )
    return Finding("silent-fallback", file, handler.lineno, snippet, message)


def _fallback(body: list[ast.stmt]) -> str | None:
    """How the handler falls back (`returns []`, `sets docs = []`), or None if it does not."""
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Return):
            value = "None" if node.value is None else ast.unparse(node.value)
            return f"returns {_short(value)}"
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            return (
                f"falls back to `{_short(ast.unparse(target) + ' = ' + ast.unparse(node.value))}`"
            )
    return None


def _short(text: str, width: int = 50) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _suppressing_withs(tree: ast.Module) -> Iterator[ast.With | ast.AsyncWith]:
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and ast.unparse(call.func).split(".")[-1] == (
                    "suppress"
                ):
                    yield node
                    break


def _suppress_finding(file: str, lines: list[str], node: ast.With | ast.AsyncWith) -> Finding:
    message = "`suppress(...)` swallows the failure: nothing counts, logs or re-raises it"
    snippet = snippet_of(lines, node.lineno, node.lineno)
    return Finding("empty-catch", file, node.lineno, snippet, message)


def _retry_findings(file: str, lines: list[str], tree: ast.Module) -> list[Finding]:
    """Retry loops that retry on an HTTP status but catch no network exception: only the
    innermost such loop (an outer loop over the cases holds the retry loop too)."""
    flagged: list[tuple[ast.AST, int]] = []
    for function, loop in _loops(tree):
        status_line = _status_check_line(loop)
        if status_line is None or not _retries(loop, function) or _catches_network(loop):
            continue
        flagged.append((loop, status_line))
    inner = [
        (loop, line)
        for loop, line in flagged
        if not any(other is not loop and _contains(loop, other) for other, _ in flagged)
    ]
    findings = []
    for loop, status_line in inner:
        snippet = (
            snippet_of(lines, loop.lineno, loop.lineno) + "\n" + lines[status_line - 1].strip()
        )
        message = (
            f"retries on an HTTP status (line {status_line}) but catches no network exception: "
            "a connection reset or timeout ends the run, looking like broken retrieval"
        )
        findings.append(Finding("retry-http-only", file, loop.lineno, snippet, message))
    return findings


def _loops(tree: ast.Module) -> Iterator[tuple[ast.AST | None, ast.AST]]:
    """(enclosing function or None, loop) for every loop in the module."""

    def visit(node: ast.AST, function: ast.AST | None) -> Iterator:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from visit(child, child)
                continue
            if isinstance(child, ast.For | ast.AsyncFor | ast.While):
                yield function, child
            yield from visit(child, function)

    yield from visit(tree, None)


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _status_check_line(loop: ast.AST) -> int | None:
    """The line of the loop's first HTTP status check, or None when it has none."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Attribute) and node.attr in HTTP_STATUS_ATTRS:
            return node.lineno
        if isinstance(node, ast.Name | ast.Attribute) and HTTP_ERROR_NAMES.search(
            ast.unparse(node)
        ):
            return node.lineno
        if isinstance(node, ast.Compare) and any(
            isinstance(c, ast.Constant) and is_retry_status(c.value) for c in ast.walk(node)
        ):
            return node.lineno
    return None


def _retries(loop: ast.AST, function: ast.AST | None) -> bool:
    """A loop that tries again: it waits between tries, or it or its function is named so."""
    named = [getattr(function, "name", "")]
    if isinstance(loop, ast.For | ast.AsyncFor):
        named.append(ast.unparse(loop.target))
    if any(RETRY_NAME.search(name) for name in named):
        return True
    return any(
        isinstance(node, ast.Call) and SLEEP_NAME.match(ast.unparse(node.func).split(".")[-1])
        for node in ast.walk(loop)
    )


def _catches_network(loop: ast.AST) -> bool:
    """Whether an except clause inside the loop catches a network failure and goes on (one
    that re-raises unless the error had a retryable status covers HTTP only)."""
    for node in ast.walk(loop):
        if not isinstance(node, ast.ExceptHandler):
            continue
        names = exception_names(node)
        if names and not any(NETWORK_EXCEPTION.search(n.split(".")[-1]) for n in names):
            continue
        reraises = bool(node.body) and isinstance(node.body[-1], ast.Raise)
        if reraises and _status_check_line(ast.Module(body=node.body, type_ignores=[])):
            continue
        return True
    return False


def _comments(text: str) -> Iterator[tuple[int, str]]:
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.string
    except (tokenize.TokenError, SyntaxError):  # ast parsed it; tokenize's edge cases
        return


def _comment_findings(
    file: str, text: str, lines: list[str], catches: list[Catch]
) -> list[Finding]:
    """A comment promising to mark or count a failure, within two lines before a `try` to
    the end of its handler, where that handler neither marks nor counts (nor re-raises)."""
    findings = []
    for line, comment in _comments(text):
        verb = promise_in(comment)
        if verb is None:
            continue
        near = [
            c
            for c in catches
            if c.try_node.lineno - 2 <= line <= (c.handler.end_lineno or c.handler.lineno)
        ]
        unkept = [c for c in near if not handling(c.handler.body, c.handler.name).keeps]
        if not unkept:
            continue
        catch = min(unkept, key=lambda c: abs(c.handler.lineno - line))
        message = (
            f"for review: the comment promises to {verb} the failure; the catch at line "
            f"{catch.handler.lineno} neither marks nor counts it"
        )
        findings.append(Finding("unkept-comment", file, line, comment.strip(), message))
    return findings
