"""The reference grammar (#21): the Penn Treebank sample wherever NLTK would find it, and a loud warning naming
the cost and the remedy when ``auto`` falls back to the grammar induced from the dataset."""

from __future__ import annotations

import logging
import sys
import types
import zipfile
from pathlib import Path

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax import treebank
from linguagym.capabilities.syntax.grammar import INDUCED, choose_reference, load_reference_grammar
from tests.conftest import SHARED_DATA

TREES = """( (S (NP-SBJ (DT The) (NN film)) (VP (VBZ is) (ADJP-PRD (JJ long))) (. .)) )
( (S (NP-SBJ (DT A) (JJ new) (NN plot)) (VP (VBD was) (ADJP-PRD (RB quite) (JJ long))) (. .)) )
"""
GRAMMAR_LOG = "linguagym.capabilities.syntax.grammar"


@pytest.fixture
def nowhere(tmp_path, monkeypatch) -> Path:
    """No NLTK data in any place NLTK looks: $NLTK_DATA, home, the Python prefix, nltk.data.path (the system
    folders are left: a machine that has the treebank there skips the tests that need its absence)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("NLTK_DATA", str(empty))
    monkeypatch.setenv("HOME", str(empty))
    monkeypatch.setattr(sys, "prefix", str(empty))
    monkeypatch.setattr(sys, "base_prefix", str(empty))
    monkeypatch.delitem(sys.modules, "nltk.data", raising=False)
    if treebank.default_treebank() is not None:
        pytest.skip(f"this machine has a treebank in a system folder: {treebank.default_treebank()}")
    return empty


def _install_treebank(root: Path) -> Path:
    """A tiny treebank.zip laid out as NLTK's: ``<root>/corpora/treebank.zip`` holding ``combined/*.mrg``."""
    path = root / "corpora" / "treebank.zip"
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("treebank/combined/wsj_0001.mrg", TREES)
    return path


def test_the_treebank_is_found_wherever_nltk_would_look(nowhere, tmp_path, monkeypatch):
    assert treebank.default_treebank() is None
    places = {  # NLTK's order reversed: each place found wins over those added before it
        "nltk.data.path": (lambda root: monkeypatch.setitem(
            sys.modules, "nltk.data", types.SimpleNamespace(path=[str(root / "added")])), "added"),
        "environment prefix": (lambda root: monkeypatch.setattr(sys, "prefix", str(root)), "share/nltk_data"),
        "home": (lambda root: monkeypatch.setenv("HOME", str(root)), "nltk_data"),
        "NLTK_DATA": (lambda root: monkeypatch.setenv("NLTK_DATA", f"{nowhere}:{root / 'mine'}"), "mine"),
    }
    for name, (point_at, below) in places.items():
        root = tmp_path / name.replace(" ", "-")
        found = _install_treebank(root / below)
        point_at(root)
        assert treebank.default_treebank() == found, name


@pytest.mark.skipif(not (SHARED_DATA / "nltk_data" / "corpora" / "treebank.zip").is_file(), reason="no treebank")
def test_the_shared_treebank_sample_is_found_through_nltk_data(nowhere, monkeypatch, caplog):
    monkeypatch.setenv("NLTK_DATA", str(SHARED_DATA / "nltk_data"))
    with caplog.at_level(logging.WARNING, logger=GRAMMAR_LOG):
        assert choose_reference("auto") == "treebank"
    assert treebank.default_treebank() == SHARED_DATA / "nltk_data" / "corpora" / "treebank.zip"
    assert not caplog.records


def test_auto_without_the_treebank_warns_what_the_fallback_costs_and_how_to_mend_it(nowhere, caplog):
    with caplog.at_level(logging.WARNING, logger=GRAMMAR_LOG):
        assert choose_reference("auto") == INDUCED
    [record] = caplog.records
    message = record.getMessage()
    assert record.levelno == logging.WARNING
    for part in ("no Penn Treebank sample found", "F1", "0.81", "python -m nltk.downloader treebank", "NLTK_DATA",
                 "`reference` induced"):  # the setting, as the library names it
        assert part in message, part
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=GRAMMAR_LOG):  # asked for by name: no warning
        assert [choose_reference(r) for r in ("induced", "treebank", "induced:x.txt")] == [
            "induced", "treebank", "induced:x.txt"]
    assert not caplog.records


def test_auto_and_induced_are_not_paths(tmp_path):
    for reference in ("auto", "induced"):
        with pytest.raises(CapabilityError, match="chosen with the dataset"):
            load_reference_grammar(reference, cache_dir=tmp_path)


@pytest.mark.usefixtures("spacy_ready")
@pytest.mark.parametrize("treebank_installed", [False, True])
def test_the_file_records_which_grammar_was_used_and_the_warning_comes_first(
        treebank_installed, nowhere, rt_file, swn_file, tmp_path, monkeypatch, caplog):
    from linguagym.capabilities import pipeline
    from linguagym.capabilities.data import analysis
    from linguagym.capabilities.data.datasets import read_rotten_tomatoes
    from linguagym.capabilities.expansion import fill
    from linguagym.capabilities.expansion.settings import ExpansionSettings
    from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings
    from tests.capabilities.test_expand import FakeFiller

    if treebank_installed:
        _install_treebank(nowhere)
    monkeypatch.setattr(fill, "load_filler", lambda *args, **kwargs: FakeFiller())
    order: list[str] = []
    real_tagged = analysis.Analyser.tagged  # the dataset's tagging: the slow work
    monkeypatch.setattr(analysis.Analyser, "tagged",
                        lambda self, *a, **k: order.append("analysis") or real_tagged(self, *a, **k))
    data = read_rotten_tomatoes(rt_file)
    with caplog.at_level(logging.WARNING, logger=GRAMMAR_LOG):
        # when, among the steps, it was said (monkeypatch restores the handler, which pytest shares across tests)
        monkeypatch.setattr(caplog.handler, "emit", lambda record: order.append("warning"))
        document = pipeline.generate_tests(GenerateSettings(
            data, lexicon_path=swn_file, lcs="LC2", cache_dir=tmp_path / "cache",
            expansion=ExpansionOptions(parser="spacy", settings=ExpansionSettings(seeds_per_capability=2))))
    reference = document.expansion["reference"]
    assert reference["requested"] == "auto"
    if treebank_installed:
        assert reference["reference"] == "treebank" and not reference["induced"]
        assert reference["path"] == str(nowhere / "corpora" / "treebank.zip")
        assert "warning" not in order
    else:
        assert reference["reference"] == f"induced:{data.name}" and reference["induced"]
        assert reference["sentences"] == len(data.examples) and reference["parser"]["parser"] == "spacy"
        assert order[:2] == ["warning", "analysis"]  # said once, before the slow work, so it can be stopped
        assert order.count("warning") == 1
