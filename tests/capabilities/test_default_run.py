"""The command a newcomer runs, `linguagym lct generate --lc all`, end to end on its embedded defaults (the Rotten
Tomatoes sentences and SentiWordNet from PyPI, smollm2-135m as the filler, no treebank): what issue 38 asked of its
output holds for the real file, not only for the fixtures."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("spacy_ready")]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The file and what the command printed to stderr (not a terminal here, as in a log or CI)."""
    from linguagym.capabilities.testfile import read_tests
    from linguagym.cli.entry import main

    out = tmp_path_factory.mktemp("default-run") / "tests.json"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        # the fill cache off: the test computes every fill, whatever an earlier run left in the user cache
        assert main(["lct", "generate", "--lc", "all", "--seed", "0", "--no-fill-cache", "-o", str(out)]) == 0
    return read_tests(out), err.getvalue()


def test_no_inserted_word_is_a_hedge_by_form_lemma_or_derivation(run):
    from linguagym.capabilities.expansion.hedges import hedge_reason

    document, _ = run
    fills = [w for t in document.tests if t.kind == "expansion" and t.test_type == "MFT" for w in t.provenance.fills]
    assert fills  # the default run expands seeds
    assert [w for w in fills if hedge_reason(w) is not None] == []


def test_every_inserted_modifier_is_one_blind_readers_kept(run):
    """The reader lexicon decides by (modifier, modified word): every inserted word is kept before some head, and
    the file names the pairs it was allowed."""
    from linguagym.capabilities.expansion.reader_lexicon import default_lexicon

    document, _ = run
    lexicon = default_lexicon()
    expansions = [t for t in document.tests if t.kind == "expansion" and t.test_type == "MFT"]
    assert len(expansions) >= 15 and len({t.capability for t in expansions}) >= 5
    assert all(lexicon.accepts_anywhere(w) for t in expansions for w in t.provenance.fills)
    recorded = document.to_json()["expansion"]["validation"]["domain"]["reader_lexicon"]
    assert recorded["kept"] == list(lexicon.kept) and recorded["by"] == "pair"


def test_dir_tests_claim_a_direction_and_no_label(run):
    document, _ = run
    negations = [t for t in document.tests if t.test_type == "DIR"]
    assert negations
    for test in negations:
        assert test.expected == ()
        direction = test.provenance.direction
        assert (direction.label, direction.change) == ("positive", "decrease")
        assert re.search(r"not\b|n't\b|\bnever\b", test.text) and not re.search(
            r"\bnot\b|n't\b", test.provenance.original_text or ""), test.text


def test_a_capability_short_of_seeds_says_so_in_the_file_and_on_the_screen(run):
    document, err = run
    for capability in document.to_json()["capabilities"]:
        if capability["seeds"] < 10:
            assert any("fewer than 10 seeds" in note for note in capability["notes"]), capability["id"]
    assert "LC1: fewer than 10 seeds (0)" in err


def test_progress_goes_to_a_log_a_line_per_stage_and_capability(run):
    """Output not on a terminal (here a string) still gets a line per stage and per capability, with counts and
    the time."""
    _, err = run
    for lc in range(1, 12):
        assert re.search(rf"expanding seeds: LC{lc}: \d+ seeds expanded, \d+ expansions of \d+ candidates "
                         r"\[\d+\.\d s\]", err), lc
    assert re.search(r"wrote \d+ seed tests and \d+ expansions, \d+ INV tests, \d+ DIR tests to .* in \d", err)


def test_a_capability_with_seeds_and_no_expansion_says_why(run):
    """On the default dataset LC4 has seeds but no slot a kept pair fits: the file's notes and the screen say so,
    and name the way to more expansions."""
    from linguagym.capabilities.expansion.reader_lexicon import default_lexicon

    document, err = run
    for capability in document.capabilities:
        notes = [n for n in capability.notes or () if n.startswith("no expansions")]
        assert len(notes) == (1 if capability.seeds and not capability.expansions else 0), capability.id
    kept = len(default_lexicon().kept)
    assert re.search(r"LC4(, LC\d+)*: no expansions: no slot of its seeds takes a modifier the reader lexicon keeps "
                     rf"there \({kept} \(modifier, word\) pairs", err)
