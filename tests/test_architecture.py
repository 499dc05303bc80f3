"""The package's floors hold: no import cycle, and no import from a floor to one it must not know (see
docs/architecture.md). Every import counts: at module level, inside functions, and under ``TYPE_CHECKING``."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "linguagym"
GROUND = "ground"  # the top-level modules (errors, atomic, names, progress ...): below every subpackage

# (importer, imported): no module under the first may import one under the second.
FORBIDDEN = list(dict.fromkeys([
    ("suites", "scoring"), ("suites", "evaluation"),  # the format knows no model and no results
    ("scoring", "suites"), ("scoring", "evaluation"), ("scoring", "capabilities"), ("scoring", "web"),
    ("assets", "scoring"),  # assets are below scoring
    ("executors", "evaluation"), ("executors", "capabilities"),  # an executor knows tasks, not what they are for
    ("evaluation", "capabilities"), ("capabilities", "evaluation"),  # the two kinds of test are siblings
    *(("importers", floor) for floor in ("scoring", "executors", "evaluation", "capabilities")),  # format to format
    *((floor, face) for floor in ("evaluation", "capabilities", "executors", "scoring", "suites", "assets", "importers",
                                  GROUND)
      for face in ("web", "cli")),  # nothing below the faces knows they exist
    *((GROUND, floor) for floor in ("suites", "scoring", "assets", "executors", "evaluation", "capabilities",
                                    "importers")),
]))
# Inside capabilities/, the wings stand on floors (docs/architecture.md): a module may import a wing on a lower
# floor only, never one on its own floor or above. "ground" is capabilities/errors.py; "top" the other modules
# beside the wings (pipeline, run, settings: the entry points). The generating half (seeds, expansion, perturb)
# and the testing half (classifiers, testing, reports) meet only in data and the test-file format.
WING_FLOORS = {"ground": 0, "data": 1, "syntax": 1, "testfile": 1, "seeds": 2, "classifiers": 2, "expansion": 3,
               "perturb": 3, "testing": 3, "reports": 4, "top": 5}
HEAVY = ("torch", "transformers", "spacy", "flask", "ray", "sqlalchemy", "numpy", "pandas")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported_names(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its file."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".")
            if node.level:
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            # `from package import submodule` imports the submodule; `from module import name`, the module
            targets = [f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in known else prefix
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@functools.cache
def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported_names(name, path, known) for name, path in known.items()}


def floor(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "package"  # linguagym/__init__.py: the public names, imported lazily
    if parts[1] == "__main__":
        return "cli"  # `python -m linguagym`: the command line's face, as cli/__main__.py
    if (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return "cli" if parts[1] == "cli" else GROUND


def wing(module: str) -> str | None:
    """The capabilities wing ``module`` belongs to (see WING_FLOORS); None outside capabilities/."""
    parts = module.split(".")
    if parts[:2] != ["linguagym", "capabilities"]:
        return None
    if len(parts) == 2:
        return "top"  # the package's __init__
    if (PACKAGE / "capabilities" / parts[2]).is_dir():
        return parts[2]
    return "ground" if parts[2] == "errors" else "top"


def upward_wing_arrows(graph: dict[str, set[str]]) -> list[str]:
    """The imports between two capabilities wings that do not go down a floor."""
    found = []
    for source, targets in graph.items():
        for target in targets:
            here, there = wing(source), wing(target)
            if here is not None and there is not None and here != there \
                    and WING_FLOORS[here] <= WING_FLOORS[there]:
                found.append(f"{source} ({here}) -> {target} ({there})")
    return sorted(found)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_reader_sees_imports_inside_functions_and_under_type_checking(tmp_path):
    graph = import_graph()
    assert "linguagym.evaluation.run" in graph["linguagym.evaluation.model_runs"]  # module level
    assert "linguagym.evaluation.model_runs" in graph["linguagym.cli.run"]  # inside a function
    assert "linguagym.web.jobs.worker" in graph["linguagym.web.context"]  # under TYPE_CHECKING only
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_package_has_no_import_cycle():
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("importer, imported", FORBIDDEN, ids=[f"{a}-not-{b}" for a, b in FORBIDDEN])
def test_no_floor_imports_one_it_must_not_know(importer, imported):
    arrows = sorted(f"{source} -> {target}" for source, targets in import_graph().items() if floor(source) == importer
                    for target in targets if floor(target) == imported)
    assert arrows == []


def test_every_capabilities_wing_has_a_floor():
    wings = {path.name for path in (PACKAGE / "capabilities").iterdir() if (path / "__init__.py").is_file()}
    assert wings <= set(WING_FLOORS), sorted(wings - set(WING_FLOORS))


def test_the_wing_rule_refuses_an_arrow_up_or_sideways():
    up = {"linguagym.capabilities.classifiers.task": {"linguagym.capabilities.testing.classifier_run"}}
    sideways = {"linguagym.capabilities.expansion.expand": {"linguagym.capabilities.perturb.build"}}
    down = {"linguagym.capabilities.run": {"linguagym.capabilities.reports.results",
                                           "linguagym.capabilities.errors"}}
    assert upward_wing_arrows(up) == ["linguagym.capabilities.classifiers.task (classifiers) -> "
                                      "linguagym.capabilities.testing.classifier_run (testing)"]
    assert len(upward_wing_arrows(sideways)) == 1
    assert upward_wing_arrows(down) == []


def test_no_capabilities_wing_imports_one_on_its_floor_or_above():
    assert upward_wing_arrows(import_graph()) == []


def test_importing_the_package_and_its_command_line_loads_no_heavy_library():
    """`linguagym --help` and `import linguagym` start fast: models, web and cluster libraries load when used."""
    code = ("import sys, linguagym, linguagym.cli; linguagym.run_models; linguagym.RunSettings; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_every_entry_point_the_package_names_can_be_imported():
    import linguagym

    for name in linguagym.__all__:
        assert getattr(linguagym, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        linguagym.not_a_name  # noqa: B018
