"""Bulk downloads: a run's folder as one zip, and the leaderboard, a comparison and a suite's results as CSV in the
library's long format (``tables.summary_csv``); and a crawl of every link from the start page, all 200."""

from __future__ import annotations

import csv
import html
import io
import re
import zipfile
from urllib.parse import urljoin, urlsplit

from linguagym.web.runs.jobs import run_directory
from tests.web.test_runs import _start, finished_run  # noqa: F401, F811  (a run of suites 1, 2, tiny model)

HEADER = ["collection", "policy", "model", "kind", "name", "accuracy", "ci_low", "ci_high", "items"]


def _rows(response) -> list[dict]:
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/csv")
    assert response.headers["Content-Disposition"].startswith("attachment")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == HEADER  # the library's writer, as `linguagym score --csv` writes
    return [dict(zip(HEADER, row, strict=True)) for row in rows[1:]]


def test_a_finished_run_downloads_as_one_zip_of_every_file(app, client, finished_run):  # noqa: F811
    page = client.get(f"/runs/{finished_run}").text
    assert f'href="/runs/{finished_run}/download.zip"' in page
    response = client.get(f"/runs/{finished_run}/download.zip")
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/zip"
    assert f"run-{finished_run}.zip" in response.headers["Content-Disposition"]
    folder = run_directory(app.extensions["linguagym"], finished_run)
    expected = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        names = set(archive.namelist())
        assert names == {f"run-{finished_run}/{name}" for name in expected}
        assert any(name.endswith("/items.csv") for name in names) and any("/suites/" in n for n in names)
        report = f"run-{finished_run}/results/report.html"
        assert archive.read(report) == (folder / "results" / "report.html").read_bytes()


def test_an_unfinished_run_has_no_zip_yet(app, client, tiny_lm_dir):
    client.post("/suites/upload", data={"suite_text": _example().read_text(encoding="utf-8")})
    queued = _start(client, tiny_lm_dir)
    assert 'id="download-zip"' not in client.get(f"/runs/{queued}").text
    refused = client.get(f"/runs/{queued}/download.zip")
    assert refused.status_code == 400 and "still being written" in refused.text


def _example():
    from linguagym.suites import example_suite_paths

    return example_suite_paths()[0]


def test_leaderboard_comparison_and_suite_results_as_csv(app, client, finished_run, tiny_lm_dir):  # noqa: F811
    model = str(tiny_lm_dir)
    board = _rows(client.get("/leaderboard.csv", query_string={"collection": "syntaxgym-2020"}))
    suites = {row["name"] for row in board if row["kind"] == "suite"}
    assert len(suites) == 2 and {row["model"] for row in board} == {model}
    assert all(row["collection"] == "syntaxgym-2020" for row in board)
    assert 'id="leaderboard-csv"' in client.get("/leaderboard").text
    assert client.get("/leaderboard.csv", query_string={"collection": "nope"}).status_code == 400

    second = _start(client, tiny_lm_dir, suites=(1,))
    assert app.extensions["worker"].run_next()
    query = {"run": [finished_run, second]}
    compared = _rows(client.get("/compare.csv", query_string=query))
    assert {row["model"] for row in compared} == {f"run {finished_run}: {tiny_lm_dir.name}",
                                                   f"run {second}: {tiny_lm_dir.name}"}
    assert len({row["name"] for row in compared if row["kind"] == "suite"}) == 1  # the one suite both have
    assert 'id="compare-csv"' in client.get("/compare", query_string=query).text
    suite_page = client.get("/suites/1").text
    assert 'id="suite-results-csv"' in suite_page
    link = html.unescape(re.search(r'href="([^"]+)" id="suite-results-csv"', suite_page).group(1))
    results = _rows(client.get(link))
    assert [row["kind"] for row in results] == ["suite"] and results[0]["model"] == model
    assert float(results[0]["ci_low"]) <= float(results[0]["accuracy"]) <= float(results[0]["ci_high"])


def test_every_link_from_the_start_page_answers_200(app, client, finished_run):  # noqa: F811
    """Follows every same-site link (a, img, link, script) from ``/``, breadth first."""
    seen, queue, answers = set(), ["/"], {}
    while queue and len(seen) < 1500:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url, follow_redirects=True)
        answers[url] = response.status_code
        if "text/html" not in response.headers.get("Content-Type", ""):
            continue
        for found in re.findall(r'(?:href|src)="([^"#]+)', response.text):
            target = urljoin(url, html.unescape(found))
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or not parts.path.startswith("/"):
                continue
            queue.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    failed = {url: status for url, status in answers.items() if status != 200}
    assert not failed, failed
    assert len(answers) > 40  # the crawl reached the run, its files, the suites, the leaderboard and the CSVs
    assert f"/runs/{finished_run}/download.zip" in answers and "/leaderboard.csv?collection=syntaxgym-2020" in answers
