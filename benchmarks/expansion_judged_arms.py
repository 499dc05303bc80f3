"""Blind-judged expansions of two runs side by side: which run makes more grammatical insertions.

    python benchmarks/expansion_judged_arms.py [--judged FILE ...] [--rescore]

Each file holds one reader's verdicts on 300 expansions, 150 drawn from each of two runs (``arm``; ``run`` says
which) and shuffled together, so the reader judged both runs blind and alike (docs/capabilities.md, "Session 15"):

- ``expansion_judged_fillers.jsonl``: the default run (smollm2-135m fills) against ``--filler gemma-3-270m``;
- ``expansion_judged_best_fill.jsonl``: the default run against ``--expansions-per-mask 1 --masked-per-seed 8``
  (only the best fill of each masked sentence, from more masked sentences).

Per arm: grammatical (the whole text), grammatical counting only the errors the inserted words caused, label
correct; then, over both arms, by the fill's rank among its masked sentence's kept fills and by the kind of
insertion (the masks' tags). ``--rescore`` scores every kept fill of each judged row's masked sentence with the
other model of the filler file (smollm2-135m <-> gemma-3-270m, whole filled sentences) and tabulates the rate by
the two models' ranks: whether a second model's agreement picks the grammatical fills. ``--gradability`` asks
smollm2-135m how gradable each inserted adjective is (bits "very X", "more X than", "the most X" cost against the
bare X, averaged over three frames; classifying adjectives such as "female", "annual", "second" are not gradable)
and tabulates the adjectives' rate by quartile of it.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = (HERE / "expansion_judged_fillers.jsonl", HERE / "expansion_judged_best_fill.jsonl")


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rate(hits: int, total: int) -> str:
    return f"{hits}/{total} = {hits / total:.3f}" if total else "-"


def kind(row: dict) -> str:
    """The insertion's kind from its masks' tags: an adjective, an adverb, a coordinated adjective, or other."""
    tags = tuple(m["tag"] for m in row["masks"])
    if tags == ("JJ",):
        return "adjective"
    if tags == ("RB",):
        return "adverb"
    if tags == ("CC", "JJ"):
        return "coordinated adjective"
    return " ".join(tags)


def per_arm(rows: list[dict]) -> list[str]:
    lines = ["| arm | run | judged | grammatical | insertion alone | label correct |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for arm in sorted({r["arm"] for r in rows}):
        mine = [r for r in rows if r["arm"] == arm]
        rates = [rate(sum(good(r) for r in mine), len(mine)) for good in
                 (lambda r: r["grammatical"], lambda r: not r["insertion_error"], lambda r: r["label_correct"])]
        lines.append(f"| {arm} | {mine[0]['run']} | {len(mine)} | " + " | ".join(rates) + " |")
    return lines


def by(rows: list[dict], key, title: str) -> list[str]:
    """The insertion-alone rate of each value of ``key``, over every arm."""
    counts: Counter = Counter()
    for r in rows:
        counts[(key(r), not r["insertion_error"])] += 1
    values = sorted({v for v, _ in counts}, key=str)
    return [f"{title}: " + ", ".join(f"{v} {rate(counts[(v, True)], counts[(v, True)] + counts[(v, False)])}"
                                     for v in values)]


def rescore(rows: list[dict]) -> list[str]:
    """Each judged row's rank among its masked sentence's kept fills by its own filler and by the other model."""
    from linguagym.scoring.registry import load_scorer

    others = {arm: ("gemma-3-270m" if r["run"].startswith("default") else "smollm2-135m")
              for arm, r in {r["arm"]: r for r in rows}.items()}
    totals: dict[tuple[str, str], float] = {}
    for model in sorted(set(others.values())):
        texts = sorted({s["expanded_text"] for r in rows if others[r["arm"]] == model for s in r["masked_fills"]})
        scorer = load_scorer(model, device="cpu")
        for text, scored in zip(texts, scorer.score(texts), strict=True):
            totals[(model, text)] = sum(t.surprisal for t in scored.tokens)
    counts: Counter = Counter()
    for r in rows:
        model = others[r["arm"]]
        order = sorted(r["masked_fills"], key=lambda s: totals[(model, s["expanded_text"])])
        other_rank = [s["expanded_text"] for s in order].index(r["expanded_text"]) + 1
        counts[(r["rank"], other_rank, not r["insertion_error"])] += 1
    lines = ["| own rank | the other model's rank | insertion alone |", "| ---: | ---: | ---: |"]
    for own in (1, 2, 3):
        for other in (1, 2, 3):
            good, bad = counts[(own, other, True)], counts[(own, other, False)]
            if good + bad:
                lines.append(f"| {own} | {other} | {rate(good, good + bad)} |")
    return lines


GRADABLE_FRAMES = (("It is very {}.", "It is {}."), ("It was more {} than I expected.", "It was {}."),
                   ("the most {} one", "the {} one"))


def gradability(rows: list[dict]) -> list[str]:
    """Inserted adjectives by quartile of how gradable smollm2-135m finds them, with their insertion-alone rate."""
    from linguagym.scoring.registry import load_scorer

    adjectives = [r for r in rows if kind(r) == "adjective"]
    words = sorted({r["fills"][0].lower() for r in adjectives})
    texts = sorted({frame.format(w) for w in words for pair in GRADABLE_FRAMES for frame in pair})
    bits = {t: sum(x.surprisal for x in scored.tokens)
            for t, scored in zip(texts, load_scorer("smollm2-135m", device="cpu").score(texts), strict=True)}
    score = {w: sum(bits[bare.format(w)] - bits[graded.format(w)] for graded, bare in GRADABLE_FRAMES)
             / len(GRADABLE_FRAMES) for w in words}
    ordered = sorted((score[r["fills"][0].lower()], not r["insertion_error"]) for r in adjectives)
    lines = ["| quartile (least gradable first) | score (bits) | insertion alone |", "| ---: | --- | ---: |"]
    for q in range(4):
        part = ordered[q * len(ordered) // 4:(q + 1) * len(ordered) // 4]
        good = sum(g for _, g in part)
        lines.append(f"| {q + 1} | {part[0][0]:.1f} .. {part[-1][0]:.1f} | {rate(good, len(part))} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judged", nargs="+", type=Path, default=list(SAMPLES))
    parser.add_argument("--rescore", action="store_true",
                        help="rank each masked sentence's kept fills by the other model too (loads both models)")
    parser.add_argument("--gradability", action="store_true",
                        help="the adjectives' rate by how gradable smollm2-135m finds them, over every file given")
    args = parser.parse_args(argv)
    if args.gradability:
        print("\n".join(gradability([row for path in args.judged for row in load(path)])))
    for path in args.judged:
        rows = load(path)
        print(f"\n{path.name} ({rows[0]['reader']} reader, {len(rows)} expansions)")
        print("\n".join(per_arm(rows)))
        print("\n".join(by(rows, lambda r: r["rank"], "by rank (insertion alone)")))
        print("\n".join(by(rows, kind, "by kind (insertion alone)")))
        if args.rescore and any(not r["run"].startswith("default") and "filler" in r["run"] for r in rows):
            print("\n".join(rescore(rows)))


if __name__ == "__main__":
    main()
