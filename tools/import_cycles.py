"""Import circles in a package: the module graph and the package graph, read from the source with ``ast``.

Two kinds of import are told apart:

- module-level imports run when a module is imported (top of the file, class bodies, ``try``/``if`` blocks at
  module level); a circle among them is an error, because whichever module is imported first sees the other
  half-initialised;
- deferred imports sit inside a function or method and run when it is called; a circle that needs one of them
  works, but it is listed, since each is a dependency pointing the wrong way that was hidden rather than removed.

Imports under ``if TYPE_CHECKING:`` never run and are left out. ``from a.b import c`` is an import of the module
``a.b.c`` when there is one, else of ``a.b``; either way the ``__init__`` of each package above the target runs
first, so ``import a.b.c`` from outside ``a`` is an import of ``a.b`` and ``a`` too. The package graph joins modules by
their first part below the root (``engine.agent.tools`` -> ``engine.agent``; ``engine.config`` stays itself).

Usage: ``python tools/import_cycles.py [ROOT_PACKAGE_DIR]`` (default ``engine``). Prints the circles of each graph
and exits 1 when there is a module-level circle.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``line``; ``deferred`` when inside a function."""

    source: str
    target: str
    line: int
    deferred: bool


@dataclass
class Graph:
    """Modules and their imports."""

    modules: set[str] = field(default_factory=set)
    edges: list[Edge] = field(default_factory=list)

    def adjacency(self, *, deferred: bool) -> dict[str, set[str]]:
        """Targets per module; with ``deferred``, imports inside functions count too."""
        adj: dict[str, set[str]] = {m: set() for m in self.modules}
        for edge in self.edges:
            if (deferred or not edge.deferred) and edge.source != edge.target:
                adj[edge.source].add(edge.target)
        return adj


def module_name(path: Path, base: Path) -> str:
    """``engine/agent/tools.py`` -> ``engine.agent.tools``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """Collects (imported names, line, deferred) from one module."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package = module, is_package
        self.depth = 0
        self.found: list[tuple[list[str], int, bool]] = []

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append(([alias.name], node.lineno, self.depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            package = self.module if self.is_package else self.module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{node.module}" if node.module else package
        else:
            base = node.module or ""
        names = [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"] or [base]
        self.found.append(([base, *names], node.lineno, self.depth > 0))


def build(root: Path) -> Graph:
    """The import graph of the package at ``root`` (imports of other packages left out)."""
    base = root.parent
    files = sorted(root.rglob("*.py"))
    graph = Graph(modules={module_name(f, base) for f in files})
    prefix = root.name
    for path in files:
        name = module_name(path, base)
        visitor = _Imports(name, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for candidates, line, deferred in visitor.found:
            targets = _resolve(candidates, graph.modules, prefix)
            targets |= {p for t in targets for p in _parents(t) if not _within(name, p)}
            graph.edges.extend(Edge(name, t, line, deferred) for t in sorted(targets))
    return graph


def _resolve(candidates: list[str], modules: set[str], prefix: str) -> set[str]:
    """The modules an import statement loads: ``from a import b`` is ``a.b`` when that is a module, else ``a``."""
    head, *names = candidates
    if head != prefix and not head.startswith(prefix + "."):
        return set()
    out = {name for name in names if name in modules}
    if not names or len(out) < len(names):
        parent = head
        while parent and parent not in modules:
            parent = parent.rpartition(".")[0]
        if parent:
            out.add(parent)
    return out


def _parents(module: str) -> list[str]:
    """``a.b.c`` -> ``a.b``, ``a``: the packages whose ``__init__`` runs before the module does."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def _within(module: str, package: str) -> bool:
    """True when ``module`` is ``package`` or inside it (its ``__init__`` has already run)."""
    return module == package or module.startswith(package + ".")


def components(adj: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan, without recursion), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(adj):
        if start in index:
            continue
        work = [(start, iter(sorted(adj[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adj.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
    return sorted(found)


def shortest_path(adj: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """The shortest import chain from ``start`` to ``goal`` (both included), or None."""
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while previous[path[-1]] is not None:
                path.append(previous[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for child in sorted(adj.get(node, ())):
            if child not in previous:
                previous[child] = node
                queue.append(child)
    return None


def example_cycles(adj: dict[str, set[str]], members: list[str], limit: int = 5) -> list[list[str]]:
    """A few short circles inside one component: for each member, the shortest way back to it."""
    inside = {m: adj[m] & set(members) for m in members}
    seen: set[frozenset[str]] = set()
    cycles: list[list[str]] = []
    for member in members:
        best = None
        for child in sorted(inside[member]):
            path = shortest_path(inside, child, member)
            if path and (best is None or len(path) < len(best)):
                best = path
        if best is None:
            continue
        cycle = [member, *best]
        key = frozenset(zip(cycle, cycle[1:]))
        if key not in seen:
            seen.add(key)
            cycles.append(cycle)
    return sorted(cycles, key=len)[:limit]


def package_of(module: str, prefix: str) -> str:
    """``engine.agent.tools`` -> ``engine.agent``; the root and its direct modules stay themselves."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def package_graph(graph: Graph, *, deferred: bool, prefix: str) -> dict[str, set[str]]:
    """Packages (first part below the root) and which others they import."""
    adj: dict[str, set[str]] = {}
    for module in graph.modules:
        adj.setdefault(package_of(module, prefix), set())
    for edge in graph.edges:
        if deferred or not edge.deferred:
            a, b = package_of(edge.source, prefix), package_of(edge.target, prefix)
            if a != b and prefix not in (a, b):
                adj[a].add(b)
    return adj


def deferred_closers(graph: Graph) -> list[tuple[Edge, list[str]]]:
    """Deferred imports that close a circle, each with the way back from its target to its source."""
    everything = graph.adjacency(deferred=True)
    found = []
    for edge in sorted(graph.edges, key=lambda e: (e.source, e.line, e.target)):
        if edge.deferred and edge.source != edge.target:
            back = shortest_path(everything, edge.target, edge.source)
            if back:
                found.append((edge, back))
    return found


def report(graph: Graph, prefix: str, out=sys.stdout) -> int:
    """Print every circle; the number of module-level circles (components) is returned."""
    module_level = graph.adjacency(deferred=False)
    with_deferred = graph.adjacency(deferred=True)
    counts = (len(graph.modules), sum(not e.deferred for e in graph.edges), sum(e.deferred for e in graph.edges))
    print(f"{counts[0]} modules, {counts[1]} module-level imports, {counts[2]} deferred imports "
          f"(inside functions)", file=out)

    strong = components(module_level)
    print(f"\nModule-level circles: {len(strong)}", file=out)
    for members in strong:
        print(f"  {len(members)} modules: {', '.join(members)}", file=out)
        for cycle in example_cycles(module_level, members):
            print(f"    {' -> '.join(cycle)}", file=out)

    deferred = components(with_deferred)
    closers = deferred_closers(graph)
    print(f"\nCircles that need a deferred import: {len(deferred)} groups, {len(closers)} deferred imports close one",
          file=out)
    for members in deferred:
        print(f"  {len(members)} modules: {', '.join(members)}", file=out)
    for edge, back in closers:
        print(f"    {edge.source}:{edge.line} imports {edge.target} inside a function; back: {' -> '.join(back)}",
              file=out)

    for label, with_functions in (("module-level imports", False), ("all imports", True)):
        packages = package_graph(graph, deferred=with_functions, prefix=prefix)
        groups = components(packages)
        print(f"\nPackage circles ({label}): {len(groups)}", file=out)
        for members in groups:
            print(f"  {', '.join(members)}", file=out)
            for cycle in example_cycles(packages, members):
                print(f"    {' -> '.join(cycle)}", file=out)
    return len(strong)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default="engine", help="the package folder (default: engine)")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if not (root / "__init__.py").is_file():
        parser.error(f"{root} is not a package folder")
    circles = report(build(root), root.name)
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
