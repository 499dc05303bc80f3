"""The ``linguagym`` command line: parses arguments, shows progress, prints tables and calls the library.

One module per command group: ``suites`` (validate, upgrade, show, examples), ``run`` (run, surprisals, models,
demo), ``results`` (score, compare), ``lct`` (the ``lct`` group: generate, show, specs), ``lct_run_tests`` (``lct
test``), ``train`` (``lct train-classifier``), ``serve`` (the web app); ``entry`` assembles them into one parser
and runs a command; ``progress`` and ``output`` are what the commands share. Heavy libraries are imported inside
the commands that need them, so ``linguagym --help``, ``validate`` and ``show`` start fast.
"""

from __future__ import annotations

from linguagym.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
