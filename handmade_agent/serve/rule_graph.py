"""The rules of a grammar as a graph, for ``gbnf_reader`` and ``grammar_walk``: an order to walk them in, and
whether one can start with itself (left recursion, which llama.cpp refuses to parse).

Both walk iteratively: a grammar may chain thousands of rules, deeper than Python's recursion.

    >>> dependency_order({"root": {"a"}, "a": {"b"}, "b": set()})
    ['b', 'a', 'root']
    >>> left_recursion({"root": ("alt", (("seq", (("ref", "root"), ("chars", 1))),))}, ["root"])
    'root'
"""
from __future__ import annotations


def dependency_order(uses: dict[str, set[str]]) -> list[str]:
    """Rule names, each after the rules it uses (depth-first from root; a cycle is cut where it closes)."""
    order, seen = [], set()
    for start in ("root", *uses):
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(uses[start])))]
        while stack:
            name, todo = stack[-1]
            nxt = next((r for r in todo if r not in seen), None)
            if nxt is None:
                order.append(stack.pop()[0])
            else:
                seen.add(nxt)
                stack.append((nxt, iter(sorted(uses[nxt]))))
    return order


def left_recursion(rules: dict[str, tuple], order: list[str]) -> str | None:
    """A rule that can start with itself, through rules that may match nothing (llama.cpp refuses those), or None.
    ``order``: the rule names, each after those it uses (``dependency_order``)."""
    empty = dict.fromkeys(rules, False)

    def can_be_empty(node: tuple) -> bool:
        kind = node[0]
        return (kind == "ref" and empty[node[1]] or kind == "seq" and all(map(can_be_empty, node[1]))
                or kind == "alt" and any(map(can_be_empty, node[1])) or kind == "rep" and (node[2] == 0 or
                                                                                            can_be_empty(node[1])))
    for _ in range(3):  # which rules may match nothing: in this order one round settles all but cycles
        changed = False
        for name in order:
            if not empty[name] and can_be_empty(rules[name]):
                empty[name] = changed = True
        if not changed:
            break

    def leading(node: tuple, out: set[str]) -> set[str]:
        kind = node[0]
        if kind == "ref":
            out.add(node[1])
        elif kind == "alt":
            for sequence in node[1]:
                leading(sequence, out)
        elif kind == "rep":
            leading(node[1], out)
        elif kind == "seq":
            for item in node[1]:
                leading(item, out)
                if not can_be_empty(item):
                    break
        return out
    starts = {name: leading(body, set()) for name, body in rules.items()}
    state: dict[str, int] = {}  # 1: on the path being followed, 2: done
    for top in rules:
        if top in state:
            continue
        state[top], path = 1, [(top, iter(sorted(starts[top])))]
        while path:
            name, todo = path[-1]
            nxt = next(todo, None)
            if nxt is None:
                state[path.pop()[0]] = 2
            elif state.get(nxt) == 1:
                return nxt
            elif nxt not in state:
                state[nxt] = 1
                path.append((nxt, iter(sorted(starts[nxt]))))
    return None
