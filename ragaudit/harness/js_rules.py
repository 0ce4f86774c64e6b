"""The harness-check rules over JavaScript and TypeScript, read through tree-sitter: `catch`
clauses, promise `.catch(...)` handlers, retry loops and comments."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from ragaudit.codescan.sources import line_of, node_text
from ragaudit.harness.findings import Finding, snippet_of
from ragaudit.harness.handling import Handling, promise_in
from ragaudit.harness.vocabulary import (
    FAILURE_NAME,
    HTTP_ERROR_NAMES,
    HTTP_STATUS_ATTRS,
    LOG_FUNCTIONS,
    LOG_ROOTS,
    RETRY_NAME,
    SLEEP_NAME,
    counts_a_failure,
    is_retry_status,
)

Node = tree_sitter.Node
LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
FUNCTIONS = frozenset({
    "function_declaration", "generator_function_declaration", "method_definition",
    "function_expression", "arrow_function", "function",
})  # fmt: skip


@dataclass(frozen=True)
class JsCatch:
    """A `catch (e) {...}` clause, or the function handed to a promise's `.catch(...)`."""

    node: Node
    """The catch clause, or the `.catch(...)` call."""
    body: Node
    """The handler's body: a statement block, or an arrow function's expression."""
    error_name: str | None
    """The caught error's parameter name, if it has one."""
    line: int
    """Where the finding points: the `catch` keyword, or the handler passed to `.catch`."""
    region_start: int
    """The first line of the `try` (or of the `.catch` call): comments from two lines
    above it to the end of the handler are about this catch."""


def js_findings(file: str, text: str, tree: tree_sitter.Tree) -> list[Finding]:
    """Every finding of every rule in one parsed JavaScript or TypeScript file."""
    lines = text.splitlines()
    nodes = list(_walk(tree.root_node))
    catches = [c for node in nodes if (c := _as_catch(node, text)) is not None]
    findings = [f for c in catches if (f := _catch_finding(file, text, lines, c)) is not None]
    findings += _retry_findings(file, text, lines, nodes)
    findings += _comment_findings(file, text, nodes, catches)
    return findings


def _walk(node: Node) -> Iterator[Node]:
    """Every node under `node`, itself first, in source order; a stack, not recursion, so
    a file nested 100,000 deep is still read."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _as_catch(node: Node, text: str) -> JsCatch | None:
    if node.type == "catch_clause":
        param = node.child_by_field_name("parameter")
        name = node_text(param, text) if param is not None and param.type == "identifier" else None
        start = node.parent if node.parent is not None else node
        body = node.child_by_field_name("body")
        return JsCatch(node, body, name, line_of(node), line_of(start))
    if node.type != "call_expression":
        return None
    function, arguments = (
        node.child_by_field_name("function"),
        node.child_by_field_name("arguments"),
    )
    if function is None or function.type != "member_expression" or arguments is None:
        return None
    prop = function.child_by_field_name("property")
    handlers = [
        a for a in arguments.named_children if a.type in ("arrow_function", "function_expression")
    ]
    if prop is None or node_text(prop, text) != "catch" or not handlers:
        return None
    handler = handlers[0]
    params = handler.child_by_field_name("parameters") or handler.child_by_field_name("parameter")
    names = [p for p in _walk(params) if p.type == "identifier"] if params is not None else []
    name = node_text(names[0], text) if names else None
    return JsCatch(node, handler.child_by_field_name("body"), name, line_of(handler), line_of(node))


def handling(body: Node, text: str, error_name: str | None) -> Handling:
    """What a handler's body does with the failure."""
    logs = counts = marks = raises = False
    for node in _walk(body):
        kind = node.type
        if kind == "throw_statement":
            raises = True
        elif kind in ("update_expression", "augmented_assignment_expression"):
            counts = True
        elif kind == "call_expression":
            function = node.child_by_field_name("function")
            is_log = _is_log_call(function, text)
            logs = logs or is_log
            counts = counts or (not is_log and _is_counting_call(function, text))
        elif kind == "assignment_expression":
            left = node.child_by_field_name("left")
            marks = marks or bool(left and FAILURE_NAME.search(node_text(left, text)))
        elif kind == "pair":
            key = node.child_by_field_name("key")
            marks = marks or bool(key and FAILURE_NAME.search(node_text(key, text)))
        elif kind == "shorthand_property_identifier":
            marks = marks or bool(FAILURE_NAME.search(node_text(node, text)))
        elif kind == "identifier" and error_name and node_text(node, text) == error_name:
            marks = True  # the error is passed on: into the result, a message, a list
    return Handling(logs=logs, counts=counts, marks=marks, raises=raises)


def _root(node: Node) -> Node:
    while node.type in ("member_expression", "call_expression", "subscript_expression"):
        inner = node.child_by_field_name("object") or node.child_by_field_name("function")
        if inner is None:
            break
        node = inner
    return node


def _is_log_call(function: Node | None, text: str) -> bool:
    if function is None:
        return False
    if function.type == "identifier":
        return node_text(function, text) in LOG_FUNCTIONS
    return function.type == "member_expression" and node_text(_root(function), text) in LOG_ROOTS


def _is_counting_call(function: Node | None, text: str) -> bool:
    if function is None:
        return False
    if function.type == "identifier":
        return counts_a_failure(node_text(function, text), None)  # recordFailure(...)
    if function.type != "member_expression":
        return False
    prop, obj = function.child_by_field_name("property"), function.child_by_field_name("object")
    name = node_text(prop, text) if prop is not None else ""
    return counts_a_failure(name, node_text(obj, text) if obj is not None else None)


def _statements(body: Node) -> list[Node]:
    return [c for c in body.named_children if c.type != "comment"]


def _what(catch: JsCatch) -> str:
    return "`.catch(...)` handler" if catch.node.type == "call_expression" else "`catch` block"


def _catch_finding(file: str, text: str, lines: list[str], catch: JsCatch) -> Finding | None:
    body, line = catch.body, catch.line
    if body is None:
        return None
    snippet = snippet_of(lines, line, body.end_point[0] + 1)
    if body.type == "statement_block":
        statements = _statements(body)
        if not statements:
            message = f"empty {_what(catch)}: the failure is swallowed, uncounted"
            return Finding("empty-catch", file, line, snippet, message)
        if all(
            s.type in ("continue_statement", "break_statement", "empty_statement")
            for s in statements
        ):
            message = (
                f"the {_what(catch)} only skips on: the failed item leaves the run uncounted "
                "(dropped from the denominator)"
            )
            return Finding("empty-catch", file, line, snippet, message)
    if handling(body, text, catch.error_name).visible:
        return None
    fallback = _fallback(body, text)
    if fallback is None:
        return None
    message = (
        f"the {_what(catch)} {fallback} without counting or logging the failure: whoever "
        "reads the result cannot tell it from a real one"
    )
    return Finding("silent-fallback", file, line, snippet, message)


def _fallback(body: Node, text: str) -> str | None:
    """How the handler falls back (`returns []`, `sets docs = []`), or None if it does not."""
    if body.type != "statement_block":  # an arrow function's expression is what it returns
        return f"returns {_short(node_text(body, text))}"
    for node in _walk(body):
        if node.type == "return_statement":
            value = [c for c in node.named_children if c.type != "comment"]
            return f"returns {_short(node_text(value[0], text)) if value else 'undefined'}"
        if node.type in ("assignment_expression", "variable_declarator"):
            return f"falls back to `{_short(node_text(node, text))}`"
    return None


def _short(source: str, width: int = 50) -> str:
    source = " ".join(source.split())
    return source if len(source) <= width else source[: width - 1] + "…"


def _retry_findings(file: str, text: str, lines: list[str], nodes: list[Node]) -> list[Finding]:
    """Retry loops that retry on an HTTP status but catch no network error (a `fetch` that
    throws on a reset connection): only the innermost such loop."""
    flagged = []
    for loop in (n for n in nodes if n.type in LOOPS):
        status_line = _status_check_line(loop, text)
        if status_line is None or not _retries(loop, text) or _catches_network(loop, text):
            continue
        flagged.append((loop, status_line))
    findings = []
    for loop, status_line in flagged:
        if any(other != loop and _inside(other, loop) for other, _ in flagged):
            continue
        line = line_of(loop)
        snippet = snippet_of(lines, line, line) + "\n" + lines[status_line - 1].strip()
        message = (
            f"retries on an HTTP status (line {status_line}) but catches no network error: "
            "a connection reset or timeout ends the run, looking like broken retrieval"
        )
        findings.append(Finding("retry-http-only", file, line, snippet, message))
    return findings


def _inside(inner: Node, outer: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _status_check_line(scope: Node, text: str) -> int | None:
    for node in _walk(scope):
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            if prop is not None and node_text(prop, text) in HTTP_STATUS_ATTRS:
                return line_of(node)
        elif node.type == "identifier" and HTTP_ERROR_NAMES.search(node_text(node, text)):
            return line_of(node)
        elif node.type == "binary_expression" and any(
            n.type == "number" and _number(node_text(n, text)) for n in _walk(node)
        ):
            return line_of(node)
    return None


def _number(source: str) -> bool:
    try:
        return is_retry_status(int(source))
    except ValueError:
        return False


def _retries(loop: Node, text: str) -> bool:
    """A loop that tries again: it waits between tries, or it or its function is named so."""
    body = loop.child_by_field_name("body")
    header = text.encode("utf-8")[loop.start_byte : body.start_byte if body else loop.end_byte]
    named = [header.decode("utf-8", "replace"), _function_name(loop, text)]
    if any(RETRY_NAME.search(name) for name in named):
        return True
    for node in _walk(loop):
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            name = (
                function.child_by_field_name("property")
                if function.type == "member_expression"
                else function
            )
            if name is not None and SLEEP_NAME.match(node_text(name, text)):
                return True
    return False


def _function_name(node: Node, text: str) -> str:
    while node.parent is not None and node.type not in FUNCTIONS:
        node = node.parent
    named = node.child_by_field_name("name")
    if named is None and node.parent is not None and node.parent.type == "variable_declarator":
        named = node.parent.child_by_field_name("name")
    return node_text(named, text) if named is not None else ""


def _catches_network(loop: Node, text: str) -> bool:
    """JavaScript catches every error, so a catch inside the loop covers a network failure,
    unless it re-throws whatever had no retryable status (HTTP only)."""
    for node in _walk(loop):
        catch = _as_catch(node, text)
        if catch is None or catch.body is None:
            continue
        statements = _statements(catch.body) if catch.body.type == "statement_block" else []
        rethrows = bool(statements) and statements[-1].type == "throw_statement"
        if rethrows and _status_check_line(catch.body, text) is not None:
            continue
        return True
    return False


def _comment_findings(
    file: str, text: str, nodes: list[Node], catches: list[JsCatch]
) -> list[Finding]:
    """A comment promising to mark or count a failure, from two lines above a `try` to the
    end of its catch, where that catch neither marks nor counts it (nor re-throws)."""
    findings = []
    for comment in (n for n in nodes if n.type == "comment"):
        source, line = node_text(comment, text), line_of(comment)
        verb = promise_in(source)
        if verb is None:
            continue
        near = [
            c for c in catches
            if c.body is not None and c.region_start - 2 <= line <= c.body.end_point[0] + 1
        ]  # fmt: skip
        unkept = [c for c in near if not handling(c.body, text, c.error_name).keeps]
        if not unkept:
            continue
        catch = min(unkept, key=lambda c: abs(c.line - line))
        message = (
            f"for review: the comment promises to {verb} the failure; the catch at line "
            f"{catch.line} neither marks nor counts it"
        )
        findings.append(Finding("unkept-comment", file, line, _short(source, 120), message))
    return findings
