"""In what order and in what pieces a run's texts go to a scorer, and how the work is measured.

Every way of scoring a run (in this process, or on Ray workers: ``linguagym.executors.shards``) hands texts to
the scorer the same way, so that the numbers agree to the last bit on the same hardware.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from linguagym.scoring.protocol import ScoredText, Scorer, computing, optional

CHUNK = 256  # sentences handed to the scorer at a time: progress granularity and cache commit size


def scoring_order(texts: Sequence[str]) -> list[str]:
    """The unique ``texts`` in the order they are handed to a scorer: sorted, so that texts sharing a prefix
    (the conditions of an item, the items of a suite that start alike) land in the same chunk and so in the
    same prefix tree, whatever the order of the suites. On the 34 SyntaxGym suites this cuts the tree nodes
    smollm2-135m computes by 13 % against chunks in suite order (20,097 to 17,547)."""
    return sorted(set(texts))


def counts_in_tokens(scorer: Scorer) -> bool:
    """Whether work on ``scorer`` is measured in tokens: it counts them ahead (tokenizer only) and reports them
    to ``progress`` as it scores them. Otherwise work is measured in texts."""
    members = optional(scorer)
    return members.counts_tokens and members.reports_progress


def score_texts(
    scorer: Scorer, texts: Sequence[str], progress: Callable[[int], None] | None = None
) -> dict[str, ScoredText]:
    """Scores of each unique text, chunk by chunk (a cached scorer commits each chunk). ``progress`` is
    advanced by tokens scored where the scorer reports them (``scorer.progress``), else by texts."""
    unique = scoring_order(texts)
    scores: dict[str, ScoredText] = {}
    members = optional(scorer)
    # tokens only where the total was counted in tokens too (``work_to_do``): else progress goes by texts
    reporter = members if counts_in_tokens(scorer) and progress is not None else None
    if reporter is not None:
        reporter.progress = progress
    try:
        for start in range(0, len(unique), CHUNK):
            chunk = unique[start:start + CHUNK]
            for text, scored in zip(chunk, scorer.score(chunk), strict=True):
                scores[text] = scored
            if progress and reporter is None:
                progress(len(chunk))
    finally:
        if reporter is not None:
            reporter.progress = None
    return scores


def work_to_do(scorer: Scorer, texts: Sequence[str]) -> tuple[int, str]:
    """How much scoring ``texts`` will cost, and in what unit: tokens not in the cache where the scorer can
    count them (tokenizer only, no weights), else texts."""
    unique = list(dict.fromkeys(texts))
    if counts_in_tokens(scorer):
        return optional(scorer).count_tokens(unique), "tokens"
    return len(unique), "sentences"


def load_weights(scorer: Scorer) -> None:
    """Load the weights of ``scorer`` (of the model behind its cache) now where they load on first use: a run
    does this before it starts counting its work, so that the count measures scoring and loading shows as the
    stages it reports (``linguagym.progress.stage``)."""
    computing(scorer).warm_up()
