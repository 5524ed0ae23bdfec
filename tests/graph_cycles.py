"""The cycles of a dependency graph (imports, includes, calls), for the architecture tests."""
from __future__ import annotations

from typing import Collection, Dict, List, Set


def cycles(graph: Dict[str, Set[str]], ignore: Collection[str] = ()) -> List[List[str]]:
    """Each cycle of the graph once, as a path that comes back to its first node; edges into a
    node of ``ignore`` are left out."""
    found: List[List[str]] = []
    state: Dict[str, str] = {}
    stack: List[str] = []

    def visit(node: str):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target in ignore:
                continue
            if state.get(target) == "open":
                found.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found
