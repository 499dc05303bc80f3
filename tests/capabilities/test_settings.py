"""The capability half's settings objects: frozen, checked once when made (naming the setting, not a flag), built
alike by every face; ``generate_tests`` records them in the file, and ``run_classifiers`` takes a test file object
as it takes a path."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings

import pytest

from linguagym.capabilities.data.datasets import read_rotten_tomatoes
from linguagym.capabilities.errors import SettingError
from linguagym.capabilities.expansion.settings import ExpansionSettings
from linguagym.capabilities.pipeline import generate_suite, generate_tests
from linguagym.capabilities.run import run_classifiers
from linguagym.capabilities.settings import (
    ClassifierOptions,
    ClassifierRunSettings,
    DatasetOptions,
    ExpansionOptions,
    GenerateSettings,
)
from linguagym.capabilities.testfile import write_tests
from tests.capabilities.lct_fakes import capability_file

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


@pytest.mark.parametrize("make, setting, message", [
    (lambda: GenerateSettings(max_seeds=0), "max_seeds", "must be 1 or more, not 0"),
    (lambda: GenerateSettings(templates="fixed"), "templates", "unknown template set 'fixed'"),
    (lambda: ExpansionSettings(fills_per_mask=0), "fills_per_mask", "must be 1 or more, not 0"),
    (lambda: ExpansionSettings(masked_per_seed=0), "masked_per_seed", "must be 1 or more, not 0"),
    (lambda: ExpansionSettings(max_masks=0), "max_masks", "must be 1 or more, not 0"),
    (lambda: ExpansionSettings(per_seed=-1), "per_seed", "must be 0 or more, not -1"),
    (lambda: ExpansionSettings(selection="best"), "selection", "unknown selection 'best'"),
    (lambda: ExpansionSettings(insertions="nouns"), "insertions", "unknown insertion set 'nouns'"),
    (lambda: ClassifierOptions(batch_size=0), "batch_size", "must be 1 or more, not 0"),
    (lambda: ClassifierOptions(retries=-1), "retries", "must be 0 or more, not -1"),
    (lambda: ClassifierOptions(timeout=0), "timeout", "must be more than 0 seconds, not 0"),
    (lambda: ClassifierRunSettings(("vader",), examples=-1), "examples", "must be 0 or more, not -1"),
    (lambda: ClassifierRunSettings(()), "classifiers", "names none"),
])
def test_a_value_no_run_can_take_fails_when_the_settings_are_made_naming_the_setting(make, setting, message):
    with pytest.raises(SettingError) as caught:
        make()
    assert caught.value.setting == setting and str(caught.value).startswith(f"`{setting}`")
    assert message in str(caught.value)
    assert "--" not in caught.value.message  # the library speaks of settings; each face respells them


def test_settings_are_frozen_and_normalised_once():
    settings = GenerateSettings(test_types="dir,MFT", spec_paths=["a.yaml"], cache_dir="cache")
    assert settings.test_types == ("MFT", "DIR")  # parsed once, in TEST_TYPES order
    assert settings.spec_paths[0].name == "a.yaml" and settings.cache_dir.name == "cache"
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_seeds = 0  # type: ignore[misc]
    assert GenerateSettings().expanding and not GenerateSettings(expansion=ExpansionOptions(enabled=False)).expanding
    run = ClassifierRunSettings("vader", output="out")  # one spec, not its characters
    assert run.classifiers == ("vader",) and run.output.name == "out"
    assert DatasetOptions(label_map={"0": "negative"}).loader_options()["label_map"] == {"0": "negative"}


def test_the_file_records_the_settings_it_was_made_with():
    settings = GenerateSettings(seed=4, max_seeds=None, templates="paper")
    record = settings.record(["LC2", "LC9"])
    assert record.to_json() == {"seed": 4, "max_seeds": None, "lcs": ["LC2", "LC9"], "templates": "paper"}


@pytest.mark.usefixtures("spacy_ready")
def test_generate_tests_writes_what_the_deprecated_keyword_form_wrote(rt_file, swn_file):
    settings = GenerateSettings(read_rotten_tomatoes(rt_file), lcs="LC2,LC4", lexicon_path=swn_file,
                                test_types="mft", expansion=ExpansionOptions(enabled=False))
    made = generate_tests(settings)
    assert made.settings == settings.record(["LC2", "LC4"])
    with pytest.warns(DeprecationWarning, match="generate_tests"):
        old = generate_suite(read_rotten_tomatoes(rt_file), lcs="LC2,LC4", lexicon_path=swn_file, test_types="mft")
    assert old.to_json() == made.to_json()
    with pytest.raises(SettingError, match="max_seeds"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        generate_suite(read_rotten_tomatoes(rt_file), max_seeds=0)


@pytest.mark.usefixtures("spacy_ready")
def test_generate_tests_shows_its_stages_by_default_and_nothing_when_turned_off(rt_file, swn_file, capsys):
    settings = GenerateSettings(read_rotten_tomatoes(rt_file), lcs="LC2", lexicon_path=swn_file, test_types="mft",
                                expansion=ExpansionOptions(enabled=False))
    quiet = generate_tests(settings, progress=False)
    assert capsys.readouterr().err == ""
    shown = generate_tests(settings)
    err = capsys.readouterr().err
    assert "loading spaCy, the dataset and the lexicon" in err and "searching capabilities: 1 capabilities" in err
    assert shown.to_json() == quiet.to_json()  # the display changes nothing in the file


def test_run_classifiers_takes_the_test_file_object_as_it_takes_its_path(tmp_path):
    document = capability_file()
    path = tmp_path / "tests.json"
    write_tests(document, path)
    by_path = run_classifiers(path, [KEYWORDS], output=tmp_path / "by-path",
                              options=ClassifierOptions(cache_dir=tmp_path / "cache"))
    by_object = run_classifiers(document, ClassifierRunSettings((KEYWORDS,), ClassifierOptions(
        cache_dir=tmp_path / "cache"), tmp_path / "by-object"))
    assert [o.passed for o in by_object[0].outcomes] == [o.passed for o in by_path[0].outcomes]
    record = json.loads((tmp_path / "by-object" / "results.json").read_text(encoding="utf-8"))
    # no path to record; the hash is the file's as write_tests writes it, so it matches the file read by path
    assert record["tests_file"]["path"] is None
    assert record["tests_file"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(TypeError, match="in its ClassifierRunSettings"):
        run_classifiers(document, ClassifierRunSettings((KEYWORDS,)), examples=2)
