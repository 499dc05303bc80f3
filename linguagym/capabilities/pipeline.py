"""One call from names to a capability-test document: dataset + lexicon + specs -> analyses -> seed tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from linguagym.capabilities.datasets import DEFAULT_DATASET, Dataset


def generate_suite(dataset: str | Dataset = DEFAULT_DATASET, *, lcs: str = "all", spec_paths: list[Path] | None = None,
                   seed: int = 0, max_seeds: int | None = None, lexicon_path: Path | None = None,
                   cache_dir: Path | None = None, dataset_options: Mapping | None = None,
                   progress: Callable[[str, int], Callable[[int], None]] | None = None) -> dict:
    """The capability-test document (see ``testfile``) of seed tests for the chosen capabilities.

    ``progress(stage, total)`` may return a callback advanced as work is done (stages: analyse, search).
    """
    from linguagym import __version__
    from linguagym.capabilities.analysis import Analyser, tagger_identity
    from linguagym.capabilities.catalog import load_dataset
    from linguagym.capabilities.errors import CapabilityError
    from linguagym.capabilities.generate import generate_seeds
    from linguagym.capabilities.lexicon import load_lexicon
    from linguagym.capabilities.specs import load_specs, select_specs

    if max_seeds is not None and max_seeds < 0:
        raise CapabilityError(f"--max-seeds must be 0 or more, not {max_seeds}")
    specs = select_specs(load_specs(spec_paths), lcs)  # specs first: a bad spec fails before slow work
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset, cache_dir=cache_dir,
                                                                     **dict(dataset_options or {}))
    lexicon = load_lexicon(lexicon_path, cache_dir)
    analyser = Analyser(lexicon)
    tick = progress("analyse", len(data.examples)) if progress else None
    analyses = analyser.analyse([e.text for e in data.examples], progress=tick)
    tick = progress("search", len(specs)) if progress else None
    results = generate_seeds(specs, data, analyses, seed=seed, max_seeds=max_seeds, progress=tick)
    return {
        "format": "linguagym-capability-tests",
        "version": 1,
        "created_by": {"tool": "linguagym", "version": __version__},
        "dataset": data.describe(),
        "lexicon": {"source": lexicon.source, "words": len(lexicon)},
        "tagger": tagger_identity(),
        "settings": {"seed": seed, "max_seeds": max_seeds, "lcs": [s.id for s in specs]},
        "capabilities": [
            {"id": r.spec.id, "name": r.spec.name, "description": r.spec.description, "spec": r.spec.path,
             "spec_sha256": r.spec.sha256, "matches": r.matches, "seeds": len(r.tests), "notes": r.notes}
            for r in results
        ],
        "tests": [test for r in results for test in r.tests],
    }
