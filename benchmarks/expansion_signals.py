"""Whether anything the pipeline computes offline tells an acceptable insertion from a rejected one (#38): the blind
verdicts of the forced-choice expansion samples, by how often the dataset uses the inserted modifier with the same
head, by the filler's confidence, and by the inserted word's class.

    PYTHONPATH=. python benchmarks/expansion_signals.py [--tags 38 39 40 41]

Each judged row's inserted modifiers are found as ``reader_lexicon.py`` finds them (the texts tagged by the
pipeline's spaCy model, the head by ``attested.head``); a row's attestation is its least attested inserted pair in
the default dataset (``attested.ModifierPairs``, by lemma). The confidence is the one the sample's key recorded.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from reader_lexicon import HERE, inserted_heads, judged_tags, judged_texts, tagger


def _bucket(count: int | None) -> str:
    if count is None:
        return "no head found"
    for top, name in ((0, "never"), (1, "once"), (2, "twice"), (4, "3-4"), (9, "5-9")):
        if count <= top:
            return name
    return "10 or more"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tags", nargs="+", default=None, help="the blind samples (default: every judged one)")
    args = parser.parse_args()
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.data.catalog import load_dataset
    from linguagym.capabilities.data.lexicon import Lexicon
    from linguagym.capabilities.expansion.attested import ModifierPairs

    tags = args.tags or judged_tags()
    analyser = Analyser(Lexicon({}, "none"))
    pairs = ModifierPairs.from_analyses(analyser.analyse([e.text for e in load_dataset().examples]))
    tag = tagger()
    by_attestation: dict[str, Counter] = {}
    rows = []
    for sample, row, ok in judged_texts(tags):
        found = inserted_heads(row["original"], row["expansion"], tag)
        if not found:
            continue
        counts = [pairs.attested(word, head) if head else None for word, head in found]
        least = None if None in counts else min(c for c in counts if c is not None)
        by_attestation.setdefault(_bucket(least), Counter())[ok] += 1
        rows.append((sample, int(row["id"]), ok))
    print(f"{len(rows)} judged rows with an inserted modifier ({', '.join(tags)})\n\nby attestation in the dataset:")
    for name in ("never", "once", "twice", "3-4", "5-9", "10 or more", "no head found"):
        c = by_attestation.get(name, Counter())
        if c:
            print(f"  {name:<14} {c[True]:>4}/{c[True] + c[False]:<4} = {c[True] / (c[True] + c[False]):.2f}")
    keys = {}
    for sample in tags:
        for line in (HERE / f"expansion_blind_{sample}_key.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                key = json.loads(line)
                keys[(sample, int(key["id"]))] = key
    scored = sorted(((keys[(s, i)].get("confidence"), ok, keys[(s, i)].get("masks") or []) for s, i, ok in rows
                     if keys.get((s, i), {}).get("confidence") is not None), key=lambda r: r[0])
    print("\nby the filler's confidence (fifths, lowest first):")
    for fifth in range(5):
        part = scored[fifth * len(scored) // 5:(fifth + 1) * len(scored) // 5]
        if part:
            accepted = sum(ok for _, ok, _ in part)
            rate = accepted / len(part)
            print(f"  {part[0][0]:7.1f} .. {part[-1][0]:6.1f}  {accepted:>4}/{len(part):<4} = {rate:.2f}")
    by_class: dict[str, Counter] = {}
    for _, ok, masks in scored:
        by_class.setdefault("+".join(masks), Counter())[ok] += 1
    print("\nby the inserted words' tags:")
    for name, c in sorted(by_class.items(), key=lambda kv: -sum(kv[1].values())):
        print(f"  {name:<14} {c[True]:>4}/{c[True] + c[False]}")


if __name__ == "__main__":
    main()
