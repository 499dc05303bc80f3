"""The reader lexicon (``expansion/reader_lexicon.py``): an inserted adjective or adverb must be one blind readers
accepted in most judged rows, before the word it modifies where the counts are by pair; the shipped counts are the
judged files' (``benchmarks/reader_lexicon.py``)."""

from __future__ import annotations

import json

import pytest

from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.reader_lexicon import (
    LEXICON_FILE,
    MIN_ESTIMATE,
    MIN_JUDGED,
    ReaderLexicon,
    default_lexicon,
    estimate,
)
from linguagym.capabilities.expansion.settings import DEFAULT_EXPANSION_SETTINGS
from tests.benchmark_scripts import load_benchmark
from tests.capabilities.test_domain_checks import corpus
from tests.capabilities.test_insertion_rules import tagged

LEXICON = ReaderLexicon({"recent": (23, 31), "also": (10, 14), "political": (4, 21), "prior": (2, 3),
                         "central": (4, 4), "throwaway": (2, 2)})
REVIEWS = corpus("the/DT recent/JJ film/NN ./.", "a/DT political/JJ film/NN ./.", "it/PRP may/MD also/RB be/VB ./.")


def refused(text: str, lexicon: ReaderLexicon | None = LEXICON, min_sentences: int = 1) -> list[str]:
    vocabulary = DomainVocabulary.from_analyses(REVIEWS, min_count=0, min_sentences=min_sentences, lexicon=lexicon)
    return [p for p in vocabulary.problems(*tagged(text)) if p.startswith("unvalidated:")]


def test_a_word_is_kept_on_enough_rows_with_an_estimate_over_the_bar():
    assert (MIN_ESTIMATE, MIN_JUDGED) == (0.65, 3)
    assert estimate(2, 2) == 0.75 and estimate(0, 0) == 0.5
    assert LEXICON.accepts("recent") and LEXICON.accepts("Recent") and LEXICON.accepts("central")  # 24/33, 5/6
    assert LEXICON.accepts("also")  # 11/16 = 0.69
    assert not LEXICON.accepts("political")  # 5/23
    assert not LEXICON.accepts("prior")  # 3/5 = 0.60: under the bar
    assert not LEXICON.accepts("throwaway")  # 2 of 2, but judged in fewer than 3 rows
    assert not LEXICON.accepts("cinematic")  # never judged
    assert LEXICON.kept == ("also", "central", "recent")


def test_an_inserted_modifier_outside_the_lexicon_is_refused_with_its_counts():
    found = refused("a/DT *political/JJ film/NN ./.")
    assert len(found) == 1 and "accepted it in 4 of 21 judged rows" in found[0]
    unseen = refused("a/DT *cinematic/JJ film/NN ./.")
    assert len(unseen) == 1 and "no blind reader has judged it" in unseen[0]
    assert refused("the/DT *recent/JJ film/NN ./.") == []
    assert refused("it/PRP may/MD *also/RB be/VB ./.") == []
    assert refused("it/PRP may/MD *soon/RB be/VB ./.")  # adverbs too
    assert refused("a/DT *drama/NN ./.") == []  # not a modifier: not the lexicon's to refuse
    assert refused("a/DT political/JJ film/NN ./.") == []  # the seed's own words are not judged


PAIRS = ReaderLexicon(
    {"recent": (23, 31), "central": (14, 20)},
    pairs={("recent", "film"): (1, 40), ("recent", "history"): (3, 3), ("central", "character"): (10, 11),
           ("central", "story"): (1, 2)})


def test_by_pair_a_word_is_kept_only_before_the_heads_readers_accepted_it_with():
    assert PAIRS.accepts("central", "character") and PAIRS.accepts("recent", "history")
    assert not PAIRS.accepts("recent", "film")  # the word alone would pass (24/33); "the recent film" does not
    assert not PAIRS.accepts("central", "story")  # 2 rows: too few
    assert not PAIRS.accepts("central", "plot")  # never judged there
    assert not PAIRS.accepts("central")  # no head found: never judged so
    assert PAIRS.accepts_anywhere("central") and not PAIRS.accepts_anywhere("political")
    assert PAIRS.kept == ("central character", "recent history") and PAIRS.identity["by"] == "pair"


def test_by_pair_the_check_finds_the_modified_word_and_says_why():
    def pair_refused(text: str) -> list[str]:
        vocabulary = DomainVocabulary.from_analyses(REVIEWS, min_count=0, min_sentences=1, lexicon=PAIRS)
        return [p for p in vocabulary.problems(*tagged(text)) if p.startswith("unvalidated:")]

    assert pair_refused("the/DT *central/JJ character/NN ./.") == []
    assert pair_refused("the/DT *central/JJ comic/JJ character/NN ./.") == []  # past a prenominal adjective
    found = pair_refused("the/DT *recent/JJ film/NN ./.")
    assert len(found) == 1 and "before 'film' in 1 of 40 judged rows" in found[0]
    assert "modifies no word" in pair_refused("it/PRP is/VBZ *recent/JJ ./.")[0]


def test_the_lexicon_is_off_when_not_given_or_on_a_small_dataset():
    assert refused("a/DT *political/JJ film/NN ./.", lexicon=None) == []
    assert refused("a/DT *political/JJ film/NN ./.", min_sentences=100) == []
    assert DEFAULT_EXPANSION_SETTINGS.reader_lexicon


def test_the_command_turns_the_lexicon_off_only_when_asked():
    from linguagym.cli.lct import generate_settings
    from tests.capabilities.test_default_protocol import _generate_args

    assert generate_settings(_generate_args()).expansion.settings.reader_lexicon is True
    assert generate_settings(_generate_args("--no-reader-lexicon")).expansion.settings.reader_lexicon is False


def test_the_shipped_counts_are_those_of_the_judged_samples():
    """The shipped file is what ``benchmarks/reader_lexicon.py build`` makes of the judged blind samples it names,
    so no count was written by hand: the word counts by diff, the pair counts by the pipeline's tagger."""
    pytest.importorskip("spacy")
    script = load_benchmark("reader_lexicon")
    document = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    tags = [source.removeprefix("benchmarks/expansion_blind_") for source in document["sources"]]
    assert set(tags) <= set(script.judged_tags()) and {"38", "39", "40"} <= set(tags)
    rows = script.judged_rows(tags)
    assert document["rows"] == len(rows) >= 818
    assert document["words"] == script.counts(rows)
    assert document["pairs"] == script.pair_counts(script.judged_texts(tags), script.tagger())
    shipped = default_lexicon()
    assert shipped.pairs is not None and "central character" in shipped.kept
    # the pairs most readers rejected in most rows ("the current film", "the recent film") are not kept
    assert not {"current film", "recent film", "recent movie", "also be", "political film"} & set(shipped.kept)
    # a sample judged by several readers counts a row by most of them (sample 40: its first readers and two more)
    assert document["readers"] == {tag: len(script.reader_files(tag)) for tag in tags}
    assert document["readers"]["40"] == 3
    assert shipped.identity["kept"] == list(shipped.kept) and shipped.identity["min_estimate"] == MIN_ESTIMATE


def test_the_builder_counts_inserted_words_and_skips_what_other_rules_refuse():
    script = load_benchmark("reader_lexicon")
    assert script.inserted("A stylish thriller.", "A stylish political thriller.") == [("political", "stylish")]
    assert script.inserted("It may be good.", "It may also be very good.") == [("also", "may"), ("very", "be")]
    rows = [("t", [("recent", "the")], True), ("t", [("recent", "a")], False), ("t", [("own", "the")], False),
            ("t", [("own", "her")], True), ("t", [("many", "the")], False)]
    assert script.counts(rows) == {"own": {"accepted": 1, "judged": 1}, "recent": {"accepted": 1, "judged": 2}}


def test_a_row_judged_by_several_readers_takes_most_of_their_verdicts(tmp_path, monkeypatch):
    script = load_benchmark("reader_lexicon")
    monkeypatch.setattr(script, "HERE", tmp_path)
    (tmp_path / "expansion_blind_90.tsv").write_text(
        "id\toriginal\texpansion\n1\tA film.\tA recent film.\n2\tA plot.\tA central plot.\n3\tA role.\tA big role.\n",
        encoding="utf-8")

    def verdicts(name: str, accepted: tuple[bool, bool, bool]) -> None:
        (tmp_path / f"expansion_blind_90_judged{name}.jsonl").write_text(
            "".join(json.dumps({"id": i, "acceptable": ok}) + "\n" for i, ok in enumerate(accepted, 1)),
            encoding="utf-8")

    verdicts("", (False, True, True))
    verdicts("_b", (True, True, False))
    # two readers: row 1 and row 3 are ties, which count as not acceptable
    assert [ok for _, _, ok in script.judged_texts(["90"])] == [False, True, False]
    verdicts("_c", (True, False, False))
    assert [ok for _, _, ok in script.judged_texts(["90"])] == [True, True, False]
    assert [p.name for p in script.reader_files("90")] == [
        "expansion_blind_90_judged.jsonl", "expansion_blind_90_judged_b.jsonl", "expansion_blind_90_judged_c.jsonl"]


def test_discovery_draws_only_pairs_a_few_more_accepted_rows_could_keep():
    """``expansion_blind_sample.py discover`` offers readers the pairs still open: never judged (three accepted rows
    keep one: 4/5 = 0.8), or judged with few rejections; not a pair whose rejections no three rows could outweigh."""
    script = load_benchmark("expansion_blind_sample")
    assert script.open_pair((0, 0), 3) and script.open_pair((1, 1), 3) and script.open_pair((2, 3), 3)
    assert not script.open_pair((0, 0), 2)  # two rows are fewer than MIN_JUDGED
    assert not script.open_pair((0, 3), 3)  # 3/6 -> 0.5
    assert not script.open_pair((4, 21), 3)


def test_the_census_pools_every_readers_verdict_on_a_row():
    """``expansion_blind_sample.py census`` judges a default expansion by all its verdicts: sample 40's rows by its
    three readers, sample 57's by its two."""
    script = load_benchmark("expansion_blind_sample")
    lexicon_script = load_benchmark("reader_lexicon")
    votes = script.all_votes()
    for tag, readers in (("40", 3), ("57", 2), ("61", 2)):
        texts = lexicon_script.sample_texts(tag)
        row = texts[min(texts)]
        assert len(votes[(row["original"], row["expansion"])]) >= readers


def test_held_out_judges_each_row_by_a_lexicon_without_its_own_sentence_or_sample():
    """``reader_lexicon.py heldout``: a row counts as kept only when the other sentences' (or samples') verdicts
    alone keep its pair, so a pair kept on its own rows' verdicts does not count its rows as kept."""
    script = load_benchmark("reader_lexicon")

    def row(tag: str, n: int, pair: tuple[str, str | None], ok: bool, expansion: str | None = None):
        original = f"Sentence {n}."
        return (tag, {"original": original, "expansion": expansion or f"{original} {pair[0]}"}, ok, [pair])

    central, recent = ("central", "plot"), ("recent", "film")
    tagged = [row("a", i, central, True) for i in range(4)] + [row("b", 10 + i, recent, True) for i in range(3)]
    # a pair in four sentences, all accepted: without one sentence, 3/3 (estimate 0.8) still keeps it
    # a pair in three: without one sentence, 2/2 are too few rows (MIN_JUDGED 3), so none of its rows counts as kept
    units = script.held_out(tagged, "sentence")
    assert [(r["original"], kept) for r, _, kept in units] == [(f"Sentence {i}.", True) for i in range(4)] + [
        (f"Sentence {i}.", False) for i in (10, 11, 12)]
    # without its whole sample, neither pair has a row left to keep it
    assert not any(kept for _, _, kept in script.held_out(tagged, "sample"))
    # rejections in other sentences refuse the pair: 3 accepted, 2 rejected elsewhere -> 4/7 < 0.65
    rejected = [row("c", 20 + i, central, False) for i in range(2)]
    assert [kept for r, _, kept in script.held_out(tagged + rejected, "sentence") if r["original"] == "Sentence 0."] \
        == [False]
    # one expansion judged in two samples counts once, by most of its verdicts (a tie is not acceptable)
    twice = [row("a", 30, central, True, "same"), row("d", 30, central, False, "same")]
    units = script.held_out(tagged + twice, "sentence")
    assert [(ok, kept) for r, ok, kept in units if r["expansion"] == "same"] == [(False, True)]
    # no head found, or a quantifier: never kept
    odd = [row("a", 40, ("very", None), True), row("a", 41, ("many", "plot"), True),
           *[row("e", 50 + i, ("many", "plot"), True) for i in range(4)]]
    assert not any(kept for r, _, kept in script.held_out(tagged + odd, "sentence") if r["original"] in (
        "Sentence 40.", "Sentence 41."))
