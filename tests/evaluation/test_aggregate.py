import math

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome, read_item_outcomes, summarize
from linguagym.evaluation.collections import (
    Collection,
    Group,
    covering_collection,
    fetch_suites,
    load_collection,
    parse_collection,
    suite_paths,
)
from tests.conftest import SHARED_DATA, SUITES_DIR

PAPER = SHARED_DATA / "syntaxgym" / "hu2020-results"


def test_syntaxgym_2020_collection():
    c = load_collection("syntaxgym-2020")
    assert len(c.suites) == 34 and len(c.score_suites) == 31 and c.policy == "first"
    assert [g.short for g in c.groups] == ["Agr", "CE", "GPE", "GSS", "Lic", "LDD"]
    sizes = {g.short: len(c.group_suites(g)) for g in c.groups}
    assert sizes == {"Agr": 3, "CE": 2, "GPE": 6, "GSS": 4, "Lic": 10, "LDD": 6}
    assert sum(sizes.values()) == 31  # every scored suite is in exactly one circuit
    assert "fgd-embed3" not in c.group_suites(c.groups[-1])  # fgd_* does not match fgd-embed3


@pytest.mark.parametrize("file, sg, circuits", [
    ("gpt-2-pretrained_.csv", 0.784, [0.737, 0.893, 0.881, 0.891, 0.658, 0.814]),
    ("gpt-2-xl-pretrained_.csv", 0.842, [0.772, 0.964, 0.928, 0.870, 0.787, 0.826]),
    ("transformer-xl_.csv", 0.596, None),
    ("jrnn_.csv", 0.563, None),
    ("grnn_.csv", 0.551, None),
])
def test_reproduces_the_papers_numbers(shared_data, file, sg, circuits):
    outcomes = read_item_outcomes(PAPER / file)
    assert len(outcomes) == 842
    summary = summarize(outcomes, load_collection("syntaxgym-2020"), bootstrap=200)
    assert summary.policy == "first"
    [model] = summary.models
    assert round(model.score, 3) == sg and model.score_suites == 31
    if circuits:
        assert [round(model.groups[g], 3) for g in ("Agr", "CE", "GPE", "GSS", "Lic", "LDD")] == circuits
    low, high = model.intervals["score"].low, model.intervals["score"].high
    assert low < model.score < high and high - low < 0.1


def test_paper_files_cannot_give_policy_all(shared_data):
    with pytest.raises(ConfigurationError, match="give `policy` first"):
        summarize(read_item_outcomes(PAPER / "gpt-2-pretrained_.csv"), load_collection("syntaxgym-2020"),
                  policy="all")


def outcomes_for(model, table):
    return [ItemOutcome(model, suite, i, v, v) for suite, values in table.items() for i, v in enumerate(values)]


def test_scores_groups_and_bootstrap_are_deterministic():
    collection = Collection("c", ("a", "b", "x"), exclude_from_score=("x",),
                            groups=(Group("Alpha", "A", ("a",)), Group("Both", "AB", ("a", "b"))))
    outcomes = outcomes_for("m", {"a": [True, True, False, True], "b": [False, False], "x": [True]})
    summary = summarize(outcomes, collection, bootstrap=500, seed=7)
    [m] = summary.models
    assert m.suites == {"a": 0.75, "b": 0.0, "x": 1.0}
    assert m.score == 0.375 and m.groups == {"A": 0.75, "AB": 0.375}
    again = summarize(outcomes, collection, bootstrap=500, seed=7).models[0]
    assert again.intervals == m.intervals
    assert m.intervals["suite:b"].low == m.intervals["suite:b"].high == 0.0
    assert summarize(outcomes, collection, bootstrap=0).models[0].intervals == {}


def test_missing_group_members_give_nan_not_a_crash():
    collection = Collection("c", ("a", "b"), groups=(Group("B only", "B", ("b",)),))
    [m] = summarize(outcomes_for("m", {"a": [True]}), collection, bootstrap=10).models
    # the score needs both suites: a mean over "a" alone is not the collection's score (NaN, named in a note)
    assert math.isnan(m.groups["B"]) and math.isnan(m.score) and m.score_suites == 1
    assert "score" not in m.intervals and "group:B" not in m.intervals


def test_a_score_or_group_is_computed_only_from_all_its_suites():
    from linguagym.evaluation.tables import notes, summary_markdown, summary_rows

    c = load_collection("syntaxgym-2020")
    outcomes = outcomes_for("m", {"number_prep": [True, False], "npz_obj": [True, True]})
    summary = summarize(outcomes, c, bootstrap=20)
    [m] = summary.models
    assert math.isnan(m.score) and all(math.isnan(v) for v in m.groups.values()) and m.score_suites == 2
    assert "score" not in m.intervals and not any(key.startswith("group:") for key in m.intervals)
    [score_row] = [row for row in summary_rows(summary) if row.kind == "score"]
    assert score_row.label == "SG score" and math.isnan(score_row.values[0])
    lines = notes(summary)
    assert lines[0].startswith("SG score not computed: 29 of its 31 suites are missing (")
    assert any(line.startswith("group scores not computed, suites missing: Agr (") for line in lines)
    markdown = summary_markdown(summary)  # the Markdown table says so too, under the table
    assert f"_{lines[0]}_" in markdown.splitlines() and "| **SG score** | – |" in markdown
    # every score suite present (even with fewer items, as --limit runs have): the score is computed
    every = outcomes_for("m", {s: [True, False] for s in c.score_suites})
    complete = summarize(every, c, bootstrap=0)
    assert complete.models[0].score == 0.5 and not any("not computed" in line for line in notes(complete))


def test_the_ad_hoc_mean_averages_only_the_suites_every_model_has():
    from linguagym.evaluation.collections import AD_HOC
    from linguagym.evaluation.tables import notes, summary_rows

    collection = Collection(AD_HOC, ("a", "b", "c"))
    outcomes = outcomes_for("one", {"a": [True], "b": [True]}) + outcomes_for("two", {"b": [False], "c": [False]})
    summary = summarize(outcomes, collection, bootstrap=0)
    assert [m.score for m in summary.models] == [1.0, 0.0]  # over "b" only, not 1.0 over a, b vs 0.0 over b, c
    assert summary.collection.score_suites == ("b",)
    assert [row.label for row in summary_rows(summary)] == ["mean accuracy", "a *", "b", "c *"]
    assert notes(summary) == ["mean accuracy: mean over the 1 suite all models share; 2 others are shown but not "
                              "averaged (marked *): a, c"]
    alone = summarize(outcomes_for("one", {"a": [True], "b": [False]}), Collection(AD_HOC, ("a", "b")), bootstrap=0)
    assert alone.models[0].score == 0.5 and notes(alone) == []


def test_our_items_csv_and_policies(tmp_path):
    # correct: the first prediction holds (the paper's meaning); correct_all: every one holds
    path = tmp_path / "items.csv"
    path.write_text("model,suite,item,correct,correct_all\nm,s,1,True,False\nm,s,2,True,True\n")
    outcomes = read_item_outcomes(tmp_path)  # a run directory works too
    assert [(o.correct_first, o.correct_all) for o in outcomes] == [(True, False), (True, True)]
    collection = Collection("c", ("s",))
    assert summarize(outcomes, collection, policy="all", bootstrap=0).models[0].suites["s"] == 0.5
    assert summarize(outcomes, collection, policy="first", bootstrap=0).models[0].suites["s"] == 1.0


def test_items_csv_of_earlier_versions_keeps_its_meaning(tmp_path):
    # before correct_all, "correct" meant every prediction and correct_first the first
    path = tmp_path / "items.csv"
    path.write_text("model,suite,item,correct,correct_first\nm,s,1,False,True\nm,s,2,True,True\n")
    outcomes = read_item_outcomes(tmp_path)
    assert [(o.correct_first, o.correct_all) for o in outcomes] == [(True, False), (True, True)]
    collection = Collection("c", ("s",))
    assert summarize(outcomes, collection, policy="all", bootstrap=0).models[0].suites["s"] == 0.5
    assert summarize(outcomes, collection, policy="first", bootstrap=0).models[0].suites["s"] == 1.0


@pytest.mark.parametrize("content, words", [
    ("model,suite,item\nm,s,1\n", "expected at least model, suite, item, correct"),
    ("model,suite,item,correct\nm,s,one,True\n", "item must be a whole number"),
    ("model,suite,item,correct\nm,s,1,maybe\n", "expected True or False"),
    ("model,suite,item,correct\n", "no results rows"),
])
def test_bad_results_files(tmp_path, content, words):
    path = tmp_path / "r.csv"
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=words):
        read_item_outcomes(path)


def test_user_collection_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\nsuites = ["number_prep", "npz_obj"]\n'
                    '[[groups]]\nname = "Agreement"\nsuites = ["number_*"]\n')
    c = load_collection(path)
    assert c.score_suites == ("number_prep", "npz_obj") and c.groups[0].short == "Agreement"


@pytest.mark.parametrize("text, words", [
    ('suites = ["a"]', "missing name"),
    ('name = "x"', "missing suites"),
    ('name = "x"\nsuites = "a"', "suites must be a list of strings"),
    ('name = "x"\nsuites = ["a"]\nexclude_from_score = ["b"]', "not in suites: b"),
    ('name = "x"\nsuites = ["a"]\n[[groups]]\nname = "G"\nsuites = ["z*"]', "matches none"),
    ('name = "x"\nsuites = ["a"]\npolicy = "most"', "policy must be"),
    ('name = "x"\nsuites = [', "invalid TOML"),
])
def test_bad_collection_files(text, words):
    with pytest.raises(ConfigurationError, match=words):
        parse_collection(text)


def test_unknown_collection():
    with pytest.raises(ConfigurationError, match="unknown collection 'sg-2099'"):
        load_collection("sg-2099")


def test_suite_paths_and_covering(shared_data, tmp_path):
    c = load_collection("syntaxgym-2020")
    assert len(suite_paths(c, SUITES_DIR)) == 34
    (tmp_path / "number_prep.json").write_text("{}")
    with pytest.raises(ConfigurationError, match="lacks 33 suite"):
        suite_paths(c, tmp_path)
    assert covering_collection(["number_prep"]).name == "syntaxgym-2020"
    assert covering_collection(["agreement_across_pp"]).suites == ("agreement_across_pp",)


class FakeResponse:
    def __init__(self, data):
        self.data = data

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def read(self):
        return self.data


def test_fetch_checks_hashes_and_reports_offline(shared_data, tmp_path, monkeypatch):
    import urllib.error
    import urllib.request

    c = load_collection("syntaxgym-2020")
    requested = []

    def from_shared(url, timeout):
        requested.append(url)
        return FakeResponse((SUITES_DIR / url.rsplit("/", 1)[1]).read_bytes())

    monkeypatch.setattr(urllib.request, "urlopen", from_shared)
    folder = fetch_suites(c, tmp_path)
    assert len(list(folder.glob("*.json"))) == 34
    assert c.source["commit"] in requested[0] and requested[0].startswith("https://")
    requested.clear()
    fetch_suites(c, tmp_path)  # everything already there and checked: nothing is requested
    assert requested == []

    (folder / "cleft.json").write_text("tampered")
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: FakeResponse(b"{}"))
    with pytest.raises(ConfigurationError, match="not the pinned"):
        fetch_suites(c, tmp_path)

    def offline(url, timeout):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(ConfigurationError, match="offline\\? give `suites_dir`"):
        fetch_suites(c, tmp_path)


def test_markdown_and_csv_tables(shared_data, tmp_path):
    import csv

    from linguagym.evaluation.tables import summary_markdown, write_summary_csv

    summary = summarize(read_item_outcomes(PAPER / "gpt-2-pretrained_.csv"), load_collection("syntaxgym-2020"),
                        bootstrap=100)
    lines = summary_markdown(summary).splitlines()
    assert lines[0] == "| | gpt-2-pretrained__0 |"
    assert lines[2].startswith("| **SG score** | 0.784 [")
    assert len(lines) == 2 + 1 + 6 + 34 + 2  # the table, a blank line, the note on the starred suites
    assert lines[-1] == "_* not in the score: fgd-embed3, fgd-embed4, nn-nv-rpl_"
    write_summary_csv(summary, tmp_path / "s.csv")
    with open(tmp_path / "s.csv") as handle:
        rows = list(csv.DictReader(handle))
    score = next(r for r in rows if r["kind"] == "score")
    assert float(score["accuracy"]) == pytest.approx(0.784, abs=5e-4) and float(score["ci_low"]) < 0.784
    cleft = next(r for r in rows if r["name"] == "cleft")
    assert cleft["items"] == "40" and cleft["ci_low"] != ""
