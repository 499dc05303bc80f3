"""A seeded sample of DIR negation pairs (a positive sentence and it negated) from a capability-test file, as texts
only, for a blind reader to judge whether each negated text says the opposite (or at least less) of the
original: the negation in the main clause, on the sentiment, and English.

    linguagym lct generate --lc all --no-expand -o /tmp/tests.json
    PYTHONPATH=. python benchmarks/dir_pairs.py /tmp/tests.json --n 40 --seed 0 -o benchmarks/dir_pairs_sample.jsonl

Prints how many DIR pairs the file has, of how many positive sentences, and why the others were refused
(``perturbations.made.negation``). The sample file has one JSON object a line: ``n``, ``original``, ``negated``;
nothing else (no capability, no id), so the reader sees only the texts. Judged, a row gains ``valid`` (true or
false) and, where false, ``why``.

A fresh sample for a blind reader, preferring pairs no reader has judged (``--judged``: the pairs of those files
are drawn only when too few others are left), as a TSV (``id``, ``original``, ``negated``) and its key (per id:
the test ids, capabilities, whether it was judged before):

    PYTHONPATH=. python benchmarks/dir_pairs.py /tmp/tests.json --n 40 --seed 39 \
        --judged benchmarks/dir_pairs_judged.jsonl benchmarks/dir_pairs_judged_first.jsonl \
        --out benchmarks/dir_pairs_39
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
    parser.add_argument("--judged", type=Path, nargs="*", default=[],
                        help="judged pairs (JSON lines): drawn only when too few others are left")
    parser.add_argument("--out", default=None, help="write OUT.tsv (id, original, negated) and OUT_key.jsonl")
    args = parser.parse_args()
    document = read_tests(args.tests)
    # a sentence that is several capabilities' source is negated once for each: the reader sees it once
    dir_tests = [t for t in document.tests if t.test_type == "DIR"]
    pairs = list(dict.fromkeys((t.provenance.original_text, t.text) for t in dir_tests))
    counts = (document.perturbations or {}).get("made", {}).get("negation", {})
    print(f"{len(pairs)} distinct DIR pairs; {counts.get('made', '?')} made of {counts.get('candidates', '?')} "
          "positive sentences (one per capability it is a source of); refused: "
          + (", ".join(f"{n} {reason}" for reason, n in counts.get("refused", {}).items()) or "none recorded"))
    if args.out is not None:
        write_blind(args, pairs, dir_tests)
        return
    sample = random.Random(args.seed).sample(pairs, min(args.n, len(pairs)))
    rows = [{"n": i, "original": original, "negated": negated} for i, (original, negated) in enumerate(sample, 1)]
    if args.output is None:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    args.output.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"wrote {len(rows)} pairs to {args.output}")


def write_blind(args: argparse.Namespace, pairs: list[tuple[str, str]], dir_tests: list) -> None:
    """The TSV the reader sees and its key: new pairs first (seeded), judged ones only to make up ``--n``."""
    judged = {json.loads(line)["original"] for path in args.judged
              for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    rng = random.Random(args.seed)
    new = [pair for pair in pairs if pair[0] not in judged]
    old = [pair for pair in pairs if pair[0] in judged]
    chosen = rng.sample(new, min(args.n, len(new)))
    chosen += rng.sample(old, min(args.n - len(chosen), len(old)))
    rng.shuffle(chosen)
    lines, keys = ["id\toriginal\tnegated"], []
    for number, (original, negated) in enumerate(chosen, 1):
        tests = [t for t in dir_tests if (t.provenance.original_text, t.text) == (original, negated)]
        lines.append(f"{number:02d}\t{' '.join(original.split())}\t{' '.join(negated.split())}")
        keys.append({"id": f"{number:02d}", "run": str(args.tests), "tests": [t.id for t in tests],
                     "capabilities": sorted({t.capability for t in tests}, key=lambda c: int(c[2:])),
                     "judged_before": original in judged, "original": original, "negated": negated})
    Path(f"{args.out}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(f"{args.out}_key.jsonl").write_text("".join(json.dumps(k, ensure_ascii=False) + "\n" for k in keys),
                                             encoding="utf-8")
    fresh = sum(not k["judged_before"] for k in keys)
    print(f"wrote {len(keys)} pairs ({fresh} never judged, {len(keys) - fresh} judged before; {len(new)} new pairs "
          f"in the file) to {args.out}.tsv and {args.out}_key.jsonl")


if __name__ == "__main__":
    main()
