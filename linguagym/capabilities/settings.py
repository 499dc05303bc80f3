"""The settings of the capability half's two jobs, each a frozen value checked once, when it is made:
``GenerateSettings`` (``pipeline.generate_tests``: dataset, capabilities, seeds, expansion, test types) and
``ClassifierRunSettings`` (``run.run_classifiers``: which classifiers, how they are loaded, where results go).

The command line, the web form and Python callers build these alike; a value no run could use fails here with a
``SettingError`` naming the setting as the library spells it (``max_seeds``), which each face may respell
(``--max-seeds``). The defaults are the paper's protocol as ``linguagym lct generate`` runs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from linguagym.capabilities.data.datasets import DEFAULT_DATASET, Dataset
from linguagym.capabilities.errors import SettingError, at_least
from linguagym.capabilities.expansion.settings import ExpansionSettings
from linguagym.capabilities.perturb.build import parse_test_types
from linguagym.capabilities.seeds.defaults import DEFAULT_MAX_SEEDS
from linguagym.capabilities.seeds.specs import DEFAULT_TEMPLATES, check_templates
from linguagym.capabilities.testfile.model import DEFAULT_TEST_TYPES, GenerationSettings, TestType
from linguagym.extras import DEFAULT_SPACY_MODEL


@dataclass(frozen=True)
class DatasetOptions:
    """How a table dataset (csv:, tsv:, jsonl: or a path) is read: its columns and label values
    (``catalog.load_dataset``'s options; other datasets ignore them)."""

    text_column: str = "text"
    label_column: str = "label"
    score_column: str | None = None  # a 0..1 score (labels from the SST bands where there is no label)
    id_column: str | None = None
    label_map: Mapping[str, str] | None = None  # the file's label values -> negative/neutral/positive

    def loader_options(self) -> dict[str, Any]:
        return {"text_column": self.text_column, "label_column": self.label_column,
                "score_column": self.score_column, "id_column": self.id_column,
                "label_map": dict(self.label_map) if self.label_map is not None else None}


@dataclass(frozen=True)
class ExpansionOptions:
    """How ``generate_tests`` expands seeds (``ExpansionSettings`` holds the caps); ``enabled=False`` writes the
    seed tests only."""

    enabled: bool = True
    parser: str = "auto"  # auto, spacy, benepar (``syntax.parsers.load_parser`` checks the name)
    reference: str = "auto"  # auto (treebank if found, else induced), treebank, induced (the dataset), PATH,
    # or induced:PATH (see ``syntax.grammar``)
    filler: str = "smollm2-135m"  # a causal or masked LM (named, path, hub id); masked:MODEL forces a masked LM
    settings: ExpansionSettings = field(default_factory=ExpansionSettings)
    # the causal filler's work kept under <cache>/fills: a run that stops resumes, a later run reuses what it shares
    fill_cache: bool = True


@dataclass(frozen=True)
class GenerateSettings:
    """What ``generate_tests`` makes: the capabilities ``lcs`` (``all`` or ids such as ``LC4,LC5``) of the specs
    (``spec_paths``; the shipped 11 by default, ``templates`` ``repaired`` or ``paper``) searched in ``dataset``
    (a name ``catalog.load_dataset`` knows, or a ``Dataset``), at most ``max_seeds`` seeds each (a draw seeded by
    ``seed``; None keeps every match), expanded as ``expansion`` says, with CheckList's ``test_types`` (``"mft"``
    alone writes the paper's tests). ``lexicon_path``: SentiWordNet (default: fetched); ``cache_dir``: where
    assets, analyses and fills are kept (default: the user cache); ``spacy_model`` tags and parses.

    ``test_types`` may be given as ``"mft,inv"`` or a sequence of names; it is kept as test types in their order.
    """

    dataset: str | Dataset = DEFAULT_DATASET
    lcs: str = "all"
    spec_paths: tuple[Path, ...] | None = None
    seed: int = 0
    max_seeds: int | None = DEFAULT_MAX_SEEDS
    templates: str = DEFAULT_TEMPLATES
    test_types: tuple[TestType, ...] = DEFAULT_TEST_TYPES
    expansion: ExpansionOptions = field(default_factory=ExpansionOptions)
    dataset_options: DatasetOptions = field(default_factory=DatasetOptions)
    lexicon_path: Path | None = None
    cache_dir: Path | None = None
    spacy_model: str = DEFAULT_SPACY_MODEL

    def __post_init__(self) -> None:
        if self.max_seeds is not None and self.max_seeds < 1:
            raise SettingError("max_seeds", f"must be 1 or more, not {self.max_seeds}",
                               hint="give a number of seeds per capability, or 'all' (max_seeds=None) for every "
                               "match")
        check_templates(self.templates)
        # a misspelt type fails before slow work; kept in TEST_TYPES order
        object.__setattr__(self, "test_types", parse_test_types(self.test_types))
        if self.spec_paths is not None:
            object.__setattr__(self, "spec_paths", tuple(Path(path) for path in self.spec_paths))
        for name in ("lexicon_path", "cache_dir"):
            if isinstance(getattr(self, name), str):
                object.__setattr__(self, name, Path(getattr(self, name)))

    @property
    def expanding(self) -> bool:
        return self.expansion.enabled

    def record(self, lcs: Sequence[str]) -> GenerationSettings:
        """The file's ``settings`` block: the seed, the cap, the capabilities made (``lcs``, resolved ids) and
        the template set. (The expansion's and the perturbations' settings are recorded in their own blocks.)"""
        return GenerationSettings(seed=self.seed, max_seeds=self.max_seeds, lcs=tuple(lcs),
                                  extra={"templates": self.templates})  # an extra key: the schema has no field


@dataclass(frozen=True)
class ClassifierOptions:
    """How classifiers are loaded (``load_classifier``'s options): ``device`` and ``batch_size`` for local
    models; ``label_map`` maps a model's labels to ours (``{"LABEL_0": "negative", ...}``); ``timeout`` and
    ``retries`` for HTTP endpoints; ``cache_dir`` holds models and the prediction cache (None: the user cache).
    ``allow_code``: whether ``python:module:function`` specs may run (a server facing others refuses them)."""

    device: str = "auto"
    batch_size: int | None = None
    label_map: Mapping[str, str] | None = None
    timeout: float | None = None
    retries: int | None = None
    cache_dir: str | Path | None = None
    allow_code: bool = True

    def __post_init__(self) -> None:
        at_least("batch_size", self.batch_size, 1)
        at_least("retries", self.retries, 0)
        if self.timeout is not None and self.timeout <= 0:
            raise SettingError("timeout", f"must be more than 0 seconds, not {self.timeout}")

    def loader_options(self) -> dict[str, Any]:
        """``load_classifier``'s keyword arguments (also what Ray workers build each classifier with)."""
        return {"device": self.device, "batch_size": self.batch_size,
                "label_map": dict(self.label_map) if self.label_map is not None else None,
                "timeout": self.timeout, "retries": self.retries}

    def record(self, specs: Sequence[str], executor: str) -> dict[str, Any]:
        """How the classifiers were run, as ``results.json`` records it."""
        return {"classifiers": list(specs), **self.loader_options(),
                "cache_dir": str(self.cache_dir) if self.cache_dir is not None else None, "executor": executor}


DEFAULT_OPTIONS = ClassifierOptions()


@dataclass(frozen=True)
class ClassifierRunSettings:
    """A run of a test file against ``classifiers`` (vader, a model directory, a hub id, an http(s) URL,
    python:module:function ...), loaded as ``options`` says. With ``output``, the CSVs, ``results.json`` and
    ``report.html`` (``examples`` failing tests per capability) are written there."""

    classifiers: tuple[str, ...]
    options: ClassifierOptions = DEFAULT_OPTIONS
    output: Path | None = None
    examples: int = 3

    def __post_init__(self) -> None:
        if isinstance(self.classifiers, str):  # one spec, not its characters
            object.__setattr__(self, "classifiers", (self.classifiers,))
        object.__setattr__(self, "classifiers", tuple(self.classifiers))
        if not self.classifiers:
            raise SettingError("classifiers", "names none", hint="name at least one classifier (e.g. vader)")
        at_least("examples", self.examples, 0)
        if isinstance(self.output, str):
            object.__setattr__(self, "output", Path(self.output))
