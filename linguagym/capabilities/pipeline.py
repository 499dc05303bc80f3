"""One call from names to a capability-test document: dataset + lexicon + specs -> analyses -> seed tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from linguagym.capabilities.data.analysis import Analyser, load_spacy, tagger_identity
from linguagym.capabilities.data.catalog import load_dataset
from linguagym.capabilities.data.datasets import DEFAULT_DATASET, Dataset
from linguagym.capabilities.data.lexicon import load_lexicon
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion import fill
from linguagym.capabilities.expansion.expand import Expander, ExpansionSettings
from linguagym.capabilities.expansion.validate import prefilter
from linguagym.capabilities.seeds.generate import generate_seeds
from linguagym.capabilities.seeds.specs import load_specs, select_specs
from linguagym.capabilities.syntax import treebank
from linguagym.capabilities.syntax.grammar import induced_grammar, load_reference_grammar
from linguagym.capabilities.syntax.parsers import load_parser
from linguagym.capabilities.testing.testfile_model import (
    CapabilityInfo,
    CapabilityTest,
    CapabilityTestFile,
    CreatedBy,
    DatasetInfo,
    GenerationSettings,
)
from linguagym.extras import DEFAULT_SPACY_MODEL
from linguagym.progress import IsCancelled, Progress, begin
from linguagym.version import __version__

STAGES = {"analyse": "analysing the dataset's sentences", "search": "searching capabilities",
          "expand": "expanding seeds"}


def generate_suite(dataset: str | Dataset = DEFAULT_DATASET, *, lcs: str = "all", spec_paths: list[Path] | None = None,
                   seed: int = 0, max_seeds: int | None = None, lexicon_path: Path | None = None,
                   cache_dir: Path | None = None, dataset_options: Mapping | None = None,
                   progress: Progress | None = None, cancelled: IsCancelled | None = None,
                   expansion: ExpansionOptions | None = None, spacy_model: str = DEFAULT_SPACY_MODEL,
                   ) -> CapabilityTestFile:
    """The capability-test file (``testfile.write_tests`` writes it) of seed tests for the chosen capabilities,
    and their expansions unless ``expansion`` is None or has ``enabled=False``.

    ``progress(label, total, unit)`` is told each stage (``STAGES``: analysing the dataset's sentences,
    searching capabilities, expanding seeds); ``cancelled()`` is asked between steps and stops the work with
    ``Cancelled``. ``spacy_model`` tags the sentences and parses them for expansion (needs the ``[lct]`` extra).
    """

    if max_seeds is not None and max_seeds < 0:
        raise CapabilityError(f"--max-seeds must be 0 or more, not {max_seeds}")
    load_spacy(spacy_model)  # the [lct] extra and the spaCy model checked before the dataset is fetched
    specs = select_specs(load_specs(spec_paths), lcs)  # specs first: a bad spec fails before slow work
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset, cache_dir=cache_dir,
                                                                     **dict(dataset_options or {}))
    lexicon = load_lexicon(lexicon_path, cache_dir)
    analyser = Analyser(lexicon, spacy_model)
    tick = begin(progress, cancelled, STAGES["analyse"], len(data.examples), "sentences")
    analyses = analyser.analyse([e.text for e in data.examples], progress=tick)
    tick = begin(progress, cancelled, STAGES["search"], len(specs), "capabilities")
    results = generate_seeds(specs, data, analyses, seed=seed, max_seeds=max_seeds, progress=tick)
    expanded: dict[str, list[CapabilityTest]] = {}
    expansion_block = None
    if expansion is not None and expansion.enabled:
        tick = begin(progress, cancelled, STAGES["expand"], len(specs), "capabilities")
        expanded, expansion_block = _expand(results, data, analyses, analyser, expansion, seed, cache_dir, tick)
    return CapabilityTestFile(
        created_by=CreatedBy(tool="linguagym", version=__version__),
        dataset=DatasetInfo.from_json(data.describe()),
        lexicon={"source": lexicon.source, "words": len(lexicon)},
        tagger=tagger_identity(spacy_model),
        settings=GenerationSettings(seed=seed, max_seeds=max_seeds, lcs=tuple(s.id for s in specs)),
        capabilities=tuple(
            CapabilityInfo(id=r.spec.id, name=r.spec.name, description=r.spec.description, spec=r.spec.path,
                           spec_sha256=r.spec.sha256, matches=tuple(r.matches), seeds=len(r.tests),
                           expansions=len(expanded.get(r.spec.id, [])), notes=tuple(r.notes))
            for r in results),
        tests=tuple(test for r in results for test in (*r.tests, *expanded.get(r.spec.id, []))),
        expansion=expansion_block,
    )


@dataclass(frozen=True)
class ExpansionOptions:
    """How ``generate_suite`` expands seeds (see ``expand.ExpansionSettings`` for the caps)."""

    enabled: bool = True
    parser: str = "auto"  # auto, spacy, benepar
    reference: str = "auto"  # auto (treebank if installed, else induced from the dataset), treebank, PATH, induced:PATH
    filler: str = "smollm2-135m"  # a causal or masked LM (named, path, hub id); masked:MODEL forces a masked LM
    settings: ExpansionSettings = field(default_factory=ExpansionSettings)


def _reference_grammar(reference: str, data, parser, cache_dir: Path | None):
    """``auto``: NLTK's gold treebank when it is installed, else a grammar induced by parsing the dataset's own
    sentences (cached), so expansion works offline with nothing but the registries."""

    if reference == "auto":
        if treebank.default_treebank() is not None:
            reference = "treebank"
        else:
            texts = [e.text for e in data.examples]
            return induced_grammar(texts, parser=parser, label=data.name,
                                   cache_dir=cache_dir)
    return load_reference_grammar(reference, parser=parser, cache_dir=cache_dir)


def _expand(results, data, analyses, analyser, options: ExpansionOptions, seed: int, cache_dir: Path | None,
            tick) -> tuple[dict[str, list[CapabilityTest]], dict]:
    import time


    started = time.perf_counter()
    parser = load_parser(options.parser, spacy_model=analyser.model)
    grammar = _reference_grammar(options.reference, data, parser, cache_dir)
    accept = prefilter(analyser.lexicon)
    filler = fill.load_filler(options.filler, cache_dir=cache_dir, accept=accept)
    setup = time.perf_counter() - started
    expander = Expander(parser, grammar, filler, analyser, options.settings, seed)
    expanded = expander.expand(results, data, analyses, progress=tick)
    report = expander.report
    block = {
        "parser": parser.identity,
        "reference": {**grammar.source, "productions": grammar.size},
        "filler": filler.identity,
        "settings": asdict(options.settings),
        "counts": report.counts,
        "rejections": report.rejections,
        "seconds": {"setup": round(setup, 2), **{k: round(v, 2) for k, v in report.timings.items()}},
    }
    return expanded, block
