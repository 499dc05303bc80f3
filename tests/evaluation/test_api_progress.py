"""``linguagym.run`` shows its progress by default (a line per piece of work, and a bar where stderr is a terminal
or a notebook) and nothing with ``progress=False``; the display itself draws a bar on a terminal console."""

from __future__ import annotations

import io

import linguagym
from linguagym.progress import STAGE
from linguagym.progress_display import ProgressDisplay, chosen_progress
from linguagym.suites import example_suite_paths


def test_run_shows_progress_by_default_and_not_when_turned_off(tiny_lm_dir, tmp_path, capsys):
    suites = example_suite_paths()[:1]
    linguagym.run(suites, str(tiny_lm_dir), cache_dir=str(tmp_path / "cache"), bootstrap=10, progress=False)
    quiet = capsys.readouterr()
    assert quiet.err == ""
    linguagym.run(suites, str(tiny_lm_dir), cache_dir=str(tmp_path / "other-cache"), bootstrap=10)
    shown = capsys.readouterr().err
    assert "tokens to do" in shown  # the scoring line: how much work there is
    assert quiet.out == ""


def test_the_display_draws_a_bar_on_a_terminal_and_only_lines_elsewhere():
    from rich.console import Console

    terminal = io.StringIO()
    display = ProgressDisplay(Console(file=terminal, force_terminal=True, width=100))
    advance = display(label="model 1 of 1: tiny", total=10, unit="tokens")
    assert advance is not None and display.bar is not None
    advance(10)
    display.stop()
    assert "model 1 of 1: tiny: 10 tokens to do" in terminal.getvalue()
    assert "10/10" in terminal.getvalue()  # the bar, drawn on the terminal
    log = io.StringIO()
    plain = ProgressDisplay(Console(file=log, force_terminal=False, force_jupyter=False, width=100))
    assert plain("loading tiny", 0, STAGE) is None
    assert plain("tiny", 5, "sentences") is None and plain.bar is None  # no bar frames in a log
    assert log.getvalue().splitlines() == ["loading tiny", "tiny: 5 sentences to do"]


def test_the_progress_option_chooses_the_display():
    assert chosen_progress(False) == (None, None) and chosen_progress(None) == (None, None)
    shown, display = chosen_progress(True)
    assert isinstance(display, ProgressDisplay) and shown is display

    def mine(label, total, unit):
        return None

    assert chosen_progress(mine) == (mine, None)
