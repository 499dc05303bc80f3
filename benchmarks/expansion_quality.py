"""The expansion validator's new checks on the 220 blind-judged expansions of the default run (the dev set).

    python benchmarks/expansion_quality.py [--judged benchmarks/expansion_judged.jsonl] [--max-cost BITS]
        [--max-disruption BITS] [--show refused|kept|all]

``expansion_judged.jsonl`` holds the sample of docs/capabilities.md ("A blind-judged sample of the default run"):
each expansion's seed sentence, filled sentence, masks, fills, the causal filler's confidence and disruption, and
the reader's verdicts (``insertion_error``: ungrammatical because of the inserted words). The script runs today's
``Validator`` on each filled sentence (every check but the re-parse ``constituent``, which these fills passed
with the same parser, and duplicates), then the ``plausibility`` cap on the filler's numbers, and reports how many
of the ungrammatical ones are now refused, how many grammatical ones are kept, and the kept set's grammatical
rate, overall and per check.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Collection
from pathlib import Path

from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.expansion.expand import ExpansionSettings
from linguagym.capabilities.expansion.plausibility import MAX_COST, plausibility_problems
from linguagym.capabilities.seeds.specs import load_specs

JUDGED = Path(__file__).resolve().parent / "expansion_judged.jsonl"


def load_judged(path: Path = JUDGED) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def refusals(rows: list[dict], validator, max_cost: float | None = MAX_COST,
             max_disruption: float | None = ExpansionSettings.max_disruption) -> list[list[str]]:
    """The validator's reasons for refusing each judged row (empty: kept). ``validator``: a ``Validator``; the
    caps on the filler's numbers as the expander applies them (None: not applied)."""
    analyser = validator.analyser
    filled = analyser.analyse([r["expanded_text"] for r in rows])
    seeds = analyser.analyse([r["seed_text"] for r in rows])
    cases = {spec.id: spec.cases for spec in load_specs()}
    out = []
    for row, new, old in zip(rows, filled, seeds, strict=True):
        spans = [(m["start"], m["end"]) for m in row["masks"]]
        search = cases[row["capability"]][row["case"] - 1].search
        reasons = list(validator.check_analysed(new, row["fills"], spans, [m["tag"] for m in row["masks"]], search,
                                                Example(row["id"], row["seed_text"], row["label"]), old).reasons)
        if max_disruption is not None and row["disruption"] > max_disruption:
            reasons.append(f"fluency: the words after the fill lose {row['disruption']:.1f} bits")
        if max_cost is not None:
            reasons += plausibility_problems(row["confidence"], len(row["fills"]), max_cost)
        out.append(reasons)
    return out


def summary(rows: list[dict], reasons: list[list[str]], only: Collection[str] | None = None) -> dict:
    """Counts: ungrammatical (by the insertion) refused, grammatical kept, the kept set's grammatical rate, and
    per check how many bad and good rows it refused. ``only``: count these checks' refusals alone."""
    if only is not None:
        reasons = [[x for x in why if x.split(":", 1)[0] in only] for why in reasons]
    bad = [bool(r["insertion_error"]) for r in rows]
    refused = [bool(x) for x in reasons]
    kept_good = sum(1 for b, x in zip(bad, refused, strict=True) if not b and not x)
    kept = sum(1 for x in refused if not x)
    by_check: dict[str, Counter] = {}
    for b, x in zip(bad, reasons, strict=True):
        for check in dict.fromkeys(reason.split(":", 1)[0] for reason in x):
            by_check.setdefault(check, Counter())["bad" if b else "good"] += 1
    return {"rows": len(rows), "bad": sum(bad), "good": len(rows) - sum(bad),
            "bad_refused": sum(1 for b, x in zip(bad, refused, strict=True) if b and x),
            "good_kept": kept_good, "kept": kept, "kept_grammatical": kept_good / kept if kept else 0.0,
            "label_correct_kept": sum(1 for r, x in zip(rows, refused, strict=True) if not x and r["label_correct"])
            / kept if kept else 0.0,
            "by_check": {k: dict(v) for k, v in by_check.items()}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judged", type=Path, default=JUDGED)
    parser.add_argument("--max-cost", type=float, default=MAX_COST,
                        help="bits an inserted word may cost its window (negative: no plausibility cap)")
    parser.add_argument("--max-disruption", type=float, default=ExpansionSettings.max_disruption,
                        help="bits the words after a fill may lose (the fluency check; negative: none)")
    parser.add_argument("--show", choices=("refused", "kept", "all"), help="list the rows with their reasons")
    args = parser.parse_args(argv)
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.data.lexicon import load_lexicon
    from linguagym.capabilities.expansion.validate import Validator

    rows = load_judged(args.judged)
    validator = Validator(Analyser(load_lexicon()))
    reasons = refusals(rows, validator, args.max_cost if args.max_cost >= 0 else None,
                       args.max_disruption if args.max_disruption >= 0 else None)
    if args.show:
        for row, why in zip(rows, reasons, strict=True):
            if args.show == "all" or (args.show == "refused") == bool(why):
                verdict = "BAD" if row["insertion_error"] else "ok "
                print(f"{row['n']:3d} {verdict} {row['fills']} {'; '.join(why) or 'kept'}")
    s = summary(rows, reasons)
    print(f"{s['rows']} judged: {s['bad']} ungrammatical by the insertion, {s['good']} grammatical")
    print(f"refused {s['bad_refused']} of the {s['bad']} ungrammatical, kept {s['good_kept']} of the {s['good']} "
          f"grammatical; kept {s['kept']}: {s['kept_grammatical']:.3f} grammatical, "
          f"{s['label_correct_kept']:.3f} label correct")
    for check, counts in sorted(s["by_check"].items()):
        print(f"  {check}: refuses {counts.get('bad', 0)} ungrammatical, {counts.get('good', 0)} grammatical")


if __name__ == "__main__":
    main()
