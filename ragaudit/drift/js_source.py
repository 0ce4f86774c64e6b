"""Retrieval constants in JavaScript and TypeScript, read from the tree-sitter syntax tree:
declarations (`const TOP_K = 8`), assignments (`this.topK = 8`), object entries
(`{ topK: 8 }`), class fields, parameter defaults (`topK = 8`) and `.slice(0, N)`
truncations. A value is computed from literals and constants declared earlier in the file
(`TOP_K * CANDIDATE_MULTIPLIER`, `Number(process.env.TOP_K ?? 8)`)."""

from __future__ import annotations

import tree_sitter

from ragaudit.codescan.sources import Location, line_of, node_text
from ragaudit.drift.found import UNRESOLVED, Found, Unresolved, Value, arithmetic, extreme, number
from ragaudit.drift.patterns import truncation_key

# node type -> (the field holding the name, the field holding the value)
DEFINITIONS = {
    "variable_declarator": ("name", "value"),
    "assignment_expression": ("left", "right"),
    "pair": ("key", "value"),
    "field_definition": ("property", "value"),
    "public_field_definition": ("name", "value"),
    "assignment_pattern": ("left", "right"),
    "object_assignment_pattern": ("left", "right"),
    "required_parameter": ("pattern", "value"),
    "optional_parameter": ("pattern", "value"),
}
NAMES = {
    "identifier",
    "property_identifier",
    "member_expression",
    "string",
    "shorthand_property_identifier_pattern",
}
WRAPPERS = {"parenthesized_expression", "as_expression", "satisfies_expression"}
WRAPPERS |= {"non_null_expression", "type_assertion"}
CONVERSIONS = {"Number", "parseInt", "parseFloat", "Number.parseInt", "Number.parseFloat"}
NO_LIMIT = {"null", "undefined", "Infinity", "Number.POSITIVE_INFINITY"}
MAX_VALUE_DEPTH = 100
"""How many operators deep a value is computed: a real constant is a few deep, and a
hostile file nested 100,000 deep must give an unresolved value, not a RecursionError."""


class _Reader:
    """Walks the tree in source order, so a constant is known before it is used."""

    def __init__(self, path: str, text: str, name_of) -> None:
        self.path, self.text, self.name_of = path, text, name_of
        self.known: dict[str, Value] = {}
        self.found: list[Found] = []
        self.done: set[tuple[int, int]] = set()  # slices already read as a definition's

    def source(self, node: tree_sitter.Node) -> str:
        return node_text(node, self.text)

    def value(self, node: tree_sitter.Node, depth: int = 0) -> Value | Unresolved:
        """The node's value from literals and constants already declared; unresolved past
        MAX_VALUE_DEPTH operators (wrappers such as parentheses are unwrapped in a loop)."""
        while node.type in WRAPPERS and node.named_children:
            node = node.named_children[0]
        kind, shown = node.type, self.source(node)
        if kind in ("number", "string"):
            return number(shown)
        if kind in ("null", "undefined") or shown in NO_LIMIT:
            return None
        if depth >= MAX_VALUE_DEPTH:
            return UNRESOLVED
        if kind == "unary_expression" and shown.startswith("-"):
            inner = self.value(node.child_by_field_name("argument"), depth + 1)
            return -inner if isinstance(inner, int | float) else UNRESOLVED
        if kind == "binary_expression":
            return self.binary(node, depth + 1)
        if kind in ("identifier", "member_expression"):
            return self.known.get(shown, UNRESOLVED)
        if kind == "call_expression":
            return self.call(node, depth + 1)
        return UNRESOLVED

    def binary(self, node: tree_sitter.Node, depth: int) -> Value | Unresolved:
        operator = self.source(node.child_by_field_name("operator"))
        left = self.value(node.child_by_field_name("left"), depth)
        if operator in ("??", "||"):
            # `process.env.TOP_K ?? 8`: the default is what runs unless a deployment sets it
            if left is not UNRESOLVED:
                return left
            return self.value(node.child_by_field_name("right"), depth)
        return arithmetic(operator, left, self.value(node.child_by_field_name("right"), depth))

    def call(self, node: tree_sitter.Node, depth: int) -> Value | Unresolved:
        function = self.source(node.child_by_field_name("function"))
        arguments = node.child_by_field_name("arguments").named_children
        if function in CONVERSIONS and arguments:
            return self.value(arguments[0], depth)
        if function in ("Math.min", "Math.max"):
            return extreme(function, [self.value(argument, depth) for argument in arguments])
        return UNRESOLVED

    def slice_bound(self, node: tree_sitter.Node) -> tuple[str, tree_sitter.Node] | None:
        """(the sliced list, N) for `list.slice(0, N)`, else None."""
        if node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            return None
        if self.source(function.child_by_field_name("property")) != "slice":
            return None
        arguments = node.child_by_field_name("arguments").named_children
        if len(arguments) != 2 or self.value(arguments[0]) != 0:
            return None
        return self.source(function.child_by_field_name("object")), arguments[1]

    def truncation(self, node: tree_sitter.Node, target: str | None) -> bool:
        """Record a `.slice(0, N)` under the target's constant when the target names
        one, else under the sliced list's own name. True when recorded."""
        bound = self.slice_bound(node)
        if bound is None:
            return False
        sliced, upper = bound
        value = self.value(upper)
        if isinstance(value, Unresolved):
            return False
        key = truncation_key(sliced)
        constant = (self.name_of(target) if target else None) or self.name_of(key) or key
        shown = f"{sliced}.slice(0, N)"
        expression = None if upper.type == "number" else self.source(upper)
        where = Location(self.path, line_of(node))
        self.found.append(
            Found(constant, f"{target} = {shown}" if target else shown, value, where, expression)
        )
        self.done.add((node.start_byte, node.end_byte))
        return True

    def definition(self, node: tree_sitter.Node) -> None:
        name_field, value_field = DEFINITIONS[node.type]
        name_node = node.child_by_field_name(name_field)
        value_node = node.child_by_field_name(value_field)
        if name_node is None or value_node is None or name_node.type not in NAMES:
            return
        name = self.source(name_node).strip("'\"`")
        if self.truncation(value_node, name):
            return
        value = self.value(value_node)
        if isinstance(value, Unresolved):
            return
        self.known[name] = value
        constant = self.name_of(name)
        if constant is not None:
            literal = value_node.type in ("number", "null", "string")
            expression = None if literal else self.source(value_node)
            where = Location(self.path, line_of(name_node))
            self.found.append(Found(constant, name, value, where, expression))

    def walk(self, root: tree_sitter.Node) -> None:
        """Pre-order over the tree (a definition is read before what its value holds),
        with a stack rather than recursion: a deeply nested file is still read."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type in DEFINITIONS:
                self.definition(node)
            elif (node.start_byte, node.end_byte) not in self.done:
                self.truncation(node, None)
            stack.extend(reversed(node.named_children))


def js_constants(path: str, tree: tree_sitter.Tree, text: str, name_of) -> list[Found]:
    """Every retrieval constant the file sets, in source order. `name_of(name)` gives the
    canonical constant of a name as written (patterns, then the project's map)."""
    reader = _Reader(path, text, name_of)
    reader.walk(tree.root_node)
    return reader.found
