"""The packages' layers, read from their source with `ast`: no import cycle between modules,
and no import from an inner layer to an outer one (domain -> service -> projections -> api;
the client, clients/python, imports none of the server's). Every import counts: at the top,
inside functions, under `if TYPE_CHECKING:`; the messages say which kind each one is."""

from __future__ import annotations

import ast
import sys
from collections import deque
from collections.abc import Container, Iterable, Iterator
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What each package must not import: the layers outside it (and the client, the server).
FORBIDDEN = {
    "domain": {"service", "projections", "api"},
    "service": {"projections", "api"},
    "projections": {"api"},
    "api": set(),
}
CLIENT = Path(__file__).resolve().parents[1] / "clients" / "python" / "tabletop_client"
# What the standalone client may import: itself, the standard library, its two dependencies.
CLIENT_MAY_IMPORT = {"tabletop_client", "httpx", "msgspec", *sys.stdlib_module_names}
KINDS = ("", "in a function", "under TYPE_CHECKING")  # the strongest first
CHECKING = ("TYPE_CHECKING", "typing.TYPE_CHECKING")
# module -> {module it imports: (KINDS index, line) of its strongest import of it}
Graph = dict[str, dict[str, tuple[int, int]]]


def scan(root: Path, packages: Iterable[str] = FORBIDDEN) -> Graph:
    """The import graph between the modules of `packages` under `root`."""
    paths: dict[str, Path] = {}
    for path in sorted(p for package in packages for p in (root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    assert {name.split(".")[0] for name in paths} == set(packages), f"packages under {root}?"
    graph: Graph = {}
    for name, path in paths.items():
        here = ".".join(path.relative_to(root).parent.parts)  # its package
        edges = graph.setdefault(name, {})
        for node, kind in _imports(ast.parse(path.read_text("utf-8")).body):
            for target in _targets(node, here, paths):
                if target != name:
                    edges[target] = min(edges.get(target, (kind, node.lineno)), (kind, node.lineno))
    return graph


Import = ast.Import | ast.ImportFrom


def _imports(nodes: Iterable[ast.AST], kind: int = 0) -> Iterator[tuple[Import, int]]:
    """Each import statement, with its KINDS index."""
    for node in nodes:
        if isinstance(node, Import):
            yield node, kind
        elif isinstance(node, ast.If) and ast.unparse(node.test) in CHECKING:
            yield from _imports(node.body, 2)
            yield from _imports(node.orelse, kind)
        else:
            function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            yield from _imports(ast.iter_child_nodes(node), max(kind, 1) if function else kind)


def _targets(node: Import, here: str, known: Container[str]) -> Iterator[str]:
    """The modules an import names: `from api import schemas` is api.schemas if a module,
    else api; `import a.b.c` the longest known one of a.b.c, a.b, a."""
    names = [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        package = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
        base = ".".join([*package, *([node.module] if node.module else [])])
        names = [f"{base}.{n}" if f"{base}.{n}" in known else base for n in names]
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            yield name


def cycles(graph: Graph) -> list[list[str]]:
    """Each module's shortest import cycle (breadth first), as a chain [a, b, a] from its
    least module, once: every module of a strongly connected component shows in one."""
    found: set[tuple[str, ...]] = set()
    for start in graph:
        queue, seen = deque([[start]]), {start}
        while queue:
            path = queue.popleft()
            if start in graph[path[-1]]:
                least = path.index(min(path))
                found.add(tuple(path[least:] + path[:least]))
                break
            for module in sorted(graph[path[-1]].keys() - seen):
                seen.add(module)
                queue.append([*path, module])
    return sorted([*ring, ring[0]] for ring in found)


def chain(graph: Graph, ring: list[str]) -> str:
    """The cycle "a -> b -> a", then each of its imports that is not at the top."""
    steps = [(a, b, *graph[a][b]) for a, b in pairwise(ring)]
    notes = [f"{a} -> {b}: line {line}, {KINDS[kind]}" for a, b, kind, line in steps if kind]
    return " -> ".join(ring) + (f"   [{'; '.join(notes)}]" if notes else "")


def violations(graph: Graph) -> list[str]:
    return sorted(
        f"{a} -> {b} (line {line}{', ' + KINDS[kind] if kind else ''})"
        for a, edges in graph.items()
        for b, (kind, line) in edges.items()
        if b.split(".")[0] in FORBIDDEN.get(a.split(".")[0], ())
    )


def test_no_import_cycle_between_modules() -> None:
    tree = scan(ROOT)
    found = [chain(tree, ring) for ring in cycles(tree)]
    assert not found, f"{len(found)} import cycles:\n" + "\n".join(found)


def test_no_import_from_an_inner_layer_to_an_outer_one() -> None:
    found = violations(scan(ROOT))
    assert not found, f"{len(found)} imports against the layers:\n" + "\n".join(found)


def test_the_scanner_finds_a_planted_cycle_and_layer_violations(tmp_path: Path) -> None:
    for name, text in {
        "domain/rules.py": "import os\nfrom service import games\n",
        "service/games.py": "from .sub import deep\n",
        "service/sub/deep.py": "if TYPE_CHECKING:\n    from .. import games\n",
        "domain/bots.py": "def f() -> None:\n    import api.schemas.Thing\n",
        "projections/views.py": "from domain import rules\n",  # inward: allowed
        "api/schemas.py": "",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = scan(tmp_path)
    assert [chain(graph, ring) for ring in cycles(graph)] == [
        "service.games -> service.sub.deep -> service.games"
        "   [service.sub.deep -> service.games: line 2, under TYPE_CHECKING]"
    ]
    assert violations(graph) == [
        "domain.bots -> api.schemas (line 2, in a function)",
        "domain.rules -> service.games (line 2)",
    ]


def test_the_client_imports_only_itself_httpx_msgspec_and_the_standard_library() -> None:
    """clients/python installs alone (pyproject: httpx and msgspec): none of the server."""
    found = {
        f"{path.name}: {name}"
        for path in sorted(CLIENT.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
        if getattr(node, "level", 0) == 0 and name.split(".")[0] not in CLIENT_MAY_IMPORT
    }
    assert list(CLIENT.rglob("*.py")) and not found, found
