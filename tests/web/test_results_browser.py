"""The leaderboard in a real headless Chromium: sort by a column, see a withheld SG score and its missing suites,
follow a model to its page.

With ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` it also saves docs/images/web-leaderboard.png and web-model.png, drawn from
the per-item results of Hu et al. (2020) in ``../shared/data`` when they are there (read, never copied).
"""

from __future__ import annotations

import csv
from datetime import timedelta
from pathlib import Path

import pytest

from tests.web.conftest import serve_in_thread
from tests.web.test_browser import SHOTS, _shot, browser, expect  # noqa: F401  (the Chromium fixture)
from tests.web.test_results_pages import SG, T0, _finished_run

HU2020 = Path(__file__).resolve().parents[3] / "shared" / "data" / "syntaxgym" / "hu2020-results"


@pytest.fixture
def served(tmp_path):
    """The application on a free port (no worker: these runs are written as finished), and the app itself."""

    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "data", start_worker=False, cache_dir=tmp_path / "cache"))
    with serve_in_thread(app) as url:
        yield app, url
    app.extensions["worker"].stop()


def _paper_results(name: str) -> dict[str, list[bool]]:
    by_suite: dict[str, list[bool]] = {}
    with (HU2020 / name).open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["model"].endswith("_0"):  # the first of the paper's random seeds
                by_suite.setdefault(row["suite"], []).append(row["correct"] == "TRUE")
    return by_suite


def _runs(app) -> None:
    if SHOTS and HU2020.is_dir():  # the screenshots show real models' results
        _finished_run(app, {"gpt2": _paper_results("gpt-2-pretrained_.csv"),
                            "gpt2-xl": _paper_results("gpt-2-xl-pretrained_.csv")}, finished=T0, paper=True)
        rnn = _paper_results("grnn_.csv")
        _finished_run(app, {"grnn": {s: v for s, v in rnn.items() if not s.startswith("npi")},
                            "jrnn": _paper_results("jrnn_.csv")}, finished=T0 + timedelta(hours=2), paper=True)
        return
    _finished_run(app, {"lab/full": {s: [True, i % 3 == 0] for i, s in enumerate(SG.suites)}}, finished=T0)
    _finished_run(app, {"lab/partial": {s: [True] for s in SG.suites[3:]}}, finished=T0 + timedelta(hours=1))


def test_sort_the_leaderboard_and_follow_a_model(browser, served):  # noqa: F811
    app, url = served
    _runs(app)
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=url)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto("/runs")
    page.click("header nav >> text=Leaderboard")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(4 if SHOTS and HU2020.is_dir() else 2)
    withheld = page.locator("#missing-suites p").first
    expect(withheld).to_contain_text("withheld")
    expect(page.locator("#leaderboard th.sorted")).to_contain_text("SG score ▼")
    _shot(page, "leaderboard")
    first_before = rows.first.get_attribute("data-model")
    page.click("#leaderboard thead >> text=n suites")  # most suites first: the withheld model sinks to the bottom
    expect(page.locator("#leaderboard th.sorted")).to_contain_text("n suites ▼")
    page.click("#leaderboard thead >> text=n suites")  # again: fewest first
    expect(page.locator("#leaderboard th.sorted")).to_contain_text("n suites ▲")
    assert rows.first.get_attribute("data-model") != first_before or rows.count() == 1
    model = rows.first.get_attribute("data-model")
    rows.first.locator("td.model-name > a").click()
    expect(page.locator("h1.model-title")).to_have_text(model)
    expect(page.locator("#model-results tbody tr").first).to_be_visible()
    _shot(page, "model", full=True)
    context.close()
