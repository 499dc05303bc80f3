"""The expansion validator's checks on blind-judged expansions: the dev set and the held-out test set side by side.

    python benchmarks/expansion_quality.py [--judged FILE ...] [--max-cost BITS] [--max-disruption BITS]
        [--min-count K] [--show refused|kept|all]

``expansion_judged.jsonl`` holds the sample of docs/capabilities.md ("A blind-judged sample of the default run"):
each expansion's seed sentence, filled sentence, masks, fills, the causal filler's confidence and disruption, and
the reader's verdicts (``insertion_error``: ungrammatical because of the inserted words). The script runs today's
``Validator`` on each filled sentence (every check but the re-parse ``constituent``, which these fills passed
with the same parser, and duplicates), then the ``plausibility`` cap on the filler's numbers, and reports how many
of the ungrammatical ones are now refused, how many grammatical ones are kept, and the kept set's grammatical
rate, overall and per check.

``expansion_judged_after_checks.jsonl`` is the held-out set: 220 expansions of the default run *with* the
linguistic checks and the plausibility cap (every row passed them), judged blind by a second reader. The
``domain`` and ``mass`` checks (``expansion/domain.py``) were designed and their threshold chosen on the dev set
only; the test set's figures are the held-out estimate. They read the dataset's sentences (analysed here, about a
minute). For each file the script prints three rows: the sample as judged, the checks before ``domain``/``mass``,
and today's default (with ``+ modifiers only``, the insertion kinds of ``expansion/insertions.py``); for the
held-out file, the expansions the default run would keep per LC (the kept share of the sample times the run's
expansions, ``RUN_EXPANSIONS``).

``expansion_judged_modifiers.jsonl`` is a third sample: 220 expansions of the default run with modifier insertions
only and up to 20 fills per masked sentence, judged blind by a third, stricter reader (on 40 rows of the held-out
set mixed in blind, it found 18 grammatical where the second reader found 22). Rows that carry ``rank`` (the fill's
place among its masked sentence's valid fills, best first) get a table by rank: why the default keeps the 3 best.
``expansion_judged_defaults.jsonl`` and ``expansion_judged_defaults_induced.jsonl`` are samples of today's default
run (with the treebank's grammar, and with the one induced from the dataset), judged by a fifth and a fourth reader.
Every reader saw 20 or 40 rows of an earlier sample mixed in blind; docs/capabilities.md compares their verdicts.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Collection, Mapping
from pathlib import Path

from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.expansion.check import Problem
from linguagym.capabilities.expansion.domain import MIN_COUNT, DomainVocabulary
from linguagym.capabilities.expansion.expand import ExpansionSettings
from linguagym.capabilities.expansion.insertions import INSERTION, MODIFIERS
from linguagym.capabilities.expansion.plausibility import FLUENCY, MAX_COST, plausibility_problems
from linguagym.capabilities.seeds.specs import load_specs

JUDGED = Path(__file__).resolve().parent / "expansion_judged.jsonl"
HELD_OUT = Path(__file__).resolve().parent / "expansion_judged_after_checks.jsonl"
# the default run with modifier insertions and up to 20 fills per masked sentence, judged by a third, stricter reader
MODIFIERS_RUN = Path(__file__).resolve().parent / "expansion_judged_modifiers.jsonl"
# today's defaults (modifiers, the 3 best fills a masked sentence, repaired LC8-LC11), judged by a fourth and a fifth
# reader: with the treebank's grammar (NLTK_DATA set) and with the grammar induced from the dataset
DEFAULTS_RUN = Path(__file__).resolve().parent / "expansion_judged_defaults.jsonl"
DEFAULTS_INDUCED = Path(__file__).resolve().parent / "expansion_judged_defaults_induced.jsonl"
RANKS = ((1, 1), (2, 3), (4, 6), (7, 10), (11, 20))
# expansions per LC of the default run the held-out sample was drawn from (docs/capabilities.md: 2,399 in all)
RUN_EXPANSIONS = {"LC1": 20, "LC2": 142, "LC3": 391, "LC4": 143, "LC5": 22, "LC6": 303, "LC7": 242, "LC8": 310,
                  "LC9": 295, "LC10": 214, "LC11": 317}


def load_judged(path: Path = JUDGED) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def refusals(rows: list[dict], validator, max_cost: float | None = MAX_COST,
             max_disruption: float | None = ExpansionSettings.max_disruption,
             source_labels: Mapping[str, str] | None = None) -> list[list[Problem]]:
    """The validator's reasons for refusing each judged row (empty: kept). ``validator``: a ``Validator``; the
    caps on the filler's numbers as the expander applies them (None: not applied); ``source_labels``: the dataset
    sentences' labels by id, which the search rule reads (a row's ``label`` is its test's expected label, which is
    the source's only where the template keeps it; None: the row's)."""
    analyser = validator.analyser
    filled = analyser.analyse([r["expanded_text"] for r in rows])
    seeds = analyser.analyse([r["seed_text"] for r in rows])
    cases = {spec.id: spec.cases for spec in load_specs()}
    out = []
    for row, new, old in zip(rows, filled, seeds, strict=True):
        spans = [(m["start"], m["end"]) for m in row["masks"]]
        search = cases[row["capability"]][row["case"] - 1].search
        reasons = list(validator.check_analysed(new, row["fills"], spans, [m["tag"] for m in row["masks"]], search,
                                                Example(row["id"], row["seed_text"], _source_label(row, source_labels)),
                                                old).reasons)
        if max_disruption is not None and row["disruption"] > max_disruption:
            reasons.append(FLUENCY.problem(f"the words after the fill lose {row['disruption']:.1f} bits"))
        if max_cost is not None:
            reasons += plausibility_problems(row["confidence"], len(row["fills"]), max_cost)
        out.append(reasons)
    return out


def insertion_problems(row: dict) -> list[Problem]:
    """``insertion`` refusal of a judged row whose kind of insertion the default set does not make."""
    kind = (row["production"]["lhs"], tuple(m["tag"] for m in row["masks"]))
    return [] if kind in MODIFIERS else [INSERTION.problem(f"{kind[0]} + {'+'.join(kind[1])} is not a modifier "
                                                           "insertion")]


def rank_table(rows: list[dict], ranks: tuple[tuple[int, int], ...] = RANKS) -> str:
    """The insertion-grammatical share of the judged rows by the fill's rank among its masked sentence's valid
    fills (best first): the evidence for keeping the 3 best (``expansion/defaults.py``)."""
    cells = []
    for low, high in ranks:
        mine = [not r["insertion_error"] for r in rows if low <= r["rank"] <= high]
        if mine:
            name = str(low) if low == high else f"{low}-{high}"
            cells.append(f"{name}: {sum(mine)}/{len(mine)} = {sum(mine) / len(mine):.2f}")
    top = [not r["insertion_error"] for r in rows if r["rank"] <= 3]
    return "; ".join(cells) + (f"; top 3: {sum(top)}/{len(top)} = {sum(top) / len(top):.2f}" if top else "")


def _source_label(row: dict, labels: Mapping[str, str] | None) -> str:
    """The dataset sentence's label: its id is the third part of the test id ("LC4/1/5587/x1")."""
    return row["label"] if labels is None else labels[row["id"].split("/")[2]]


def summary(rows: list[dict], reasons: list[list[Problem]], only: Collection[str] | None = None) -> dict:
    """Counts: ungrammatical (by the insertion) refused, grammatical kept, the kept set's grammatical rate, and
    per check how many bad and good rows it refused. ``only``: count these checks' refusals alone."""
    if only is not None:
        reasons = [[x for x in why if x.check in only] for why in reasons]
    bad = [bool(r["insertion_error"]) for r in rows]
    refused = [bool(x) for x in reasons]
    kept_good = sum(1 for b, x in zip(bad, refused, strict=True) if not b and not x)
    kept_whole = sum(1 for r, x in zip(rows, refused, strict=True) if r["grammatical"] and not x)
    kept = sum(1 for x in refused if not x)
    by_check: dict[str, Counter] = {}
    for b, x in zip(bad, reasons, strict=True):
        for check in dict.fromkeys(reason.check for reason in x):
            by_check.setdefault(check, Counter())["bad" if b else "good"] += 1
    return {"rows": len(rows), "bad": sum(bad), "good": len(rows) - sum(bad),
            "bad_refused": sum(1 for b, x in zip(bad, refused, strict=True) if b and x),
            "good_kept": kept_good, "kept": kept, "kept_grammatical": kept_good / kept if kept else 0.0,
            "kept_grammatical_whole": kept_whole / kept if kept else 0.0,
            "label_correct_kept": sum(1 for r, x in zip(rows, refused, strict=True) if not x and r["label_correct"])
            / kept if kept else 0.0,
            "by_check": {k: dict(v) for k, v in by_check.items()}}


def kept_estimate(rows: list[dict], reasons: list[list[str]], run: dict[str, int] = RUN_EXPANSIONS) -> dict:
    """Per LC, the share of the sample kept times the run's expansions (an LC the sample lacks: None)."""
    out = {}
    for lc, total in run.items():
        mine = [bool(x) for r, x in zip(rows, reasons, strict=True) if r["capability"] == lc]
        out[lc] = round(total * mine.count(False) / len(mine)) if mine else None
    return out


def _row(label: str, s: dict) -> str:
    return (f"| {label} | {s['rows']} | {s['bad_refused']} of {s['bad']} | {s['good'] - s['good_kept']} of {s['good']} "
            f"| {s['kept']} | {s['kept_grammatical']:.3f} | {s['kept_grammatical_whole']:.3f} "
            f"| {s['label_correct_kept']:.3f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judged", type=Path, nargs="+", default=[JUDGED, HELD_OUT, MODIFIERS_RUN, DEFAULTS_RUN,
                                                                          DEFAULTS_INDUCED])
    parser.add_argument("--max-cost", type=float, default=MAX_COST,
                        help="bits an inserted word may cost its window (negative: no plausibility cap)")
    parser.add_argument("--max-disruption", type=float, default=ExpansionSettings.max_disruption,
                        help="bits the words after a fill may lose (the fluency check; negative: none)")
    parser.add_argument("--min-count", type=int, default=ExpansionSettings.min_domain_count,
                        help="times an inserted adjective or adverb must occur in the dataset (the domain check; "
                             f"default the expander's, 0: off; {MIN_COUNT} was best on the dev set)")
    parser.add_argument("--show", choices=("refused", "kept", "all"), help="list the rows with their reasons")
    args = parser.parse_args(argv)
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.data.catalog import load_dataset
    from linguagym.capabilities.data.lexicon import load_lexicon
    from linguagym.capabilities.expansion.validate import Validator

    analyser = Analyser(load_lexicon())
    dataset = load_dataset()
    labels = {e.id: e.label for e in dataset.examples}
    domain = DomainVocabulary.from_analyses(analyser.analyse([e.text for e in dataset.examples]), args.min_count)
    caps = (args.max_cost if args.max_cost >= 0 else None, args.max_disruption if args.max_disruption >= 0 else None)
    print("| judged set / checks | rows | ✗ refused | ✓ refused | kept | kept: insertion grammatical "
          "| kept: test grammatical | kept: label correct |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in args.judged:
        rows = load_judged(path)
        before = refusals(rows, Validator(analyser), *caps, source_labels=labels)
        after = refusals(rows, Validator(analyser, domain=domain), *caps, source_labels=labels)
        print(_row(f"{path.name}: as judged", summary(rows, [[] for _ in rows])))
        print(_row(f"{path.name}: linguistic checks + plausibility", summary(rows, before)))
        print(_row(f"{path.name}: + domain (k={args.min_count}) and mass", summary(rows, after)))
        after = [why + insertion_problems(row) for row, why in zip(rows, after, strict=True)]
        print(_row(f"{path.name}: + modifiers only (insertions.py)", summary(rows, after)))
        if args.show:
            for row, why in zip(rows, after, strict=True):
                if args.show == "all" or (args.show == "refused") == bool(why):
                    verdict = "BAD" if row["insertion_error"] else "ok "
                    print(f"  {row['n']:3d} {verdict} {row['fills']} {'; '.join(why) or 'kept'}")
        for check, counts in sorted(summary(rows, after)["by_check"].items()):
            print(f"  {check}: refuses {counts.get('bad', 0)} ungrammatical, {counts.get('good', 0)} grammatical")
        if all("rank" in row for row in rows):
            print(f"  by rank within the masked sentence (insertion grammatical): {rank_table(rows)}")
        if path.name == HELD_OUT.name:  # RUN_EXPANSIONS is the run this sample was drawn from
            estimate = kept_estimate(rows, after)
            print(f"kept by the default run, estimated from {path.name}: "
                  + ", ".join(f"{lc} {n}" for lc, n in estimate.items())
                  + f"; {sum(n or 0 for n in estimate.values())} in all")


if __name__ == "__main__":
    main()
