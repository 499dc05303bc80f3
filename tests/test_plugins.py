"""A package outside linguagym adds a scorer and a classifier through the entry point groups
``linguagym.scorers`` and ``linguagym.classifiers`` (docs/plugins.md), and ``linguagym run`` and ``linguagym lct
test`` use them: the package is written under ``tmp_path`` (a module and its ``*.dist-info`` with
``entry_points.txt``) and put on PYTHONPATH, as ``pip install`` would put it on ``site-packages``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from linguagym import plugins
from tests.capabilities.lct_fakes import document
from tests.conftest import REPO

PLUGIN = '''
"""A third party's plug-in: surprisal = the length of each word; sentiment by the number of words."""
import re

from linguagym.capabilities.classifiers.base import LABELS, Classifier, Prediction
from linguagym.plugins import Adapter, prefix
from linguagym.scoring.protocol import ScoredText, TokenScore


class LengthScorer:  # a plain class: identity and score only
    def __init__(self, name):
        self.name = name

    @property
    def identity(self):
        return {"kind": "testplug-length", "model": self.name}

    def score(self, texts):
        return [ScoredText(text, tuple(TokenScore(m.group(0), -1, m.start(), m.end(), float(len(m.group(0))), False)
                                       for m in re.finditer(r"\\w+|[^\\w\\s]", text)))
                for text in texts]


def word_count_label(text):
    return LABELS[len(text.split()) % 3]


class WordCountClassifier(Classifier):
    def __init__(self, spec):
        self.spec = spec

    @property
    def identity(self):
        return {"kind": "testplug-words", "spec": self.spec}

    @property
    def name(self):
        return "testplug-words"

    def predict(self, texts):
        return [Prediction(word_count_label(t), tuple(1.0 if n == word_count_label(t) else 0.0 for n in LABELS))
                for t in texts]


SCORER = Adapter("testplug:NAME", "word lengths as surprisals", prefix("testplug:"),
                 lambda spec, options: LengthScorer(spec))
CLASSIFIER = Adapter("testplug:words", "sentiment by word count", prefix("testplug:"),
                     lambda spec, options: WordCountClassifier(spec))
'''


def _distribution(site: Path, name: str, module: str, source: str, entry_points: str) -> None:
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points), encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A directory holding the plug-in, and a broken plug-in whose module does not import."""
    site = tmp_path / "site"
    site.mkdir()
    _distribution(site, "linguagym-testplug", "linguagym_testplug", PLUGIN, """
        [linguagym.scorers]
        lengths = linguagym_testplug:SCORER
        [linguagym.classifiers]
        words = linguagym_testplug:CLASSIFIER
        """)
    _distribution(site, "broken-plug", "broken_plug", "import no_such_module_anywhere\n", """
        [linguagym.scorers]
        broken = broken_plug:SCORER
        """)
    return site


def _linguagym(site: Path, *argv: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    return subprocess.run([sys.executable, "-m", "linguagym.cli", *map(str, argv)], capture_output=True, text=True,
                          env=env, timeout=300)


def _suite() -> dict:
    """Two items whose outcome under word-length surprisals is known: the mismatched verb must be more
    surprising; 'swim' (4) is not more than 'swims' (5), 'runned' (6) is more than 'runs' (4)."""
    def item(number: int, match: str, mismatch: str) -> dict:
        return {"item_number": number, "conditions": [
            {"condition_name": name, "regions": [{"region_number": 1, "content": "The boy"},
                                                 {"region_number": 2, "content": verb},
                                                 {"region_number": 3, "content": "today."}]}
            for name, verb in (("match", match), ("mismatch", mismatch))]}

    return {"meta": {"name": "plugin-suite", "metric": "sum"},
            "region_meta": {"1": "subject", "2": "verb", "3": "rest"},
            "predictions": [{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"}],
            "items": [item(1, "swims", "swim"), item(2, "runs", "runned")]}


def test_run_scores_with_a_plugin_scorer(site: Path, tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(_suite()), encoding="utf-8")
    out = tmp_path / "out"
    done = _linguagym(site, "run", suite, "--model", "testplug:lengths", "--cache-dir", tmp_path / "cache", "-o", out)
    assert done.returncode == 0, done.stderr
    # the broken plug-in is named, and skipped, without a traceback
    assert "warning: linguagym skipped the plug-in entry point 'broken' (broken_plug:SCORER) of package " \
           "'broken-plug'" in done.stderr and "No module named 'no_such_module_anywhere'" in done.stderr
    assert "Traceback" not in done.stderr
    model_dir = out / "testplug_lengths"
    rows = list(csv.DictReader((model_dir / "items.csv").open(encoding="utf-8")))
    assert {row["item"]: row["correct"] for row in rows} == {"1": "FALSE", "2": "TRUE"}
    verbs = {(row["item"], row["condition"]): float(row["sum"])
             for row in csv.DictReader((model_dir / "regions.csv").open(encoding="utf-8")) if row["region"] == "2"}
    assert verbs == {("1", "match"): 5.0, ("1", "mismatch"): 4.0, ("2", "match"): 4.0, ("2", "mismatch"): 6.0}
    record = json.loads((model_dir / "run.json").read_text(encoding="utf-8"))
    assert record["scorer"] == {"kind": "testplug-length", "model": "testplug:lengths"}
    assert record["cache"]["misses"] == 4  # the plain class is scored behind linguagym's score cache


def test_lct_test_predicts_with_a_plugin_classifier(site: Path, tmp_path: Path) -> None:
    tests = tmp_path / "tests.json"
    tests.write_text(json.dumps(document()), encoding="utf-8")
    out = tmp_path / "out"
    done = _linguagym(site, "lct", "test", tests, "-c", "testplug:words", "--cache-dir", tmp_path / "cache",
                      "-o", out)
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads((out / "results.json").read_text(encoding="utf-8"))["classifiers"]
    assert entry["status"] == "ok" and entry["identity"] == {"kind": "testplug-words", "spec": "testplug:words"}
    rows = list(csv.DictReader((out / entry["directory"] / "tests.csv").open(encoding="utf-8")))
    labels = ("negative", "neutral", "positive")
    assert len(rows) == len(document()["tests"])
    assert [row["predicted"] for row in rows] == [labels[len(row["text"].split()) % 3] for row in rows]


def test_models_forms_lists_the_plugins_rows(site: Path) -> None:
    done = _linguagym(site, "models", "--forms")
    assert done.returncode == 0, done.stderr
    assert "testplug:NAME" in done.stdout and "word lengths as surprisals (plug-in: linguagym-testplug)" in done.stdout
    assert "sentiment by word count (plug-in: linguagym-testplug)" in done.stdout
    assert "HUB_ID" in done.stdout  # linguagym's own rows after the plug-ins'


def test_a_plugin_that_is_not_an_adapter_is_skipped_with_a_warning(monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    from importlib import metadata

    point = metadata.EntryPoint("odd", "json:dumps", plugins.SCORERS)
    monkeypatch.setattr(metadata, "entry_points", lambda group: [point] if group == plugins.SCORERS else [])
    plugins.refresh_plugins()
    try:
        assert plugins.plugin_adapters(plugins.SCORERS) == []
        assert "plug-in entry point 'odd' (json:dumps)" in caplog.text
        assert "it names function, not a linguagym.plugins.Adapter" in caplog.text
    finally:
        plugins.refresh_plugins()


def test_a_plugin_loader_that_fails_is_the_plugins_error_and_linguagyms_rows_are_not_wrapped() -> None:
    def broken(spec: str, options: object) -> object:
        raise KeyError("weights")

    rows = [plugins.Adapter("mine:NAME", "mine", plugins.prefix("mine:"), broken, origin="mine-plugin"),
            plugins.Adapter("OTHER", "linguagym's", plugins.anything, broken)]
    with pytest.raises(plugins.PluginError, match="plug-in 'mine:NAME' of package 'mine-plugin' could not load "
                       "'mine:x': KeyError"):
        plugins.load(rows, "mine:x", None)
    with pytest.raises(KeyError):  # a bug of linguagym's own rows stays a bug
        plugins.load(rows, "other", None)
