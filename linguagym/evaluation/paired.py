"""Paired statistics of two models on the same items: the mean difference with a paired bootstrap interval over
items, the exact McNemar test of two outcomes per item, and Holm's adjustment when several tests are read at once.

Pure functions of per-item values (``item -> value``): ``compare_models`` (``evaluation/comparison.py``) applies
them to accuracy per suite and per prediction, and they take any per-item number (an effect in bits) the same way
(``paired_values``). Items only one side has are left out, and counted; an item whose value is unknown (None, NaN)
on either side is left out, and counted.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from linguagym.evaluation.aggregate import Interval

# Below this many discordant pairs the binomial tail is summed in exact integers (a few ms at the limit); above,
# in log space from log-gamma (relative error near 1e-12). A suite never has this many items.
EXACT_LIMIT = 50_000
# A sign-flip test of n paired differences is exact (all 2^n sign patterns, counted half against half: ~30 ms at 32)
# up to this n; above, it draws SIGN_FLIPS random patterns (the smallest p it can give is 1 / (SIGN_FLIPS + 1)).
EXACT_FLIPS = 32
SIGN_FLIPS = 20_000
_CHUNK = 1 << 16


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided exact McNemar p value of ``b`` items right for one side only and ``c`` for the other only: the
    binomial test of ``min(b, c)`` successes in ``b + c`` trials with probability 1/2, doubled and capped at 1.
    No discordant pair: 1.0 (nothing speaks for either side)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be 0 or more, not {b} and {c}")
    n, k = b + c, min(b, c)
    if n == 0 or 2 * k == n:
        return 1.0
    if n <= EXACT_LIMIT:
        tail, term = 0, 1  # the sum of C(n, i) for i <= k; C(n, i+1) = C(n, i)(n-i)/(i+1), exact in integers
        for i in range(k + 1):
            tail += term
            term = term * (n - i) // (i + 1)
        return float(min(Fraction(1), Fraction(2 * tail, 2**n)))
    log_terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(k + 1)]
    top = max(log_terms)
    log_tail = top + math.log(math.fsum(math.exp(t - top) for t in log_terms)) - n * math.log(2)
    return min(1.0, 2 * math.exp(log_tail))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (one family), in their order: the i-th smallest is multiplied by
    ``m - i + 1``, kept at least as large as the one before it, capped at 1. NaN stays NaN and is not counted."""
    known = sorted((p, index) for index, p in enumerate(p_values) if p == p)
    adjusted = [math.nan] * len(p_values)
    running, m = 0.0, len(known)
    for rank, (p, index) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted


@dataclass(frozen=True)
class Pairing:
    """Which items two sides share: ``items`` (sorted), and those left out: only on one side, or unknown on one."""

    items: tuple[Hashable, ...]
    only_a: int
    only_b: int
    undefined: int  # on both sides, but the value is unknown (None or NaN) on at least one

    @property
    def dropped(self) -> int:
        return self.only_a + self.only_b + self.undefined


def pair_items(a: Mapping[Hashable, float | bool | None], b: Mapping[Hashable, float | bool | None]) -> Pairing:
    shared = [item for item in a if item in b]
    known = [item for item in shared if _known(a[item]) and _known(b[item])]
    return Pairing(tuple(sorted(known, key=_order)), len(a) - len(shared), len(b) - len(shared),
                   len(shared) - len(known))


def _known(value: float | bool | None) -> bool:
    return value is not None and value == value


def _order(item: Hashable) -> tuple:
    return (0, item, "") if isinstance(item, int | float) else (1, 0, str(item))


@dataclass(frozen=True)
class PairedDifference:
    """``mean_a - mean_b`` over the paired items with its paired bootstrap interval (None: no resamples, or no
    item); with two outcomes per item (``paired_outcomes``) also the 2x2 table and McNemar's exact p."""

    pairing: Pairing
    mean_a: float
    mean_b: float
    interval: Interval | None
    resamples: int
    # the 2x2 table of outcomes (None for continuous values): both right, only a, only b, both wrong
    both: int | None = None
    only_a_right: int | None = None
    only_b_right: int | None = None
    neither: int | None = None
    p_value: float | None = None  # two-sided, unadjusted: McNemar exact (outcomes), sign-flip (effects)

    @property
    def n(self) -> int:
        return len(self.pairing.items)

    @property
    def difference(self) -> float:
        return self.mean_a - self.mean_b


def paired_values(a: Mapping[Hashable, float | None], b: Mapping[Hashable, float | None], *, resamples: int = 1000,
                  seed: int = 0, key: str = "") -> PairedDifference:
    """The mean per-item difference of two sides' numbers (an effect in bits, an accuracy of 0 or 1) on the items
    both have, with a 95% paired bootstrap interval: items resampled with replacement ``resamples`` times, the same
    items for both sides, percentiles 2.5 and 97.5 (as every bootstrap of linguagym). ``key`` names what is compared
    (the suite) so that its resamples do not depend on what else is compared, nor on what the models are called (the
    command line and the web page give one interval): the generator is seeded with ``seed`` and a hash of ``key``."""
    pairing = pair_items(a, b)
    values_a = [float(a[item]) for item in pairing.items]  # type: ignore[arg-type]
    values_b = [float(b[item]) for item in pairing.items]  # type: ignore[arg-type]
    if not pairing.items:
        return PairedDifference(pairing, math.nan, math.nan, None, resamples)
    mean_a, mean_b = math.fsum(values_a) / len(values_a), math.fsum(values_b) / len(values_b)
    interval = _bootstrap([x - y for x, y in zip(values_a, values_b, strict=True)], resamples, seed, key)
    return PairedDifference(pairing, mean_a, mean_b, interval, resamples)


def paired_outcomes(a: Mapping[Any, bool | None], b: Mapping[Any, bool | None], *, resamples: int = 1000,
                    seed: int = 0, key: str = "") -> PairedDifference:
    """``paired_values`` of two sides' outcomes per item (right or not), with the 2x2 table and McNemar's exact p."""
    base = paired_values({i: None if v is None else float(v) for i, v in a.items()},
                         {i: None if v is None else float(v) for i, v in b.items()}, resamples=resamples, seed=seed,
                         key=key)
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for item in base.pairing.items:
        cells[(bool(a[item]), bool(b[item]))] += 1
    only_a, only_b = cells[(True, False)], cells[(False, True)]
    return PairedDifference(base.pairing, base.mean_a, base.mean_b, base.interval, resamples, cells[(True, True)],
                            only_a, only_b, cells[(False, False)], mcnemar_exact(only_a, only_b))


def paired_effects(a: Mapping[Hashable, float | None], b: Mapping[Hashable, float | None], *, resamples: int = 1000,
                   seed: int = 0, key: str = "", flips: int = SIGN_FLIPS) -> PairedDifference:
    """Two models' effect per item of one comparison of one prediction (bits; ``evaluation/effects.py``) -> their
    mean difference with its paired bootstrap interval (``paired_values``) and, as ``p_value``, the two-sided
    sign-flip permutation p of that mean difference (``sign_flip_p``; no McNemar: the values are not outcomes)."""
    base = paired_values(a, b, resamples=resamples, seed=seed, key=key)
    if not base.n:
        return base
    differences = [float(a[item]) - float(b[item]) for item in base.pairing.items]  # type: ignore[arg-type]
    return replace(base, p_value=sign_flip_p(differences, flips=flips, seed=seed, key=key))


def sign_flip_p(differences: Sequence[float], *, flips: int = SIGN_FLIPS, seed: int = 0, key: str = "") -> float:
    """The two-sided p of a paired sign-flip (permutation) test of the mean of ``differences``: under the null that
    which model is a and which is b does not matter on any item, each difference's sign is as likely flipped; p is
    the share of sign patterns whose mean is at least as far from 0 as the observed one. Exact (every one of the
    2^n patterns, the observed among them) for n up to ``EXACT_FLIPS``; above, ``flips`` random patterns drawn with
    ``seed`` and a hash of ``key``, p = (1 + as far) / (1 + flips), which is never 0 and keeps the test's level
    (Phipson & Smyth 2010). Differences of 0 take part (their sign changes nothing). No difference: 1.0."""
    import numpy as np

    values = np.asarray(differences, dtype=float)
    n = len(values)
    if n == 0:
        return 1.0
    observed = abs(math.fsum(values))
    # sums equal in exact arithmetic may differ in the last bits from the order of additions: they count as reached
    reached = observed - 1e-9 * max(1.0, float(np.abs(values).sum()))
    if observed <= 0 or reached <= 0:
        return 1.0  # a mean of 0: every pattern is as far from 0
    if n <= EXACT_FLIPS:  # meet in the middle: every sum of the first half against the sorted sums of the second
        first, second = _signed_sums(values[: n // 2]), np.sort(_signed_sums(values[n // 2:]))
        hits = (len(second) - np.searchsorted(second, reached - first, side="left")
                + np.searchsorted(second, -reached - first, side="right"))
        return int(hits.sum()) / 2**n
    if flips <= 0:
        raise ValueError(f"flips must be 1 or more, not {flips}")
    stream = int.from_bytes(hashlib.sha256(("flip\0" + key).encode("utf-8")).digest()[:8], "big")
    rng = np.random.default_rng([seed, stream])
    hits, total = 0, float(values.sum())
    for start in range(0, flips, _CHUNK):  # a pattern's sum: the total less twice what it flips (uint8: half the time)
        flipped = rng.integers(0, 2, size=(min(_CHUNK, flips - start), n), dtype=np.uint8).astype(float)
        hits += int((np.abs(total - 2.0 * (flipped @ values)) >= reached).sum())
    return (1 + hits) / (1 + flips)


def _signed_sums(values):
    """The 2^len(values) sums of ``values`` with every choice of signs."""
    import numpy as np

    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate((sums + value, sums - value))
    return sums


def _bootstrap(differences: list[float], resamples: int, seed: int, key: str) -> Interval | None:
    if resamples <= 0:
        return None
    import numpy as np

    stream = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
    rng = np.random.default_rng([seed, stream])
    values = np.asarray(differences, dtype=float)
    picks = rng.integers(0, len(values), size=(resamples, len(values)))
    low, high = np.percentile(values[picks].mean(axis=1), [2.5, 97.5])
    return Interval(float(low), float(high))
