"""A seeded blind sample of a capability-test file's tests, to judge whether their expected labels are right, and
the scorer of a reader's judgements (#38: "labels >= 0.95").

    linguagym lct generate --lc all -o /tmp/tests.json          # the default run (seed 0)
    PYTHONPATH=. python benchmarks/label_sample.py draw /tmp/tests.json --n 200 --seed 39 \
        --out benchmarks/label_sample_39
    PYTHONPATH=. python benchmarks/label_sample.py score benchmarks/label_sample_39_judged.jsonl \
        --key benchmarks/label_sample_39_key.jsonl

``draw``: ``--n`` tests of the file, stratified by capability x test type (MFT, INV, DIR) x kind or perturbation
(seed, expansion, typo, contraction, names, places, negation): every stratum the file has gets one test, the rest
are shared in proportion to the strata's sizes (largest remainders), each stratum drawn with
``random.Random(f"{seed}/{stratum}")``; the tests are then shuffled with ``random.Random(seed)``. Writes
``OUT.tsv`` (``id``, ``text``: every text the classifier sees, full, template and all; an INV or DIR test is two
lines, ``NNNa`` the text it is compared with and ``NNNb`` the perturbed text, so the reader sees the pair but
neither the expected labels nor the capability) and ``OUT_key.jsonl`` (per line id: the test's id, capability,
type, kind, perturbation and the labels it expects of that text: an expected-label (MFT) test's ``expected``; an
INV pair's texts both the test's ``expected``, the label of its original; a DIR pair's original ``positive``
(the dataset's gold label) and its negated text ``negative`` or ``neutral``: what the negation aims at, stricter
than the DIR test's own claim (the positive probability must not rise), so a DIR test carries no expected labels).

The reader gives every line one label, positive, negative or neutral: ``OUT_judged.jsonl`` with ``id`` and
``label`` a line. ``score`` prints the share of lines whose judged label is among the expected ones, and of tests
all of whose lines agree, with Wilson 95% intervals, overall, per capability and per test type.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from linguagym.capabilities.testfile.load import read_tests
from linguagym.capabilities.testfile.model import CapabilityTest
from linguagym.capabilities.testing.failures import wilson

LABELS = ("positive", "negative", "neutral")


def stratum(test: CapabilityTest) -> str:
    """capability/type/kind-or-perturbation, e.g. ``LC3/MFT/expansion``, ``LC3/INV/typo``, ``LC7/DIR/negation``."""
    kind = test.provenance.perturbation or test.kind
    return f"{test.capability}/{test.test_type}/{kind}"


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many tests each stratum gives: one each (while ``n`` allows), the rest in proportion to size by largest
    remainders, never more than a stratum has."""
    take = {name: 0 for name in sizes}
    for name in sorted(sizes, key=lambda s: -sizes[s])[:n]:
        take[name] = 1
    left = n - sum(take.values())
    while left > 0:
        room = {name: size - take[name] for name, size in sizes.items() if size > take[name]}
        if not room:
            break
        total = sum(room.values())
        shares = {name: left * r / total for name, r in room.items()}
        whole = {name: min(int(share), room[name]) for name, share in shares.items()}
        if not any(whole.values()):  # fewer left than strata with room: the largest remainders
            for name in sorted(room, key=lambda s: (-(shares[s] - whole[s]), s))[:left]:
                whole[name] = 1
        for name, extra in whole.items():
            take[name] += extra
        left = n - sum(take.values())
    return take


NEGATED_READING = ("negative", "neutral")


def texts_of(test: CapabilityTest) -> list[tuple[str, str, tuple[str, ...]]]:
    """The texts the classifier sees for ``test``, each with its line suffix and the labels it expects."""
    if test.test_type == "MFT":
        return [("", test.text, tuple(test.expected))]
    original = test.provenance.original_text or ""
    if test.test_type == "DIR":  # the reading the negation aims at (the file claims only a direction)
        return [("a", original, ("positive",)), ("b", test.text, NEGATED_READING)]
    return [("a", original, tuple(test.expected)), ("b", test.text, tuple(test.expected))]


def draw(path: Path, n: int, seed: int, out: str) -> None:
    tests = read_tests(path).tests
    groups: dict[str, list[CapabilityTest]] = defaultdict(list)
    for test in tests:
        groups[stratum(test)].append(test)
    take = allocate({name: len(group) for name, group in groups.items()}, n)
    chosen = [test for name, group in sorted(groups.items())
              for test in random.Random(f"{seed}/{name}").sample(group, take[name])]
    random.Random(seed).shuffle(chosen)
    lines, keys = ["id\ttext"], []
    for number, test in enumerate(chosen, 1):
        for suffix, text, expected in texts_of(test):
            line_id = f"{number:03d}{suffix}"
            lines.append(f"{line_id}\t{' '.join(text.split())}")
            keys.append({"id": line_id, "test": test.id, "capability": test.capability, "type": test.test_type,
                         "kind": test.kind, "perturbation": test.provenance.perturbation,
                         "expected": list(expected)})
    Path(f"{out}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(f"{out}_key.jsonl").write_text("".join(json.dumps(k, ensure_ascii=False) + "\n" for k in keys),
                                        encoding="utf-8")
    strata = sum(1 for v in take.values() if v)
    print(f"{len(chosen)} tests ({len(keys)} texts) from {strata} of {len(groups)} strata of {len(tests)} tests; "
          f"wrote {out}.tsv and {out}_key.jsonl")


def _rate(agree: int, total: int) -> str:
    low, high = wilson(agree, total) or (0.0, 1.0)
    return f"{agree}/{total} = {agree / total:.2f} [{low:.2f}, {high:.2f}]" if total else "-"


def score(judged_path: Path, key_path: Path) -> None:
    keys = [json.loads(line) for line in key_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    judged: dict[str, str] = {}
    for number, line in enumerate(judged_path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            label = str(row["label"]).strip().lower()
            if label not in LABELS:
                raise SystemExit(f"{judged_path}, line {number}: label {row['label']!r} is not one of {LABELS}")
            judged[str(row["id"])] = label
    missing = [k["id"] for k in keys if k["id"] not in judged]
    if missing:
        print(f"warning: {len(missing)} line(s) not judged, left out: {', '.join(missing[:10])}"
              + (" ..." if len(missing) > 10 else ""))
    lines: dict[str, list[bool]] = defaultdict(list)
    tests: dict[str, dict[str, Any]] = {}
    for key in keys:
        if key["id"] not in judged:
            continue
        agrees = judged[key["id"]] in key["expected"]
        test = tests.setdefault(key["test"] + "@" + key["id"].rstrip("ab"), {"key": key, "agree": True})
        test["agree"] &= agrees
        for group in ("all", key["capability"], key["type"]):
            lines[group].append(agrees)
    by_test: dict[str, list[bool]] = defaultdict(list)
    for test in tests.values():
        for group in ("all", test["key"]["capability"], test["key"]["type"]):
            by_test[group].append(test["agree"])
    print("Agreement with the expected labels (Wilson 95% intervals); a test agrees when all its texts do.")
    print(f"{'group':<8} {'texts':<30} tests")
    for group in _ordered(lines):
        print(f"{group:<8} {_rate(sum(lines[group]), len(lines[group])):<30} "
              f"{_rate(sum(by_test[group]), len(by_test[group]))}")


def _ordered(groups: Sequence[str] | dict[str, Any]) -> list[str]:
    names = list(groups)
    capabilities = sorted((g for g in names if g.startswith("LC")), key=lambda g: int(g[2:]))
    return ["all"] + capabilities + [g for g in ("MFT", "INV", "DIR") if g in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    drawing = commands.add_parser("draw", help="write the blind sample and its key")
    drawing.add_argument("tests", type=Path, help="a capability-test file (lct generate's output)")
    drawing.add_argument("--n", type=int, default=200, help="tests in the sample (default 200)")
    drawing.add_argument("--seed", type=int, default=39, help="which tests (default 39)")
    drawing.add_argument("--out", default="benchmarks/label_sample_39", help="OUT.tsv and OUT_key.jsonl")
    scoring = commands.add_parser("score", help="agreement of a judged sample with its key")
    scoring.add_argument("judged", type=Path, help="JSON lines with id and label")
    scoring.add_argument("--key", type=Path, default=Path("benchmarks/label_sample_39_key.jsonl"))
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.tests, args.n, args.seed, args.out)
    else:
        score(args.judged, args.key)


if __name__ == "__main__":
    main()
