"""VADER's sentence scores as a judge of DIR pairs (#38), tried and not shipped: of the blind-judged pairs, how many
a gate on VADER's score of the negated text keeps, and how many of those readers found valid.

    PYTHONPATH=. python benchmarks/dir_vader_gate.py [--samples dir_pairs_judged dir_pairs_39 ...]

Gates: no positive word left (``pos`` share 0), and the compound score at or below a few thresholds. Not shipped:
a gate on VADER's scores makes every DIR test one the VADER baseline classifier passes by construction.
"""

from __future__ import annotations

import argparse

from dir_verdicts import judged_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", nargs="+", default=None, help="the samples (default: every judged one)")
    args = parser.parse_args()
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    pairs = [p for p in judged_pairs() if args.samples is None or p[0] in args.samples]
    scored = [(analyzer.polarity_scores(negated), valid) for _, _, negated, valid in pairs]
    valid = sum(ok for _, ok in scored)
    print(f"{len(scored)} judged pairs, {valid} valid = {valid / len(scored):.3f}")
    gates = [("no positive word left (pos = 0)", lambda s: s["pos"] == 0)] + [
        (f"compound <= {t:+.2f}", lambda s, t=t: s["compound"] <= t) for t in (0.3, 0.05, 0.0, -0.2)]
    for name, gate in gates:
        kept = [ok for scores, ok in scored if gate(scores)]
        print(f"  {name:<34} keeps {len(kept):>4}, valid {sum(kept):>4} = {sum(kept) / max(1, len(kept)):.3f}")


if __name__ == "__main__":
    main()
