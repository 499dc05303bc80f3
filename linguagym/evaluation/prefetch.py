"""Load the next model of a run while the current one scores: training-dynamics runs score tens of checkpoints
in a row, and without this each one waits for its weights to be read, de-serialised and moved to the device.

``run_models`` calls ``ready(i)`` just before model ``i`` scores: it waits for model ``i``'s weights (loaded in the
background while model ``i - 1`` scored, or now, in this thread, for the first model), then starts loading model
``i + 1`` in one background thread. One model ahead at most, and only once the previous model's weights are let
go, so a run holds at most two models. A model whose texts are all in the score cache is not loaded (a cached
run imports no torch). A background load that fails is forgotten: the model loads again in this thread when its
turn comes, after the previous model's weights are gone, and fails (or not: two models that do not fit side by
side) exactly as it would have without prefetching. ``close()`` stops what has not begun and waits for a load
under way, so a cancelled run leaves no thread behind.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from linguagym.entrystore import EntryStore
from linguagym.errors import ConfigurationError
from linguagym.scoring.engine.device import probe_device
from linguagym.scoring.protocol import CachingScorer, Scorer, computing, optional

log = logging.getLogger(__name__)
ENV_VAR = "LINGUAGYM_PREFETCH"  # 1: load the next model while one scores; 0: one after the other
# Device kinds on which prefetching is on unless asked otherwise: where it was measured to win. On the CPU it lost
# (docs/performance.md, "Many checkpoints": loading shares the cores, and the GIL, with scoring). On an H100 it
# won, a little: 10 checkpoints of smollm2-135m's shape over the 34 suites in 68.0 s against 71.9 s without
# (benchmarks/checkpoints.py --device cuda), the same surprisals; the GPU scores while the CPU reads the next.
ON_BY_DEFAULT: frozenset[str] = frozenset({"cuda"})


def prefetch_wanted(explicit: bool | None, devices: Sequence[str] = ("auto",)) -> bool:
    """``explicit``, else ``$LINGUAGYM_PREFETCH``, else on where some model of the run scores on a device kind
    of ``ON_BY_DEFAULT``."""
    if explicit is not None:
        return explicit
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    if not value:
        return any(probe_device(device).split(":")[0] in ON_BY_DEFAULT for device in devices)
    raise ConfigurationError(f"{ENV_VAR}={value!r} is neither 1 nor 0",
                             hint=f"set {ENV_VAR}=1 to load the next model while one scores, {ENV_VAR}=0 not to")


class Prefetcher:
    """Loads the weights of ``scorers[i + 1]`` while ``scorers[i]`` scores. ``scorers`` is the run's list of
    models still to run (entries become None as they finish); ``texts(i)`` the texts model ``i`` scores."""

    def __init__(self, scorers: Sequence[Scorer | None], texts: Callable[[int], list[str]]) -> None:
        self._scorers = scorers
        self._texts = texts
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ahead: int | None = None  # the model being (or last) loaded in the background
        self.loaded_ahead: list[int] = []  # models whose weights the background thread loaded (for tests, records)

    def ready(self, index: int, scorer: Scorer | None) -> None:
        """Model ``index`` (``scorer``) is about to score: have its weights loaded, then start on model
        ``index + 1``. An error loading model ``index`` here is raised (it is that model's failure)."""
        try:
            self._join()
            if self._ahead != index and not self._stop.is_set():
                self._load(index, scorer)  # the first model, or one the background thread could not load
        finally:
            if index + 1 < len(self._scorers) and not self._stop.is_set():
                self._start(index + 1)

    def close(self) -> None:
        """Load nothing more; wait for a load under way (its weights are let go with the run's scorers)."""
        self._stop.set()
        self._join()

    def _start(self, index: int) -> None:
        self._ahead = index
        self._thread = threading.Thread(target=self._background, args=(index, self._scorers[index]),
                                        name=f"linguagym-prefetch-{index}", daemon=True)
        self._thread.start()

    def _join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _background(self, index: int, scorer: Scorer | None) -> None:
        try:
            if self._load(index, scorer):
                self.loaded_ahead.append(index)
        except Exception as error:  # noqa: BLE001 - retried in the run's thread, where it is reported as today
            log.debug("loading model %d ahead failed (%s); it loads again when its turn comes", index + 1, error)
            self._ahead = None

    def _load(self, index: int, scorer: Scorer | None) -> bool:
        """Load model ``index``'s weights where it has texts to score; whether it loaded them."""
        if scorer is None:
            return False
        inner, cache = computing(scorer), optional(scorer).score_cache
        if not inner.warms_up or self._stop.is_set():
            return False
        if cache is not None and not _misses_any(cache, self._texts(index), self._stop):
            return False
        if self._stop.is_set():
            return False
        inner.warm_up()
        return True


def _misses_any(scorer: CachingScorer, texts: list[str], stop: threading.Event) -> bool:
    """Whether some of ``texts`` is not in ``scorer``'s cache, read through a connection of this thread's own
    (SQLite connections stay in their thread; the run's own opens later), stopping at the first one missing."""
    store = EntryStore(Path(scorer.path), scorer.identity, table="scores", what="score cache")  # cache.py's table
    try:
        return any(stop.is_set() or store.get(text, lambda data: True) is None for text in dict.fromkeys(texts))
    finally:
        store.close()
