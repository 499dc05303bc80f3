"""Which policy decides a suite's accuracy (``policy.resolve_policy`` and what builds on it): the one given, else
the collection's for its suites (per suite where its ``[policies]`` table says), else ``all``; results read again
keep the policy their runs recorded."""

from __future__ import annotations

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome, summarize
from linguagym.evaluation.collections import Collection, load_collection, parse_collection
from linguagym.evaluation.policy import AccuracyPolicy, agreed_policy, recorded_policy, resolve_policy
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.summary import SummarySettings, run_policy, summarize_files, summary_policy
from linguagym.evaluation.tables import notes, policy_sentence

MINE = """
name = "mine"
suites = ["agree_a", "agree_b", "fgd_x", "other"]
policy = "first"
[policies]
"agree_*" = "all"
"""


def test_the_given_policy_wins_then_the_collections_per_suite_then_all() -> None:
    collection = parse_collection(MINE)
    assert collection.suite_policies == (("agree_*", "all"),)
    chosen = resolve_policy(collection)
    assert chosen.for_suites(["agree_a", "fgd_x", "other", "not_in_it"]) == {
        "agree_a": "all", "fgd_x": "first", "other": "first", "not_in_it": "all"}  # outside the collection: all
    assert chosen.source == "collection mine"
    assert resolve_policy(collection, "all").for_suites(["fgd_x"]) == {"fgd_x": "all"}
    assert resolve_policy(None).of("anything") == "all" and resolve_policy(None).source == "default"
    sg = resolve_policy(load_collection("syntaxgym-2020"))
    assert {sg.of(s) for s in load_collection("syntaxgym-2020").suites} == {"first"}
    assert chosen.describe(["agree_a", "agree_b", "fgd_x"]) == "all; first: fgd_x"


@pytest.mark.parametrize(("table", "message"), [
    ('[policies]\nagree_a = "most"', "policies.agree_a must be 'all' or 'first'"),
    ('[policies]\n"zzz*" = "all"', "policies.zzz* matches none of the collection's suites"),
    ('policies = ["agree_a"]', "policies must be a table"),
])
def test_a_bad_policies_table_is_refused_with_what_is_wrong(table: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("*", r"\*")):
        parse_collection('name = "mine"\nsuites = ["agree_a"]\n' + table)


def test_a_run_has_one_policy_and_two_given_ones_are_refused() -> None:
    suites = ["fgd_hierarchy", "number_prep"]  # syntaxgym-2020's, so `auto` means that collection
    assert run_policy([RunSettings()], SummarySettings(), suites).of("fgd_hierarchy") == "first"
    assert run_policy([RunSettings()], None, suites).of("fgd_hierarchy") == "first"  # no summary: the same
    assert run_policy([RunSettings(policy="all")], SummarySettings(policy="all"), suites).of("fgd_hierarchy") == "all"
    with pytest.raises(ConfigurationError, match="two policies"):
        run_policy([RunSettings(policy="all")], SummarySettings(policy="first"), suites)
    with pytest.raises(ConfigurationError, match="two policies"):
        run_policy([RunSettings(model="a", policy="all"), RunSettings(model="b", policy="first")], None, suites)


def _record(policies: dict[str, str], source: str = "given") -> dict:
    return {"accuracy_policy": {"source": source, "suites": policies}}


def test_results_read_again_keep_what_their_runs_recorded() -> None:
    sg = load_collection("syntaxgym-2020")
    chosen = summary_policy(SummarySettings(), sg, [_record({"fgd_hierarchy": "all"})])
    assert chosen.of("fgd_hierarchy") == "all" and chosen.of("number_prep") == "first"  # unrecorded: the collection's
    assert summary_policy(SummarySettings(policy="first"), sg, [_record({"fgd_hierarchy": "all"})]).of(
        "fgd_hierarchy") == "first"  # a policy given now wins
    assert recorded_policy({"settings": {"policy": "all"}}) is None  # an earlier version's record says nothing
    assert summary_policy(SummarySettings(), sg, [{"settings": {"policy": "all"}}]).of("fgd_hierarchy") == "first"


def test_runs_that_recorded_different_policies_are_shown_under_the_collections_and_say_so() -> None:
    sg = load_collection("syntaxgym-2020")
    records = [_record({"fgd_hierarchy": "all"}), _record({"fgd_hierarchy": "first"}, "collection syntaxgym-2020")]
    assert agreed_policy(records) == (None, "the runs recorded different policies for fgd_hierarchy")
    chosen = summary_policy(SummarySettings(), sg, records)
    assert chosen.of("fgd_hierarchy") == "first"
    outcomes = [ItemOutcome(model, "fgd_hierarchy", 1, False, True) for model in ("a", "b")]
    summary = summarize(outcomes, sg, policy=chosen, bootstrap=0)
    assert [m.suites["fgd_hierarchy"] for m in summary.models] == [1.0, 1.0]
    assert ("the runs recorded different policies for fgd_hierarchy; all are shown here under the policy of "
            "collection syntaxgym-2020") in notes(summary)


def test_a_summary_decides_each_suite_under_its_own_policy_and_names_both() -> None:
    collection = Collection("mine", ("s", "t"))
    outcomes = [ItemOutcome("m", suite, 1, False, True) for suite in ("s", "t")]  # first holds, the second fails
    summary = summarize(outcomes, collection, policy=AccuracyPolicy("all", (("s", "first"),), "given"), bootstrap=0)
    assert summary.models[0].suites == {"s": 1.0, "t": 0.0}
    assert summary.policy == "all; first: s"
    assert policy_sentence(summary) == ("Policy all; first: s (as given): an item is correct when all its "
                                        "predictions hold; on s, when its first prediction holds.")


def test_score_reads_the_policy_a_runs_folder_recorded(tmp_path) -> None:
    import json

    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "items.csv").write_text("model,suite,item,correct,correct_all\nm,fgd_hierarchy,1,True,False\n",
                                      encoding="utf-8")
    (folder / "run.json").write_text(json.dumps(_record({"fgd_hierarchy": "all"})), encoding="utf-8")
    for given in (folder, folder / "items.csv"):
        summary = summarize_files([given], SummarySettings(bootstrap=0))
        assert summary.models[0].suites == {"fgd_hierarchy": 0.0} and summary.policy == "all"
    assert summarize_files([folder], SummarySettings(policy="first", bootstrap=0)).models[0].suites == {
        "fgd_hierarchy": 1.0}
