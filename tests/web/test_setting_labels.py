"""The web writes the settings a library error names as its form fields' labels, the server's own as serve's
options (web/setting_labels.py)."""

from __future__ import annotations

from linguagym.errors import ConfigurationError
from linguagym.evaluation.run import RunSettings, check_settings
from linguagym.web import setting_labels


def test_a_form_setting_reads_as_its_label_and_a_server_setting_as_its_serve_option():
    error = ConfigurationError("`batch_size` must be at least 1", hint="ask for fewer `ray_workers` or `other`",
                               settings=["batch_size", "ray_workers", "other"])
    message, hint = setting_labels.worded(error)
    assert message == "batch size must be at least 1"
    assert hint == "ask for fewer --ray-workers or `other`"  # no field, no option: the keyword stays
    assert setting_labels.text(error) == f"{message}\n  hint: {hint}"


def test_a_library_check_reads_in_the_webs_words():
    try:
        check_settings(RunSettings(limit=0))
    except ConfigurationError as error:
        message, hint = setting_labels.worded(error)
    assert message == "limit must be above 0, not 0"
    assert hint is not None and hint.startswith("give limit a number of items")


def test_a_generate_setting_the_library_refuses_is_shown_with_its_form_label():
    from linguagym.capabilities.errors import SettingError
    from linguagym.web.setting_labels import text

    error = SettingError("masked_per_seed", "must be 1 or more, not 0")
    assert str(error) == "`masked_per_seed` must be 1 or more, not 0"  # the library's (and a notebook's) spelling
    assert text(error) == "masked sentences per seed must be 1 or more, not 0"
