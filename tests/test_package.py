"""The package a lab installs: ``python -m linguagym``, the licence and type marker in the wheel's sources, and an
sdist whose own tests run from the unpacked archive (conftest, tiny models and test subpackages included)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_python_dash_m_linguagym_is_the_command():
    result = subprocess.run([sys.executable, "-m", "linguagym", "--help"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "usage: linguagym" in result.stdout


def test_licence_and_type_marker_are_shipped():
    import tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "MIT License" in (REPO / "LICENSE").read_text(encoding="utf-8")
    assert project["project"]["license"] == "MIT" and project["project"]["license-files"] == ["LICENSE"]
    assert (REPO / "linguagym" / "py.typed").is_file()
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["linguagym"]
    assert "Typing :: Typed" in project["project"]["classifiers"]


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("build") is None, reason="the 'build' package is not installed")
def test_sdist_tests_run_from_the_unpacked_sdist(tmp_path):
    # the sdist, then the wheel built from the unpacked sdist (build's default): what a packager does
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "-o", str(tmp_path / "dist"),
                            str(REPO)], capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (archive,) = (tmp_path / "dist").glob("linguagym-*.tar.gz")
    (wheel,) = (tmp_path / "dist").glob("linguagym-*.whl")
    _check_wheel(wheel)
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
        tar.extractall(tmp_path / "unpacked", filter="data")
    (root,) = (tmp_path / "unpacked").iterdir()
    prefix = root.name + "/"
    for needed in ("LICENSE", "linguagym/py.typed", "tests/conftest.py", "tests/tiny_models.py",
                   "tests/web/conftest.py", "tests/suites/__init__.py", "tests/fixtures", "ci/floors.txt"):
        assert prefix + needed in names, needed
    assert not any("__pycache__" in name for name in names)
    # The unpacked sources, not the checkout, are what these tests import.
    env = {**os.environ, "PYTHONPATH": str(root)}
    tests = ["tests/suites/test_formula.py", "tests/test_printable.py", "tests/test_package.py::"
             "test_licence_and_type_marker_are_shipped"]
    probe = subprocess.run([sys.executable, "-c", "import linguagym; print(linguagym.__file__)"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=120)
    assert probe.stdout.strip().startswith(str(root)), probe.stdout + probe.stderr
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=root, env=env,
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert " passed" in ran.stdout and "error" not in ran.stdout.lower().split("passed")[-1]


def _check_wheel(path: Path) -> None:
    """The wheel a lab installs: the licence, the type marker, the shipped data and schemas, the metadata a package
    index shows (licence expression, classifiers), and none of the tests."""
    import email
    import zipfile

    with zipfile.ZipFile(path) as wheel:
        names = set(wheel.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        info = email.message_from_bytes(wheel.read(metadata))
        info_dir = metadata.rsplit("/", 1)[0]
        assert "MIT License" in wheel.read(f"{info_dir}/licenses/LICENSE").decode("utf-8")
    for needed in ("linguagym/py.typed", "linguagym/data/schemas/run.schema.json",
                   "linguagym/data/schemas/results.schema.json", "linguagym/web/templates/base.html"):
        assert needed in names, needed
    assert not any(name.startswith("tests/") for name in names)
    assert info["License-Expression"] == "MIT" and info["Name"] == "linguagym"
    classifiers = info.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and any(c.startswith("Development Status ::") for c in classifiers)
    assert "Programming Language :: Python :: 3.11" in classifiers


def test_the_classifiers_name_a_status_and_each_python_version_the_floor_allows():
    """A package index filters by these: a development status, and one classifier per Python minor version from
    ``requires-python``'s floor to the newest claimed, with no gap."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    classifiers = project["classifiers"]
    assert len([c for c in classifiers if c.startswith("Development Status :: ")]) == 1
    floor = int(project["requires-python"].removeprefix(">=3."))
    minors = sorted(int(c.rsplit(".", 1)[1]) for c in classifiers
                    if c.startswith("Programming Language :: Python :: 3.") and c.count(".") == 1)
    assert minors[0] == floor and minors == list(range(floor, floor + len(minors)))
    assert "Programming Language :: Python :: 3 :: Only" in classifiers


def test_every_environment_variable_read_is_documented_in_the_readme():
    import re

    read = set()
    for path in (REPO / "linguagym").rglob("*.py"):
        # every mention, quoted or not (an f-string or a docstring names one as well)
        read |= set(re.findall(r"\b(LINGUAGYM_[A-Z][A-Z_]*)", path.read_text(encoding="utf-8")))
    assert {"LINGUAGYM_CACHE_DIR", "LINGUAGYM_THREADS"} <= read  # the control: the scan finds them
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Environment variables", 1)[1].split("\n## ", 1)[0]
    assert sorted(name for name in read if f"`{name}`" not in table) == []


def test_type_checkers_see_each_public_name_where_it_is_imported_from():
    """``linguagym/__init__.py`` imports every public name under TYPE_CHECKING (so a type checker sees its real
    type, not the lazy ``__getattr__``'s Any) from the module its lazy table names."""
    import ast

    import linguagym

    tree = ast.parse((REPO / "linguagym" / "__init__.py").read_text(encoding="utf-8"))
    typed = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                for alias in statement.names:
                    typed[alias.asname or alias.name] = statement.module
    assert typed == linguagym._ENTRY_POINTS
    assert linguagym.__all__ == ["__version__", *linguagym._ENTRY_POINTS]
    for name in linguagym._ENTRY_POINTS:
        assert getattr(linguagym, name) is not None


def test_runtime_requirements_are_floors_and_each_cap_names_its_break():
    """Floors only, as lm-evaluation-harness: a cap (``<``) on a runtime requirement must say, in a comment on its
    line or the line above, which break it avoids. The development tools are exempt."""
    import re

    lines = (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("dependencies = ["))
    end = next(i for i, line in enumerate(lines) if line.startswith("dev = ["))
    capped = []
    for number in range(start, end):
        for requirement in re.findall(r'"([^"#]+)"', lines[number].split("#", 1)[0]):
            if "<" in requirement:
                capped.append(requirement)
                assert "#" in lines[number] or lines[number - 1].lstrip().startswith("#"), requirement
    assert any(r.startswith("torch>=") for line in lines[start:end] for r in re.findall(r'"([^"]+)"', line))
    assert capped == ["spacy>=3.7.5,<3.9", "thinc>=8.2.2,<8.4"]


def test_the_lct_extra_asks_no_thinc_its_spacy_refuses():
    """thinc is declared beside spaCy (we import it): a range wider than every allowed spaCy's made pip try thinc
    9.1.1 first, and on Python 3.13, where it has no wheel, fail building it from source instead of backtracking.
    spaCy 3.7.5 requires thinc >=8.2.2,<8.3 and 3.8.x >=8.3.4,<8.4 (their metadata)."""
    import tomllib

    from packaging.requirements import Requirement

    extra = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    by_name = {r.name: r.specifier for r in map(Requirement, extra["lct"])}
    assert not by_name["spacy"].contains("3.9.0") and by_name["spacy"].contains("3.8.7")
    assert by_name["thinc"].contains("8.2.2") and by_name["thinc"].contains("8.3.14")  # both spaCy lines' own
    assert not by_name["thinc"].contains("8.4.0") and not by_name["thinc"].contains("9.1.1")


def test_the_dev_group_holds_the_dev_extras_tools():
    """``make install-dev`` installs the tools from the PEP 735 group; ``pip install -e '.[dev]'`` (older pips)
    from the extra: the two name the same tools, and the Makefile installs the extras the dev extra names."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extra = project["project"]["optional-dependencies"]["dev"]
    (own,) = [r for r in extra if r.startswith("linguagym[")]
    assert sorted(r for r in extra if r != own) == sorted(project["dependency-groups"]["dev"])
    assert any(r.startswith("mypy") for r in project["dependency-groups"]["dev"])
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert f"DEV_EXTRAS := {own[len('linguagym['):-1]}\n" in makefile
    assert "--group dev" in makefile


def test_the_readme_has_no_relative_links():
    """The README is the long description a package index shows, where a relative link goes nowhere; the project
    metadata names no repository URL to make them absolute with, so the README names paths (``docs/web.md``, files
    of the sdist and the repository) instead of linking them."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)", readme) + re.findall(r"(?:href|src)=[\"']([^\"']+)", readme)
    targets += re.findall(r"^\[[^\]]+\]:\s*(\S+)", readme, flags=re.M)  # reference-style definitions
    relative = [t for t in targets if not re.match(r"(https?://|mailto:|#)", t)]
    assert relative == []
    assert "`docs/web.md`" in readme  # the control: the paths are still named


def _fake_torch_wheel(folder: Path) -> None:
    """A wheel named torch 2.13.0 (metadata only): what pip's find-links would offer on a machine holding one."""
    import zipfile

    folder.mkdir()
    info = "torch-2.13.0.dist-info"
    with zipfile.ZipFile(folder / "torch-2.13.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("torch/__init__.py", "")
        wheel.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0\n")
        wheel.writestr(f"{info}/WHEEL",
                       "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_installs_torch_from_the_cpu_index_where_no_local_build_exists(tmp_path):
    """`make demo`'s torch route, decided without the network: a build pip finds locally (find-links) is used;
    otherwise the command names PyTorch's CPU index. Nothing is downloaded (`make torch-route` only prints)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf's find-links or index: only what the test gives

    def route(**extra: str) -> str:
        done = subprocess.run(["make", "-s", "torch-route", f"PYTHON={sys.executable}"], cwd=REPO, timeout=120,
                              env={**env, **extra}, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert route(PIP_NO_INDEX="1") == "pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0"
    _fake_torch_wheel(tmp_path / "wheels")
    assert route(PIP_FIND_LINKS=str(tmp_path / "wheels")) == "pip install torch==2.13.0"
