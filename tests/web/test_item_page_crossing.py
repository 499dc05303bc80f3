"""The item page of a run in which a token crosses a region boundary: the regions it touches carry regions.csv's
crossing note, and the prediction naming the region it emptied reads "undefined", neither ✓ nor ✗. The model is an
lm-zoo TSV whose ".." is one token over the regions ``.`` and ``.``."""

from __future__ import annotations

import io
import json
import re

from linguagym.evaluation.evaluate import suite_sentences
from linguagym.scoring.precomputed import write_surprisals_tsv
from linguagym.suites.load import parse_suite_data
from tests.evaluation.test_crossing_tokens import dotted_suite, scorer


def test_the_item_page_shows_the_crossing_and_the_undefined_prediction(client, app, tmp_path):
    from linguagym.web.jobs.worker import results_directory

    data = dotted_suite()
    texts = [s.text for s in suite_sentences(parse_suite_data(data).suite)]
    tsv = tmp_path / "dots.tsv"
    write_surprisals_tsv(scorer().score(texts), tsv)
    client.post("/suites/upload", data={"suite_file": (io.BytesIO(json.dumps(data).encode()), "dots.json")},
                content_type="multipart/form-data")
    response = client.post("/runs", data={"suite": ["1"], "other_models": str(tsv), "device": "cpu",
                                          "batch_size": "8", "policy": "all"})
    assert response.status_code == 302, response.text
    assert app.extensions["worker"].run_next()
    assert client.get("/api/runs/1").json["status"] == "done"
    [regions] = results_directory(app.extensions["linguagym"], 1).glob("*/regions.csv")
    assert "values undefined" in regions.read_text(encoding="utf-8")

    page = client.get("/runs/1/suites/tiny/items/1")
    assert page.status_code == 200
    row = re.search(r'<tr data-condition="b">(.*?)</tr>', page.text, re.S).group(1)
    cells = dict(re.findall(r'data-region="(\d+)">(.*?)</td>', row, re.S))
    assert "counted here whole" in cells["3"] and "values undefined" in cells["4"]
    assert 'data-value="nan"' in cells["4"] and "<b>–</b>" in cells["4"]  # no value, not 0.00
    assert "crossing" not in re.search(r'<tr data-condition="a">(.*?)</tr>', page.text, re.S).group(1)
    outcome = re.search(r'<td class="outcome ([^"]*)">(.*?)</td>', page.text, re.S)
    assert outcome.group(1) == "no undefined" and ">undefined<" in outcome.group(2) and "✗" not in outcome.group(2)
    assert "(4;%b%)" in outcome.group(2)
