"""Starting a server in one click, in a real headless Chromium: on an empty server one click loads the example
suites, the list shows them, and "Run every suite" on the tiny model queues a run that finishes; the lab's
default models are set on the settings page and a new upload is then run on them.

``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves web-start.png and web-settings.png.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from tests.conftest import minimal_suite
from tests.web.test_browser import _shot, browser, expect, page, server  # noqa: F401  (the fixtures)


def test_an_empty_server_loads_the_examples_and_runs_every_suite(page, tiny_lm_dir):  # noqa: F811
    page.goto("/suites")
    assert "No suites yet" in page.inner_text("main")
    page.click("#load-examples")
    page.wait_for_url("**/suites")
    expect(page.locator(".flash.success")).to_contain_text("Loaded the 3 example suites: 3 added")
    names = page.locator("table.list tbody tr td:first-child a").all_inner_texts()
    assert sorted(names) == ["agreement_across_pp", "npi_ever", "npz_comma"]
    assert page.locator("#load-examples").count() == 0  # loaded: its button is gone
    expect(page.locator("#load-syntaxgym-2020")).to_be_visible()  # the other set is still offered
    _shot(page, "start")

    page.click("#run-every-suite summary")
    page.fill('#run-every-suite input[name="other_models"]', str(tiny_lm_dir))
    page.click("#run-every-suite button[type=submit]")
    page.wait_for_url("**/runs/1")
    assert "every suite on" in page.inner_text("h1") or "every suite on" in page.title()
    page.locator("#accuracy").wait_for(timeout=120_000)  # the page reloads itself when the run ends
    assert page.inner_text("#run-status") == "done"
    accuracy = page.inner_text("#accuracy")
    assert all(name in accuracy for name in ("agreement_across_pp", "npi_ever", "npz_comma"))

    page.goto(f"/model?name={quote(str(tiny_lm_dir))}")  # the model's page offers the same, for this model
    page.click("#run-every-suite-model button")
    page.wait_for_url("**/runs/2")
    expect(page.locator("h1")).to_contain_text("every suite on")


def test_default_models_run_each_new_upload(page, tiny_lm_dir, tmp_path):  # noqa: F811
    page.goto("/suites")
    page.click("header nav a:has-text('Settings')")
    page.wait_for_url("**/settings")
    page.fill('textarea[name="other_models"]', str(tiny_lm_dir))
    page.click("button:has-text('Save settings')")
    expect(page.locator(".flash.success")).to_contain_text("Every new suite version will be run on")
    _shot(page, "settings")

    files = []
    for name in ("first", "second"):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(minimal_suite(meta={"name": name, "metric": "sum"})), encoding="utf-8")
        files.append(str(path))
    broken = minimal_suite(meta={"name": "broken", "metric": "sum"})
    broken["predictions"][0]["formula"] = "(2;%mismatch%) > (2;%nomatch%)"
    (tmp_path / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    page.goto("/suites")
    page.set_input_files('#upload-many input[name="suite_files"]', [*files, str(tmp_path / "broken.json")])
    page.click("#upload-many button[type=submit]")
    outcomes = page.locator("#bulk-outcomes")
    expect(outcomes).to_contain_text("2 added: first, second; 1 file(s) not stored.")
    expect(outcomes.locator("tr.outcome-invalid")).to_contain_text("broken.json")
    expect(outcomes.locator("tr.outcome-invalid")).to_contain_text("nomatch")
    _shot(page, "upload-many")
    expect(page.locator(".flash.info")).to_contain_text("Queued 1 automatic run(s)")
    page.goto("/runs")
    assert "auto: first v1, second v1" in page.inner_text("main")
