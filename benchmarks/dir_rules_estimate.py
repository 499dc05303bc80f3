"""What each of DIR negation's refusal rules does to blind-judged pairs: how many invalid pairs it removes and
how many valid ones it costs, and the valid rate of what is left.

    PYTHONPATH=. python benchmarks/dir_rules_estimate.py benchmarks/dir_pairs_judged.jsonl --before e7eb2c2

Each judged original is parsed again with the perturbation pipeline and negated by today's code
(``negate_main_clause``), after the rating rule (``MIN_RATING``; the rating looked up in the default dataset by the
sentence). The rules are also run one at a time on the pairs the code of commit ``--before`` made (its
``perturb/negation.py``, read with ``git show``; all judged pairs without it), so each row says what that rule alone
removes of what was made before (a pair can be removed by several). The judged pairs were the rules' tuning set:
the rate of what is left is an optimistic estimate, and a fresh blind sample (``dir_pairs.py``) is the measurement.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from linguagym.capabilities.data.catalog import load_dataset
from linguagym.capabilities.perturb import negation as neg
from linguagym.capabilities.perturb.build import load_perturbation_pipeline
from linguagym.capabilities.testing.failures import wilson


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("judged", type=Path, nargs="+", help="judged pairs (JSON lines with original, valid)")
    parser.add_argument("--before", default=None, help="a commit whose negation made the pairs the rules are "
                        "run on one at a time (default: all judged pairs)")
    args = parser.parse_args()
    rows: dict[str, bool] = {}
    for path in args.judged:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows.setdefault(row["original"], bool(row["valid"]))  # a sentence judged twice: its first judgement
    ratings = {example.text: example.score * 8 - 4 for example in load_dataset().examples if example.score is not None}
    nlp = load_perturbation_pipeline()
    praise = neg.evaluative_words("positive")
    rules = {
        neg.NOT_CLEARLY_POSITIVE: lambda doc, root, text: ratings.get(text, 4.0) < neg.MIN_RATING,
        neg.EXISTENTIAL: lambda doc, root, text: neg.existential(root),
        "superlative adverb (adverb keeps the claim)": lambda doc, root, text: any(
            c.dep_ == "advmod" and c.tag_ == "RBS" for c in root.children),
        "run-on clause (second clause)": lambda doc, root, text: neg.run_on_clause(doc, root),
        neg.SECOND_PHRASE: lambda doc, root, text: neg.second_phrase(doc, root),
        neg.PRAISE_IN_SUBJECT: lambda doc, root, text: neg.praise_in_subject(root, praise),
        neg.RELATIVE_OUTSIDE: lambda doc, root, text: neg.relative_outside(doc, root),
        "predicative adjective outside (sentiment outside)": lambda doc, root, text: neg.predicate_outside(
            doc, neg.negated_clause(next(doc.sents), root)),
    }
    before = _negation_at(args.before) if args.before else None
    now: Counter[str] = Counter()
    alone: dict[str, Counter[str]] = {name: Counter() for name in rules}
    kept: Counter[bool] = Counter()
    missing = 0
    for text, valid in rows.items():
        missing += text not in ratings
        doc = nlp(text)
        root = next(doc.sents).root
        refused = (neg.NOT_CLEARLY_POSITIVE if ratings.get(text, 4.0) < neg.MIN_RATING
                   else neg.negate_main_clause(doc, praise).refused)
        now[f"{refused or 'made'} / {'valid' if valid else 'invalid'}"] += 1
        if refused is None:
            kept[valid] += 1
        if before is not None and before.negate_main_clause(doc, praise).refused is not None:
            continue
        for name, rule in rules.items():
            if rule(doc, root, text):
                alone[name]["valid" if valid else "invalid"] += 1
    total = len(rows)
    print(f"{total} judged pairs ({sum(rows.values())} valid); {missing} not found in the dataset (rating taken "
          "as 4)")
    print(f"\neach rule alone, on the judged pairs {args.before or 'all'}'s code made (a pair can meet several):")
    for name, counts in alone.items():
        print(f"  {name:<50} removes {counts['invalid']:>2} invalid, costs {counts['valid']:>2} valid")
    print("\ntoday's code (first refusal that applies):")
    for key, n in sorted(now.items()):
        print(f"  {key:<60} {n}")
    made = kept[True] + kept[False]
    if made:
        low, high = wilson(kept[True], made) or (0.0, 1.0)
        print(f"\nmade {made} of {total}: {kept[True]} valid = {kept[True] / made:.2f} [{low:.2f}, {high:.2f}] "
              "(Wilson 95%; on the rules' tuning pairs, so optimistic)")


def _negation_at(commit: str):
    """``perturb/negation.py`` as it was at ``commit``, imported as a module of its own."""
    source = subprocess.run(["git", "show", f"{commit}:linguagym/capabilities/perturb/negation.py"],
                            capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "negation_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("negation_before", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["negation_before"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


if __name__ == "__main__":
    main()
