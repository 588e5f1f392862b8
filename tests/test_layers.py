"""The package's imports point down (issue 15).

The import graph of ``hlo_passes/`` is computed from the source with ``ast``, counting imports
inside functions as well as those at module level, and must have no cycle.  An import inside a
function is allowed only when it defers a heavy optional dependency (jax, matplotlib, graphviz...),
directly or through a module of the package that imports one at its top (``hlo_passes.jax_hook``),
and it says so in a comment.  ``lint-imports`` (import-linter,
configured in pyproject.toml) checks the layers contract and the independence of rewrites and
lowering; it runs here so that every test environment runs it.

The rule engine (``hlo_passes/rewrites/``, issue 48) is held to more: its contracts hold, and it has
no import cycle, with type-only imports (under ``TYPE_CHECKING``) counted as well, which the rest of
the package's contracts do not count (``exclude_type_checking_imports``: one switch for every contract).
"""
from __future__ import annotations

import ast
import os
import re
import pathlib
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass

import networkx as nx
import pytest

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hlo_passes"

# What a function may import: dependencies that cost seconds to import or are optional extras.
HEAVY_OPTIONAL = ("jax", "jaxlib", "matplotlib", "graphviz")


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str  # a module of the package, or the top name of another distribution
    line: int
    in_function: bool
    commented: bool  # a comment on the import's line or above its block of imports
    path: str = ""


def _modules() -> dict[str, pathlib.Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _owning_module(name: str, modules: dict[str, pathlib.Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _under_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _in_function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return True
    return False


def _commented(lines: list[str], lineno: int) -> bool:
    """A comment on line ``lineno`` (1-based) or on the line above the block of imports it is in."""
    if "#" in lines[lineno - 1]:
        return True
    k = lineno - 2
    while k >= 0 and lines[k].strip().startswith(("import ", "from ")):
        k -= 1
    return k >= 0 and lines[k].strip().startswith("#")


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, pathlib.Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    # ``from pkg import sub`` imports the submodule; ``from pkg import name`` imports pkg.
    targets = []
    for alias in node.names:
        full = f"{source}.{alias.name}"
        targets.append(full if full in modules else source)
    return targets


def imports(type_checking: bool = False) -> list[Import]:
    """The package's imports; with ``type_checking``, those under ``if TYPE_CHECKING:`` too."""
    modules = _modules()
    found = []
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if not type_checking and _under_type_checking(node, parents):
                continue
            commented = _commented(lines, node.lineno)
            for target in _targets(node, package, modules):
                if target.split(".")[0] == "hlo_passes":
                    target = _owning_module(target, modules)
                    if target is None or target == name:
                        continue
                else:
                    target = target.split(".")[0]
                found.append(Import(name, target, node.lineno, _in_function(node, parents), commented,
                                  str(path.relative_to(ROOT))))
    return found


def _import_heavy_at_top() -> set[str]:
    """Modules of the package that import a heavy optional dependency at module level, directly or
    through such a module of the package: deferring the import of one of them defers that dependency."""
    top = [i for i in imports() if not i.in_function]
    heavy = {i.importer for i in top if i.target in HEAVY_OPTIONAL}
    while True:
        more = {i.importer for i in top if i.target in heavy} - heavy
        if not more:
            return heavy
        heavy |= more


def import_graph(type_checking: bool = False) -> nx.DiGraph:
    graph = nx.DiGraph()
    for imp in imports(type_checking):
        if imp.target.startswith("hlo_passes"):
            graph.add_edge(imp.importer, imp.target)
    return graph


def test_the_scan_sees_function_level_imports():
    # The scan itself: it finds the package's own deferred jax imports (so a test of zero cycles
    # is not zero because function bodies were skipped).
    deferred = [i for i in imports() if i.in_function]
    assert any(i.target == "jax" for i in deferred), deferred
    graph = import_graph()
    assert graph.has_edge("hlo_passes.passes.registry", "hlo_passes.ir")


def test_no_import_cycles():
    graph = import_graph()
    cycles = sorted(" -> ".join(c + [c[0]]) for c in nx.simple_cycles(graph))
    assert not cycles, f"{len(cycles)} import cycles in hlo_passes/:\n" + "\n".join(cycles[:50])


RULE_ENGINE = "hlo_passes.rewrites"


def test_no_import_cycles_in_the_rule_engine_counting_type_only_imports():
    graph = import_graph(type_checking=True)
    engine = graph.subgraph(n for n in graph if n == RULE_ENGINE or n.startswith(RULE_ENGINE + "."))
    assert graph.has_edge("hlo_passes.rewrites.split.engine", "hlo_passes.rewrites.split.types")
    cycles = sorted(" -> ".join(c + [c[0]]) for c in nx.simple_cycles(engine))
    assert not cycles, f"{len(cycles)} import cycles in hlo_passes/rewrites/:\n" + "\n".join(cycles[:50])


def test_every_module_of_the_split_engine_has_its_layer():
    # A module left out of the split-layers contract would be free to import anything in the engine.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "split-layers"]
    placed = {name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")}
    package = PACKAGE / "rewrites" / "split"
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    assert modules - placed == set(), "modules of rewrites/split/ missing from the split-layers contract"
    assert placed - modules == set(), "split-layers names modules that are not there"


def test_function_level_imports_only_defer_heavy_optional_dependencies():
    bad = []
    heavy = _import_heavy_at_top()
    for imp in imports():
        if not imp.in_function:
            continue
        where = f"{imp.path}:{imp.line}: {imp.target}"
        if imp.target.startswith("hlo_passes"):
            if imp.target not in heavy:
                bad.append(f"{where} (a module of the package: import it at the top)")
                continue
        elif imp.target not in HEAVY_OPTIONAL:
            bad.append(f"{where} (not a heavy optional dependency: import it at the top)")
            continue
        if not imp.commented:
            bad.append(f"{where} (say in a comment why it is deferred)")
    assert not bad, "function-level imports:\n" + "\n".join(bad)


def _lint_imports() -> pathlib.Path:
    # Beside this interpreter (a venv), else where its installs put scripts (a system Python).
    candidates = [pathlib.Path(sys.executable).with_name("lint-imports"),
                  pathlib.Path(sysconfig.get_path("scripts")) / "lint-imports"]
    lint_imports = next((c for c in candidates if c.exists()), None)
    if lint_imports is None:
        pytest.fail(f"lint-imports not found at {', '.join(map(str, candidates))}: "
                    "install the test extra (pip install -e '.[test]')")
    return lint_imports


def test_import_linter_contracts_hold():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([str(_lint_imports()), "--no-cache"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout and "kept" in proc.stdout, proc.stdout


def _ini_value(value: object) -> str:
    return "".join(f"\n    {v}" for v in value) if isinstance(value, list) else str(value)


def test_the_rule_engine_contracts_hold_counting_type_only_imports(tmp_path: pathlib.Path):
    # pyproject's contracts of the rule engine, run again with type-only imports counted: an
    # import ``if TYPE_CHECKING:`` that points up (or closes a circle) breaks them as any other.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    ours = [c for c in config["contracts"] if any(
        str(m).startswith(RULE_ENGINE) for key in ("containers", "ancestors", "source_modules")
        for m in c.get(key, []))]
    assert {c["id"] for c in ours} >= {"rewrites-acyclic", "split-below-the-rules", "split-layers"}
    lines = ["[importlinter]", f"root_package = {config['root_package']}", "exclude_type_checking_imports = False"]
    for c in ours:
        lines.append(f"[importlinter:contract:{c['id']}]")
        lines += [f"{key} = {_ini_value(value)}" for key, value in c.items() if key != "id"]
    ini = tmp_path / "rule-engine.ini"
    ini.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([str(_lint_imports()), "--no-cache", "--config", str(ini)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Contracts: {len(ours)} kept, 0 broken" in proc.stdout, proc.stdout


def _picture_of_the_layers() -> str:
    """The arrows of docs/architecture.md's package layers (the block after "Imports point down")."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    after = text.split("Imports point down", 1)[1]
    return after.split("```", 2)[1]


def test_every_module_of_the_package_has_its_layer_and_the_picture_draws_them_in_order():
    # docs/architecture.md's picture is the layers contract drawn: every top-level module and
    # package of hlo_passes/ sits in a layer, and the picture names the layers top to bottom.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["id"] == "layers"]
    rows = [[m.strip().removeprefix("hlo_passes.") for m in row.replace("|", ":").split(":")] for row in layers]
    placed = {m for row in rows for m in row}
    tops = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert tops - placed == set(), "modules in no layer of pyproject's layers contract"
    picture = _picture_of_the_layers()
    words = [w for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", picture)]
    position = [min(words.index(m) for m in row) for row in rows]
    assert position == sorted(position), list(zip(layers, position))
    assert all(m in words for row in rows for m in row)
