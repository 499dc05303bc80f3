"""A seeded sample of DIR negation pairs (a positive sentence and it negated) from a capability-test file, as texts
only, for a blind reader to judge whether each negated text says the opposite (or at least less) of the
original: the negation in the main clause, on the sentiment, and English.

    linguagym lct generate --lc all --no-expand -o /tmp/tests.json
    PYTHONPATH=. python benchmarks/dir_pairs.py /tmp/tests.json --n 40 --seed 0 -o benchmarks/dir_pairs_sample.jsonl

Prints how many DIR pairs the file has, of how many positive sentences, and why the others were refused
(``perturbations.made.negation``). The sample file has one JSON object a line: ``n``, ``original``, ``negated``;
nothing else (no capability, no id), so the reader sees only the texts. Judged, a row gains ``valid`` (true or
false) and, where false, ``why``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from linguagym.capabilities.testfile import read_tests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", type=Path, help="a capability-test file with DIR tests")
    parser.add_argument("--n", type=int, default=40, help="pairs in the sample (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="which pairs (default 0)")
    parser.add_argument("-o", "--output", type=Path, default=None, help="the sample as JSON lines")
    args = parser.parse_args()
    document = read_tests(args.tests)
    # a sentence that is several capabilities' source is negated once for each: the reader sees it once
    pairs = list(dict.fromkeys((t.provenance.original_text, t.text) for t in document.tests if t.test_type == "DIR"))
    counts = (document.perturbations or {}).get("made", {}).get("negation", {})
    print(f"{len(pairs)} distinct DIR pairs; {counts.get('made', '?')} made of {counts.get('candidates', '?')} "
          "positive sentences (one per capability it is a source of); refused: "
          + (", ".join(f"{n} {reason}" for reason, n in counts.get("refused", {}).items()) or "none recorded"))
    sample = random.Random(args.seed).sample(pairs, min(args.n, len(pairs)))
    rows = [{"n": i, "original": original, "negated": negated} for i, (original, negated) in enumerate(sample, 1)]
    if args.output is None:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    args.output.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"wrote {len(rows)} pairs to {args.output}")


if __name__ == "__main__":
    main()
