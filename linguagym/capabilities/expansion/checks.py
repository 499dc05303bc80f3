"""Every check an expansion must pass, in one ordered list (``CHECKS``): a masked sentence, then each fill, is
refused by the first stage whose checks find a problem (``check.STAGES``; within a stage, in this order).

Each check is defined beside the rule it applies, and each stage's runner takes its checks in order from there:
the expander (``expand.py``: ``masked``, ``ranking``, ``select``), the validator (``validate.py``: ``shape``,
``word``, ``rule``; ``tag_check``, ``constituent`` and ``staged`` for ``tag`` and ``parse``; ``grammaticality`` for
``insertion``; ``domain`` for ``usage``). A test file's ``expansion.rejections`` counts refusals by check name.
"""

from __future__ import annotations

from linguagym.capabilities.expansion.check import STAGES, Check
from linguagym.capabilities.expansion.constituent import CONSTITUENT
from linguagym.capabilities.expansion.domain import USAGE_CHECKS
from linguagym.capabilities.expansion.fit import OVERUSED
from linguagym.capabilities.expansion.grammaticality import INSERTION_CHECKS, SLOT
from linguagym.capabilities.expansion.idioms import IDIOM
from linguagym.capabilities.expansion.insertions import INSERTION
from linguagym.capabilities.expansion.plausibility import RANKING_CHECKS
from linguagym.capabilities.expansion.selection import DUPLICATE
from linguagym.capabilities.expansion.tag_check import TAG
from linguagym.capabilities.expansion.validate import RULE, SHAPE_CHECKS, WORD_CHECKS

MASKED_CHECKS: tuple[Check, ...] = (INSERTION, SLOT)  # on each masked sentence; the first refusal counts

CHECKS: tuple[Check, ...] = (*MASKED_CHECKS, *SHAPE_CHECKS, TAG, CONSTITUENT, *WORD_CHECKS, IDIOM, *INSERTION_CHECKS,
                             *USAGE_CHECKS, RULE, *RANKING_CHECKS, OVERUSED, DUPLICATE)
BY_NAME: dict[str, Check] = {check.name: check for check in CHECKS}


def of_stage(stage: str) -> tuple[Check, ...]:
    """The checks of ``stage`` (one of ``check.STAGES``), in the order they run."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r} (one of {', '.join(STAGES)})")
    return tuple(check for check in CHECKS if check.stage == stage)
