"""The compare page's paired comparison (difference, interval, McNemar p, Holm-adjusted p; its CSV), and published
per-item results imported as a finished run: on the leaderboard beside a local run's model, on a suite's page and in
Compare, marked imported; a forged import refused."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from linguagym.evaluation.comparison import COLUMNS
from linguagym.web.db import RunRecord
from tests.conftest import minimal_suite
from tests.web.test_results_pages import SG, T0, _cell, _finished_run, _rows

PAPER_GPT2 = (Path(__file__).resolve().parents[3] / "shared" / "data" / "syntaxgym" / "hu2020-results"
              / "gpt-2-pretrained_.csv")


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_compare_page_shows_the_paired_comparison_and_its_csv(app, client):
    a = _finished_run(app, {"org/alpha": {"cleft": [True] * 10, "mvrr": [True, False]}}, finished=T0)
    b = _finished_run(app, {"org/beta": {"cleft": [True] + [False] * 9, "mvrr": [True, True]}},
                      finished=T0 + timedelta(hours=1))
    page = client.get("/compare", query_string={"run": [a, b]})
    assert page.status_code == 200
    table = page.text.split('id="paired"', 1)[1].split("</table>", 1)[0]
    for column in ("a − b [95% CI]", "p (McNemar)", "p (Holm)"):
        assert column in table
    cleft = _text(table.split('data-suite="cleft"', 1)[1].split("</tr>", 1)[0])
    # 9 items only alpha gets right: McNemar p = 2/512 = 0.00391; Holm over the 2 suites doubles it
    assert cleft.startswith(f"> cleft run {a}: alpha run {b}: beta 10 +0.900 [")
    assert "9 / 0 0.00391 0.00781" in cleft
    assert "Holm-adjusted over the 2 tests of this table" in page.text
    download = client.get("/compare/paired.csv", query_string={"run": [a, b]})
    rows = list(csv.DictReader(io.StringIO(download.text)))
    assert download.status_code == 200 and tuple(rows[0]) == COLUMNS
    assert rows[0]["suite"] == "cleft" and rows[0]["p_holm"] == repr(4 / 512)
    assert client.get("/compare/paired.csv").status_code == 400  # no run chosen: a refusal, not a 500


def _items_file(rows: list[tuple[str, str, int, bool]]) -> bytes:
    handle = io.StringIO()
    writer = csv.writer(handle)
    writer.writerow(["model", "suite", "item", "correct"])
    writer.writerows(rows)
    return handle.getvalue().encode()


def _import(client, raw: bytes, name: str = "", filename: str = "results.csv", **extra):
    data = {"results_file": (io.BytesIO(raw), filename), "name": name, **extra}
    return client.post("/runs/import", data=data, content_type="multipart/form-data")


@pytest.mark.skipif(not PAPER_GPT2.is_file(), reason="needs ../shared/data (Hu et al. 2020's per-item results)")
def test_the_papers_gpt2_results_appear_on_the_leaderboard_beside_a_local_model_marked_imported(app, client):
    local = {s: [True, i % 3 == 0] for i, s in enumerate(SG.suites)}
    _finished_run(app, {"smollm2-135m": local}, finished=T0, paper=True)
    reply = _import(client, PAPER_GPT2.read_bytes(), name="GPT-2 (Hu et al. 2020)", filename=PAPER_GPT2.name)
    assert reply.status_code == 302, reply.text
    board = client.get("/leaderboard").text
    assert sorted(_rows(board)) == ["GPT-2 (Hu et al. 2020) [imported]", "smollm2-135m"]
    imported_row = board.split('<tr data-model="GPT-2 (Hu et al. 2020) [imported]">', 1)[1].split("</tr>", 1)[0]
    local_row = board.split('<tr data-model="smollm2-135m">', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge imported"' in imported_row and "imported" not in local_row
    # the paper's number: center_embed, first seed of GPT-2, from its file
    rows = [r for r in csv.DictReader(PAPER_GPT2.open(encoding="utf-8")) if r["suite"] == "center_embed"]
    expected = sum(r["correct"] == "True" for r in rows) / len(rows)
    assert _cell(board, "GPT-2 (Hu et al. 2020) [imported]", "suite:center_embed") == f"{expected:.3f}"
    sessions = app.extensions["sessions"]
    with sessions() as session:
        run = session.query(RunRecord).filter(RunRecord.settings.isnot(None)).order_by(RunRecord.id.desc()).first()
        assert run.status == "done" and run.settings["imported"]["file"] == PAPER_GPT2.name
        run_id = run.id
    folder = app.extensions["linguagym"].data_dir / "runs" / str(run_id) / "results"
    record = json.loads(next(folder.glob("*/run.json")).read_text(encoding="utf-8"))
    assert record["imported"]["items_shifted_by_one"] is True  # the paper counts items from 0, suites from 1
    run_page = client.get(f"/runs/{run_id}").text
    assert 'id="imported"' in run_page and "center_embed" in run_page
    assert "/items?suite=" not in run_page  # no item pages: an imported run has each item's outcome only
    items = client.get(f"/runs/{run_id}/items", query_string={"suite": "center_embed"})
    assert items.status_code == 404 and "holds imported per-item outcomes only" in items.text
    assert client.get(f"/runs/{run_id}/suites/center_embed/items/1").status_code == 404
    assert client.get(f"/runs/{run_id}/regions.svg", query_string={"suite": "center_embed"}).status_code == 404
    # an imported model named as a local one is another row: results of two sources never mix
    _import(client, _items_file([("x", "center_embed", 0, False)]), name="smollm2-135m")
    assert sorted(_rows(client.get("/leaderboard").text)) == [
        "GPT-2 (Hu et al. 2020) [imported]", "smollm2-135m", "smollm2-135m [imported]"]


def test_an_imported_model_is_on_its_suites_page_and_in_compare_marked_imported(app, client):
    suite = minimal_suite()  # two items
    client.post("/suites/upload", data={"suite_file": (io.BytesIO(json.dumps(suite).encode()), "tiny.json")},
                content_type="multipart/form-data")
    name = suite["meta"]["name"]
    local = _finished_run(app, {"lab/model": {name: [True, False]}}, finished=T0, paper=True)
    reply = _import(client, _items_file([("paper-lm__0", name, 0, False), ("paper-lm__0", name, 1, True)]),
                    name="paper LM")
    assert reply.status_code == 302, reply.text
    imported_id = int(reply.headers["Location"].rsplit("/", 1)[1])
    suites = client.get("/suites").text
    suite_id = re.search(r'href="/suites/(\d+)"', suites).group(1)
    page = client.get(f"/suites/{suite_id}").text
    row = page.split('data-model="paper LM [imported]">', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge imported"' in row
    compare = client.get("/compare", query_string={"run": [local, imported_id]}).text
    head = compare.split('id="comparison"', 1)[1].split("</thead>", 1)[0]
    assert f"run {imported_id}: paper LM" in head and 'class="badge imported"' in head
    assert head.count("badge imported") == 1  # the local run's column is not marked
    paired = _text(compare.split('id="paired"', 1)[1].split("</table>", 1)[0])
    # items shifted from 0 to 1: local (True, False) against imported (False, True): 1 / 1 discordant, p = 1
    assert f"run {local}: model run {imported_id}: paper LM 2 +0.000" in paired and "1 / 1 1 1" in paired


def test_a_forged_or_broken_import_changes_nothing(app, client):
    raw = _items_file([("m", "cleft", 1, True)])
    forged = client.raw.post("/runs/import", data={"results_file": (io.BytesIO(raw), "r.csv")},
                             content_type="multipart/form-data")  # no CSRF token
    assert forged.status_code == 400 and "expired or came from another site" in forged.text
    other_site = client.post("/runs/import", data={"results_file": (io.BytesIO(raw), "r.csv")},
                             content_type="multipart/form-data", headers={"Origin": "https://evil.example"})
    assert other_site.status_code == 403
    broken = _import(client, b"model,suite,item\nm,cleft,1\n", filename="<b>x</b>.csv")
    assert broken.status_code == 400 and "expected at least model, suite, item, correct" in broken.text
    assert "<b>x</b>" not in broken.text
    missing = _import(client, raw, models="nobody")
    assert missing.status_code == 400 and "has no model named" in missing.text
    with app.extensions["sessions"]() as session:
        assert session.query(RunRecord).count() == 0
    assert _rows(client.get("/leaderboard").text) == []


def test_one_run_chosen_twice_keeps_the_accuracy_table_without_a_pairing(app, client):
    run = _finished_run(app, {"org/alpha": {"cleft": [True, False]}}, finished=T0)
    page = client.get("/compare", query_string={"run": [run, run]})
    assert page.status_code == 200 and 'id="comparison"' in page.text and 'id="paired"' not in page.text
    assert client.get("/compare/paired.csv", query_string={"run": [run, run]}).status_code == 400
