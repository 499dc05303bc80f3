"""How well ranking by fit separates the insertions blind readers accepted from those they rejected (#38).

For every judged expansion in ``benchmarks/expansion_judged*.jsonl`` (the readers' verdicts, with each fill's
words, tags and the filler's confidence), the fill's words get their log2 prior in the neutral context for their
tag under the default filler (``CausalFiller.prior``, ``fit.NEUTRAL_CONTEXTS``); the script prints, for weights 0
(the filler's confidence alone) to 1 (pointwise mutual information), the area under the ROC curve of
``fit_score`` against the verdict "the insertion caused no error", per file and pooled, and the words whose prior
is highest among the rejected. Across masked sentences only: the files hold one judged fill per masked sentence.

    .venv/bin/python benchmarks/expansion_fit.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from linguagym.capabilities.expansion.fill import CausalFiller
from linguagym.capabilities.expansion.fit import fit_score

HERE = Path(__file__).resolve().parent
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def auc(scores: list[float], good: list[bool]) -> float:
    """P(a random accepted row scores above a random rejected one), ties counting half."""
    pos = [s for s, g in zip(scores, good, strict=True) if g]
    neg = [s for s, g in zip(scores, good, strict=True) if not g]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def main() -> None:
    filler = CausalFiller("smollm2-135m")
    pooled: dict[float, tuple[list[float], list[bool]]] = {w: ([], []) for w in WEIGHTS}
    rejected: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    for path in sorted(HERE.glob("expansion_judged*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [r for r in rows if r.get("fills") and r.get("masks") and "confidence" in r]
        good = [not r["insertion_error"] for r in rows]
        priors = [[p for word, mask in zip(r["fills"], r["masks"], strict=True)
                   for p in filler.prior([word], mask["tag"])] for r in rows]
        line = [f"{path.name}: {len(rows)} rows, {sum(good)} accepted"]
        for weight in WEIGHTS:
            scores = [fit_score(r["confidence"], p, weight) for r, p in zip(rows, priors, strict=True)]
            pooled[weight][0].extend(scores)
            pooled[weight][1].extend(good)
            line.append(f"w={weight:g} AUC {auc(scores, good):.3f}")
        print("; ".join(line))
        for r, g in zip(rows, good, strict=True):
            (accepted if g else rejected).update(w.lower() for w in r["fills"])
    print("pooled: " + "; ".join(f"w={w:g} AUC {auc(*pooled[w]):.3f}" for w in WEIGHTS)
          + f" ({len(pooled[0.0][0])} rows)")
    common = sorted(set(rejected) | set(accepted), key=lambda w: -(rejected[w] + accepted[w]))[:20]
    print("most judged words (accepted/rejected): "
          + ", ".join(f"{w} {accepted[w]}/{rejected[w]}" for w in common))


if __name__ == "__main__":
    main()
