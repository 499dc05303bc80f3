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


def test_a_suite_result_shows_its_predictions_in_a_notebook():
    result = run_suites(PATHS[:1], RunSettings(model="fake"), scorer=WordScorer(lambda word, index: float(index)))
    [suite] = result.suites
    html = suite._repr_html_()
    shares = suite.prediction_accuracy()
    assert html.count("<tr><td>") == len(suite.suite.predictions) == len(shares)
    assert "<td>P0</td>" in html and f"{shares[0]:.3f}" in html and len(html) < 2000


def _many_suites(tmp_path):
    """Two models' folders over 30 suites: more rows than a view lists (notebook_view.SHOWN)."""
    from tests.evaluation.test_effect_comparison import _run_folder

    alpha = {(f"suite{n:02d}", 0, 0): [1.0 + n, 2.0, -1.0, 0.5] for n in range(30)}
    beta = {(f"suite{n:02d}", 0, 0): [1.0, 1.0, 1.0, 1.0 + n % 3] for n in range(30)}
    return _run_folder(tmp_path / "r1", "alpha", alpha), _run_folder(tmp_path / "r2", "beta", beta)


def test_comparisons_show_at_most_twenty_rows_and_say_how_many_more(tmp_path):
    from linguagym.evaluation.comparison import compare_models
    from linguagym.evaluation.effect_comparison import compare_model_effects
    from linguagym.evaluation.summary import SummarySettings
    from linguagym.notebook_view import SHOWN

    one, two = _many_suites(tmp_path)
    for found, head in ((compare_models([one, two], SummarySettings(bootstrap=50)), "<ModelComparison (suite): 30"),
                        (compare_model_effects([one, two], SummarySettings(bootstrap=50)), "<EffectComparison: 30")):
        assert len(found.rows) == 30  # the control: the table itself is whole
        shown = repr(found)
        lines = shown.splitlines()
        assert lines[0].startswith(head) and len(lines) == 1 + SHOWN + 1 and lines[-1] == "  ... (10 more)"
        assert "suite00" in lines[1] and "alpha vs beta" in lines[1] and len(shown) < 3000
        html = found._repr_html_()
        assert html.count("<tr><td>") == SHOWN and "and 10 more rows" in html and len(html) < 6000


def test_a_view_escapes_what_it_shows():
    from linguagym.notebook_view import html_view, text_view

    assert html_view("<b>", ("a&b",), [("<script>",)]) == (
        "<p>&lt;b&gt;</p><table><thead><tr><th>a&amp;b</th></tr></thead><tbody><tr><td>&lt;script&gt;</td></tr>"
        "</tbody></table>")
    assert text_view("X: 2", ["one", "two"], shown=1) == "<X: 2>\n  one\n  ... (1 more)"
