"""How far two blind readers agree on the same DIR negation pairs (#38), and what today's rules keep of them.

    PYTHONPATH=. .venv/bin/python benchmarks/dir_agreement.py            # every sample with a second reader
    PYTHONPATH=. .venv/bin/python benchmarks/dir_agreement.py --kept     # and the pairs today's rules still make

For every ``dir_pairs_NN`` sample with a second reader's verdicts (``_judged_second.jsonl`` beside the first's
``_judged.jsonl``; both readers had the same forced choice and saw only the TSV): each reader's valid pairs, those
both found valid, the pairs of its first 40 as drawn both found valid, the share of pairs they agree on and Cohen's
kappa; ``--strict``: the same for the two readers of sample 60 given a stricter rubric (``_judged_strict_a``,
``_judged_strict_b``: the negation may not fall on a side detail, a frequency, an extent, a degree word or a scale's
top). ``--kept`` adds the same counts on the pairs ``negate_main_clause`` still makes from the sample's originals
(needs the lct extra): for a sample drawn before today's rules, a tuning figure where the rules were written from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from expansion_agreement import kappa  # noqa: E402  (the sibling script, by path)


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


READERS = ("judged", "judged_second")
# sample 60 was also judged by two readers told what may not carry the negation (a side detail, a frequency, an
# extent, a degree word, a scale's top): a stricter rubric than the one every other sample had
STRICT_READERS = ("judged_strict_a", "judged_strict_b")


def two_readers(folder: Path = HERE, readers: tuple[str, str] = READERS
                ) -> dict[str, tuple[list[dict], dict[str, bool], dict[str, bool]]]:
    """Sample -> (its key rows in drawing order, the first reader's verdicts, the second's), for every sample with
    both of ``readers``' files (``dir_pairs_NN_<reader>.jsonl``)."""
    out = {}
    for second in sorted(folder.glob(f"dir_pairs_[0-9]*_{readers[1]}.jsonl")):
        sample = second.name[:-len(f"_{readers[1]}.jsonl")]
        first = {str(v["id"]): bool(v["valid"]) for v in read(folder / f"{sample}_{readers[0]}.jsonl")}
        other = {str(v["id"]): bool(v["valid"]) for v in read(second)}
        out[sample] = (read(folder / f"{sample}_key.jsonl"), first, other)
    return out


def summary(ids: list[str], first: dict[str, bool], second: dict[str, bool]) -> str:
    """One line of counts for the pairs ``ids`` (in drawing order)."""
    a, b = [first[i] for i in ids], [second[i] for i in ids]
    both = sum(x and y for x, y in zip(a, b, strict=True))
    both_40 = sum(first[i] and second[i] for i in ids[:40])
    same = sum(x == y for x, y in zip(a, b, strict=True))
    return (f"first {sum(a)}/{len(ids)}, second {sum(b)}/{len(ids)}, both {both}/{len(ids)} "
            f"(first 40: {both_40}/{min(40, len(ids))}); agree {same}/{len(ids)}, kappa {kappa(a, b):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kept", action="store_true", help="also the pairs today's rules still make")
    parser.add_argument("--strict", action="store_true",
                        help="the two readers of the stricter rubric (sample 60) instead of the usual two")
    args = parser.parse_args()
    samples = two_readers(readers=STRICT_READERS if args.strict else READERS)
    if args.kept:
        from linguagym.capabilities.perturb.build import load_perturbation_pipeline
        from linguagym.capabilities.perturb.negation import negate_main_clause

        nlp = load_perturbation_pipeline()
    for sample, (key, first, second) in samples.items():
        ids = [str(k["id"]) for k in key if str(k["id"]) in first and str(k["id"]) in second]
        print(f"{sample}: {summary(ids, first, second)}")
        if args.kept:
            texts = {str(k["id"]): k["original"] for k in key}
            kept = [i for i in ids if negate_main_clause(nlp(texts[i])).text is not None]
            print(f"  kept by today's rules: {summary(kept, first, second)}")


if __name__ == "__main__":
    main()
