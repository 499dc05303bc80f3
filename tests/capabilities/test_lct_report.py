from __future__ import annotations

import csv
import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from linguagym.capabilities.reports.html import highlight
from linguagym.capabilities.reports.results import (
    SUMMARY_COLUMNS,
    TEST_COLUMNS,
    classifier_labels,
    directory_names,
    write_results,
)
from linguagym.capabilities.testing.classifier_run import run_tests
from linguagym.version import __version__
from tests.capabilities.lct_fakes import (
    EXPECTED,
    EXPECTED_ORDER,
    ConstantClassifier,
    FlakyClassifier,
    KeywordClassifier,
    capability_file,
    document,
)

VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source", "path", "line", "rect",
        "circle", "polyline", "polygon", "ellipse", "use", "stop"}


class _Page(HTMLParser):
    """Collects tags, text and table rows; checks that every element closes in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.rows: list[list[str]] = []
        self._row: list[str] | None = None
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self._row = []
        if tag in ("td", "th") and self._row is not None:
            self._row.append("")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        if self._row:
            self._row[-1] += data


@pytest.fixture
def written(tmp_path: Path):
    doc = document()
    tests_path = tmp_path / "tests.json"
    tests_path.write_text(json.dumps(doc), encoding="utf-8")
    tests = capability_file()
    runs = [run_tests(tests, KeywordClassifier(), spec="python:kw"),
            run_tests(tests, ConstantClassifier("neutral")),
            run_tests(tests, FlakyClassifier(fail_on=1, name="flaky"), spec="flaky")]
    result = write_results(tests, tests_path, runs, tmp_path / "out", examples=2)
    return doc, tests_path, runs, result


def _page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    assert not page.problems and page.stack == [], (page.problems, page.stack)
    return page


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_per_test_csv_has_one_row_per_test_with_prediction_and_verdict(written):
    doc, _, runs, result = written
    rows = _csv(result.classifier_directories["keywords"] / "tests.csv")
    assert list(rows[0]) == TEST_COLUMNS
    assert [r["id"] for r in rows] == [t["id"] for t in doc["tests"]]
    for row, outcome in zip(rows, runs[0].outcomes, strict=True):
        assert row["predicted"] == outcome.predicted and row["passed"] == ("TRUE" if outcome.passed else "FALSE")
        assert row["expected"] == "/".join(outcome.expected) and row["seed"] == (outcome.seed or "")
        assert [float(row[k]) for k in ("p_neg", "p_neu", "p_pos")] == pytest.approx(
            outcome.prediction.probabilities)
    assert any(r["text"].startswith("I love it <script>") for r in rows)  # CSV keeps the text as it is


def test_summary_csv_holds_every_capability_then_all(written):
    _, _, _, result = written
    rows = _csv(result.classifier_directories["keywords"] / "summary.csv")
    assert list(rows[0]) == SUMMARY_COLUMNS
    assert [r["capability"] for r in rows] == [*EXPECTED_ORDER, "all"]
    by_id = {r["capability"]: r for r in rows}
    for cid, (seeds, seed_failed, expansions, expansion_failed, after, after_failed) in EXPECTED.items():
        row = by_id[cid]
        assert (int(row["seeds"]), int(row["seed_failures"]), int(row["expansions"]),
                int(row["expansion_failures"]), int(row["expansions_after_passing_seed"]),
                int(row["expansion_failures_after_passing_seed"])) == (seeds, seed_failed, expansions,
                                                                        expansion_failed, after, after_failed)
        if expansions == 0:
            assert row["expansion_fail_rate"] == "" and row["expansion_fail_low"] == ""
        else:
            assert float(row["expansion_fail_rate"]) == pytest.approx(expansion_failed / expansions, abs=1e-6)
    combined = _csv(result.directory / "summary.csv")
    assert {r["classifier"] for r in combined} == {"keywords", "always-neutral"}  # not the failed one
    assert len(combined) == 2 * len(rows)


def test_results_json_records_how_it_was_made(written):
    doc, tests_path, runs, result = written
    record = json.loads(result.record.read_text(encoding="utf-8"))
    assert record["created_by"] == {"tool": "linguagym", "version": __version__}
    info = record["tests_file"]
    assert info["sha256"] == hashlib.sha256(tests_path.read_bytes()).hexdigest()
    assert info["path"] == str(tests_path.resolve()) and info["tests"] == len(doc["tests"])
    assert info["seeds"] + info["expansions"] == info["tests"] and info["expansions"] == 7
    assert record["dataset"] == doc["dataset"]
    by_label = {c["label"]: c for c in record["classifiers"]}
    keywords, flaky = by_label["keywords"], by_label["flaky"]
    assert keywords["identity"] == runs[0].identity and keywords["spec"] == "python:kw"
    assert keywords["status"] == "ok" and keywords["error"] is None and keywords["directory"] == "keywords"
    assert keywords["total"]["seeds"]["failed"] == sum(v[1] for v in EXPECTED.values())
    assert [c["id"] for c in keywords["capabilities"]] == EXPECTED_ORDER
    assert keywords["capabilities"][2]["seeds"]["rate"] is None  # LC3: no tests, no rate
    assert flaky["status"] == "failed" and "went away" in flaky["error"] and flaky["directory"] is None
    assert flaky["predictions_kept"] == 0 and "capabilities" not in flaky
    assert isinstance(keywords["seconds"], float)


def test_a_failed_classifier_writes_no_csvs(written):
    _, _, _, result = written
    assert "flaky" not in result.classifier_directories
    assert not (result.directory / "flaky").exists()


def test_report_parses_and_lists_every_capability_and_classifier(written):
    _, _, _, result = written
    page = _page(result.report)
    text = "".join(page.text)
    summary_ids = [row[0] for row in page.rows if row and row[0] in {*EXPECTED_ORDER, "all"}]
    assert summary_ids[:len(EXPECTED_ORDER) + 1] == [*EXPECTED_ORDER, "all"]
    for label in ("keywords", "always-neutral", "flaky"):
        assert label in text
    assert "flaky failed" in text and "running again resumes" in text
    headings = [t for t in text.split("\n") if t]
    assert any("LC10" in h for h in headings)
    assert sum(tag == "svg" for tag, _ in page.tags) == 2  # seeds and expansions charts


def test_report_escapes_every_text_and_is_self_contained(written):
    _, _, _, result = written
    page = _page(result.report)
    tags = {tag for tag, _ in page.tags}
    assert "script" not in tags and "b" not in tags and "link" not in tags and "img" not in tags
    text = "".join(page.text)
    assert "<script>alert('x')</script>" in text  # shown as text
    assert "A custom <capability>" in text
    for _, attrs in page.tags:
        for name in ("src", "href"):
            assert not str(attrs.get(name) or "").startswith(("http:", "https:", "//")), attrs


def test_report_shows_failing_expansions_beside_their_seed_with_added_words_marked(written):
    _, _, _, result = written
    page = result.report.read_text(encoding="utf-8")
    assert "A red <mark>good</mark> car." in page  # from the provenance's mask span
    assert "That <mark>awful</mark> plot isn&#x27;t a disaster." in page  # by word diff: template changed it
    parsed = _page(result.report)
    row = next(r for r in parsed.rows if len(r) == 5 and r[2] == "A red good car.")
    assert row[0] == "A red car." and row[1].startswith("neutral") and row[4].startswith("positive")


def test_report_limits_examples(tmp_path: Path):
    doc = document()
    tests_path = tmp_path / "tests.json"
    tests_path.write_text(json.dumps(doc), encoding="utf-8")
    tests = capability_file()
    runs = [run_tests(tests, ConstantClassifier("negative"))]
    page = write_results(tests, tests_path, runs, tmp_path / "a", examples=1).report.read_text(encoding="utf-8")
    assert page.count("<th class=l>failing seed</th>") > 0
    assert "A bad car." not in page.split("id='lc-LC1'")[1].split("<h3")[0]  # the second LC1 failing seed
    none = write_results(tests, tests_path, runs, tmp_path / "b", examples=0).report.read_text(encoding="utf-8")
    assert "failing seed" not in none


def test_every_output_is_written_whole(written):
    _, _, _, result = written
    leftovers = [p for p in result.directory.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    assert {p.name for p in result.directory.iterdir()} == {"report.html", "results.json", "summary.csv",
                                                            "keywords", "always-neutral"}


def test_highlight_marks_fills_by_span_else_by_diff_else_nothing():
    tests = capability_file().by_id()
    assert highlight(tests["LC1/1/8/x1"]) == "A red <mark>new</mark> car."
    assert highlight(tests["LC4/1/1/x1"], tests["LC4/1/1"]) == "This <mark>new</mark> movie isn&#x27;t bad."
    assert highlight(tests["LC4/1/1/x1"]) == "This new movie isn&#x27;t bad."
    x1 = highlight(tests["X1/1/x1"])
    assert "<b>" not in x1 and "&lt;b&gt;<mark>really</mark>&lt;/b&gt;" in x1


def test_labels_and_directories_stay_distinct():
    runs = [run_tests(capability_file(), KeywordClassifier(name="a/b")),
            run_tests(capability_file(), KeywordClassifier(name="a/b")),
            run_tests(capability_file(), KeywordClassifier(name="a_b"))]
    labels = classifier_labels(runs)
    assert labels == ["a/b", "a/b-2", "a_b"]
    names = directory_names(labels)
    assert len(set(names)) == 3 and all("/" not in n for n in names)


def test_report_says_why_a_capability_has_few_seeds_and_why_dir_refused_sentences(tmp_path: Path):
    from linguagym.capabilities.testfile import load_document

    doc = document()
    lc1 = next(c for c in doc["capabilities"] if c["id"] == "LC1")
    lc1["notes"] = ["fewer than 10 seeds (2): of the dataset's 12 sentences, only these met the search (case 1: 2)",
                    "case 1: 1 truncated or broken sentence(s) left out"]
    lc2 = next(c for c in doc["capabilities"] if c["id"] == "LC2")  # 3 seeds, no expansion
    lc2["notes"] = ["no expansions: no slot of its seeds takes a modifier the reader lexicon keeps there"]
    doc["perturbations"] = {"made": {"negation": {"made": 1, "candidates": 4, "refused": {
        "no main clause": 2, "second clause": 1}}}}
    tests_path = tmp_path / "tests.json"
    tests_path.write_text(json.dumps(doc), encoding="utf-8")
    tests = load_document(doc, "fixture")
    result = write_results(tests, tests_path, [run_tests(tests, KeywordClassifier(), spec="python:kw")],
                           tmp_path / "out")
    text = " ".join("".join(_page(result.report).text).split())
    assert "fewer than 10 seeds (2): of the dataset's 12 sentences" in text
    assert "no expansions: no slot of its seeds takes a modifier the reader lexicon keeps there" in text
    assert "truncated or broken" not in text  # the notes that explain a count, not every note
    assert ("DIR negation: 1 pairs made of 4 positive sentences; refused rather than negated in the wrong place: "
            "2 no main clause, 1 second clause.") in text
    plain = capability_file()  # a file without either says nothing of them
    again = write_results(plain, tests_path, [run_tests(plain, KeywordClassifier(), spec="python:kw")],
                          tmp_path / "plain")
    assert "DIR negation" not in again.report.read_text(encoding="utf-8")
    assert "fewer than" not in again.report.read_text(encoding="utf-8")
