"""How far two careful readers agree on an expansion (#38): the instrument behind every acceptance rate.

    PYTHONPATH=. .venv/bin/python benchmarks/expansion_agreement.py sample --n 200 --seed 53 --tags 38 39 40 41 \
        --out benchmarks/expansion_agreement_53
    PYTHONPATH=. .venv/bin/python benchmarks/expansion_agreement.py agree --out benchmarks/expansion_agreement_53

``sample``: ``--n`` rows drawn with ``random.Random(seed)`` from the judged blind samples (``--tags``, default every
``expansion_blind_NN`` with a ``_judged.jsonl``), written as ``OUT.tsv`` (id, original, expansion: the texts only,
in the blind samples' shape) and ``OUT_key.jsonl`` (per id: the sample and its row id, and that reader's verdict).
Readers who see only the TSV give each id the blind samples' forced choice ("are the inserted words acceptable to
a careful reader?"), one ``OUT_judged_<name>.jsonl`` each (``{"id", "acceptable", "why"}`` a line).

``agree``: per reader (the first verdict is the sample's own reader, ``first``), the share accepted, and per pair
of readers the share of rows on which they agree and Cohen's kappa (agreement beyond what the two acceptance rates
give by chance: 0 chance, 1 perfect), with the rows of each source sample apart.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from reader_lexicon import judged_tags, read_verdicts, sample_texts  # noqa: E402  (the sibling script, by path)


def judged_rows(tags: list[str] | None = None) -> list[dict]:
    """Every judged row of the blind samples ``tags`` (default all), by its sample's first reader: tag, id,
    original, expansion, acceptable."""
    rows = []
    for tag in tags if tags is not None else judged_tags():
        texts = sample_texts(tag)
        for row_id, ok in read_verdicts(HERE / f"expansion_blind_{tag}_judged.jsonl").items():
            rows.append({"tag": tag, "id": str(row_id), "original": texts[row_id]["original"],
                         "expansion": texts[row_id]["expansion"], "acceptable": ok})
    return rows


def draw(rows: list[dict], n: int, seed: int) -> list[dict]:
    """``n`` rows drawn with ``random.Random(seed)``, each expansion text once."""
    distinct = list({r["expansion"]: r for r in rows}.values())
    return random.Random(seed).sample(distinct, min(n, len(distinct)))


def kappa(first: list[bool], second: list[bool]) -> float:
    """Cohen's kappa of two readers' verdicts on the same rows."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    p1, p2 = sum(first) / n, sum(second) / n
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    return 1.0 if chance == 1 else (observed - chance) / (1 - chance)


def agreement(out: Path) -> list[str]:
    """The report's lines for the sample ``out`` and every ``OUT_judged_<name>.jsonl`` beside it."""
    key = [json.loads(line) for line in Path(f"{out}_key.jsonl").read_text(encoding="utf-8").splitlines()]
    readers = {"first": {int(k["id"]): k["acceptable"] for k in key}}
    for path in sorted(out.parent.glob(f"{out.name}_judged_*.jsonl")):
        readers[path.name[len(out.name) + len("_judged_"):-len(".jsonl")]] = read_verdicts(path)
    ids = [int(k["id"]) for k in key if all(int(k["id"]) in v for v in readers.values())]
    lines = [f"{len(ids)} rows judged by all {len(readers)} readers ({', '.join(readers)})"]
    groups = {"all": ids} | {tag: [int(k["id"]) for k in key if k["sample"] == tag and int(k["id"]) in ids]
                             for tag in sorted({k["sample"] for k in key})}
    for group, members in groups.items():
        if not members:
            continue
        accepted = ", ".join(f"{name} {sum(v[i] for i in members)}/{len(members)}" for name, v in readers.items())
        lines.append(f"[{group}] accepted: {accepted}")
        for (a, va), (b, vb) in combinations(readers.items(), 2):
            first, second = [va[i] for i in members], [vb[i] for i in members]
            same = sum(x == y for x, y in zip(first, second, strict=True))
            lines.append(f"[{group}] {a} vs {b}: agree {same}/{len(members)} = {same / len(members):.2f}, "
                         f"kappa {kappa(first, second):.2f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("sample", "agree"))
    parser.add_argument("--out", type=Path, required=True, help="the sample's path without its suffix")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--tags", nargs="+", default=None, help="the blind samples drawn from (default: all)")
    args = parser.parse_args()
    if args.mode == "agree":
        print("\n".join(agreement(args.out)))
        return
    rows = draw(judged_rows(args.tags), args.n, args.seed)
    with open(f"{args.out}.tsv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(["id", "original", "expansion"])
        for i, row in enumerate(rows, 1):
            writer.writerow([i, row["original"], row["expansion"]])
    with open(f"{args.out}_key.jsonl", "w", encoding="utf-8") as f:
        for i, row in enumerate(rows, 1):
            f.write(json.dumps({"id": i, "sample": row["tag"], "sample_id": row["id"],
                                "acceptable": row["acceptable"]}) + "\n")
    print(f"{len(rows)} rows -> {args.out}.tsv, {args.out}_key.jsonl")


if __name__ == "__main__":
    main()
