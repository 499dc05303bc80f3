"""Commands that score suites with language models: ``run`` (the main job: ``run_models``), ``surprisals``,
``models`` (named models) and ``demo`` (``run`` on the bundled examples)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from linguagym import assets
from linguagym.atomic import output_error
from linguagym.cli.output import console, styled
from linguagym.cli.progress import ProgressBars, scoring_announcement
from linguagym.cli.results import (
    check_table_files,
    prediction_options,
    print_prediction_table,
    print_summary,
    print_tie_notes,
    stdout_taken,
    summary_options,
    summary_settings,
)
from linguagym.cli.suites import cmd_show, cmd_validate, suite_paths
from linguagym.destinations import check_file
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.evaluation.alignment import CROSSING_RULES
from linguagym.evaluation.crossing_notes import crossing_note
from linguagym.evaluation.evaluate import COMPAT_OPTIONS, suite_sentences
from linguagym.evaluation.limit import parse_limit
from linguagym.evaluation.models_file import read_models_file
from linguagym.evaluation.run import DEFAULT_MODEL, RunSettings, check_settings, load_suites
from linguagym.executors import EXECUTORS, make_executor
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.scoring.engine.order import score_texts
from linguagym.scoring.huggingface.memory import is_auto_batch_size
from linguagym.suites.examples import example_suite_paths
from linguagym.suites.formula import TIE_RULES, Tolerance

if TYPE_CHECKING:
    from linguagym.suites.model import Suite

# -------------------------------------------------------------------------------------------- parsers


def model_options(p: argparse.ArgumentParser, repeatable: bool = False) -> None:
    """The options of a language model (``repeatable``: --model more than once, and --models-file)."""
    g = p.add_argument_group("model")
    if repeatable:
        g.add_argument("--model", "-m", action="append", metavar="M",
                       help="a named model, a hub id (id@revision: one checkpoint), a local directory, a .gguf "
                       f"file or an lm-zoo .tsv; repeat to compare models (default: {DEFAULT_MODEL})")
        g.add_argument("--models-file", type=Path, metavar="FILE",
                       help="more models, one per line (# comments; globs such as checkpoints/step-* expand "
                       "in natural order): every checkpoint of a training run, fifty models")
    else:
        g.add_argument("--model", "-m", default=DEFAULT_MODEL, metavar="M",
                       help=f"a named model, a hub id, a local directory, a .gguf file or an lm-zoo .tsv "
                       f"(default: {DEFAULT_MODEL})")
    g.add_argument("--bos", default="auto", metavar="POLICY",
                   help="start-of-sentence: auto (the model's BOS, else EOS), none, or a token (default: auto)")
    g.add_argument("--spacing", default="natural", choices=("natural", "spaces"),
                   help="how regions are joined (default: natural, no space before , . ! ? ; :)")
    g.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16", "bfloat16-mixed", "auto"),
                   help="float32 (default), bfloat16, float16, bfloat16-mixed (float32 weights, matrix products in "
                   "bfloat16: faster on CPUs with AVX512-BF16 or AMX, 0.06 bits a token from float32), or auto: the "
                   "checkpoint's own torch_dtype")
    g.add_argument("--model-args", "--model_args", default="", metavar="K=V,...",
                   help="Hugging Face model arguments, as in lm-evaluation-harness: revision, trust_remote_code, "
                   "dtype, device_map (parallelize=true: auto), load_in_8bit, load_in_4bit, peft (an adapter), "
                   "subfolder, gguf_file, tokenizer; e.g. revision=step1000,trust_remote_code=true")
    g.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, cuda:1, mps")
    g.add_argument("--batch-size", "--batch_size", type=batch_size_argument, default=16, metavar="N|auto",
                   help="texts per forward pass; auto: as many as the GPU's free memory holds (16 on a CPU); "
                   "lm-eval's auto:N is taken as auto (default: 16)")
    g.add_argument("--pll", choices=("original", "within_word_l2r"), default=None,
                   help="pseudo-log-likelihood variant for masked LMs (default: original)")
    g.add_argument("--bow-correction", "--bow_correction", action="store_true",
                   help="word-boundary correction for causal LMs whose tokens carry their leading space (GPT-2, "
                   "Llama, Gemma...): a region's surprisal includes the probability that the next token begins a "
                   "new word, as minicons' bow_correction (default: off, the token sums published results use)")
    g.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="score cache (default: $LINGUAGYM_CACHE_DIR, else the user cache directory)")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the score cache")


def add_run_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("run", help="score suites with models and evaluate their predictions",
                            description="Score suites with one or more language models, evaluate every prediction, "
                            "print accuracy (suites and the collection's score and groups down, models across), and "
                            "write results into DIR/<model>/ and a report into DIR/report.html.")
    p.add_argument("suites", nargs="*", metavar="SUITE", help="suite .json files or directories of them")
    p.add_argument("-o", "--output", "--output_path", type=Path, default=Path("linguagym-results"), metavar="DIR",
                   help="output directory (default: ./linguagym-results)")
    p.add_argument("--metric", default=None, help="evaluate predictions on this metric instead of the suite's")
    p.add_argument("--compat", choices=COMPAT_OPTIONS, default=None,
                   help="syntaxgym-core: count an lm-zoo TSV's <eos> as a token of the last region, as syntaxgym-core "
                   "does (its mean, median, min and range then match; sums match either way)")
    p.add_argument("--crossing", choices=CROSSING_RULES, default="first",
                   help="a token covering text of several regions (\"..\" over the regions . and .): first counts it "
                   "whole in its first region, and a region it leaves with no token is undefined (default); split "
                   "shares its surprisal between the regions by characters (an approximation, marked in regions.csv)")
    p.add_argument("--ties", choices=TIE_RULES, default="strict",
                   help="how '<' and '>' decide two equal sides: strict, a tie fails (default); lm-eval, a tie holds, "
                   "as lm-evaluation-harness's argmax scores a BLiMP pair of two identical sentences. Ties are "
                   "counted either way (predictions.csv, run.json)")
    p.add_argument("--atol", type=tolerance_argument, default=Tolerance.atol, metavar="BITS",
                   help="absolute tolerance of '=', '<=', '>=', '!=' (they hold within |a - b| <= atol + rtol * |b|) "
                   f"and of what counts as a near tie of '<' and '>' (default {Tolerance.atol:g}); a prediction's "
                   "own \"atol\" in the suite comes first")
    p.add_argument("--rtol", type=tolerance_argument, default=Tolerance.rtol, metavar="R",
                   help=f"relative tolerance, as --atol (default {Tolerance.rtol:g}); a prediction's own \"rtol\" "
                   "comes first")
    p.add_argument("--limit", type=limit_argument, default=None, metavar="N",
                   help="only the first N items of each suite, or (N below 1) that share of them, as lm-eval's "
                   "--limit: a quick look, marked as not a full run")
    p.add_argument("--suites-dir", type=Path, default=None, metavar="DIR",
                   help="with --collection: the directory holding its suites (else they are fetched when online)")
    p.add_argument("--no-report", action="store_true", help="skip the HTML report and plots")
    g = p.add_argument_group("execution")
    g.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="local: score in this process (default); ray: on a Ray cluster, one model copy per worker")
    g.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --executor ray: the cluster to join (default: start a local one)")
    g.add_argument("--ray-workers", type=int, default=None, metavar="N",
                   help="with --executor ray: workers (default: the cluster's GPUs, else its CPUs)")
    model_options(p, repeatable=True)
    summary_options(p)
    prediction_options(p)
    p.set_defaults(func=cmd_run)
    return p


def add_surprisals_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("surprisals", help="write token surprisals of suite sentences as lm-zoo TSV")
    p.add_argument("suites", nargs="+", metavar="SUITE")
    p.add_argument("-o", "--output", required=True, metavar="TSV")
    model_options(p)
    p.set_defaults(func=cmd_surprisals)
    return p


def add_models_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("models", help="list named models, or fetch them into the cache")
    p.add_argument("--fetch", nargs="+", metavar="NAME", help="fetch (and de-quantise) these named models now")
    p.add_argument("--forms", action="store_true",
                   help="list every form a model, a classifier or a fill-in model may take (plug-ins included)")
    p.add_argument("--cache-dir", type=Path, default=None, metavar="DIR")
    p.set_defaults(func=cmd_models)
    return p


def add_demo_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("demo", help="the main job: run the bundled example suites with the default model")
    p.add_argument("-o", "--output", type=Path, default=Path("linguagym-results") / "demo", metavar="DIR")
    p.set_defaults(func=cmd_demo)
    return p


def batch_size_argument(text: str) -> int | str:
    """--batch-size: a whole number, or auto (lm-evaluation-harness's auto:N too, kept as written)."""
    if is_auto_batch_size(text.strip().lower()):
        return text.strip().lower()
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number or auto (e.g. 16, auto)") from None


def tolerance_argument(text: str) -> float:
    """--atol, --rtol: a number of at least 0 (0: exact)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 0.001, or 0 for exact)") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a tolerance: give a number of at least 0 (e.g. 0.001)")
    return value


def limit_argument(text: str) -> int | float:
    """--limit: a number of items (10), or a share of each suite below 1 (0.1)."""
    try:
        return parse_limit(text)
    except ConfigurationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# ------------------------------------------------------------------------------------------- commands


def _settings(args: argparse.Namespace):
    """The library's ``RunSettings`` from the model options (the first --model of a run)."""
    model = (args.model or [DEFAULT_MODEL])[0] if isinstance(args.model, list | None) else args.model
    return RunSettings(
        model=model, bos=args.bos, spacing=args.spacing, dtype=args.dtype, device=args.device,
        batch_size=args.batch_size, pll=args.pll, metric=getattr(args, "metric", None),
        policy=getattr(args, "policy", None), cache=not args.no_cache,
        cache_dir=str(args.cache_dir) if args.cache_dir else None, model_args=args.model_args,
        limit=getattr(args, "limit", None), compat=getattr(args, "compat", None),
        bow_correction=getattr(args, "bow_correction", False), crossing=getattr(args, "crossing", None) or "first",
        ties=getattr(args, "ties", "strict"), atol=getattr(args, "atol", Tolerance.atol),
        rtol=getattr(args, "rtol", Tolerance.rtol),
    )


def _run_suite_paths(args: argparse.Namespace) -> list[Path | Suite]:
    """Suites named on the command line, or a collection's suites (from --suites-dir or fetched)."""
    if not args.suites and args.collection in (None, "auto"):
        raise LinguagymError("no suite files given",
                             hint="pass .json files or directories, or --collection syntaxgym-2020 --suites-dir DIR")
    from linguagym.evaluation.collections import resolve_suites  # off --help's path (with run_models, ~40 ms)

    return resolve_suites(args.suites, args.collection, args.suites_dir, args.cache_dir)


def _run_models(args: argparse.Namespace) -> list[str]:
    """The models of a run: each --model, then those of --models-file, each once; the default model if none."""
    models = list(args.model or [])
    if getattr(args, "models_file", None):
        models += read_models_file(args.models_file)
    return list(dict.fromkeys(models)) or [DEFAULT_MODEL]


def cmd_run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from linguagym.evaluation.model_runs import run_models  # off --help's path (~40 ms)

    paths = _run_suite_paths(args)
    if not paths:
        raise LinguagymError("no suite files given", hint="pass .json files or a directory that holds them")
    base = _settings(args)
    check_settings(base)
    models = _run_models(args)
    check_table_files(args)  # (run_models checks the model folders and the report) before any scoring
    err = console(stderr=True)
    bars = ProgressBars(err, scoring_announcement)

    def finished(settings, outcome) -> None:
        bars.stop()
        if isinstance(outcome, LinguagymError):
            err.print(styled("", "", f"{settings.model}: failed: {outcome.message}"), soft_wrap=True, highlight=False)
        else:
            _report_model_run(outcome, err)

    with make_executor(args.executor, address=args.ray_address, workers=args.ray_workers) as executor, bars:
        done = run_models(paths, [replace(base, model=model) for model in models], output=args.output,
                          summary=summary_settings(args), report=not args.no_report, progress=bars,
                          finished=finished, executor=executor, keep_scores=False)
    if done.summary is not None:
        print_summary(done.summary, args)
    print_tie_notes(_tie_notes(done), args)
    if args.by_prediction and done.runs:
        print_prediction_table(done.runs, args)
    _print_suite_level(done, args)
    if done.report is not None:
        err.print(f"report: {done.report}", soft_wrap=True, highlight=False)
    if done.failed:
        lines = "\n  ".join(f"{one.model}: {error.message}" + (f" ({error.hint})" if error.hint else "")
                            for one, error in done.failed)
        ran = len(done) - len(done.failed)
        note = f"; the results of the other {ran} are in {args.output}" if ran else ""
        named = dict.fromkeys(name for _one, error in done.failed for name in error.settings)
        raise LinguagymError(f"{len(done.failed)} of {len(models)} models failed{note}\n  {lines}",
                             hint="mend the cause and run the same command again: finished scores are cached",
                             settings=named)  # main writes each as its option
    return 0


def _tie_notes(done) -> list[str]:
    """The tie notes of the models that ran (``evaluation/ties.py``)."""
    from linguagym.evaluation.runfolder.rows import model_label  # off --help's path
    from linguagym.evaluation.ties import tie_note

    notes = []
    for result in done:
        if isinstance(result, LinguagymError):
            continue
        for suite_result in result.suites:
            own = any(p.atol is not None or p.rtol is not None for p in suite_result.suite.predictions)
            note = tie_note(model_label(result), suite_result.suite.name, suite_result.ties(), result.settings.ties,
                            result.settings.atol, own)
            if note:
                notes.append(note)
    return notes


def _print_suite_level(done, args: argparse.Namespace) -> None:
    """Below the table, in rows of their own: each suite-level prediction (``mean(x) > 0``) of each model; they are
    no part of the accuracies above (evaluation/suite_level.py)."""
    from linguagym.evaluation.runfolder.rows import suite_prediction_rows  # off --help's path
    from linguagym.evaluation.runfolder.schema import SUITE_PREDICTION_COLUMNS
    from linguagym.evaluation.suite_level import describe

    rows = [dict(zip(SUITE_PREDICTION_COLUMNS, row, strict=True)) for result in done
            if not isinstance(result, LinguagymError) for row in suite_prediction_rows(result)]
    lines = [f"suite-level, {row['suite']} ({row['model']}): {describe(row)}" for row in rows]
    if lines:
        out = console(stderr=stdout_taken(args), wide=True)
        for line in lines:
            out.print(line, highlight=False, soft_wrap=True)


def _report_model_run(result, err) -> Path:
    """Say what a model's run (written by run_models) cost and where its files are."""
    model = result.settings.model
    err.print(f"{model}: {result.unique_sentences} unique sentences, {result.tokens} tokens, "
              f"{result.seconds:.1f} s; results in {result.directory}/", soft_wrap=True, highlight=False)
    for suite_result in result.suites:
        note = crossing_note(suite_result.alignment_counts(), suite_result.undefined_predictions(),
                             result.settings.crossing)
        if note:
            err.print(f"note: {suite_result.suite.name}: {note}", soft_wrap=True, highlight=False)
    return result.directory


def cmd_surprisals(args: argparse.Namespace) -> int:
    from linguagym.scoring import precomputed  # off --help's path

    check_file(args.output)  # before any scoring
    suites, _ = load_suites(suite_paths(args.suites))
    texts = [s.text for suite in suites for s in suite_sentences(suite, args.spacing)]
    settings = _settings(args)
    scorer = settings.scorer_spec().load()  # every model option, model_args included, as a run takes them
    scores = score_texts(scorer, texts)
    try:
        precomputed.write_surprisals_tsv([scores[text] for text in texts], Path(args.output))
    except OSError as error:
        raise output_error(error, args.output) from error
    print(f"wrote {len(texts)} sentences to {args.output}", file=sys.stderr)
    if settings.bow_correction:  # the format has no place to say so; a run on the file will say it cannot tell
        print("note: these surprisals are word-boundary corrected (--bow-correction); an lm-zoo TSV cannot record "
              "that, so keep it with the file", file=sys.stderr)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    cache_dir = resolve_cache_dir(Path(args.cache_dir) if args.cache_dir else None)
    if args.fetch:
        for name in args.fetch:
            path = assets.fetch_named_model(name, cache_dir)
            print(f"{name}: {path}")
        return 0
    if args.forms:
        _print_forms()
        return 0
    for entry in assets.named_models():
        print(entry.name)
    return 0


def _print_forms() -> None:
    """The registries' tables (``linguagym.plugins``): each form with its description."""
    from linguagym.capabilities.classifiers.registry import describe_classifiers  # off the other commands' path
    from linguagym.capabilities.expansion.fill import describe_fillers
    from linguagym.scoring.registry import describe_scorers

    sections = [("models (run --model)", describe_scorers()), ("classifiers (lct test -c)", describe_classifiers()),
                ("fill-in models (lct generate --filler)", describe_fillers())]
    for n, (title, rows) in enumerate(sections):
        print(("\n" if n else "") + title + ":")
        width = max(len(name) for name, _ in rows)
        for name, about in rows:
            print(f"  {name.ljust(width)}  {about}")


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on embedded defaults: the bundled example suites, scored by the default model."""
    paths = [str(p) for p in example_suite_paths()]
    out = console()
    out.rule("linguagym demo: the bundled example suites")
    status = cmd_validate(argparse.Namespace(suites=paths, quiet=False, strict=False))
    if status:
        return status
    out.print()
    cmd_show(argparse.Namespace(suites=paths[:1], items=1))
    out.print()
    out.rule(f"scoring them with {DEFAULT_MODEL}")
    parser = argparse.ArgumentParser(prog="linguagym")
    add_run_parser(parser.add_subparsers(dest="command"))
    return cmd_run(parser.parse_args(["run", *paths, "-o", str(args.output)]))
