"""How far region values move with the batch size, the token budget of a pass and prefix sharing.

The same sentences (the first ``--items`` items of a few suites) are scored under several scorer settings with one
set of weights; each setting's token surprisals and region values (every metric) are compared with the reference,
one sentence a pass without prefix sharing (``batch_tokens=1``). Prints, per setting, the largest difference per
token, per region sum and per region mean, the predictions whose outcome differs from the reference's, and how
many of those the tie count marks (a '<' or '>' within the tolerance: docs/scoring.md, "Ties").

    PYTHONPATH=. .venv/bin/python benchmarks/determinism.py                       # smollm2-135m, 4 real suites
    PYTHONPATH=. .venv/bin/python benchmarks/determinism.py --tiny                # the tests' tiny model, examples
    PYTHONPATH=. .venv/bin/python benchmarks/determinism.py --model gemma-3-270m --items 20 --json out.json

The named model must be in the linguagym cache (``linguagym models --fetch NAME``). Not a test: the figures
depend on the machine's kernels; docs/performance.md ("Same numbers at any batch size") gives the measured ones.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from checkpoints import cpu_name  # (benchmarks/ is the script's folder, first on sys.path)

ROOT = Path(__file__).resolve().parents[1]
SUITES_DIR = ROOT.parent / "shared" / "data" / "syntaxgym" / "suites"
DEFAULT_SUITES = ("number_prep", "npz_ambig_mod", "subordination_src-src", "fgd_hierarchy")

# (label, scorer options); the first is the reference
SETTINGS: list[tuple[str, dict]] = [
    ("plain, one sentence a pass", {"prefix_sharing": False, "batch_size": 1, "batch_tokens": 1}),
    ("plain, batch 4 (budget 64 tokens)", {"prefix_sharing": False, "batch_size": 4, "batch_tokens": 64}),
    ("plain, batch 16 (default budget)", {"prefix_sharing": False, "batch_size": 16}),
    ("plain, batch 64, budget 16384", {"prefix_sharing": False, "batch_size": 64, "batch_tokens": 16384}),
    ("prefix trees, budget 32 tokens", {"prefix_sharing": True, "batch_size": 1, "batch_tokens": 32}),
    ("prefix trees, batch 16 (default budget)", {"prefix_sharing": True, "batch_size": 16}),
    ("prefix trees, budget 16384", {"prefix_sharing": True, "batch_size": 64, "batch_tokens": 16384}),
]


def tiny_model(directory: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from tests.tiny_models import save_example_suites_lm  # the tests' tiny model (a random byte-level GPT-2)

    return save_example_suites_lm(directory, vocab_size=600, seed=3)


def compare(suites, reference: dict, other: dict) -> dict:
    """The largest differences of ``other``'s scores from ``reference``'s, and the predictions that changed."""
    from linguagym.evaluation.evaluate import evaluate_suite

    token = max(abs(x.surprisal - y.surprisal) for text, scored in reference.items()
                for x, y in zip(scored.tokens, other[text].tokens, strict=True))
    worst = {"sum": 0.0, "mean": 0.0}
    regions = changed = changed_marked = 0
    for suite in suites:
        left, right = evaluate_suite(suite, reference), evaluate_suite(suite, other)
        for x, y in zip(left.conditions, right.conditions, strict=True):
            for number, metrics in x.values.items():
                if number is None:
                    continue
                regions += 1
                for metric in worst:
                    u, v = metrics[metric], y.values[number][metric]
                    if math.isnan(u) != math.isnan(v):
                        worst[metric] = math.inf
                    elif not math.isnan(u):
                        worst[metric] = max(worst[metric], abs(u - v))
        for p, q in zip(left.predictions, right.predictions, strict=True):
            if p.holds != q.holds:
                changed += 1
                changed_marked += bool(p.tie or q.tie)
    return {"token": token, "region_sum": worst["sum"], "region_mean": worst["mean"], "regions": regions,
            "predictions_changed": changed, "changed_marked_as_ties": changed_marked}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2-135m", help="a named model, a hub id or a directory")
    parser.add_argument("--tiny", action="store_true", help="the tests' tiny random model on the example suites")
    parser.add_argument("--suites", nargs="*", default=None, help="suite files (default: 4 SyntaxGym suites)")
    parser.add_argument("--items", type=int, default=10, help="the first N items of each suite (default 10)")
    parser.add_argument("--cache-dir", default=None, help="linguagym's model cache (default: the user cache)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args()

    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.scoring import load_scorer
    from linguagym.scoring.huggingface.causal import CausalScorer
    from linguagym.suites import example_suite_paths
    from linguagym.suites.load import read_suite

    temporary = tempfile.TemporaryDirectory()
    model = str(tiny_model(Path(temporary.name) / "tiny")) if args.tiny else args.model
    if args.suites:
        paths = [Path(p) for p in args.suites]
    elif args.tiny:
        paths = list(example_suite_paths())
    else:
        paths = [SUITES_DIR / f"{name}.json" for name in DEFAULT_SUITES]
    suites = [replace(s, items=s.items[: args.items]) for s in (read_suite(p).suite for p in paths)]
    texts = list(dict.fromkeys(s.text for suite in suites for s in suite_sentences(suite)))
    base = load_scorer(model, cache_dir=Path(args.cache_dir) if args.cache_dir else None, score_cache=False,
                       **SETTINGS[0][1])
    assert isinstance(base, CausalScorer), "causal LMs only"
    scores, seconds = {}, {}
    for label, options in SETTINGS:
        scorer = base if label == SETTINGS[0][0] else CausalScorer.on(base.lm, **options)
        clock = time.perf_counter()
        scores[label] = dict(zip(texts, scorer.score(texts), strict=True))
        seconds[label] = time.perf_counter() - clock

    from linguagym.scoring.native.onednn import describe

    reference = scores[SETTINGS[0][0]]
    rows = {label: {**compare(suites, reference, scores[label]), "seconds": round(seconds[label], 2)}
            for label, _ in SETTINGS[1:]}
    tokens = sum(len(s.tokens) for s in reference.values())
    print(f"{model if not args.tiny else 'tiny example-suites GPT-2'}: {len(suites)} suites x {args.items} items, "
          f"{len(texts)} unique sentences, {tokens} tokens; CPU {cpu_name()}; float32 products: {describe()}")
    print(f"against: {SETTINGS[0][0]} ({seconds[SETTINGS[0][0]]:.1f} s)")
    width = max(len(label) for label in rows)
    print(f"{'setting':<{width}}  {'token':>9}  {'region sum':>10}  {'region mean':>11}  changed (ties)  seconds")
    for label, row in rows.items():
        print(f"{label:<{width}}  {row['token']:9.2e}  {row['region_sum']:10.2e}  {row['region_mean']:11.2e}  "
              f"{row['predictions_changed']:>7} ({row['changed_marked_as_ties']})  {row['seconds']:7.2f}")
    worst = {key: max(row[key] for row in rows.values()) for key in ("token", "region_sum", "region_mean")}
    print("largest: " + ", ".join(f"{key} {value:.2e} bits" for key, value in worst.items()))
    if args.json:
        args.json.write_text(json.dumps({"model": model, "cpu": cpu_name(), "products": describe(),
                                         "sentences": len(texts), "tokens": tokens, "settings": rows,
                                         "largest": worst}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
