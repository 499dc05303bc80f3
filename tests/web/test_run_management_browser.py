"""Managing a run in headless Chromium: a refused run form comes back with its error and input, a named run,
"Run again" opens the form filled, and Delete asks first (confirm.js) and then removes the run. The model does not
exist, so the run fails at once: no scoring, a few seconds."""

from __future__ import annotations

from linguagym.suites import example_suite_paths
from tests.web.test_browser import browser, expect, server, untick_models  # noqa: F401  (the Chromium fixtures)


def test_name_refuse_run_again_and_delete_a_run(browser, server, tmp_path):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    dialogs, answers = [], [False, True]  # the first confirmation is declined, the second accepted
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message),
                                      dialog.accept() if answers.pop(0) else dialog.dismiss()))
    missing = str(tmp_path / "no-such-model")
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(example_suite_paths()[0]))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/1")

    page.goto("/runs?suite=1")
    page.fill('input[name="name"]', "my first run")
    untick_models(page)
    page.fill('textarea[name="other_models"]', missing)
    page.select_option('select[name="device"]', "cpu")
    page.fill('input[name="model_args"]', "revison=main")
    page.click("button:has-text('Start run')")
    expect(page.locator("#run-form-error")).to_contain_text("did you mean 'revision'?")
    expect(page.locator('input[name="name"]')).to_have_value("my first run")  # nothing typed is lost
    expect(page.locator('textarea[name="other_models"]')).to_have_value(missing)
    expect(page.locator('select[name="device"]')).to_have_value("cpu")
    assert page.locator('input[name="suite"][value="1"]').is_checked()

    page.fill('input[name="model_args"]', "")
    page.click("button:has-text('Start run')")
    page.wait_for_url("**/runs/1")
    expect(page.locator("#run-status")).to_have_text("failed", timeout=60_000)  # the page reloads when it ends
    expect(page.locator("#run-name")).to_have_text("my first run")

    page.click("#run-again")
    page.wait_for_url("**/runs?from=1")
    expect(page.locator('input[name="name"]')).to_have_value("my first run")
    expect(page.locator('textarea[name="other_models"]')).to_have_value(missing)
    assert page.locator('input[name="suite"][value="1"]').is_checked()

    page.goto("/runs/1")
    page.click("#delete-run")  # declined: nothing happens
    assert dialogs == ["Delete this run and all its result files?"]
    expect(page.locator("#run-name")).to_be_visible()
    page.click("#delete-run")
    page.wait_for_url("**/runs")
    expect(page.locator("main")).to_contain_text("Deleted run 1 · my first run and its files.")
    expect(page.locator("main")).to_contain_text("No runs yet")
    context.close()
