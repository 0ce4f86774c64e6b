"""Retrieval constants in Python source, read with `ast`: assignments (`TOP_K = 8`,
`self.top_k = 8`, annotated ones), keyword arguments (`retrieve(q, k=12)`), function
defaults, dict entries with string keys (`{"top_k": 8}`) and `[:N]` truncations. A value
is computed from literals and constants assigned earlier in the file (`TOP_K * 6`)."""

from __future__ import annotations

import ast

from ragaudit.codescan.sources import Location
from ragaudit.drift.found import UNRESOLVED, Found, Unresolved, Value, arithmetic, extreme, number
from ragaudit.drift.patterns import truncation_key

OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//"}
ENV_LOOKUPS = {"os.environ.get", "os.getenv", "environ.get", "getenv"}


class _Reader(ast.NodeVisitor):
    """Walks the module in source order, so a constant is known before it is used."""

    def __init__(self, path: str, text: str, name_of) -> None:
        self.path, self.text, self.name_of = path, text, name_of
        self.known: dict[str, Value] = {}
        self.found: list[Found] = []

    def value(self, node: ast.expr) -> Value | Unresolved:
        """The node's value from literals and constants already assigned."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return UNRESOLVED
            if node.value is None or isinstance(node.value, int | float | str):
                return number(str(node.value))
            return UNRESOLVED
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.value(node.operand)
            return -inner if isinstance(inner, int | float) else UNRESOLVED
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            left, right = self.value(node.left), self.value(node.right)
            return arithmetic(OPERATORS[type(node.op)], left, right)
        if isinstance(node, ast.Name | ast.Attribute):
            return self.known.get(ast.unparse(node), UNRESOLVED)
        if isinstance(node, ast.Call):
            return self.call_value(node)
        return UNRESOLVED

    def call_value(self, node: ast.Call) -> Value | Unresolved:
        function = ast.unparse(node.func)
        if function in ENV_LOOKUPS and len(node.args) == 2:
            return self.value(node.args[1])  # the default a deployment does not override
        if function in ("int", "float") and len(node.args) == 1:
            return self.value(node.args[0])
        if function in ("min", "max"):
            return extreme(function, [self.value(arg) for arg in node.args])
        if function == "math.inf":
            return None
        return UNRESOLVED

    def record(self, name: str, node: ast.expr, line: int, shown: str | None = None) -> None:
        """Record `name = node` when the name is a retrieval constant and the value known."""
        if isinstance(node, ast.Subscript) and self.truncation(node, name):
            return
        value = self.value(node)
        if isinstance(value, Unresolved):
            return
        self.known[name] = value
        constant = self.name_of(shown or name)
        if constant is not None:
            literal = isinstance(node, ast.Constant)
            expression = None if literal else ast.unparse(node)
            where = Location(self.path, line)
            self.found.append(Found(constant, shown or name, value, where, expression))

    def truncation(self, node: ast.Subscript, target: str | None) -> bool:
        """A `[:N]` (or `[0:N]`) slice: recorded under the target's constant when the
        target names one, else under the sliced list's own name. True when recorded."""
        part = node.slice
        if not isinstance(part, ast.Slice) or part.upper is None or part.step is not None:
            return False
        if part.lower is not None and self.value(part.lower) != 0:
            return False
        value = self.value(part.upper)
        if isinstance(value, Unresolved):
            return False
        sliced = ast.unparse(node.value)
        key = truncation_key(sliced)
        constant = (self.name_of(target) if target else None) or self.name_of(key) or key
        literal = isinstance(part.upper, ast.Constant)
        found = Found(
            constant,
            f"{target} = {sliced}[:N]" if target else f"{sliced}[:N]",
            value,
            Location(self.path, node.lineno),
            None if literal else ast.unparse(part.upper),
        )
        self.found.append(found)
        return True

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name | ast.Attribute):
                self.record(ast.unparse(target), node.value, node.lineno)
        self.visit_children(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, ast.Name | ast.Attribute):
            self.record(ast.unparse(node.target), node.value, node.lineno)
            self.visit_children(node.value)

    def visit_children(self, node: ast.AST) -> None:
        # the value itself was read as the assignment's; look inside it (calls, dicts)
        if isinstance(node, ast.Subscript):
            self.generic_visit(node)
        else:
            self.visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        function = ast.unparse(node.func)
        for keyword in node.keywords:
            if keyword.arg is not None:
                shown = f"{function}({keyword.arg}=)"
                self.record_keyword(keyword.arg, shown, keyword.value, keyword.value.lineno)
        self.generic_visit(node)

    def record_keyword(self, key: str, shown: str, node: ast.expr, line: int) -> None:
        constant = self.name_of(key)
        value = self.value(node)
        if constant is None or isinstance(value, Unresolved):
            return
        expression = None if isinstance(node, ast.Constant) else ast.unparse(node)
        self.found.append(Found(constant, shown, value, Location(self.path, line), expression))

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, item in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self.record_keyword(key.value, key.value, item, key.lineno)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = node.args
        positional = arguments.posonlyargs + arguments.args
        defaulted = positional[len(positional) - len(arguments.defaults) :]
        pairs = list(zip(defaulted, arguments.defaults, strict=True))
        keyword_only = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        pairs += [(argument, default) for argument, default in keyword_only if default]
        for argument, default in pairs:
            shown = f"{node.name}({argument.arg}=)"
            self.record_keyword(argument.arg, shown, default, default.lineno)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not self.truncation(node, None):
            self.generic_visit(node)


def python_constants(path: str, tree: ast.Module, text: str, name_of) -> list[Found]:
    """Every retrieval constant the module sets, in source order. `name_of(name)` gives
    the canonical constant of a name as written (patterns, then the project's map)."""
    reader = _Reader(path, text, name_of)
    reader.visit(tree)
    return reader.found
