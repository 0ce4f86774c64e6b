"""What a YAML document may not do even when it parses: give one key twice in a mapping
(YAML forbids it, PyYAML keeps the last silently, so `k: 3` then `k: 4` would run with 4),
or repeat so many values through aliases that the plain data it stands for is huge (seven
nested aliases in 563 bytes stand for 4.8 million strings: PyYAML builds them as shared
references in no time, and the results file that writes them out is 125 MB).

Both are checked on the composed node graph, before any value is constructed, and refused
in one line naming the file, the line and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError

MAX_ALIASED_VALUES = 10_000
"""How many values aliases may repeat in one document, summed over every alias (a value
is a scalar, a list or a mapping; a list of 9 repeated 3 times repeats 30). Anchors used
for shared defaults repeat tens; an alias bomb repeats millions."""

_MERGE = "tag:yaml.org,2002:merge"


def check_shape(root: Any, source: str | Path) -> None:
    """Refuse, naming `source`, the line and the key, a mapping that gives a key twice or
    aliases repeating more than MAX_ALIASED_VALUES values (or an alias inside its own
    anchor, which stands for an endless value)."""
    _Walk(source).visit(root, None)


class _Walk:
    """One pass over the node graph in document order. A node met a second time is an
    alias (PyYAML's composer hands the anchored node itself to every alias)."""

    def __init__(self, source: str | Path) -> None:
        self.source = source
        self.seen: set[int] = set()
        self.sizes: dict[int, int] = {}
        self.repeated = 0

    def visit(self, node: Any, key: Any) -> None:
        if id(node) in self.seen:
            self.repeated += self.size(node, key, set())
            if self.repeated > MAX_ALIASED_VALUES:
                self.refuse(
                    key or node,
                    f"aliases repeat more than {MAX_ALIASED_VALUES:,} values "
                    "(an alias bomb?); write the values out instead",
                )
            return
        self.seen.add(id(node))
        if isinstance(node.value, list):
            for item in node.value:
                if isinstance(item, tuple):  # a mapping's (key node, value node)
                    self.visit(item[0], key)
                    self.visit(item[1], item[0])
                else:
                    self.visit(item, key)
            if node.value and isinstance(node.value[0], tuple):
                self.check_keys(node)

    def size(self, node: Any, key: Any, path: set[int]) -> int:
        """How many values `node` stands for, aliases expanded (memoised: the graph is a
        DAG unless an alias sits inside its own anchor, refused here)."""
        if id(node) in self.sizes:
            return self.sizes[id(node)]
        if id(node) in path:
            self.refuse(key or node, "an alias sits inside its own anchor (an endless value)")
        total = 1
        if isinstance(node.value, list):
            path.add(id(node))
            for item in node.value:
                for part in item if isinstance(item, tuple) else (item,):
                    total += self.size(part, key, path)
                    if total > MAX_ALIASED_VALUES:  # enough to refuse: stop counting
                        break
            path.discard(id(node))
        self.sizes[id(node)] = total
        return total

    def check_keys(self, mapping: Any) -> None:
        first: dict[tuple[str, str], Any] = {}
        for key, _ in mapping.value:
            if key.tag == _MERGE or not isinstance(key.value, str):
                continue  # `<<: *defaults` may repeat; a key that is a list or map is rare
            name = (key.tag, key.value)
            if name in first:
                earlier = first[name].start_mark.line + 1
                self.refuse(key, f"given twice (first at line {earlier}); keep one")
            first[name] = key

    def refuse(self, key: Any, problem: str) -> None:
        line = key.start_mark.line + 1
        named = f"key {key.value!r:.60}: " if isinstance(key.value, str) else ""
        raise RagauditError(f"{self.source}: line {line}: {named}{problem}")
