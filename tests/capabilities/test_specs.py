from __future__ import annotations

import pytest
import yaml

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.seeds.specs import load_spec, load_specs, parse_spec, select_specs


def minimal(**case) -> dict:
    base = {"search": {"label": "positive"}, "template": "Q {S|quote}? {answer}",
            "alternatives": {"answer": ["yes"]}, "expected": ["positive"]}
    base.update(case)
    return {"id": "X1", "name": "x", "cases": [base]}


def test_the_eleven_shipped_specs_load_in_order():
    specs = load_specs()
    assert [s.id for s in specs] == [f"LC{i}" for i in range(1, 12)]
    lc4 = specs[3]
    assert lc4.cases[0].search.captures == ("verb",)
    assert lc4.cases[0].expected == {"positive", "neutral"}
    assert all(len(s.sha256) == 64 for s in specs)


def test_the_paper_template_set_replaces_the_repaired_specs_and_keeps_the_rest():
    repaired, paper = load_specs(), load_specs(templates="paper")
    assert [s.id for s in paper] == [s.id for s in repaired]
    changed = [s.id for s, p in zip(repaired, paper, strict=True) if s.sha256 != p.sha256]
    assert changed == ["LC3", "LC4", "LC5", "LC6", "LC7", "LC8", "LC9", "LC10", "LC11"]
    assert all("/paper/" in p.path for p in paper if p.id in changed)
    assert paper[3].cases[0].search.captures == ("copula",)
    # each repaired capability keeps its label(s)
    assert [c.expected for s in repaired for c in s.cases] == [c.expected for s in paper for c in s.cases]
    assert "much as to say" in str(paper[2].cases) and "much as to say" not in str(repaired[2].cases)
    with pytest.raises(CapabilityError, match="unknown template set 'fixed'"):
        load_specs(templates="fixed")


def test_negate_filter_needs_the_verb_capture_and_known_forms():
    start = [{"word": "this"}, {"tag": "VBZ", "name": "verb"}]
    parse_spec(minimal(search={"label": "negative", "start": start}, template="{S|negate}", alternatives={
        "negation": ["not", "n't"]}))
    with pytest.raises(CapabilityError, match="negate comes first"):
        parse_spec(minimal(search={"label": "negative"}, template="{S|negate}", alternatives={}))
    with pytest.raises(CapabilityError, match="must be \"not\" or \"n't\""):
        parse_spec(minimal(search={"label": "negative", "start": start}, template="{S|negate}",
                           alternatives={"negation": ["never"]}))
    with pytest.raises(CapabilityError, match="'< 1 clause' is not a comparison"):
        parse_spec(minimal(search={"label": "negative", "clauses": "< 1 clause"}))


def test_select_specs():
    specs = load_specs()
    assert [s.id for s in select_specs(specs, "lc4, 5")] == ["LC4", "LC5"]
    assert len(select_specs(specs, "all")) == 11
    with pytest.raises(CapabilityError, match="unknown capability 'LC12'") as info:
        select_specs(specs, "LC12")
    assert "LC11" in str(info.value)


def test_every_problem_is_reported_with_its_location():
    data = minimal(expected=["good"], template="{intro} {S.verb} {T}", alternatives={"answer": ["yes"]})
    data["cases"][0]["search"] = {"label": "positive", "length": "about 10", "require": ["adjective:great"],
                                  "colour": "red"}
    with pytest.raises(CapabilityError) as info:
        parse_spec(data, "bad.yaml")
    message = str(info.value)
    assert message.startswith("bad.yaml: 8 problems")
    for fragment in ["cases[0].search.colour: unknown key", "cases[0].search.length: 'about 10' is not a comparison",
                     "cases[0].search.require[0]: 'adjective:great'", "cases[0].expected: unknown label(s) 'good'",
                     "slot {intro}: 'intro' is neither", "slot {S.verb}: S has no part 'verb'",
                     "slot {T}", "'answer' is never used"]:
        assert fragment in message, fragment


def test_yaml_booleans_and_syntax_errors_are_explained(tmp_path):
    path = tmp_path / "s.yaml"
    spec = minimal()
    spec["cases"][0]["search"]["start"] = [{"word": "this"}, {"word": "is", "not_followed_by": ["not", False]}]
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(CapabilityError, match="quote them"):
        load_spec(path)
    path.write_text("id: X\ncases: [\n")
    with pytest.raises(CapabilityError, match=r"s.yaml, line \d+, column \d+: not YAML"):
        load_spec(path)


def test_users_add_specs_and_ids_must_be_unique(tmp_path):
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(minimal()))
    specs = load_specs([tmp_path])
    assert [s.id for s in specs] == ["X1"]
    (tmp_path / "copy.json").write_text('{"id": "X1", "name": "again", "cases": [{"search": {"label": "neutral"}, '
                                        '"expected": "neutral"}]}')
    with pytest.raises(CapabilityError, match="'X1' is defined twice"):
        load_specs([tmp_path])
    with pytest.raises(CapabilityError, match="does not exist"):
        load_specs([tmp_path / "none.yaml"])
