"""The expansion checks as one ordered list of named checks (``expansion/checks.py``): each runner takes its
stage's checks from there, and a refusal carries the name it is counted under."""

from __future__ import annotations

import pickle

import pytest

from linguagym.capabilities.expansion import checks
from linguagym.capabilities.expansion.check import STAGES, Check, Problem
from linguagym.capabilities.expansion.domain import USAGE_CHECKS
from linguagym.capabilities.expansion.expand import ExpansionReport
from linguagym.capabilities.expansion.grammaticality import CHECKS as INSERTION_NAMES
from linguagym.capabilities.expansion.grammaticality import INSERTION_CHECKS
from linguagym.capabilities.expansion.plausibility import FLUENCY, PLAUSIBILITY, RANKING_CHECKS
from linguagym.capabilities.expansion.validate import SHAPE_CHECKS, WORD, WORD_CHECKS, shape_problems


def test_the_list_names_every_check_once_in_the_order_of_the_stages():
    names = [check.name for check in checks.CHECKS]
    assert len(names) == len(set(names)) == len(checks.BY_NAME)
    stages = [STAGES.index(check.stage) for check in checks.CHECKS]
    assert stages == sorted(stages)  # a stage's checks together, the stages in the order they run
    assert names == ["insertion", "slot", "word", "case", "tag", "constituent", "neutral", "hedge", "vader",
                     "agreement", "repeat", "idiom", "position", "modifier", "compound", "function", "name",
                     "quotation", "split", "domain", "mass", "collocation", "attested", "proper", "quantifier", "own",
                     "unvalidated", "rule", "fluency", "plausibility", "overused", "duplicate"]


def test_each_runner_takes_its_stage_from_the_list():
    assert checks.of_stage("masked") == checks.MASKED_CHECKS
    assert checks.of_stage("shape") == SHAPE_CHECKS
    assert checks.of_stage("word") == WORD_CHECKS
    assert checks.of_stage("insertion") == INSERTION_CHECKS
    assert tuple(check.name for check in INSERTION_CHECKS) == INSERTION_NAMES
    assert checks.of_stage("usage") == USAGE_CHECKS
    assert checks.of_stage("ranking") == RANKING_CHECKS == (FLUENCY, PLAUSIBILITY)
    with pytest.raises(ValueError, match="unknown stage"):
        checks.of_stage("later")
    with pytest.raises(ValueError, match="unknown stage"):
        Check("new", "later", "a check of no stage")


def test_a_problem_reads_as_before_and_carries_its_checks_name():
    problem = WORD.problem("'n' is not a word")
    assert problem == "word: 'n' is not a word" and problem.check == "word"
    again = pickle.loads(pickle.dumps(problem))
    assert again == problem and again.check == "word"
    found = shape_problems(["n"], [(0, 1)], "n They are good.")
    assert [p.check for p in found] == ["word"]  # "n" is not a word: the case check does not judge it as well


def test_rejections_are_counted_by_the_checks_name_not_by_the_words():
    report = ExpansionReport()
    # a detail that holds a colon, and one whose words start with another check's name
    report.reject([WORD.problem("'a:b' is not a word"), Problem("neutral", "case: reads like another check")])
    report.reject([WORD.problem("'c' is not a word")])
    assert report.rejections == {"word": 2, "neutral": 1}


def test_a_ranking_check_needs_the_fillers_numbers():
    class Fill:
        words = ("new",)
        confidence = -30.0
        disruption = 4.0

    class Settings:
        max_disruption = 3.5
        max_cost = 13.0

    assert [p.check for p in FLUENCY.problems(Fill(), Settings(), True)] == ["fluency"]
    assert [p.check for p in PLAUSIBILITY.problems(Fill(), Settings(), True)] == ["plausibility"]
    assert PLAUSIBILITY.problems(Fill(), Settings(), False) == []  # a masked LM's confidence is not in bits
