"""Counts of two `lct generate` runs side by side, and a seeded blind sample of one run's expansions (#38).

    .venv/bin/python benchmarks/expansion_blind_sample.py stats BEFORE.json AFTER.json
    .venv/bin/python benchmarks/expansion_blind_sample.py sample AFTER.json --n 220 --control BEFORE.json \
        --control-n 80 --seed 38 --out benchmarks/expansion_blind_38
    .venv/bin/python benchmarks/expansion_blind_sample.py sample RUN0.json RUN1.json ... --n 240 --fresh \
        --control OTHER.json --control-n 80 --seed 40 --out benchmarks/expansion_blind_40
    PYTHONPATH=. .venv/bin/python benchmarks/expansion_blind_sample.py discover OFF0.json OFF1.json ... --n 300 \
        --per-pair 3 --seed 61 --out benchmarks/expansion_blind_61
    PYTHONPATH=. .venv/bin/python benchmarks/expansion_blind_sample.py census RUN0.json RUN1.json ...

``stats``: expansions per capability in each file, the 10 most inserted words with their share of all insertions,
the share the 10 make together, and how many inserted words a hedge group lists by form, lemma or derivation
(``hedges.hedge_reason``).

``sample``: ``--n`` expansions (expected-label tests of kind "expansion") of the file drawn with
``random.Random(seed)``, and ``--control-n`` of the control file (drawn with ``seed + 1``; none without
``--control``), shuffled together; writes ``OUT.tsv`` (id, original sentence, expansion: only the texts, so a
reader judges blind to the run, the capability and the filler's numbers) and ``OUT_key.jsonl`` (per id: which file,
the test's id, capability, fills, masks, confidence, score). The reader gives each id a forced choice, "acceptable
to a careful reader" or not, for the inserted words in their sentence. Several files (runs of the same settings
with other ``--seed`` values, when one run has fewer expansions than the sample needs) are pooled, each expanded
sentence once; ``--fresh`` leaves out every expansion a reader has judged already (any
``benchmarks/expansion_blind_*.tsv``), from the sample and the control alike.

``discover`` (for the reader lexicon, ``linguagym/capabilities/expansion/reader_lexicon.py``): runs made with
``--no-reader-lexicon`` show which (modifier, head) pairs the filler would insert were the lexicon to keep them.
Their expansions not judged yet whose one inserted modifier forms a pair the lexicon does not keep, and could still
keep after the rows the runs have of it (``--per-pair`` at most) were all accepted (``open_pair``), are grouped by
pair; the pairs with the most rows across the runs (the ones that would add the most expansions) come first, and up
to ``--per-pair`` rows of each, drawn with ``random.Random(seed)``, are written as a blind sample in the same shape
(``--n`` rows at most). Judged and counted by
``reader_lexicon.py build``, they widen the lexicon; what it then inserts is measured on a later, fresh sample.

``census``: every distinct expansion of the files (each expanded sentence once), whether some blind reader judged
it, and of those the share acceptable, the verdict of each row by all its readers in every sample it was judged in
(most of them; a tie is not acceptable, as ``reader_lexicon.py`` counts), in all and per capability, with Wilson
95% intervals. Over enough default runs (other ``--seed`` values) the files hold the default output's whole
population, and this is its acceptance, not a sample's.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from linguagym.capabilities.expansion.hedges import hedge_reason
from linguagym.capabilities.testfile.checklist_types import MFT
from linguagym.capabilities.testfile.load import read_tests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reader_lexicon import (  # noqa: E402  (the sibling script, by path)
    inserted_heads,
    judged_tags,
    most_accept,
    rate,
    row_votes,
    sample_texts,
    tagger,
)


def expansions(path: str) -> list:
    """The expected-label expansion tests of a test file, in file order."""
    return [t for t in MFT.of(read_tests(path).tests) if t.kind == "expansion"]


def stats(paths: list[str]) -> None:
    runs = {path: expansions(path) for path in paths}
    capabilities = sorted({t.capability for tests in runs.values() for t in tests}, key=lambda c: int(c[2:]))
    print("| LC | " + " | ".join(Path(p).name for p in paths) + " |")
    print("| --- |" + " ---: |" * len(paths))
    for capability in capabilities:
        print(f"| {capability} | " + " | ".join(str(sum(t.capability == capability for t in tests))
                                                for tests in runs.values()) + " |")
    print("| all | " + " | ".join(str(len(tests)) for tests in runs.values()) + " |")
    for path, tests in runs.items():
        words = Counter(w.lower() for t in tests for w in t.provenance.fills)
        total = sum(words.values())
        top = words.most_common(10)
        share = sum(n for _, n in top) / total if total else 0.0
        hedged = sum(n for w, n in words.items() if hedge_reason(w) is not None)
        print(f"\n{Path(path).name}: {total} inserted words, {len(words)} distinct; the 10 most used make "
              f"{share:.0%}: " + ", ".join(f"{w} {n}" for w, n in top)
              + f"; hedge-group words (form or derivation): {hedged}")


def judged_texts() -> set[tuple[str, str]]:
    """(original, expansion) of every row of the judged blind samples in ``benchmarks/``."""
    out = set()
    for path in Path(__file__).resolve().parent.glob("expansion_blind_*.tsv"):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            _, original, expansion = line.split("\t")
            out.add((original, expansion))
    return out


def pooled(paths: list[str], leave_out: set[tuple[str, str]]) -> list[tuple[str, Any]]:
    """(file, test) of the files' expansions, each (original, expansion) once (the first file's), none of
    ``leave_out``."""
    out, seen = [], set(leave_out)
    for path in paths:
        for test in expansions(path):
            pair = (test.provenance.seed_text, test.provenance.expanded_text)
            if pair not in seen:
                seen.add(pair)
                out.append((path, test))
    return out


def sample(paths: list[str], n: int, control: str | None, control_n: int, seed: int, out: str,
           fresh: bool = False) -> None:
    leave_out = judged_texts() if fresh else set()
    pool = pooled(paths, leave_out)
    if len(pool) < n:
        raise SystemExit(f"only {len(pool)} expansions to draw {n} from: pool more runs (other --seed values)")
    drawn = random.Random(seed).sample(pool, n)
    if control is not None and control_n:
        taken = leave_out | {(t.provenance.seed_text, t.provenance.expanded_text) for _, t in drawn}
        others = pooled([control], taken)
        if len(others) < control_n:
            print(f"the control file has only {len(others)} expansions not judged or drawn already: all taken")
        drawn += random.Random(seed + 1).sample(others, min(control_n, len(others)))
    write_sample(drawn, seed, out)


def open_pair(counts: tuple[int, int], more: int) -> bool:
    """Whether a pair not kept with ``counts`` (accepted, judged) could be kept after ``more`` rows all accepted."""
    from linguagym.capabilities.expansion import reader_lexicon as rl

    accepted, judged = counts
    return judged + more >= rl.MIN_JUDGED and rl.estimate(accepted + more, judged + more) >= rl.MIN_ESTIMATE


def write_sample(drawn: list[tuple[str, Any]], seed: int, out: str) -> None:
    """``drawn`` (file, test) shuffled with ``seed + 2`` and written as ``OUT.tsv`` (texts only) and its key."""
    random.Random(seed + 2).shuffle(drawn)
    rows, key = ["id\toriginal\texpansion"], []
    for number, (source, test) in enumerate(drawn, start=1):
        prov = test.provenance
        rows.append(f"{number}\t{prov.seed_text}\t{prov.expanded_text}")
        key.append({"id": number, "file": Path(source).name, "test": test.id, "capability": test.capability,
                    "fills": list(prov.fills), "masks": [m.tag for m in prov.masks],
                    "confidence": prov.confidence, "score": prov.score})
    Path(f"{out}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    Path(f"{out}_key.jsonl").write_text("".join(json.dumps(k) + "\n" for k in key), encoding="utf-8")
    print(f"wrote {out}.tsv ({len(drawn)} rows) and {out}_key.jsonl")


def discover(paths: list[str], n: int, per_pair: int, seed: int, out: str) -> None:
    from linguagym.capabilities.expansion.reader_lexicon import default_lexicon

    lexicon, tag = default_lexicon(), tagger()
    by_pair: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for source, test in pooled(paths, judged_texts()):
        found = inserted_heads(test.provenance.seed_text, test.provenance.expanded_text, tag)
        if len(found) != 1 or found[0][1] is None:
            continue  # one pair per row, so its verdict is the pair's
        word, head = found[0]
        if not lexicon.accepts(word, head):
            by_pair.setdefault((word, head), []).append((source, test))
    # open: a pair the rows the runs have of it (``per_pair`` at most), all accepted, could have kept
    by_pair = {pair: rows for pair, rows in by_pair.items()
               if open_pair(lexicon.counts(*pair), min(per_pair, len(rows)))}
    rng = random.Random(seed)
    drawn: list[tuple[str, Any]] = []
    ranked = sorted(by_pair.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for _pair, rows in ranked:
        take = rng.sample(rows, min(per_pair, len(rows)))
        if len(drawn) + len(take) > n:
            break
        drawn += take
    print(f"{len(by_pair)} open pairs in {sum(map(len, by_pair.values()))} rows; the most rows: "
          + ", ".join(f"{w} {h} {len(r)}" for (w, h), r in ranked[:15]))
    write_sample(drawn, seed, out)


def all_votes() -> dict[tuple[str, str], list[bool]]:
    """(original, expansion) -> every blind verdict given on it, over all judged samples and their readers."""
    votes: dict[tuple[str, str], list[bool]] = {}
    for tag in judged_tags():
        texts = sample_texts(tag)
        for row_id, verdicts in row_votes(tag).items():
            votes.setdefault((texts[row_id]["original"], texts[row_id]["expansion"]), []).extend(verdicts)
    return votes


def census(paths: list[str]) -> None:
    votes = all_votes()
    rows = pooled(paths, set())
    per: dict[str, list[int]] = {}
    for _, test in rows:
        v = votes.get((test.provenance.seed_text, test.provenance.expanded_text))
        counts = per.setdefault(test.capability, [0, 0, 0])
        counts[0] += 1
        if v is not None:
            counts[1] += 1
            counts[2] += most_accept(v)
    total = [sum(c[i] for c in per.values()) for i in range(3)]
    print(f"{len(paths)} files: {total[0]} distinct expansions, {total[1]} judged blind, acceptable "
          f"{rate(total[2], total[1])}")
    for capability in sorted(per, key=lambda c: int(c[2:])):
        n, judged, ok = per[capability]
        print(f"  {capability}: {n} distinct, {judged} judged, acceptable {rate(ok, judged)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    compare = commands.add_parser("stats")
    compare.add_argument("files", nargs="+")
    draw = commands.add_parser("sample")
    draw.add_argument("files", nargs="+")
    draw.add_argument("--fresh", action="store_true", help="leave out every expansion a reader has judged")
    draw.add_argument("--n", type=int, default=220)
    draw.add_argument("--control")
    draw.add_argument("--control-n", type=int, default=0)
    draw.add_argument("--seed", type=int, default=38)
    draw.add_argument("--out", required=True)
    widen = commands.add_parser("discover")
    widen.add_argument("files", nargs="+", help="lct generate runs made with --no-reader-lexicon")
    widen.add_argument("--n", type=int, default=300)
    widen.add_argument("--per-pair", type=int, default=3)
    widen.add_argument("--seed", type=int, default=61)
    widen.add_argument("--out", required=True)
    whole = commands.add_parser("census")
    whole.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.command == "census":
        census(args.files)
    elif args.command == "stats":
        stats(args.files)
    elif args.command == "discover":
        discover(args.files, args.n, args.per_pair, args.seed, args.out)
    else:
        sample(args.files, args.n, args.control, args.control_n, args.seed, args.out, args.fresh)


if __name__ == "__main__":
    main()
