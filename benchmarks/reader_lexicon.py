"""The reader lexicon (#38, ``linguagym/capabilities/expansion/reader_lexicon.py``): build its counts from the blind
judgements of ``benchmarks/``, and say what the rule keeps.

    .venv/bin/python benchmarks/reader_lexicon.py build   # writes expansion/reader_lexicon.json beside the code
    .venv/bin/python benchmarks/reader_lexicon.py show       # per word: accepted/judged, the estimate, kept or not
    PYTHONPATH=. .venv/bin/python benchmarks/reader_lexicon.py heldout [--group sample] [--runs RUN.json ...]

``build``: every forced-choice blind sample (``expansion_blind_NN.tsv`` with its key and ``_judged.jsonl``: a reader
who saw only the original and the expansion said whether the inserted words are acceptable to a careful reader) is
read; each row's inserted words (the words the expansion adds to the original, by a word diff) are credited with the
row's verdict. Rows another rule refuses anyway are not counted against a word: a quantifier, and "own" not right
after a possessive determiner (``reader_rules.py``). ``--tags`` picks the samples (default: every judged one).

The counts are by word and by (word, lemma of the word it modified) pair: each judged expansion is tagged as the
pipeline tags a seed (spaCy's tagger) and the modified word found by ``attested.head``; the shipped file has both,
and the pairs decide (the 40 sample showed the word alone does not: "recent" 23 of 31 accepted in the 39 sample,
1 of 53 in the 40, where nearly every one was "the recent film").

``show``: the words the rule keeps (``reader_lexicon.accepts``) and, on the judged rows, how often the rows whose
inserted words it all keeps were accepted: a tuning-set figure (the counts come from these rows), not a measure of
new output (a fresh blind sample is).

``heldout``: the lexicon's precision on rows whose verdicts did not make it (leave-one-out). Each distinct judged
expansion is held to the lexicon built from every verdict except those on its own sentence (``--group sentence``,
the default: any row, in any sample, expanding the same original) or in its own samples (``--group sample``); among
the rows that lexicon keeps, the share acceptable estimates what the rule admits in a sentence no reader has judged,
which the tuning figure of ``show`` cannot. ``--runs`` adds the figure on the distinct expansions of those test
files alone (the default output, when they are default runs).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "linguagym" / "capabilities" / "expansion" / "reader_lexicon.json"
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[^\sA-Za-z]")


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def inserted(original: str, expansion: str) -> list[tuple[str, str]]:
    """(inserted word lower-cased, the word before it lower-cased) for every word ``expansion`` adds to
    ``original``."""
    a, b = _words(original), _words(expansion)
    out = []
    matcher = difflib.SequenceMatcher(a=[w.lower() for w in a], b=[w.lower() for w in b], autojunk=False)
    for op, _, _, j1, j2 in matcher.get_opcodes():
        if op in ("insert", "replace"):
            out += [(b[j].lower(), b[j - 1].lower() if j else "") for j in range(j1, j2) if b[j][:1].isalpha()]
    return out


def judged_tags() -> list[str]:
    return sorted(p.name[len("expansion_blind_"):-len("_judged.jsonl")]
                  for p in HERE.glob("expansion_blind_*_judged.jsonl"))


def judged_rows(tags: list[str]) -> list[tuple[str, list[tuple[str, str]], bool]]:
    """(sample tag, inserted words, acceptable) per judged row of the samples ``tags``."""
    return [(tag, inserted(row["original"], row["expansion"]), ok) for tag, row, ok in judged_texts(tags)]


def judged_texts(tags: list[str]) -> list[tuple[str, dict, bool]]:
    """(sample tag, the row's texts, acceptable) per judged row of the samples ``tags``. A sample judged by more
    than one reader (``_judged.jsonl`` and each ``_judged_<name>.jsonl`` beside it) gives a row the verdict of
    most of its readers, a tie counting as not acceptable ("if in doubt, no")."""
    rows = []
    for tag in tags:
        texts = sample_texts(tag)
        rows += [(tag, texts[i], most_accept(v)) for i, v in row_votes(tag).items()]
    return rows


def row_votes(tag: str) -> dict[int, list[bool]]:
    """Row id -> every verdict its readers gave it in the blind sample ``tag``, the first reader's first."""
    votes: dict[int, list[bool]] = {}
    for path in reader_files(tag):
        for row_id, ok in read_verdicts(path).items():
            votes.setdefault(row_id, []).append(ok)
    return votes


def most_accept(votes: list[bool]) -> bool:
    """Whether most of a row's verdicts accept it; a tie does not."""
    return 2 * sum(votes) > len(votes)


def sample_texts(tag: str) -> dict[int, dict]:
    """Row id -> the row (id, original, expansion) of the blind sample ``tag``'s TSV. The TSVs are written as plain
    tab-joined text, so a sentence that starts with a quotation mark is read as written, not as a quoted field."""
    with open(HERE / f"expansion_blind_{tag}.tsv", encoding="utf-8", newline="") as f:
        return {int(r["id"]): r for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}


def read_verdicts(path: Path) -> dict[int, bool]:
    """Row id -> acceptable, from one reader's ``{"id", "acceptable", ...}`` lines."""
    return {int(v["id"]): bool(v["acceptable"])
            for v in map(json.loads, filter(str.strip, path.read_text(encoding="utf-8").splitlines()))}


def reader_files(tag: str) -> list[Path]:
    """The verdict files of the blind sample ``tag``: its first reader's, then any later reader's."""
    return [HERE / f"expansion_blind_{tag}_judged.jsonl",
            *sorted(HERE.glob(f"expansion_blind_{tag}_judged_*.jsonl"))]


def inserted_heads(original: str, expansion: str, tag) -> list[tuple[str, str | None]]:
    """(inserted word lower-cased, lower-cased lemma of the word it modifies or None) for every modifier the
    expansion adds, the texts tagged by ``tag`` (text -> tokens, as the pipeline's analyser gives them)."""
    from linguagym.capabilities.expansion.attested import ADJECTIVE_TAGS, ADVERB_TAGS, head

    before, after = tag(original), tag(expansion)
    matcher = difflib.SequenceMatcher(a=[t.lower for t in before], b=[t.lower for t in after], autojunk=False)
    out = []
    for op, _, _, j1, j2 in matcher.get_opcodes():
        if op not in ("insert", "replace"):
            continue
        for i in range(j1, j2):
            if after[i].tag in ADJECTIVE_TAGS or after[i].tag in ADVERB_TAGS:
                j = head(after, i)
                out.append((after[i].lower, after[j].lemma.lower() if j is not None else None))
    return out


def tagger():
    """Text -> its tokens, tagged by the pipeline's spaCy model (no sentiment lexicon needed)."""
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.data.lexicon import Lexicon

    analyser = Analyser(Lexicon({}, "none"))
    return lambda text: analyser.analyse_one(text).tokens


def pair_counts(texts, tag) -> dict[str, dict[str, int]]:
    """Per "word head" pair: rows accepted, rows judged (rows the reader rules refuse anyway left out)."""
    from linguagym.capabilities.expansion.reader_rules import QUANTIFIERS

    accepted: Counter = Counter()
    judged: Counter = Counter()
    for _, row, ok in texts:
        for word, head in inserted_heads(row["original"], row["expansion"], tag):
            if head is None or word in QUANTIFIERS:
                continue
            judged[f"{word} {head}"] += 1
            accepted[f"{word} {head}"] += ok
    return {p: {"accepted": accepted[p], "judged": judged[p]} for p in sorted(judged)}


def counts(rows) -> dict[str, dict[str, int]]:
    """Per inserted word: rows accepted, rows judged (rows the reader rules refuse anyway left out)."""
    from linguagym.capabilities.expansion.reader_rules import POSSESSIVES, QUANTIFIERS

    accepted: Counter = Counter()
    judged: Counter = Counter()
    for _, words, ok in rows:
        for word, before in words:
            if word in QUANTIFIERS or (word == "own" and before not in POSSESSIVES):
                continue
            judged[word] += 1
            accepted[word] += ok
    return {w: {"accepted": accepted[w], "judged": judged[w]} for w in sorted(judged)}


def row_pairs(texts, tag) -> list[tuple[str, dict, bool, list[tuple[str, str | None]]]]:
    """``texts`` (sample tag, row, acceptable) with each row's inserted modifiers and their heads."""
    return [(t, row, ok, inserted_heads(row["original"], row["expansion"], tag)) for t, row, ok in texts]


def held_out(tagged, group: str = "sentence") -> list[tuple[dict, bool, bool]]:
    """Per distinct judged expansion: (its row, acceptable, kept), where kept says whether the lexicon built from
    every other group's verdicts would let all its inserted modifiers in. ``group``: "sentence" leaves out every
    row (in any sample) expanding the same original sentence, so a row's verdict, and its near-twins' with the same
    pair in the same sentence, never decide its own pair; "sample" leaves out the row's whole sample (for a row
    judged in several, each of them). ``tagged``: ``row_pairs``' output. A distinct expansion judged in several
    samples counts once, acceptable by most of its samples' verdicts (each sample's by most of its readers; the
    census pools every reader's verdict instead, which on the 29 expansions judged in several samples agrees)."""
    from linguagym.capabilities.expansion import reader_lexicon as rl
    from linguagym.capabilities.expansion.reader_rules import QUANTIFIERS

    def key_of(tag: str, row: dict) -> str:
        return row["original"] if group == "sentence" else tag

    by_group: dict[str, Counter] = {}
    total: Counter = Counter()
    for tag, row, ok, found in tagged:
        for word, head in found:
            if head is None or word in QUANTIFIERS:
                continue
            for counter in (total, by_group.setdefault(key_of(tag, row), Counter())):
                counter[(word, head, "judged")] += 1
                counter[(word, head, "accepted")] += ok
    units: dict[tuple[str, str], list] = {}
    for tag, row, ok, found in tagged:
        unit = units.setdefault((row["original"], row["expansion"]), [row, [], found, set()])
        unit[1].append(ok)
        unit[3].add(key_of(tag, row))
    out = []
    for row, verdicts, found, groups in units.values():
        def left(word: str, head: str, groups=groups) -> tuple[int, int]:  # (accepted, judged) by the other groups
            return tuple(total[(word, head, k)] - sum(by_group[g][(word, head, k)] for g in groups)
                         for k in ("accepted", "judged"))

        kept = bool(found) and all(head is not None and word not in QUANTIFIERS
                                   and (c := left(word, head))[1] >= rl.MIN_JUDGED
                                   and rl.estimate(*c) >= rl.MIN_ESTIMATE for word, head in found)
        out.append((row, most_accept(verdicts), kept))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("build", "show", "heldout"))
    parser.add_argument("--group", choices=("sentence", "sample"), default="sentence",
                        help="heldout: what each row's lexicon leaves out (default: every row of its sentence)")
    parser.add_argument("--runs", nargs="*", default=(),
                        help="heldout: also the figure on the distinct expansions of these test files alone")
    parser.add_argument("--tags", nargs="+", default=None, help="the blind samples (default: every judged one)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from linguagym.capabilities.expansion import reader_lexicon

    tags = args.tags or judged_tags()
    rows = judged_rows(tags)
    if args.mode == "build":
        document = {"about": "blind readers' verdicts on inserted words (benchmarks/reader_lexicon.py build)",
                    "sources": [f"benchmarks/expansion_blind_{t}" for t in tags],
                    "readers": {t: len(reader_files(t)) for t in tags}, "rows": len(rows),
                    "words": counts(rows), "pairs": pair_counts(judged_texts(tags), tagger())}
        args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        print(f"{len(document['words'])} words, {len(document['pairs'])} pairs from {len(rows)} rows of "
              f"{', '.join(tags)} -> {args.out}")
        return
    if args.mode == "heldout":
        print_held_out(held_out(row_pairs(judged_texts(tags), tagger()), args.group), args.group, args.runs)
        return
    lexicon = reader_lexicon.ReaderLexicon.load(args.out)
    for key, c in sorted((lexicon.pairs or {}).items(), key=lambda kv: -kv[1][1]):
        if c[1] >= 2:
            print(f"{' '.join(key):30s} {c[0]:3d}/{c[1]:<3d} estimate {reader_lexicon.estimate(*c):.2f}"
                  f"{'  kept' if lexicon.accepts(*key) else ''}")
    print(f"kept: {list(lexicon.kept)}")
    tag = tagger()
    kept = [ok for _, row, ok in judged_texts(tags)
            if (found := inserted_heads(row["original"], row["expansion"], tag))
            and all(lexicon.accepts(w, h) for w, h in found)]
    print(f"rows whose inserted words are all kept: {sum(kept)}/{len(kept)} acceptable (tuning set) of {len(rows)}")


def rate(ok: int, n: int) -> str:
    """``ok/n = share [low, high]`` with the Wilson 95% interval, as the census and heldout print a rate."""
    from linguagym.capabilities.testing.failures import wilson

    low, high = wilson(ok, n) or (0.0, 0.0)
    return f"{ok}/{n} = {ok / n:.2f} [{low:.2f}, {high:.2f}]" if n else "0/0"


def print_held_out(units, group: str, runs) -> None:
    kept = [ok for _, ok, k in units if k]
    refused = [ok for _, ok, k in units if not k]
    print(f"{len(units)} distinct judged expansions; each judged by a lexicon without its {group}'s verdicts:")
    print(f"  kept: acceptable {rate(sum(kept), len(kept))}")
    print(f"  refused: acceptable {rate(sum(refused), len(refused))}")
    if runs:
        sys.path.insert(0, str(HERE))
        from expansion_blind_sample import pooled

        made = {(t.provenance.seed_text, t.provenance.expanded_text) for _, t in pooled(list(runs), set())}
        own = [(ok, k) for row, ok, k in units if (row["original"], row["expansion"]) in made]
        kept = [ok for ok, k in own if k]
        print(f"the {len(made)} distinct expansions of the {len(runs)} files: {len(own)} judged; kept without "
              f"their {group}'s verdicts {len(kept)}, acceptable {rate(sum(kept), len(kept))}; refused "
              f"{len(own) - len(kept)}, acceptable {rate(sum(ok for ok, k in own if not k), len(own) - len(kept))}")


if __name__ == "__main__":
    main()
