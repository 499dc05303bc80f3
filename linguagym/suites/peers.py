"""What peer tools could not read in a suite: the prediction language linguagym adds to SyntaxGym's (``>=``, ``<=``,
``!=``, ``!( )``, ``2 * x``, ``abs( )``, region ranges and lists, suite-level ``mean( )``/``median( )``) and a
prediction's own tolerance. syntaxgym-core's
formula grammar and the syntaxgym.org website know ``< > = + - & |``, numbers and single-region references only; a
suite using more reads here and is refused there (an own atol/rtol is ignored there). ``validate`` warns, ``upgrade``
notes it."""

from __future__ import annotations

from linguagym.errors import Problem
from linguagym.suites.formula import Expr, operators
from linguagym.suites.model import Suite

PEER_TOOLS = "syntaxgym-core and the syntaxgym.org website"
# what linguagym reads that the SyntaxGym grammar does not, as a reader would name it
_NEW_FORMS = {">=": "'>='", "<=": "'<='", "!=": "'!='", "!": "'!( )'", "*": "'*'", "abs": "'abs( )'",
              "..": "a region range 'N..M'", ",": "a region list 'N,M'"}


def formula_peer_note(tree: Expr) -> str | None:
    """What peer tools could not read in one formula, as a sentence; None when they read it all (the editor shows
    it under a formula as it is typed)."""
    used = operators(tree)
    forms = [shown for form, shown in _NEW_FORMS.items() if form in used]
    forms += [f"'{name}( )' (a suite-level prediction)" for name in ("mean", "median") if name in used]
    if not forms:
        return None
    return f"uses {', '.join(forms)}: {PEER_TOOLS} could not read this suite (linguagym can)"


def peer_unreadable(suite: Suite) -> list[Problem]:
    """One problem per prediction that uses what peer tools could not read (none for a SyntaxGym suite)."""
    problems = []
    for prediction in suite.suite_predictions:  # (in the file after the item predictions, once upgraded)
        level = prediction.suite_level
        assert level is not None
        problems.append(Problem("predictions", f"{prediction.formula!r} is a suite-level prediction ({level.function} "
                                f"over items): {PEER_TOOLS} could not read this suite (linguagym can; "
                                "syntaxgym-core's formula grammar has no aggregates and evaluates every prediction "
                                "item by item)"))
    for index, prediction in enumerate(suite.predictions):
        note = formula_peer_note(prediction.tree)
        if note:
            problems.append(Problem(f"predictions[{index}]", note))
        own = [name for name in ("atol", "rtol") if getattr(prediction, name) is not None]
        if own:
            problems.append(Problem(f"predictions[{index}]", f"has its own {' and '.join(own)}: {PEER_TOOLS} "
                                    "would ignore it and use their own tolerance"))
    return problems
