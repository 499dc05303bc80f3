"""One call from settings to a capability-test file: dataset + lexicon + specs -> analyses -> seed tests ->
expansions -> INV and DIR tests (``generate_tests``; ``settings.GenerateSettings`` says what to make)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

from linguagym.capabilities.data.analysis import Analyser, analyse_cached, load_spacy
from linguagym.capabilities.data.catalog import load_dataset
from linguagym.capabilities.data.datasets import DEFAULT_DATASET, Dataset
from linguagym.capabilities.data.lexicon import load_lexicon
from linguagym.capabilities.expansion import fill
from linguagym.capabilities.expansion.expand import Expander
from linguagym.capabilities.expansion.validate import prefilter
from linguagym.capabilities.perturb.build import add_checklist_tests, load_perturbation_pipeline, parse_test_types
from linguagym.capabilities.perturb.negation import UNREACHED, evaluative_words, unreached_sentiment
from linguagym.capabilities.seeds.defaults import DEFAULT_MAX_SEEDS
from linguagym.capabilities.seeds.generate import generate_seeds
from linguagym.capabilities.seeds.screening import screen
from linguagym.capabilities.seeds.specs import DEFAULT_TEMPLATES, load_specs, select_specs
from linguagym.capabilities.settings import DatasetOptions, ExpansionOptions, GenerateSettings
from linguagym.capabilities.syntax.grammar import INDUCED, choose_reference, induced_grammar, load_reference_grammar
from linguagym.capabilities.syntax.parsers import load_parser
from linguagym.capabilities.testfile.checklist_types import MFT, PAIRED
from linguagym.capabilities.testfile.model import (
    DEFAULT_TEST_TYPES,
    NO_EXPANSION_NOTE,
    CapabilityInfo,
    CapabilityTest,
    CapabilityTestFile,
    CreatedBy,
    DatasetInfo,
)
from linguagym.extras import DEFAULT_SPACY_MODEL
from linguagym.progress import STAGE, Advance, IsCancelled, Progress, begin, note
from linguagym.progress_display import chosen_progress
from linguagym.version import __version__

DEFAULT_SETTINGS = GenerateSettings()
STAGES = {"load": "loading spaCy, the dataset and the lexicon", "analyse": "analysing the dataset's sentences",
          "search": "searching capabilities",
          "expand": "expanding seeds", "perturb": "making invariance and directional tests"}


def generate_tests(settings: GenerateSettings = DEFAULT_SETTINGS, *, progress: Progress | bool | None = True,
                   cancelled: IsCancelled | None = None) -> CapabilityTestFile:
    """The capability-test file (``testfile.write_tests`` writes it) that ``settings`` describe: seed tests for
    the chosen capabilities, their expansions unless ``settings.expansion.enabled`` is False, and CheckList's
    INV and DIR tests made from them where ``settings.test_types`` names them (after each capability's tests).
    The settings are recorded in the file (its ``settings``, ``expansion`` and ``perturbations`` blocks).

    Seeds: at most ``max_seeds`` per capability, a seeded random draw from every match (default 50, the paper's
    protocol). Truncated and broken dataset sentences are never seeds (``seeds.screening``; counted in the file's
    dataset block as ``unusable``).

    ``progress``: True (the default) shows each stage as a line and a bar on stderr, in a terminal or a notebook
    (``progress_display``); False or None shows nothing; a ``Progress`` callable, ``progress(label, total, unit)``,
    is told each stage (``STAGES``: loading, analysing the dataset's sentences,
    searching capabilities, expanding seeds, making INV and DIR tests); ``cancelled()`` is asked between steps
    and stops the work with ``Cancelled``. ``settings.spacy_model`` tags the sentences and parses them for
    expansion (needs the ``[lct]`` extra).
    """
    shown, display = chosen_progress(progress)
    try:
        return _generate_tests(settings, shown, cancelled)
    finally:
        if display is not None:
            display.stop()


def _generate_tests(settings: GenerateSettings, progress: Progress | None,
                    cancelled: IsCancelled | None) -> CapabilityTestFile:
    expansion = settings.expansion
    # auto's choice (and its warning when there is no treebank) comes now, before minutes of analysis
    reference = choose_reference(expansion.reference) if settings.expanding else None
    begin(progress, cancelled, STAGES["load"], 0, STAGE)  # seconds to minutes (a first fetch), before any count
    nlp = load_spacy(settings.spacy_model)  # the [lct] extra and the spaCy model checked before the dataset is fetched
    # specs first: a bad spec fails before slow work
    specs = select_specs(load_specs(list(settings.spec_paths) if settings.spec_paths is not None else None,
                                    settings.templates), settings.lcs)
    cache_dir = settings.cache_dir
    data = settings.dataset if isinstance(settings.dataset, Dataset) else load_dataset(
        settings.dataset, cache_dir=cache_dir, **settings.dataset_options.loader_options())
    lexicon = load_lexicon(settings.lexicon_path, cache_dir)
    analyser = Analyser(lexicon, settings.spacy_model, nlp=nlp)
    tick = begin(progress, cancelled, STAGES["analyse"], len(data.examples), "sentences")
    analyses = analyse_cached(analyser, [e.text for e in data.examples], cache_dir=cache_dir, progress=tick)
    tick = begin(progress, cancelled, STAGES["search"], len(specs), "capabilities")
    parser = load_perturbation_pipeline(settings.spacy_model)  # the parse finds sentences run together
    screening = screen([e.text for e in data.examples], analyses, parse=lambda texts: parser.pipe(texts))
    results = generate_seeds(specs, data, analyses, seed=settings.seed, max_seeds=settings.max_seeds, progress=tick,
                             usable=screening.usable, check_negated=_negation_check(parser))
    for result in results:
        note(progress, f"{result.spec.id}: {len(result.tests)} seeds of {sum(result.matches)} matches")
    expanded: dict[str, list[CapabilityTest]] = {}
    expansion_block = None
    if settings.expanding:
        tick = begin(progress, cancelled, STAGES["expand"], len(specs), "capabilities")
        assert reference is not None  # chosen above when expanding
        expanded, expansion_block = _expand(results, data, analyses, analyser, expansion, reference, settings.seed,
                                            cache_dir, tick, progress)
        for result in results:
            if result.tests and not expanded.get(result.spec.id):
                result.notes.append(no_expansion_note(expansion_block, result.spec.id))
    document = CapabilityTestFile(
        created_by=CreatedBy(tool="linguagym", version=__version__),
        dataset=DatasetInfo.from_json({**data.describe(), "unusable": screening.describe()}),
        lexicon={"source": lexicon.source, "words": len(lexicon)},
        tagger=analyser.tagger_identity,
        settings=settings.record([s.id for s in specs]),
        capabilities=tuple(
            CapabilityInfo(id=r.spec.id, name=r.spec.name, description=r.spec.description, spec=r.spec.path,
                           spec_sha256=r.spec.sha256, matches=tuple(r.matches), seeds=len(r.tests),
                           expansions=len(expanded.get(r.spec.id, [])), notes=tuple(r.notes))
            for r in results),
        tests=tuple(test for r in results for test in (*r.tests, *expanded.get(r.spec.id, []))),
        expansion=expansion_block,
    )
    if settings.test_types == (MFT.code,):
        return document
    tick = begin(progress, cancelled, STAGES["perturb"], len(specs), "capabilities")
    document = add_checklist_tests(document, settings.test_types, seed=settings.seed,
                                   spacy_model=settings.spacy_model, progress=tick)
    for capability in document.capabilities:
        made = {t.code: sum(1 for test in document.tests if test.capability == capability.id and t.owns(test))
                for t in PAIRED}
        note(progress, f"{capability.id}: " + ", ".join(f"{n} {code}" for code, n in made.items()) + " tests")
    return document


def generate_suite(dataset: str | Dataset = DEFAULT_DATASET, *, lcs: str = "all", spec_paths: list[Path] | None = None,
                   seed: int = 0, max_seeds: int | None = DEFAULT_MAX_SEEDS, lexicon_path: Path | None = None,
                   cache_dir: Path | None = None, dataset_options: Mapping | None = None,
                   progress: Progress | None = None, cancelled: IsCancelled | None = None,
                   expansion: ExpansionOptions | None = None, spacy_model: str = DEFAULT_SPACY_MODEL,
                   test_types: str | Sequence[str] = DEFAULT_TEST_TYPES, templates: str = DEFAULT_TEMPLATES,
                   ) -> CapabilityTestFile:
    """Deprecated: ``generate_tests(GenerateSettings(...))``. The same file from the same keyword arguments
    (``expansion=None``, the default here, writes the seed tests only)."""
    warnings.warn("generate_suite is deprecated: call generate_tests(GenerateSettings(...)) (a 'suite' is a "
                  "SyntaxGym suite elsewhere in linguagym)", DeprecationWarning, stacklevel=2)
    settings = GenerateSettings(
        dataset=dataset, lcs=lcs, spec_paths=tuple(spec_paths) if spec_paths is not None else None, seed=seed,
        max_seeds=max_seeds, templates=templates, test_types=parse_test_types(test_types),
        expansion=expansion if expansion is not None else ExpansionOptions(enabled=False),
        dataset_options=DatasetOptions(**dict(dataset_options or {})), lexicon_path=lexicon_path,
        cache_dir=cache_dir, spacy_model=spacy_model)
    return generate_tests(settings, progress=progress, cancelled=cancelled)


def _negation_check(parser):
    """LC4/LC5's check of a sentence to negate: refused where an evaluative word (VADER's, or an adjective or
    adverb SentiWordNet calls positive or negative) stands after the verb beyond the negation's reach."""
    evaluative = evaluative_words()

    def check(analysis, verb_start: int) -> str | None:
        lexicon = {t.start for t in analysis.tokens
                   if t.word_class in ("adjective", "adverb") and t.sentiment in ("positive", "negative")}
        doc = parser(analysis.text)
        found = unreached_sentiment(doc, verb_start, lambda token: token.idx in lexicon or evaluative(token))
        return UNREACHED if found else None

    return check


def _reference_grammar(reference: str, data, parser, cache_dir: Path | None):
    """The reference grammar: ``auto`` is NLTK's gold treebank when it is found, else (with a warning) the grammar
    ``induced`` by parsing the dataset's own sentences (cached), so expansion still works offline."""

    reference = choose_reference(reference)
    if reference == INDUCED:
        return induced_grammar([e.text for e in data.examples], parser=parser, label=data.name, cache_dir=cache_dir)
    return load_reference_grammar(reference, parser=parser, cache_dir=cache_dir)


def no_expansion_note(block: Mapping, capability: str) -> str:
    """Why a capability with seeds got no expansion, from the expansion block's counts: no slot of its seeds took
    a modifier (with the reader lexicon on, one of the pairs it keeps), or every fill was refused."""
    counts = (block.get("counts") or {}).get(capability) or {}
    lexicon = ((block.get("validation") or {}).get("domain") or {}).get("reader_lexicon")
    if counts.get("candidates"):
        masked = counts.get("masked", 0)
        return (f"{NO_EXPANSION_NOTE}: none of the {counts['candidates']} fills of {masked} masked "
                f"sentence{'' if masked == 1 else 's'} passed the checks (expansion.rejections counts why)")
    if lexicon is not None:
        return (f"{NO_EXPANSION_NOTE}: no slot of its seeds takes a modifier the reader lexicon keeps there "
                f"({len(lexicon.get('kept', ()))} (modifier, word) pairs blind readers accepted); "
                "--no-reader-lexicon inserts any modifier the dataset attests, which blind readers accepted far "
                "less often (docs/capabilities.md)")
    return f"{NO_EXPANSION_NOTE}: no slot of its seeds takes an insertion the reference grammar and the checks allow"


def _expand(results, data, analyses, analyser, options: ExpansionOptions, reference: str, seed: int,
            cache_dir: Path | None, tick: Advance | None,
            progress: Progress | None = None) -> tuple[dict[str, list[CapabilityTest]], dict]:
    import time


    started = time.perf_counter()
    parser = load_parser(options.parser, spacy_model=analyser.model)
    grammar = _reference_grammar(reference, data, parser, cache_dir)
    accept = prefilter(analyser.lexicon)
    filler = fill.optional_filler(fill.load_filler(options.filler, cache_dir=cache_dir, accept=accept,
                                                   disk_cache=options.fill_cache))
    setup = time.perf_counter() - started
    expander = Expander(parser, grammar, filler, analyser, options.settings, seed)
    order = iter([r.spec.id for r in results])

    def each(count: int) -> None:  # the expander says when a capability is done; its counts are in the report
        capability = next(order, None)
        counts = expander.report.counts.get(capability or "", {})
        note(progress, f"{capability}: {counts.get('seeds_expanded', 0)} seeds expanded, "
             f"{counts.get('expansions', 0)} expansions of {counts.get('candidates', 0)} candidates")
        if tick is not None:
            tick(count)

    try:
        expanded = expander.expand(results, data, analyses, progress=each)
    finally:
        filler.close()  # the causal filler's cache files
    report = expander.report
    block = {
        "parser": parser.identity,
        "reference": {**grammar.source, "productions": grammar.size,
                      "requested": options.reference},  # e.g. auto, where the rest says what it chose
        "filler": filler.identity,
        "settings": asdict(options.settings),
        "counts": report.counts,
        "rejections": report.rejections,
        # how fills were judged, and the filler's proposals the early test turned away (never candidates)
        "validation": {**expander.validator.identity, "refused_early": dict(accept.refused)},
        "seconds": {"setup": round(setup, 2), **{k: round(v, 2) for k, v in report.timings.items()}},
    }
    if (cache_use := filler.cache_use) is not None:  # what came from an earlier run's fills
        block["fill_cache"] = cache_use
    return expanded, block
