"""One accuracy per run and suite, everywhere (issue 36, item 3): the 34-suite syntaxgym-2020 collection is run
once, with ``linguagym run --collection syntaxgym-2020`` on a tiny random model, and every output of that run
shows the same SG score, circuit scores and suite accuracies, under the collection's policy (``first``): the
printed table, its CSV and Markdown, ``run.json``, ``results_*.json``, the report, ``linguagym score`` and
``linguagym compare`` of the folder, and the web app's run, compare, model and items pages and leaderboard.

The expected numbers are computed here from ``predictions.csv`` (each item: does its first prediction hold), not by
the library; the tiny model makes ``fgd_hierarchy`` differ between the two policies, so a face that used the
other policy would fail.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import shutil
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.evaluation.collections import load_collection
from linguagym.evaluation.lm_eval_results import RESULTS_FILE
from linguagym.web.db import RunRecord
from linguagym.web.jobs.worker import results_directory
from tests.conftest import SUITES_DIR
from tests.tiny_models import save_suites_lm

SG = load_collection("syntaxgym-2020")
MODEL = "sg-tiny"  # the model folder's name: its label in every table


@pytest.fixture(scope="module")
def sg_run(tmp_path_factory):
    """The collection run once (about 30 s on two cores): its output folder and what it printed."""
    if not SUITES_DIR.is_dir():
        pytest.skip(f"the project's shared data is not beside the checkout ({SUITES_DIR})")
    root = tmp_path_factory.mktemp("sg-run")
    model = save_suites_lm(root / MODEL, sorted(SUITES_DIR.glob("*.json")), vocab_size=2000, seed=5)
    out = root / "out"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(["run", "--collection", "syntaxgym-2020", "--suites-dir", str(SUITES_DIR), "--model",
                       str(model), "--device", "cpu", "--cache-dir", str(root / "cache"), "-o", str(out),
                       "--csv", str(root / "table.csv"), "--markdown", str(root / "table.md")])
    assert status == 0
    return {"out": out, "folder": out / MODEL, "model": str(model), "printed": printed.getvalue(),
            "csv": root / "table.csv", "markdown": root / "table.md"}


def _expected(folder: Path) -> dict[str, float]:
    """Row key (``score``, ``group:Agr``, ``suite:cleft``) -> accuracy under policy ``first``, from the
    outcome of each item's first prediction (predictions.csv)."""
    first: dict[str, dict[str, bool]] = defaultdict(dict)
    every: dict[str, dict[str, bool]] = defaultdict(dict)
    with (folder / "predictions.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            holds = row["holds"] == "TRUE"
            if row["prediction"] == "0":
                first[row["suite"]][row["item"]] = holds
            every[row["suite"]][row["item"]] = every[row["suite"]].get(row["item"], True) and holds
    accuracy = {suite: sum(items.values()) / len(items) for suite, items in first.items()}
    assert set(accuracy) == set(SG.suites)
    # the policy matters on this run: a face that used "all" would show another number
    assert accuracy["fgd_hierarchy"] != sum(every["fgd_hierarchy"].values()) / len(every["fgd_hierarchy"])
    expected = {f"suite:{suite}": value for suite, value in accuracy.items()}
    expected["score"] = sum(accuracy[s] for s in SG.score_suites) / len(SG.score_suites)
    for group in SG.groups:
        members = SG.group_suites(group)
        expected[f"group:{group.short}"] = sum(accuracy[s] for s in members) / len(members)
    return expected


def _key(label: str) -> str:
    """A table row's key from its label: ``SG score``, ``Agreement (Agr)``, ``fgd-embed3 *``."""
    label = label.strip().removesuffix(" *").strip()
    if label == "SG score":
        return "score"
    found = re.fullmatch(r".+ \((\w+)\)", label)
    return f"group:{found.group(1)}" if found else f"suite:{label}"


def _printed_rows(text: str) -> dict[str, str]:
    """Row key -> the value as a rich or Markdown table shows it (three decimals, interval set aside)."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"[│|]", line)[1:-1]]
        if len(cells) == 2 and re.match(r"^(\*\*)?\d\.\d{3}|^–", cells[1]):
            rows[_key(cells[0].strip("*"))] = cells[1].strip("*").split()[0]
    return rows


def _html_rows(page: str, table_id: str | None = None) -> dict[str, str]:
    """Row key -> the first value cell of each score, group and suite row of an HTML table."""
    if table_id is not None:
        page = re.search(rf'<table[^>]*id="{table_id}".*?</table>', page, re.S).group(0)
    rows = {}
    for body in re.findall(r"<tr class=\"?(?:score|group|suite)\"?>(.*?)</tr>", page, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)]
        rows[_key(cells[0])] = cells[1].split()[0]
    return rows


def _shown(expected: dict[str, float]) -> dict[str, str]:
    return {key: f"{value:.3f}" for key, value in expected.items()}


def test_every_output_of_a_collection_run_shows_the_same_accuracies(sg_run, tmp_path) -> None:
    folder = sg_run["folder"]
    expected = _expected(folder)
    shown = _shown(expected)

    # the printed table, its CSV and its Markdown
    assert "policy 'first'" in sg_run["printed"]
    assert _printed_rows(sg_run["printed"]) == shown
    assert _printed_rows(sg_run["markdown"].read_text(encoding="utf-8")) == shown
    with sg_run["csv"].open(newline="", encoding="utf-8") as handle:
        table = {f"{r['kind']}:{r['name']}".removeprefix("score:"): r for r in csv.DictReader(handle)}
    assert {key: float(r["accuracy"]) for key, r in table.items()} == pytest.approx(expected, abs=1e-6)
    assert {r["policy"] for r in table.values()} == {"first"}

    # run.json: each suite's accuracy, under the policy it names, and where that policy came from
    record = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert record["settings"]["policy"] is None  # none given: the collection's
    assert record["accuracy_policy"] == {"source": "collection syntaxgym-2020",
                                         "suites": dict.fromkeys(SG.suites, "first")}
    assert {f"suite:{s['name']}": s["accuracy"] for s in record["suites"]} == pytest.approx(
        {k: v for k, v in expected.items() if k.startswith("suite:")})
    assert all(s["policy"] == "first" and s["accuracy"] == s["accuracy_first"] for s in record["suites"])

    # results_*.json (lm-eval's layout): suites, circuits and the SG score
    [results_file] = [p for p in folder.iterdir() if RESULTS_FILE.fullmatch(p.name)]
    results = json.loads(results_file.read_text(encoding="utf-8"))
    lm_eval = {("score" if name == SG.name else f"group:{name}" if name in {g.short for g in SG.groups}
                else f"suite:{name}"): entry["acc,none"] for name, entry in results["results"].items()}
    assert lm_eval == pytest.approx(expected)
    assert {c["linguagym"]["policy"] for c in results["configs"].values()} == {"first"}

    # the report
    report = (sg_run["out"] / "report.html").read_text(encoding="utf-8")
    assert "policy <code>first</code>" in report
    assert _html_rows(report) == shown

    # what reads the folder again: score (the model's folder, its items.csv) and compare
    for argv in (["score", str(folder)], ["score", str(folder / "items.csv")], ["compare", str(sg_run["out"])]):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert main([*argv, "--bootstrap", "0"]) == 0
        assert "policy 'first'" in printed.getvalue(), argv
        assert _printed_rows(printed.getvalue()) == shown, argv


def test_the_web_pages_of_that_run_show_the_same_accuracies(sg_run, app, client) -> None:
    expected = _expected(sg_run["folder"])
    shown = _shown(expected)
    with app.extensions["sessions"]() as session:  # the run as the web app's worker would have left it
        run = RunRecord(status="done", models=[sg_run["model"]], settings={"device": "cpu", "policy": None,
                                                                          "batch_size": 16},
                        error="", progress_done=1, progress_total=1, progress_label="done", cancel_requested=False,
                        created_at=datetime(2026, 1, 1, tzinfo=UTC), finished_at=datetime(2026, 1, 1, tzinfo=UTC))
        session.add(run)
        session.commit()
        run_id = run.id
    shutil.copytree(sg_run["out"], results_directory(app.extensions["linguagym"], run_id))

    page = client.get(f"/runs/{run_id}").text
    assert _html_rows(page, "accuracy") == shown
    assert "Policy first (collection syntaxgym-2020)" in page
    page = client.get(f"/compare?run={run_id}").text
    assert _html_rows(page, "comparison") == shown
    assert "Policy first (collection syntaxgym-2020)" in page

    board = client.get("/leaderboard").text
    assert "data-other-policy" not in board  # the run's policy is the collection's: nothing to mark
    cells = dict(re.findall(r'data-col="([^"]+)">(?:<strong>|<a [^>]*>)?([\d.]+|–)', board))
    assert {key: cells[key] for key in shown} == shown

    page = client.get("/model", query_string={"name": sg_run["model"]}).text
    rows = re.findall(r"<tr class=\"latest\">\s*<td>([^<]*)</td>\s*<td class=\"num\">([^<]*)</td>.*?<code>(\w+)</code>",
                      page, re.S)
    assert {f"suite:{suite}": value for suite, value, _ in rows} == {k: v for k, v in shown.items()
                                                                     if k.startswith("suite:")}
    assert {policy for _, _, policy in rows} == {"first"}

    page = client.get(f"/runs/{run_id}/items?suite=fgd_hierarchy").text
    assert "Policy <code>first</code>" in page


def test_the_leaderboard_marks_a_number_it_shows_under_another_policy_than_its_runs(app, client) -> None:
    """A run given ``--policy all``: its own pages show ``all``; the leaderboard ranks every model under the
    collection's policy (``first``) and marks the cell, saying what the run shows."""
    with app.extensions["sessions"]() as session:
        run = RunRecord(status="done", models=["m"], settings={"policy": "all"}, error="", progress_done=1,
                        progress_total=1, progress_label="done", cancel_requested=False,
                        created_at=datetime(2026, 1, 1, tzinfo=UTC), finished_at=datetime(2026, 1, 1, tzinfo=UTC))
        session.add(run)
        session.commit()
        run_id = run.id
    folder = results_directory(app.extensions["linguagym"], run_id) / "m"
    folder.mkdir(parents=True)
    record = {"label": "m", "settings": {"model": "m", "policy": "all"}, "suites": [{"name": "fgd_hierarchy"}],
              "accuracy_policy": {"source": "given", "suites": {"fgd_hierarchy": "all"}}}
    (folder / "run.json").write_text(json.dumps(record), encoding="utf-8")
    # four items: the first prediction holds on three, every prediction on one
    (folder / "items.csv").write_text("model,suite,item,correct,correct_all\n" + "".join(
        f"m,fgd_hierarchy,{i},{i < 4},{i == 1}\n" for i in range(1, 5)), encoding="utf-8")

    board = client.get("/leaderboard").text
    assert re.search(r'data-col="suite:fgd_hierarchy"><a [^>]*>0\.750</a> <span [^>]*data-other-policy="all" '
                     r'title="its run shows 0\.250 under policy all; here under first', board)
    assert 'id="other-policies"' in board
    page = client.get("/model", query_string={"name": "m"}).text
    assert re.search(r'<td class="num">0\.250</td>.*?<code>all</code>', page, re.S)
