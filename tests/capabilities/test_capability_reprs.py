"""Capability results show a short summary in a notebook and a REPL: the default dataclass reprs listed every test
and every outcome (megabytes for a generated file of thousands of tests)."""

from __future__ import annotations

import dataclasses

from linguagym.capabilities.run import ClassifierRuns, run_classifiers
from linguagym.capabilities.settings import ClassifierOptions
from tests.capabilities.lct_fakes import EXPECTED, capability_file

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


def test_a_test_file_shows_its_counts_not_its_tests():
    document = capability_file()
    big = dataclasses.replace(document, tests=document.tests * 500)  # 8,000 tests
    shown = repr(big)
    assert shown.splitlines()[0] == "<CapabilityTestFile: 8,000 tests (MFT 8,000), 5 capabilities, dataset fixture>"
    assert "LC1 Short neutral: 2,500 tests" in shown and len(shown) < 1000
    html = big._repr_html_()
    assert html.count("<tr><td>") == len(document.capabilities) and "<td>2500</td>" in html and len(html) < 2000
    assert "A custom &lt;capability&gt;" in html  # names are escaped


def test_classifier_runs_show_each_classifiers_failures_in_a_line(tmp_path):
    runs = run_classifiers(capability_file(), [KEYWORDS], options=ClassifierOptions(cache_dir=tmp_path / "c"))
    [run] = runs
    failed = sum(seed_fail + expansion_fail for _, seed_fail, _, expansion_fail, _, _ in EXPECTED.values())
    tests = sum(seeds + expansions for seeds, _, expansions, _, _, _ in EXPECTED.values())
    assert (run.failed_tests, len(run.outcomes)) == (failed, tests)  # the control: 8 of 16, as lct_fakes works out
    assert repr(run) == f"<ClassifierRun {KEYWORDS!r}: 16 tests; MFT 8 of 16 failed (rate 0.500); {run.seconds:.1f} s>"
    broken = dataclasses.replace(run, name="broken", outcomes=[], error="the endpoint answered 500")
    both = ClassifierRuns([dataclasses.replace(run, outcomes=run.outcomes * 1000), broken])
    shown = repr(both)
    assert shown.splitlines() == [
        "<ClassifierRuns: 2 classifiers, 1 failed>",
        f"  {KEYWORDS}: 16,000 tests; MFT 8,000 of 16,000 failed (rate 0.500); {run.seconds:.1f} s",
        "  broken: failed: the endpoint answered 500"]
    html = both._repr_html_()
    assert html.count("<tr><td>") == 2 and "failed: the endpoint answered 500" in html and len(html) < 1000
    assert run._repr_html_().startswith(f"<p>{KEYWORDS}: 16 tests; MFT 8 of 16 failed")


def test_run_classifiers_shows_progress_by_default_and_not_when_turned_off(tmp_path, capsys):
    """As ``linguagym.run``: a notebook cell running capability tests says what it is doing, unless told not to."""
    run_classifiers(capability_file(), [KEYWORDS], options=ClassifierOptions(cache_dir=tmp_path / "quiet"),
                    progress=False)
    assert capsys.readouterr().err == ""
    run_classifiers(capability_file(), [KEYWORDS], options=ClassifierOptions(cache_dir=tmp_path / "shown"))
    assert "16 texts to do" in capsys.readouterr().err
