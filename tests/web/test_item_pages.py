"""A run's item pages through Flask's test client: the item list's filters (failing items, items the models disagree
on) and one item in detail (each model's surprisal per region as regions.csv holds it, tokens on demand, each
prediction's terms), with escaping and 404s. One run of two tiny models, shared by the tests of this module."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from markupsafe import escape

from linguagym.suites import example_suite_paths
from tests.conftest import minimal_suite
from tests.tiny_models import save_example_suites_lm

EVIL = "<script>alert('x')</script>"


@pytest.fixture(scope="module")
def run(tmp_path_factory, tiny_lm_dir):
    """Run 1: npz_comma and a suite whose name and words hold markup, on two tiny models (the random models pass
    npz_comma's prediction on some items, not all, and disagree on some)."""
    from linguagym.web import WebConfig, create_app
    from linguagym.web.jobs.worker import results_directory
    from tests.web.conftest import Client

    root = tmp_path_factory.mktemp("item-pages")
    other_lm = save_example_suites_lm(root / "other-lm", vocab_size=600, seed=11)
    app = create_app(WebConfig.build(root / "data", start_worker=False, cache_dir=root / "cache"))
    client = Client(app)
    evil = minimal_suite(meta={"name": f"evil {EVIL}", "metric": "sum"})
    evil["items"][0]["conditions"][0]["regions"][1]["content"] = f"<b>swims</b>{EVIL}"
    npz_comma = next(path for path in example_suite_paths() if path.stem == "npz_comma")
    uploads = [(npz_comma.read_bytes(), "npz_comma.json"), (json.dumps(evil).encode(), "evil.json")]
    for data, name in uploads:
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(data), name)}, content_type="multipart/form-data")
    response = client.post("/runs", data={"suite": ["1", "2"], "other_models": f"{tiny_lm_dir}\n{other_lm}",
                                          "device": "cpu", "batch_size": "8", "policy": "all"})
    assert response.status_code == 302, response.text
    assert app.extensions["worker"].run_next()
    assert client.get("/api/runs/1").json["status"] == "done"
    yield client, results_directory(app.extensions["linguagym"], 1)
    app.extensions["worker"].stop()
    app.extensions["sessions"].kw["bind"].dispose()


def _rows(results: Path, name: str, suite: str) -> list[dict[str, str]]:
    rows = []
    for path in sorted(results.glob(f"*/{name}")):
        with path.open(newline="", encoding="utf-8") as handle:
            rows += [row for row in csv.DictReader(handle) if row["suite"] == suite]
    return rows


def _item_url(suite: str, item: int, **query) -> str:
    tail = "&".join(f"{k}={v}" for k, v in query.items())
    return f"/runs/1/suites/{quote(suite, safe='')}/items/{item}" + (f"?{tail}" if tail else "")


def _cells(page: str) -> dict[tuple[str, str, str], str]:
    """(condition, region, model) -> the data-value shown in the item grid."""
    cells = {}
    for row in re.finditer(r'<tr data-condition="([^"]*)">(.*?)</tr>', page, re.S):
        for cell in re.finditer(r'data-region="(\d+)">(.*?)</td>', row.group(2), re.S):
            for value in re.finditer(r'class="value" data-model="([^"]*)" data-value="([^"]*)"', cell.group(2)):
                cells[(html.unescape(row.group(1)), cell.group(1), html.unescape(value.group(1)))] = value.group(2)
    return cells


def test_an_items_surprisals_are_those_of_regions_csv(run):
    client, results = run
    page = client.get(_item_url("npz_comma", 3))
    assert page.status_code == 200
    regions = [r for r in _rows(results, "regions.csv", "npz_comma") if r["item"] == "3"]
    expected = {(r["condition"], r["region"], r["model"]): r["sum"] for r in regions}
    assert len({r["model"] for r in regions}) == 2 and len(expected) == 4 * 7 * 2
    assert _cells(page.text) == expected
    # the prediction's terms: region 6 of the four conditions named and marked; the values of its four references
    # and of both sides of its two comparisons; its outcome per model as predictions.csv holds it
    assert page.text.count('class="region named"') == 4
    recorded = {r["model"]: r["holds"] == "TRUE" for r in _rows(results, "predictions.csv", "npz_comma")
                if r["item"] == "3"}
    for model, holds in recorded.items():
        row = re.search(rf'<tr data-model="{re.escape(model)}">(.*?)</tr>', page.text, re.S).group(1)
        assert ('class="outcome yes"' in row) == holds
        a, b, c, d = (float(expected[(condition, "6", model)]) for condition in
                      ("ambig_nocomma", "ambig_comma", "unambig_nocomma", "unambig_comma"))
        assert re.findall(r'<td class="num">([-\d.]+)</td>', row) == [f"{v:.2f}" for v in (a, b, c, d)]
        assert re.findall(r'<code class="comparison (?:yes|no)"[^>]*>([^<]*)</code>', row) == [
            f"{a:.2f} &gt; {b:.2f}", f"{a - b:.2f} &gt; {c - d:.2f}"]


def test_tokens_on_demand_add_up_to_the_region_values(run):
    client, results = run
    assert "data-surprisal" not in client.get(_item_url("npz_comma", 2)).text
    page = client.get(_item_url("npz_comma", 2, tokens=1)).text
    cells = _cells(page)
    for row in re.finditer(r'<tr data-condition="([^"]*)">(.*?)</tr>', page, re.S):
        for cell in re.finditer(r'data-region="(\d+)">(.*?)</td>', row.group(2), re.S):
            for group in re.finditer(r'<div class="tokens" data-model="([^"]*)">(.*?)</div>', cell.group(2), re.S):
                surprisals = [float(s) for s in re.findall(r'data-surprisal="([^"]+)"', group.group(2))]
                region_sum = float(cells[(row.group(1), cell.group(1), html.unescape(group.group(1)))])
                assert math.isclose(math.fsum(surprisals), region_sum, rel_tol=1e-9, abs_tol=1e-9)
    tokens = _rows(results, "tokens.csv", "npz_comma")
    assert page.count("data-surprisal=") == sum(1 for t in tokens if t["item"] == "2")
    assert 'id="toggle-tokens"' in page and "hide tokens" in page


def test_markup_in_a_suite_is_shown_as_text(run):
    client, _ = run
    page = client.get(_item_url(f"evil {EVIL}", 1)).text
    assert "<script>alert" not in page and "<b>swims</b>" not in page
    assert str(escape(f"evil {EVIL}")) in page and str(escape(f"<b>swims</b>{EVIL}")) in page
    listing = client.get("/runs/1/items", query_string={"suite": f"evil {EVIL}"}).text
    assert "<script>alert" not in listing
    links = [html.unescape(href) for href in re.findall(r'class="item-link" href="([^"]+)"', listing)]
    assert len(links) == 2 and client.get(links[0]).text == page  # the name, slash and all, makes a working link


def test_unknown_suites_items_and_filters(run):
    client, _ = run
    assert client.get(_item_url("no_such_suite", 1)).status_code == 404
    assert client.get(_item_url("npz_comma", 99)).status_code == 404
    assert client.get("/runs/1/items", query_string={"suite": "no_such_suite"}).status_code == 404
    assert client.get("/runs/7/suites/npz_comma/items/1").status_code == 404
    bad = client.get("/runs/1/items", query_string={"suite": "npz_comma", "show": "<odd>"})
    assert bad.status_code == 400 and "unknown item filter" in bad.text and "<odd>" not in bad.text


def test_filters_keep_failing_items_and_items_the_models_disagree_on(run):
    client, results = run
    suite = "npz_comma"
    holds: dict[int, dict[str, bool]] = {}
    for row in _rows(results, "predictions.csv", suite):
        holds.setdefault(int(row["item"]), {})[row["model"]] = row["holds"] == "TRUE"
    expected = {"all": sorted(holds), "failing": [i for i in sorted(holds) if not all(holds[i].values())],
                "disagree": [i for i in sorted(holds) if len(set(holds[i].values())) > 1]}
    # the random models fail some items, not all, and disagree on some
    assert expected["failing"] and expected["failing"] != expected["all"] and expected["disagree"]
    for kind, items in expected.items():
        page = client.get("/runs/1/items", query_string={"suite": suite, "show": kind}).text
        assert [int(i) for i in re.findall(r'<tr data-item="(\d+)">', page)] == items
        assert re.search(rf'data-filter="{kind}"\s+class="active">[^<]*\({len(items)}\)</a>', page)
        for item in items:
            assert f'href="{_item_url(suite, item, show=kind)}"' in page
    failing = expected["failing"]
    page = client.get(_item_url(suite, failing[0], show="failing")).text
    assert 'id="previous-item"' not in page
    if len(failing) > 1:
        assert f'href="{_item_url(suite, failing[1], show="failing")}">item {failing[1]} →' in page


def _effect_cells(page: str) -> dict[tuple[str, str], list[str]]:
    """(prediction, comparison) -> the cells of its row in the effects table."""
    section = re.search(r'<section id="effects">(.*?)</section>', page, re.S)
    assert section, "no effects table"
    return {(row.group(1), row.group(2)): [html.unescape(c) for c in re.findall(r'<td[^>]*>(.*?)</td>', row.group(3),
                                                                               re.S)]
            for row in re.finditer(r'<tr data-prediction="(\d+)" data-comparison="(\d+)">(.*?)</tr>', section.group(1),
                                   re.S)}


def test_the_suite_and_item_pages_show_each_predictions_mean_effect_and_the_items_own(run):
    client, results = run
    rows = _rows(results, "effects.csv", "npz_comma")
    models = list(dict.fromkeys(row["model"] for row in rows))
    assert len(models) == 2
    suite_page = client.get("/runs/1/items?suite=npz_comma").text
    cells = _effect_cells(suite_page)
    assert set(cells) == {(row["prediction"], row["comparison"]) for row in rows}
    for (prediction, comparison), shown in cells.items():
        for index, model in enumerate(models):
            values = [float(r["effect"]) for r in rows if (r["model"], r["prediction"], r["comparison"])
                      == (model, prediction, comparison) and r["effect"]]
            mean, n = shown[2 + 2 * index], shown[3 + 2 * index]  # prediction, comparison, then mean and n per model
            assert mean.startswith(f"{sum(values) / len(values):.2f} [") and n == str(len(values))
    assert "95% CI" in suite_page and "left side minus the right side" in suite_page
    item_page = client.get(_item_url("npz_comma", 2)).text
    cells = _effect_cells(item_page)
    own = {(r["model"], r["prediction"], r["comparison"]): float(r["effect"]) for r in rows if r["item"] == "2"}
    for (prediction, comparison), shown in cells.items():
        for index, model in enumerate(models):  # this item's effect, then the mean and n, per model
            assert shown[2 + 3 * index] == f"{own[(model, prediction, comparison)]:.2f}"
    assert "this item" in item_page
