"""A fresh pool for the DIR negation rule (#38) once every negatable positive sentence of the default dataset has
been judged: the other two sentence sets of the same paper (Hutto & Gilbert 2014), shipped in the same
vaderSentiment source distribution as the default dataset: Amazon product-review snippets and New York Times
editorial snippets, each with a mean human rating (-4..4).

    pip download --no-deps --no-binary :all: vaderSentiment==3.3.2 -d /tmp/vs
    tar xzf /tmp/vs/vaderSentiment-3.3.2.tar.gz -C /tmp/vs
    tar xzf /tmp/vs/vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz -C /tmp/vs
    PYTHONPATH=. python benchmarks/dir_pool_other.py /tmp/vs/hutto_ICWSM_2014 --n 50 --seed 45 \
        --out benchmarks/dir_pairs_45
    PYTHONPATH=. python benchmarks/dir_pool_other.py /tmp/vs/hutto_ICWSM_2014 --n 50 --seed 46 \
        --exclude benchmarks/dir_pairs_45_key.jsonl --out benchmarks/dir_pairs_46
    PYTHONPATH=. python benchmarks/dir_pool_other.py /tmp/vs/hutto_ICWSM_2014 --n 50 --seed 47 \
        --sets amazon nyt tweets movies --exclude benchmarks/dir_pairs_judged.jsonl \
        benchmarks/dir_pairs_{39,40,41,42,43,44,45,46}_key.jsonl --out benchmarks/dir_pairs_47

``--sets`` picks the sentence sets (default the Amazon and NYT ones; ``tweets`` and ``movies``, the default dataset's
own sentences, once those ran short: with ``--exclude`` naming every earlier sample, only the sentences no reader has
judged are drawn). Every sentence rated at least ``negation.MIN_RATING`` (clearly positive, as the DIR tests'
originals) is negated by ``negate_main_clause``; the Amazon snippets are in lower case, so their first letter and a
lone "i" are capitalised first (a lower-case sentence is refused as a fragment). Prints how many were negated and why
the others were refused; writes ``OUT.tsv`` (id, original, negated: the texts only, for a blind reader) and
``OUT_key.jsonl`` (per id: the file, the sentence's id, its rating). The population is not film reviews alone: the
figure measures the rule on sentences nobody tuned it on, not the default run's pairs.

``--written FILE`` adds sentences written for a sample, once every real positive sentence here had been judged
(sample 48: 320 film- and product-review sentences a helper wrote without seeing the rules or any sample; ``--sets``
with no name leaves the real ones out):

    PYTHONPATH=. python benchmarks/dir_pool_other.py /tmp/vs/hutto_ICWSM_2014 --sets --written \
        benchmarks/dir_pool_written_48.txt --n 50 --seed 48 --out benchmarks/dir_pairs_48
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from pathlib import Path

SETS = {"amazon": "amazonReviewSnippets_GroundTruth.txt", "nyt": "nytEditorialSnippets_GroundTruth.txt",
        "tweets": "tweets_GroundTruth.txt", "movies": "movieReviewSnippets_GroundTruth.txt"}


def positive_sentences(folder: Path, min_rating: float,
                       sets: tuple[str, ...] = ("amazon", "nyt")) -> list[tuple[str, str, float, str]]:
    """(file, id, rating, text) of every sentence rated at least ``min_rating``, its case repaired."""
    out = []
    for name in (SETS[key] for key in sets):
        for line in (folder / name).read_text(encoding="utf-8", errors="replace").splitlines():
            fields = line.rstrip("\r").split("\t")
            if len(fields) != 3:
                continue
            rating = float(fields[1])
            if rating >= min_rating:
                text = re.sub(r"\bi\b", "I", fields[2].strip())
                out.append((name, fields[0], rating, text[:1].upper() + text[1:]))
    return out


def written_sentences(path: Path) -> list[tuple[str, str, float, str]]:
    """(file name, line number, 4.0, text) of every non-empty line of ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(path.name, str(number), 4.0, line.strip()) for number, line in enumerate(lines, 1) if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the unpacked hutto_ICWSM_2014 folder")
    # "--sets" with no name draws from --written alone
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--out", required=True, help="write OUT.tsv and OUT_key.jsonl")
    parser.add_argument("--sets", nargs="*", choices=sorted(SETS), default=["amazon", "nyt"],
                        help="the sentence sets to draw from (default: amazon nyt)")
    parser.add_argument("--written", type=Path, default=None,
                        help="also a file of positive sentences, one a line, written for a sample by someone who "
                             "never saw the rules (no rating: each is taken as clearly positive)")
    parser.add_argument("--exclude", type=Path, nargs="*", default=[],
                        help="keys of earlier samples: their sentences are not drawn again")
    args = parser.parse_args()
    from dir_verdicts import letters  # benchmarks/ is the script's folder, first on sys.path

    from linguagym.capabilities.perturb.build import load_perturbation_pipeline
    from linguagym.capabilities.perturb.negation import MIN_RATING, negate_main_clause

    nlp = load_perturbation_pipeline()
    sentences = positive_sentences(args.folder, MIN_RATING, tuple(args.sets)) if args.sets else []
    if args.written is not None:
        sentences += written_sentences(args.written)
    made, refused = [], Counter()
    for (name, sid, rating, text), doc in zip(sentences, nlp.pipe(s[3] for s in sentences), strict=True):
        negation = negate_main_clause(doc)
        if negation.text is None:
            refused[negation.refused] += 1
        else:
            made.append((name, sid, rating, text, negation.text))
    print(f"{len(made)} negated of {len(sentences)} sentences rated >= {MIN_RATING}; refused: "
          + ", ".join(f"{n} {reason}" for reason, n in refused.most_common()))
    # compared by letters and digits only: the default dataset's loader writes some quotes and dashes otherwise
    seen = {letters(json.loads(line)["original"]) for key in args.exclude
            for line in key.read_text(encoding="utf-8").splitlines() if line.strip()}
    fresh = [pair for pair in made if letters(pair[3]) not in seen]
    print(f"{len(fresh)} of them not in an earlier sample")
    sample = random.Random(args.seed).sample(fresh, min(args.n, len(fresh)))
    with open(f"{args.out}.tsv", "w", encoding="utf-8") as tsv, open(f"{args.out}_key.jsonl", "w",
                                                                       encoding="utf-8") as key:
        tsv.write("id\toriginal\tnegated\n")
        for i, (name, sid, rating, text, negated) in enumerate(sample, 1):
            tsv.write(f"{i:02d}\t{text}\t{negated}\n")
            key.write(json.dumps({"id": f"{i:02d}", "file": name, "sentence": sid, "rating": rating,
                                  "original": text, "negated": negated}, ensure_ascii=False) + "\n")
    print(f"wrote {len(sample)} pairs to {args.out}.tsv and {args.out}_key.jsonl")


if __name__ == "__main__":
    main()
