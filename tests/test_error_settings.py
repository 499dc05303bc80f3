"""Library errors name settings as Python keywords; each face writes them its own way (errors.py, cli/entry.py)."""

from __future__ import annotations

from linguagym.cli.entry import build_parser, option_names
from linguagym.errors import ConfigurationError, LinguagymError, spell_settings


def test_an_error_keeps_the_settings_it_names_and_prints_them_as_keywords():
    error = ConfigurationError("`max_seeds` must be 1 or more, not 0", hint="give `max_seeds` 10",
                               settings=["max_seeds"])
    assert error.settings == ("max_seeds",)
    assert str(error) == "`max_seeds` must be 1 or more, not 0\n  hint: give `max_seeds` 10"


def test_worded_rewrites_only_the_named_settings_in_backticks():
    error = LinguagymError("`limit` 0.5 limits the items; `batch_size` too", hint="raise `limit`",
                           settings=["limit"])
    message, hint = error.worded({"limit": "--limit", "batch_size": "--batch-size"}.get)
    assert message == "--limit 0.5 limits the items; `batch_size` too"  # batch_size is not among error.settings
    assert hint == "raise --limit"
    assert error.text(lambda name: None) == str(error)  # a face that knows no spelling keeps the keyword


def test_spell_settings_leaves_plain_words_and_model_arguments_alone():
    text = "dtype is given twice: `dtype` bfloat16 and model argument dtype=float16"
    assert spell_settings(text, ["dtype"], lambda name: "--dtype") == (
        "dtype is given twice: --dtype bfloat16 and model argument dtype=float16")


def test_option_names_are_those_of_the_command_run():
    argv = ["run", "--model", "m", "suite.json"]
    options = option_names(build_parser("run"), argv)
    assert options["batch_size"] == "--batch-size"
    assert options["model_args"] == "--model-args"
    assert options["debug"] == "--debug"  # the top level's options too
    lct = option_names(build_parser("lct"), ["lct", "generate", "--lc", "LC4"])
    assert lct["max_seeds"] == "--max-seeds"
    # an option whose dest is the library's keyword though the option is singular (repeatable)
    assert option_names(build_parser("serve"), ["serve"])["allowed_hosts"] == "--allowed-host"
    assert option_names(build_parser("import"), ["import", "table"])["predictions"] == "--prediction"


def test_the_cli_prints_a_library_error_in_its_own_options(monkeypatch, capsys):
    from linguagym.cli import entry

    def fail(_args):
        raise ConfigurationError("`batch_size` 0 is not a batch size", hint="give `batch_size` 16",
                                 settings=["batch_size"])

    real = entry.build_parser

    def parser_failing(command=None):
        parser = real(command)
        parser.set_defaults(func=fail)
        for action in parser._actions:  # the run command's own defaults name its function: replace it there too
            for sub in getattr(action, "choices", None) or {}:
                action.choices[sub].set_defaults(func=fail)
        return parser

    monkeypatch.setattr(entry, "build_parser", parser_failing)
    assert entry.main(["run", "--model", "m", "suite.json"]) == 1
    err = capsys.readouterr().err
    assert "--batch-size 0 is not a batch size" in err
    assert "give --batch-size 16" in err


def test_a_run_with_ray_options_but_no_ray_executor_is_told_in_options(tmp_path, capsys):
    from linguagym.cli.entry import main
    from linguagym.suites.examples import example_suite_paths

    assert main(["run", "--model", "fake", "--ray-workers", "2", "-o", str(tmp_path / "out"),
                 str(example_suite_paths()[0])]) == 1
    err = capsys.readouterr().err
    assert "--ray-address and --ray-workers apply to --executor ray only" in err
    assert "set --executor ray, or leave those settings out" in err
