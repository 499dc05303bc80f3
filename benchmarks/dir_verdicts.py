"""How many of a run's DIR negation pairs blind readers have judged, and how many of those they found valid (#38).

    linguagym lct generate --lc all -o /tmp/tests.json
    PYTHONPATH=. python benchmarks/dir_verdicts.py /tmp/tests.json [more test files ...]

Every DIR pair in the files (each negated text once: the same seed can serve several capabilities) is looked up
among the blind verdicts kept in ``benchmarks/`` (``dir_pairs_judged.jsonl`` and every ``dir_pairs_NN`` sample's
key and ``_judged.jsonl``), by the negated text's letters and digits (the dataset's loader writes some quotes
otherwise than the samples). Prints the distinct pairs, how many were judged, how many judged valid with a Wilson 95%
interval, and each pair judged invalid or never judged.

The verdicts were given on pairs an earlier version of the rules made, and the rules since were written from
them: this says how the pairs a run makes today were judged, not how the rules do on sentences nobody tuned them on
(a fresh sample, ``dir_pool_other.py``, measures that).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent


def letters(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def judged_pairs(folder: Path = HERE) -> list[tuple[str, str, str, bool]]:
    """(sample, original, negated, valid) of every blind verdict kept in ``folder``, the first sample first."""
    out = []
    first = folder / "dir_pairs_judged.jsonl"  # the first sample: texts and verdicts in one file
    if first.exists():
        for line in first.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out.append((first.stem, row["original"], row["negated"], bool(row["valid"])))
    for judged in sorted(folder.glob("dir_pairs_[0-9]*_judged.jsonl")):
        sample = judged.name[:-len("_judged.jsonl")]
        keys = {}
        for line in (folder / f"{sample}_key.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                keys[row["id"]] = row
        for line in judged.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                key = keys[row["id"]]
                out.append((sample, key["original"], key["negated"], bool(row["valid"])))
    return out


def verdicts(folder: Path = HERE) -> dict[str, tuple[str, bool]]:
    """Negated text's letters -> (the sample it was judged in, valid), the first verdict where judged twice."""
    out: dict[str, tuple[str, bool]] = {}
    for sample, _, negated, valid in judged_pairs(folder):
        out.setdefault(letters(negated), (sample, valid))
    return out


def dir_pairs(paths: list[Path]) -> dict[str, str]:
    """Negated text's letters -> the negated text, for every DIR test of the files."""
    out: dict[str, str] = {}
    for path in paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        for test in document["tests"]:
            if test.get("type") == "DIR":
                out.setdefault(letters(test["text"]), test["text"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", type=Path, nargs="+", help="capability-test files with DIR tests")
    args = parser.parse_args()
    from linguagym.capabilities.testing.failures import wilson

    known = verdicts()
    pairs = dir_pairs(args.tests)
    judged = {key: known[key] for key in pairs if key in known}
    valid = sum(ok for _, ok in judged.values())
    interval = wilson(valid, len(judged)) if judged else None
    rate = f" = {valid / len(judged):.2f} [{interval[0]:.2f}, {interval[1]:.2f}]" if judged and interval else ""
    print(f"{len(pairs)} distinct DIR pairs; {len(judged)} judged blind, {valid} valid{rate}")
    for key, text in pairs.items():
        if key not in known:
            print(f"  never judged: {text}")
        elif not known[key][1]:
            print(f"  judged invalid ({known[key][0]}): {text}")


if __name__ == "__main__":
    main()
