"""Truncated and broken dataset sentences are never seeds: each rule on sentences of the default dataset (Rotten
Tomatoes), and complete sentences that look alike but stay."""

from __future__ import annotations

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import read_rotten_tomatoes
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.pipeline import generate_tests
from linguagym.capabilities.seeds.screening import (
    DEBRIS,
    STARTS_MID_SENTENCE,
    TRUNCATED,
    UNBALANCED,
    length_limit,
    screen,
)
from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings

pytestmark = pytest.mark.usefixtures("spacy_ready")

# sentences of the default dataset and what the screen says of each (None: a usable seed)
REAL = {
    "Should have been someone else": None,  # no final period, but complete
    "Ian Holm conquers France as an earthy Napoleon": None,
    "Like the Tuck family themselves, this movie just goes on and on and on and on": None,  # a particle at the end
    "Shows that Jackie Chan is getting older, and that's something I would rather live in denial about": None,
    "(A) thoughtful, visually graceful work.": None,  # the critic's editorial bracket pairs
    "Anyone who gets chills from movies with giant plot holes will find plenty to shake and shiver about in "
    "'The Ring.'": None,
    "...The film's ending has a \"what was it all for?\" feeling to it.": None,  # an opening ellipsis, capital
    "makes her nomination as best actress even more of a an a": TRUNCATED,  # ends on a determiner
    "meanders between its powerful moments.": STARTS_MID_SENTENCE,
    "...salaciously simplistic.": STARTS_MID_SENTENCE,
    "'...the film's considered approach to its subject matter is too calm and thoughtful for agitprop.'":
        STARTS_MID_SENTENCE,
    "Apallingly absurd...the chemistry between Newton and Wahlberg could turn an Imax theater into a 9\" black and "
    "white portable TV.": UNBALANCED,
    "Choose your reaction: A.) That sure is funny! B.) That sure is pathetic!": UNBALANCED,
    # Penn Treebank tokenisation as in SST's raw files; two sentences glued at a period
    "The film does n't work .": DEBRIS,
    "-LRB- A -RRB- thoughtful , visually graceful work .": DEBRIS,
    "An exceedingly clever piece of cinema.another great thriller.": DEBRIS,
    "( 'Safe Conduct') is a long movie at 163 minutes but it fills the time with drama.": DEBRIS,
}


@pytest.fixture
def analyser(swn_file):
    return Analyser(read_sentiwordnet(swn_file))


def test_each_rule_on_real_sentences(analyser):
    texts = list(REAL)
    screening = screen(texts, analyser.analyse(texts))
    assert {text: screening.reasons.get(i) for i, text in enumerate(texts)} == REAL
    assert screening.usable == [REAL[t] is None for t in texts]
    assert screening.describe() == {"dropped": 10, "reasons": {TRUNCATED: 1, STARTS_MID_SENTENCE: 3, UNBALANCED: 2,
                                                                DEBRIS: 4}}


def test_the_sources_length_limit_marks_cut_texts(analyser):
    # Rotten Tomatoes cut its snippets at 255 characters (give or take the space it cut at): a text that long
    # without final punctuation was cut, even where the cut fell between words; a shorter one like it is complete
    words = "A film that welcomed tens of thousands of refugees while the world watched "
    texts = [(words * 4)[:254] + ".", (words * 4)[:254] + "!", (words * 4)[:255].rstrip(),
             (words * 4)[:252].rstrip(), (words * 3).rstrip()]
    assert [len(t) for t in texts] == [255, 255, 255, 252, 224]
    assert length_limit(texts) == 255
    assert length_limit(["short", "longer one", "the longest one"]) is None  # one row at the longest: no limit
    screening = screen(texts, analyser.analyse(texts))
    assert screening.reasons == {2: TRUNCATED, 3: TRUNCATED}


def shortage_note(seeds: int, met: str, rows: int) -> str:
    return (f"fewer than 10 seeds ({seeds}): of the dataset's {rows} sentences, only these met the search ({met}, "
            "after truncated, broken and run-together ones were left out); the rules are the spec's, so a larger "
            "dataset or other rules (--specs) give more")


def test_unusable_sentences_are_neither_seeds_nor_partners_and_are_counted(swn_file, tmp_path):
    rows = [("1", -3.0, "This movie is bad."), ("2", -3.0, "this movie is bad and"), ("3", 3.0, "A good film."),
            ("4", 3.0, "meanders between its good moments."), ("5", 0.0, "A red car.")]
    path = tmp_path / "rt.txt"
    path.write_text("".join(f"{i}\t{r}\t{t}\r\n" for i, r, t in rows), encoding="utf-8")
    document = generate_tests(GenerateSettings(read_rotten_tomatoes(path), lexicon_path=swn_file, lcs="LC2,LC8",
                                               max_seeds=None, expansion=ExpansionOptions(enabled=False)))
    used = {row.text for test in document.tests for row in test.provenance.rows or ()}
    assert used == {"This movie is bad.", "A good film."}
    assert document.dataset.extra["unusable"] == {"dropped": 2, "reasons": {TRUNCATED: 1, STARTS_MID_SENTENCE: 1}}
    lc2 = document.capabilities[0]
    assert lc2.matches == (1, 1)
    assert lc2.notes[:2] == ("case 1: 1 truncated or broken sentence(s) left out",
                             "case 2: 1 truncated or broken sentence(s) left out")
    # and, with so few seeds, why (issue 38): how many sentences met each case's search
    assert lc2.notes[2:] == (shortage_note(lc2.seeds, "case 1: 1 and case 2: 1", 5),)
