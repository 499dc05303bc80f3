"""The paper's protocol by default (#21): at most 50 seeds per capability, a seeded random draw, in the library,
the command line and the web form; and a file of that shape leaves a training set for ``--exclude``."""

from __future__ import annotations

import argparse
import inspect
from dataclasses import replace

import pytest

from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.classifiers.train import split_examples, text_key, texts_to_exclude
from linguagym.capabilities.data.analysis import Analysis
from linguagym.capabilities.data.datasets import Dataset, Example
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.seeds.defaults import DEFAULT_MAX_SEEDS
from linguagym.capabilities.seeds.generate import generate_seeds
from linguagym.capabilities.seeds.specs import parse_spec
from linguagym.capabilities.settings import GenerateSettings
from linguagym.capabilities.testfile.model import (
    CapabilityInfo,
    CapabilityTestFile,
    CreatedBy,
    DatasetInfo,
    GenerationSettings,
)
from linguagym.cli.lct import add_lct_parser


def _dataset(pairs: int) -> Dataset:
    """``pairs`` positive and ``pairs`` negative sentences, all distinct, and a few neutral ones."""
    rows = [Example(f"p{i}", f"Film number {i} is a delight.", "positive", 0.9) for i in range(pairs)]
    rows += [Example(f"n{i}", f"Film number {i} is a chore.", "negative", 0.1) for i in range(pairs)]
    rows += [Example(f"u{i}", f"Film number {i} is two hours long.", "neutral", 0.5) for i in range(10)]
    return Dataset("fake", "memory", tuple(rows), "test labels", "0" * 64)


def _analyses(dataset: Dataset) -> list[Analysis]:
    """Searches below use labels only, so no tagger is needed."""
    return [Analysis(e.text, ()) for e in dataset.examples]


def _specs() -> list:
    """Eleven capabilities shaped like the shipped ones on the default dataset: each matches every negative or
    positive sentence (as LC8-LC11 nearly do), half of them draw a partner sentence of the other label (as LC3,
    LC6, LC8 do), so every test names one or two dataset rows."""
    specs = []
    for number in range(1, 12):
        cases = []
        for label, other in (("positive", "negative"), ("negative", "positive")):
            case = {"search": {"label": label}, "template": "{S|bare}? yes", "expected": label}
            if number % 2:
                case.update(sources={"O": {"label": other}}, template="They say {O|quote}, but I say {S|quote}.")
            cases.append(case)
        specs.append(parse_spec({"id": f"F{number}", "name": f"fake {number}", "cases": cases}))
    return specs


def _document(dataset: Dataset, max_seeds: int | None) -> CapabilityTestFile:
    """The test file ``generate_tests`` would write for ``_specs()`` (seeds only)."""
    results = generate_seeds(_specs(), dataset, _analyses(dataset), max_seeds=max_seeds)
    return CapabilityTestFile(
        created_by=CreatedBy(tool="linguagym", version="0"), dataset=DatasetInfo.from_json(dataset.describe()),
        settings=GenerationSettings(seed=0, max_seeds=max_seeds),
        capabilities=tuple(CapabilityInfo(id=r.spec.id, name=r.spec.name, seeds=len(r.tests), matches=tuple(r.matches))
                           for r in results),
        tests=tuple(t for r in results for t in r.tests))


def test_fifty_seeds_is_the_default_of_the_library():
    assert DEFAULT_MAX_SEEDS == 50
    assert GenerateSettings().max_seeds == DEFAULT_MAX_SEEDS
    assert inspect.signature(generate_seeds).parameters["max_seeds"].default == DEFAULT_MAX_SEEDS


def test_the_default_is_a_seeded_draw_from_every_match():
    dataset = _dataset(120)
    spec = parse_spec({"id": "T", "name": "t", "cases": [{"search": {"label": "positive"}, "expected": "positive"}]})

    def ids(**options) -> list[str]:
        return [t.id for t in generate_seeds([spec], dataset, _analyses(dataset), **options)[0].tests]

    everything, drawn = ids(max_seeds=None), ids()
    assert len(everything) == 120 and len(drawn) == 50 and len(set(drawn)) == 50
    assert set(drawn) < set(everything) and drawn == ids(max_seeds=50) == ids(seed=0)  # reproducible
    assert drawn != everything[:50]  # a random draw, not the first rows
    assert ids(seed=1) != drawn  # another seed draws other sentences


def test_exclude_leaves_both_labels_with_a_file_of_the_default_shape():
    dataset = _dataset(600)
    document = _document(dataset, DEFAULT_MAX_SEEDS)
    assert [c.seeds for c in document.capabilities] == [50] * 11
    excluded = texts_to_exclude(document)
    assert 11 * 50 < len(excluded) <= 11 * 50 * 3  # each seed's text and its source rows (one or two a test)
    split = split_examples(dataset, exclude_texts=excluded)
    assert split.counts["train_negative"] > 100 and split.counts["train_positive"] > 100
    used = {text_key(e.text) for e in split.train + split.dev}
    assert not used & {text_key(t) for t in excluded}

    # every match as seeds (the old default): the exclusions swallow the whole dataset
    with pytest.raises(ClassifierError, match="leaves 0 negative/positive rows"):
        split_examples(dataset, exclude_texts=texts_to_exclude(_document(dataset, None)))


def test_a_cap_of_zero_is_refused_before_any_work():
    with pytest.raises(CapabilityError, match="^`max_seeds` must be 1 or more") as error:  # the setting's name
        GenerateSettings(_dataset(3), max_seeds=0)
    assert "'all'" in error.value.hint


def _generate_args(*extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="linguagym")
    add_lct_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["lct", "generate", "-o", "t.json", *extra])


def test_cli_defaults_to_fifty_and_all_means_every_match(capsys):
    assert _generate_args().max_seeds == 50
    assert _generate_args("--max-seeds", "7").max_seeds == 7
    assert _generate_args("--max-seeds", "all").max_seeds is None
    assert _generate_args("--max-seeds", " ALL ").max_seeds is None
    for bad, message in (("0", "0 would keep no seeds"), ("-3", "must be 0 or more"), ("many", "not 'many'")):
        with pytest.raises(SystemExit):
            _generate_args("--max-seeds", bad)
        assert message in capsys.readouterr().err


def test_cli_passes_the_cap_to_the_library_and_says_where_it_cut(tmp_path, monkeypatch, capsys):
    from linguagym.capabilities import pipeline

    dataset, seen = _dataset(60), []

    def fake_generate(settings, **kwargs) -> CapabilityTestFile:
        seen.append(settings.max_seeds)
        return _document(dataset, settings.max_seeds)

    monkeypatch.setattr(pipeline, "generate_tests", fake_generate)
    monkeypatch.setattr("linguagym.cli.lct.require_extra", lambda *args, **kwargs: None)  # no spaCy needed here
    said = {}
    for cap, seeds in (([], 50), (["--max-seeds", "all"], 120), (["--max-seeds", "5"], 5)):
        args = _generate_args(*cap, "--no-expand")
        args.output = tmp_path / "t.json"
        assert args.func(args) == 0
        assert {c.seeds for c in _document(dataset, seen[-1]).capabilities} == {seeds}
        said[seeds] = " ".join(capsys.readouterr().err.split())
    assert seen == [50, None, 5]
    assert "F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11: 50 seeds drawn from more matches" in said[50]
    assert "--max-seeds all keeps every match" in said[5] and "drawn" not in said[120]


def test_the_fill_cache_is_on_unless_the_command_says_no(tmp_path, monkeypatch, capsys):
    """``lct generate`` keeps the filler's work (``fill_store``) unless ``--no-fill-cache``; the library's
    ``ExpansionOptions`` says the same by default, and the command hands the choice to the library."""
    from linguagym.capabilities import pipeline

    dataset, seen = _dataset(3), []

    def fake_generate(settings, **kwargs) -> CapabilityTestFile:
        seen.append(settings.expansion.fill_cache)
        document = _document(dataset, 50)
        if settings.expansion.fill_cache:  # what a run that read an earlier run's fills records
            document = replace(document, expansion={"fill_cache": {"path": "/c/fills",
                                                                   "found": {"contexts": 7, "windows": 9}}})
        return document

    monkeypatch.setattr(pipeline, "generate_tests", fake_generate)
    monkeypatch.setattr("linguagym.cli.lct.require_extra", lambda *args, **kwargs: None)  # no spaCy needed here
    assert pipeline.ExpansionOptions().fill_cache is True
    said = []
    for extra in ((), ("--no-fill-cache",)):
        args = _generate_args(*extra)
        args.output = tmp_path / "t.json"
        assert args.func(args) == 0
        said.append(" ".join(capsys.readouterr().err.split()))
    assert seen == [True, False]
    assert "7 left contexts and 9 scored windows came from the fill cache (/c/fills; --no-fill-cache" in said[0]
    assert "fill cache" not in said[1]


def test_every_seed_is_expanded_with_the_three_best_expansions_per_masked_sentence_by_default():
    """#21 item 1, expansion half: the library and the command line share one set of defaults: the paper's, but for
    the 3 best fills of each masked sentence in place of its 20 (defaults.py says why)."""
    from linguagym.capabilities.expansion.defaults import FILLS_PER_MASK, MASKED_PER_SEED, PAPER_FILLS_PER_MASK
    from linguagym.capabilities.expansion.expand import ExpansionSettings
    from linguagym.capabilities.expansion.fill import CausalFiller

    settings = ExpansionSettings()
    assert settings.seeds_per_capability is None and settings.per_seed is None  # every seed, every valid fill
    assert settings.fills_per_mask == FILLS_PER_MASK == 3 and settings.masked_per_seed == MASKED_PER_SEED
    # one mask's candidates are the filler's pool: it must hold 20 for `--expansions-per-mask 20` (the paper's) to
    # give a masked sentence 20 expansions
    assert inspect.signature(CausalFiller).parameters["pool"].default >= PAPER_FILLS_PER_MASK == 20
    args = _generate_args()
    assert (args.expand_seeds, args.expansions_per_seed) == (None, None)
    assert (args.expansions_per_mask, args.masked_per_seed) == (FILLS_PER_MASK, MASKED_PER_SEED)
    args = _generate_args("--expand-seeds", "5", "--expansions-per-seed", "3", "--expansions-per-mask", "4")
    assert (args.expand_seeds, args.expansions_per_seed, args.expansions_per_mask) == (5, 3, 4)


def test_cli_hands_the_expansion_settings_to_the_library(tmp_path, monkeypatch, capsys):
    from linguagym.capabilities import pipeline
    from linguagym.errors import LinguagymError

    dataset, seen = _dataset(5), []

    def fake_generate(settings, **kwargs) -> CapabilityTestFile:
        seen.append(settings.expansion.settings)
        return _document(dataset, 50)

    monkeypatch.setattr(pipeline, "generate_tests", fake_generate)
    monkeypatch.setattr("linguagym.cli.lct.require_extra", lambda *args, **kwargs: None)  # no spaCy needed here
    args = _generate_args("--masked-per-seed", "3", "--expansions-per-mask", "7")
    args.output = tmp_path / "t.json"
    assert args.func(args) == 0
    assert (seen[-1].masked_per_seed, seen[-1].fills_per_mask, seen[-1].per_seed) == (3, 7, None)
    from linguagym.cli import main

    for flag in ("--masked-per-seed", "--expansions-per-mask"):
        args = _generate_args(flag, "0")
        with pytest.raises(LinguagymError, match="must be 1 or more"):  # the library names the setting ...
            args.func(args)
        # ... and the command line writes it as the option that sets it
        assert main(["lct", "generate", "--lc", "LC1", flag, "0", "-o", str(tmp_path / "u.json")]) == 1
        assert f"{flag} must be 1 or more" in capsys.readouterr().err
