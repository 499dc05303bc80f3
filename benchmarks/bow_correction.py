"""The word-boundary correction (``--bow-correction``) on the SyntaxGym 2020 suites: what it changes and what it
costs.

  python benchmarks/bow_correction.py compare [--models smollm2-135m gemma-3-270m]   # accuracy, both ways
  python benchmarks/bow_correction.py cost [--model smollm2-135m] [--repeat 3]        # scoring time, both ways
  python benchmarks/bow_correction.py example [--model smollm2-135m]                  # the agreement case

``compare`` runs the 34 suites (../shared/data/syntaxgym/suites) with each model, uncorrected and corrected (the
score cache keeps both), and prints per suite the accuracy under the collection's policy both ways, the SG score
and circuits, and the regions whose sum moved most. ``cost`` scores the suites' unique sentences with one loaded
model both ways, alternating, no score cache, and prints the best of ``--repeat`` each. ``example`` prints the
agreement-across-a-PP case token by token: the boundary term after " swim" that plain sums leave out.
"""

from __future__ import annotations

import argparse
import glob
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SUITES = str(ROOT.parent / "shared" / "data" / "syntaxgym" / "suites")


def compare(args: argparse.Namespace) -> None:
    import linguagym

    for model in args.models:
        runs = {}
        for corrected in (False, True):
            started = time.perf_counter()
            results = linguagym.run(collection="syntaxgym-2020", suites_dir=SUITES, models=model,
                                    bow_correction=corrected, bootstrap=0, report=False)
            runs[corrected] = (results, time.perf_counter() - started)
        plain, fixed = runs[False][0], runs[True][0]
        print(f"\n## {model} (run {runs[False][1]:.0f} s uncorrected, {runs[True][1]:.0f} s corrected)\n")
        print("| | uncorrected | corrected | change |\n| --- | ---: | ---: | ---: |")
        rows_plain = _rows(plain.summary)
        rows_fixed = _rows(fixed.summary)
        for label, value in rows_plain.items():
            other = rows_fixed[label]
            change = "" if abs(other - value) < 5e-4 else f"{other - value:+.3f}"
            print(f"| {label} | {value:.3f} | {other:.3f} | {change} |")
        moved = []
        for suite_plain, suite_fixed in zip(plain.results[0].suites, fixed.results[0].suites, strict=True):
            for cond_plain, cond_fixed in zip(suite_plain.conditions, suite_fixed.conditions, strict=True):
                for number, (start, end) in enumerate(cond_plain.sentence.spans, start=1):
                    a = cond_plain.values.get(number, {}).get("sum")
                    b = cond_fixed.values.get(number, {}).get("sum")
                    if a is not None and b is not None and a == a and b == b:
                        moved.append((abs(b - a), b - a, suite_plain.suite.name, cond_plain.item,
                                      cond_plain.condition, cond_plain.sentence.text[start:end]))
        moved.sort(reverse=True)
        print(f"\nregions: {len(moved)}; mean |change| {sum(m[0] for m in moved) / len(moved):.3f} bits; "
              f"over 1 bit: {sum(1 for m in moved if m[0] > 1)}; largest:")
        for _, change, suite, item, condition, content in moved[: args.largest]:
            print(f"  {change:+.2f} bits  {suite} item {item} {condition}: {content!r}")


def _rows(summary) -> dict[str, float]:
    from linguagym.evaluation.tables import summary_rows

    return {row.label: row.values[0] for row in summary_rows(summary)}


def _sentences() -> list[str]:
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.suites.load import read_suite

    paths = sorted(glob.glob(f"{SUITES}/*.json"))
    return list(dict.fromkeys(s.text for p in paths for s in suite_sentences(read_suite(p).suite)))


def cost(args: argparse.Namespace) -> None:
    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.scoring.huggingface.causal import CausalScorer
    from linguagym.scoring.huggingface.sources import resolve_source

    texts = _sentences()
    plain = CausalScorer(resolve_source(args.model, resolve_cache_dir(None)), device="cpu")
    fixed = CausalScorer.on(plain.lm, bow_correction=True)
    plain.score(texts[:50])
    fixed.score(texts[:50])  # warm: weights, the word-start set
    best = {False: float("inf"), True: float("inf")}
    for _ in range(args.repeat):
        for corrected, scorer in ((False, plain), (True, fixed)):
            started = time.perf_counter()
            scorer.score(texts)
            best[corrected] = min(best[corrected], time.perf_counter() - started)
    print(f"{args.model}, {len(texts)} sentences, {platform.processor() or platform.machine()}, best of "
          f"{args.repeat}: uncorrected {best[False]:.2f} s, corrected {best[True]:.2f} s "
          f"({best[True] / best[False]:.2f}x)")


def example(args: argparse.Namespace) -> None:
    from linguagym.scoring import load_scorer

    texts = ["The author next to the senators swims", "The author next to the senators swim",
             "The authors next to the senator swim", "The authors next to the senator swims"]
    plain = load_scorer(args.model, score_cache=False).score(texts)
    fixed = load_scorer(args.model, score_cache=False, bow_correction=True).score(texts)
    for a, b in zip(plain, fixed, strict=True):
        verb = a.text.rindex(" ")
        sum_a = sum(t.surprisal for t in a.tokens if t.start >= verb)
        sum_b = sum(t.surprisal for t in b.tokens if t.start >= verb)
        pieces = " + ".join(f"{t.token!r} {t.surprisal:.2f}" for t in a.tokens if t.start >= verb)
        print(f"{a.text!r}: verb {pieces} = {sum_a:.2f} bits; corrected {sum_b:.2f} ({sum_b - sum_a:+.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("compare")
    one.add_argument("--models", nargs="+", default=["smollm2-135m", "gemma-3-270m"])
    one.add_argument("--largest", type=int, default=8)
    two = commands.add_parser("cost")
    two.add_argument("--model", default="smollm2-135m")
    two.add_argument("--repeat", type=int, default=3)
    three = commands.add_parser("example")
    three.add_argument("--model", default="smollm2-135m")
    args = parser.parse_args()
    {"compare": compare, "cost": cost, "example": example}[args.command](args)


if __name__ == "__main__":
    main()
