"""Import circles that were broken stay broken. The graph is every import of every module of
engine/, desktop/ and tic_cli/, wherever it is written (module level, inside a function, under
``TYPE_CHECKING``): a lazy import hides a circle from Python, not from the design.

The circles: the façade and the model service (``ModelService`` held the ``Engine``); the
Settings dialog and its Model page (helpers shared across pages); the store's opening, its
migrations and its tables (the proxy the tables bind to sat in the module that migrates them);
the canonical event and its bounds; triage and the agent framework (the rules tools and the
rules file's guard sat in the agent, which triage uses); and the front ends' plain data
(``engine.types``, which re-exported the subsystems that return it)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "desktop", "tic_cli")

# Modules no two of which may be in one import circle.
CIRCLES = {
    "the façade and the model service": ("engine.engine", "engine.model_service"),
    "the settings dialog and its pages": (
        "desktop.settings.dialog",
        "desktop.settings.model_page",
        "desktop.settings.accounts_page",
        "desktop.settings.rules_page",
    ),
    "the store's opening, migrations and tables": (
        "engine.store.base",
        "engine.store.db",
        "engine.store.migrations",
        "engine.store.models",
        "engine.store.fields",
        "engine.store.damage",
        "engine.store.backup",
    ),
    "the event and its bounds": ("engine.events", "engine.events.bounds"),
    "the IPC endpoint and the façade": ("engine.engine", "engine.ipc.endpoint"),
    "triage and the agent framework": (
        "engine.triage.runner",
        "engine.triage.decider",
        "engine.triage.tools",
        "engine.agent.loop",
        "engine.agent.tools.base",
        "engine.agent.tools.builtin",
        "engine.agent.tools.files",
        "engine.agent.tools.notify",
        "engine.agent.draft",
    ),
}
# Plain data everything may import: it imports nothing of the engine but other plain data.
PLAIN_DATA = {
    "engine.types": set(),
    "engine.modeltypes": set(),
    "engine.errors": set(),
}


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _resolve(name: str, modules: Iterable[str]) -> str | None:
    """The project module ``name`` is, or is in (``a.b.C`` → ``a.b``); None outside it."""
    known = set(modules)
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """module → the project modules it imports (``from a import b`` counts ``a.b`` when that
    is a module, else ``a``)."""
    modules = project_modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            found.update(r for n in names if (r := _resolve(n, modules)) is not None)
        graph[module] = found - {module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


GRAPH = import_graph()


@pytest.mark.parametrize("what", sorted(CIRCLES))
def test_a_broken_circle_stays_broken(what: str) -> None:
    members = set(CIRCLES[what])
    assert members <= GRAPH.keys(), members - GRAPH.keys()
    joined = [sorted(c & members) for c in circles(GRAPH) if len(c & members) > 1]
    assert joined == []


@pytest.mark.parametrize("module", sorted(PLAIN_DATA))
def test_plain_data_imports_nothing_of_the_engine(module: str) -> None:
    """So every subsystem may return it, and it sits below them all."""
    assert GRAPH[module] == PLAIN_DATA[module]


def test_the_circle_check_finds_a_lazy_or_type_only_circle() -> None:
    graph = {
        "engine.a": {"engine.b"},
        "engine.b": {"engine.c"},  # say, inside a function
        "engine.c": {"engine.a"},  # say, under TYPE_CHECKING
        "engine.d": {"engine.a"},
    }
    assert circles(graph) == [{"engine.a", "engine.b", "engine.c"}]


def test_the_graph_counts_imports_inside_functions_and_type_checking() -> None:
    # engine.store.damage names its table's store through the field, not through the store's
    # opening; engine.tasks imports the bus only where it publishes (and for its types).
    assert "engine.bus" in GRAPH["engine.tasks"]
    assert "engine.store.db" not in GRAPH["engine.store.damage"]
