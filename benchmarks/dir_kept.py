"""What today's DIR negation rules keep of every blind-judged pair (#38), per sample and in all.

    PYTHONPATH=. .venv/bin/python benchmarks/dir_kept.py

Every judged original (``dir_verdicts.judged_pairs``: the first sample's file and every ``dir_pairs_NN`` sample's
first reader; each original once, its first verdict) is parsed again and negated by ``negate_main_clause``; prints
per sample how many pairs it still makes and how many of those the reader found valid, and the totals with the
valid pairs it now refuses. The rules were written from these verdicts: a tuning figure, and a way to compare two
versions of the rules on the same pairs (run it in a checkout of each); fresh samples are the measurement.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from dir_verdicts import judged_pairs  # noqa: E402  (the sibling script, by path)


def first_verdicts(pairs: list[tuple[str, str, str, bool]]) -> dict[str, tuple[str, bool]]:
    """Original -> (sample, valid): the first verdict of each original."""
    out: dict[str, tuple[str, bool]] = {}
    for sample, original, _, valid in pairs:
        out.setdefault(original, (sample, valid))
    return out


def main() -> None:
    from linguagym.capabilities.perturb.build import load_perturbation_pipeline
    from linguagym.capabilities.perturb.negation import negate_main_clause

    verdicts = first_verdicts(judged_pairs())
    nlp = load_perturbation_pipeline()
    kept: Counter = Counter()
    valid: Counter = Counter()
    refused_valid = 0
    for doc, (sample, ok) in zip(nlp.pipe(list(verdicts)), verdicts.values(), strict=True):
        if negate_main_clause(doc).text is None:
            refused_valid += ok
            continue
        kept[sample] += 1
        valid[sample] += ok
    for sample in sorted(kept):
        print(f"{sample}: kept {kept[sample]}, valid {valid[sample]}")
    total, good = sum(kept.values()), sum(valid.values())
    print(f"all {len(verdicts)} judged: kept {total}, valid {good} ({good / total:.2f}); "
          f"valid pairs refused: {refused_valid}")


if __name__ == "__main__":
    main()
