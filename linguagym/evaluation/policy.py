"""Which prediction policy decides a suite's accuracy: the one place where that is settled.

An item is correct when ``all`` its predictions hold, or when its ``first`` does (Hu et al. 2020's "correct"). The
two differ only on suites with several predictions (``fgd_hierarchy``), and a run must give one accuracy per suite
in every output: the printed table, ``run.json``, ``results_*.json``, the report, ``linguagym score`` and every web
page. So no face decides it: ``run_models`` resolves it once with ``resolve_policy`` and writes it into each
``run.json`` (``accuracy_policy``), and whatever reads run folders again takes it from there (``agreed_policy``).

The rule: a policy the user gives (``--policy``) decides every suite; else the collection's, for the suites it
holds (its ``[policies]`` table per suite, else its ``policy``); else ``all``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.evaluation.collections import Collection

POLICIES = ("all", "first")
DEFAULT_POLICY = "all"
RECORD_KEY = "accuracy_policy"  # the key of run.json that holds the resolved policy


@dataclass(frozen=True)
class AccuracyPolicy:
    """The policy of each suite: the first rule whose suite name (or shell-style pattern) matches, else
    ``default``. ``source`` says where it came from (shown beside the numbers); ``note`` what a reader must know
    (runs read together that recorded other policies)."""

    default: str = DEFAULT_POLICY
    rules: tuple[tuple[str, str], ...] = ()
    source: str = "default"
    note: str = ""

    def of(self, suite: str) -> str:
        for pattern, policy in self.rules:
            if fnmatch.fnmatchcase(suite, pattern):
                return policy
        return self.default

    def for_suites(self, suites: Iterable[str]) -> dict[str, str]:
        return {suite: self.of(suite) for suite in suites}

    def describe(self, suites: Iterable[str]) -> str:
        """``first``, or where suites differ the most common one and the exceptions: ``first; all: a, b``."""
        by_suite = self.for_suites(suites)
        if not by_suite:
            return self.default
        counts = {policy: sum(1 for p in by_suite.values() if p == policy) for policy in POLICIES}
        main = max(POLICIES, key=lambda policy: (counts[policy], policy == self.default))
        others = {policy: [s for s, p in by_suite.items() if p == policy] for policy in POLICIES if policy != main}
        return "; ".join([main, *(f"{policy}: {', '.join(names)}" for policy, names in others.items() if names)])

    def record(self, suites: Iterable[str]) -> dict[str, Any]:
        """What ``run.json`` keeps: where the policy came from and each suite's."""
        return {"source": self.source, "suites": self.for_suites(suites)}


def check_policy(policy: str | None, where: str = "policy") -> None:
    if policy not in (None, *POLICIES):
        raise ConfigurationError(f"unknown {where} {policy!r}", hint="use one of " + ", ".join(POLICIES))


def resolve_policy(collection: Collection | None, given: str | None = None) -> AccuracyPolicy:
    """The policy of a run or a summary: ``given`` (the user's ``--policy``) for every suite; else the
    collection's for its suites (its per-suite ``[policies]``, then its ``policy``); else ``all``."""
    check_policy(given)
    if given is not None:
        return AccuracyPolicy(given, source="given")
    if collection is None or (collection.policy is None and not collection.suite_policies):
        return AccuracyPolicy(source="default")
    rules = list(collection.suite_policies)
    if collection.policy is not None:
        rules += [(suite, collection.policy) for suite in collection.suites]
    return AccuracyPolicy(DEFAULT_POLICY, tuple(rules), source=f"collection {collection.name}")


def recorded_policy(record: Mapping[str, Any]) -> AccuracyPolicy | None:
    """The policy a ``run.json`` recorded for its suites; None for a record of an earlier version, which kept
    only the policy given (``settings.policy``, ``all`` when none was) and not the one its table used."""
    entry = record.get(RECORD_KEY)
    if not isinstance(entry, dict) or not isinstance(entry.get("suites"), dict):
        return None
    suites = {str(suite): str(policy) for suite, policy in entry["suites"].items() if policy in POLICIES}
    return AccuracyPolicy(rules=tuple(suites.items()), source=str(entry.get("source", "recorded")))


def agreed_policy(records: Iterable[Mapping[str, Any]]) -> tuple[AccuracyPolicy | None, str]:
    """The policy the runs of ``records`` recorded, where they agree on every suite they share; else None and a
    sentence naming where they differ (None and "" when no record says)."""
    chosen: dict[str, str] = {}
    sources: list[str] = []
    clashes: set[str] = set()
    for record in records:
        policy = recorded_policy(record)
        if policy is None:
            continue
        sources.append(policy.source)
        for suite, value in policy.rules:
            if chosen.setdefault(suite, value) != value:
                clashes.add(suite)
    if clashes:
        return None, f"the runs recorded different policies for {', '.join(sorted(clashes))}"
    if not chosen:
        return None, ""
    source = sources[0] if len(set(sources)) == 1 else "the runs"
    return AccuracyPolicy(rules=tuple(chosen.items()), source=source), ""


def explain(policy: str) -> str:
    """What the policy means, for a sentence beside the numbers."""
    return "all its predictions hold" if policy == "all" else "its first prediction holds"
