"""Result objects show a short summary in a notebook and a REPL: the default dataclass reprs listed every condition
and prediction (201 KB for the three example suites, 12.4 MB for the 34 SyntaxGym suites)."""

from __future__ import annotations

from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.suites import example_suite_paths
from tests.evaluation.fakes import WordScorer

PATHS = [str(p) for p in example_suite_paths()]


def test_a_run_result_and_its_suites_show_a_short_summary():
    result = run_suites(PATHS, RunSettings(model="fake"), scorer=WordScorer(lambda word, index: float(index)))
    shown = repr(result)
    assert len(shown) < 600 and shown.startswith("<RunResult 'fake': 3 suites")
    for suite in result.suites:
        expected = result.accuracy(suite)
        assert f"{suite.suite.name} {expected:.3f}" in shown
        assert len(repr(suite)) < 300 and f"{suite.accuracy('all'):.3f} (all)" in repr(suite)
    html = result._repr_html_()
    assert html.count("<tr><td>") == 3 and "agreement_across_pp" in html


def test_model_runs_show_each_model_in_a_line(tmp_path):
    done = run_models(PATHS, [RunSettings(model="fake")], output=tmp_path / "out", report=False,
                      scorers=lambda settings: WordScorer())
    shown = repr(done)
    assert shown.splitlines()[0] == "<ModelRuns: 1 models, 0 failed>" and len(shown) < 800
    assert "<RunResult 'fake'" in shown.splitlines()[1]
