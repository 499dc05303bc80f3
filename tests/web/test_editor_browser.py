"""The suite editor in a real headless Chromium: predictions follow removed regions and renamed conditions, a
prediction on a removed region blocks Save until fixed, Undo restores, a pasted block of cells fills the grid,
Enter moves down, the sentence preview, the unsaved-changes warning. Skipped without Debian's chromium (see
test_browser.py, whose browser and server fixtures this uses; its first test saves docs/images/web-editor.png)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import minimal_suite
from tests.web.test_browser import browser, expect, server  # noqa: F401  (the browser fixtures)

# Would leaving the page now ask first? A synthetic beforeunload event is cancelled by the editor's handler.
LEAVING_ASKS = """() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e);
                          return e.defaultPrevented; }"""


@pytest.fixture
def editor(browser, server, tmp_path):  # noqa: F811
    """The editor on a saved three-region suite, with confirmation dialogs accepted (and their texts kept)."""
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    page.dialogs = dialogs
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(3;%mismatch%) > (3;%match%)"},
                                      {"type": "formula", "formula": "(1;%mismatch%) = (1;%match%)"}])
    path = tmp_path / "editor_suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(path))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/1")
    page.goto("/suites/1/edit")
    yield page
    context.close()


def test_predictions_follow_removed_regions_and_renamed_conditions(editor):
    page = editor
    formulas = page.locator("input.formula")
    expect(page.locator('.formula-status[data-p="0"]')).to_contain_text("✓")
    assert page.evaluate(LEAVING_ASKS) is False  # nothing edited yet

    page.click('button[aria-label="remove region 1"]')
    assert "Remove region 1 \"subject\"" in page.dialogs[-1]
    assert page.locator("input.region-name").count() == 2
    expect(formulas.nth(0)).to_have_value("(2;%mismatch%) > (2;%match%)")  # region 3 is now region 2
    expect(formulas.nth(1)).to_have_value("(?;%mismatch%) = (?;%match%)")  # its region is gone: flagged
    expect(page.locator('.formula-status[data-p="0"]')).to_contain_text("✓ (2;%mismatch%) > (2;%match%)")
    expect(page.locator('.formula-status[data-p="1"]')).to_contain_text("region that was removed")
    expect(formulas.nth(1)).to_have_class("formula invalid")
    assert page.evaluate(LEAVING_ASKS) is True  # unsaved work: leaving asks first

    page.click("#save")  # refused in the page: nothing is posted, the problem is listed and points at the formula
    expect(page.locator("#problems")).to_contain_text("Not saved: 2 problems")
    expect(page.locator("#problems")).to_contain_text("predictions[1]")
    assert page.url.endswith("/suites/1/edit")

    expect(page.locator("#undo")).to_have_text("Undo remove region 1")
    page.click("#undo")
    assert page.locator("input.region-name").count() == 3
    expect(page.locator('input.region-name[data-r="0"]')).to_have_value("subject")
    expect(page.locator('input.cell[data-i="0"][data-c="0"][data-r="0"]')).to_have_value("The boy")
    expect(formulas.nth(0)).to_have_value("(3;%mismatch%) > (3;%match%)")
    expect(formulas.nth(1)).to_have_value("(1;%mismatch%) = (1;%match%)")
    expect(page.locator("#undo")).to_be_disabled()

    page.locator('input.cond-name[data-c="1"]').first.fill("mismatched")  # a rename rewrites the formulas
    expect(formulas.nth(0)).to_have_value("(3;%mismatched%) > (3;%match%)")
    page.click('button[aria-label="remove condition 2"]')
    expect(page.locator('.formula-status[data-p="0"]')).to_contain_text('names condition "mismatched"')
    page.keyboard.press("Control+z")  # outside a text box, Ctrl+Z undoes the last structural change
    expect(page.locator('.formula-status[data-p="0"]')).to_contain_text("✓ (3;%mismatched%) > (3;%match%)")
    page.click('button[aria-label="move region 3 left"]')  # reordering: the formula follows its region
    expect(page.locator('input.region-name[data-r="1"]')).to_have_value("rest")
    expect(formulas.nth(0)).to_have_value("(2;%mismatched%) > (2;%match%)")
    expect(formulas.nth(1)).to_have_value("(1;%mismatched%) = (1;%match%)")

    page.click("#save")  # fixed: saved, and leaving the saved page does not ask
    page.wait_for_url("**/suites/1")
    assert "version 2" in page.inner_text("main")


def test_paste_a_block_of_cells_move_with_enter_and_preview_sentences(editor):
    page = editor
    start = page.locator('input.cell[data-i="1"][data-c="1"][data-r="0"]')  # the last row: the paste adds an item
    start.evaluate("""(cell, text) => { const data = new DataTransfer(); data.setData("text/plain", text);
                          cell.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true,
                                                                          cancelable: true})); }""",
                   "The girls\tswim\t, daily.\r\nThe girl\tswims\tat noon .\r\n")
    expect(page.locator('input.cell[data-i="1"][data-c="1"][data-r="1"]')).to_have_value("swim")
    expect(page.locator('input.cell[data-i="1"][data-c="1"][data-r="2"]')).to_have_value(", daily.")
    assert page.locator("input.item-number").count() == 3
    expect(page.locator("input.item-number").nth(2)).to_have_value("3")
    expect(page.locator('input.cell[data-i="2"][data-c="0"][data-r="0"]')).to_have_value("The girl")
    expect(page.locator('input.cell[data-i="2"][data-c="0"][data-r="1"]')).to_have_value("swims")
    expect(page.locator('input.cell[data-i="2"][data-c="1"][data-r="0"]')).to_have_value("")
    # the sentence as the model reads it: no space before a region starting with a comma
    expect(page.locator('td.preview[data-i="1"][data-c="1"]')).to_have_text("The girls swim, daily.")
    expect(page.locator('td.preview[data-i="2"][data-c="0"]')).to_have_text("The girl swims at noon .")

    page.locator('input.cell[data-i="0"][data-c="0"][data-r="1"]').focus()
    page.keyboard.press("Enter")  # down to the next condition's row
    assert page.evaluate("document.activeElement.dataset.c") == "1"
    page.keyboard.press("ArrowDown")  # and on into the next item
    assert page.evaluate("[document.activeElement.dataset.i, document.activeElement.dataset.r]") == ["1", "1"]
    page.keyboard.type("runs")  # a cell reached by keys has its text selected, as in a spreadsheet
    expect(page.locator('td.preview[data-i="1"][data-c="0"]')).to_have_text("The boy runs today.")

    page.click("#undo")  # the paste is one structural change; typed since, so Undo asks first
    assert "Text typed since then is undone too" in page.dialogs[-1]
    assert page.locator("input.item-number").count() == 2


def test_ranges_follow_the_grid_and_a_predictions_own_tolerance_survives_save(browser, server, tmp_path):  # noqa: F811
    """A range reference (3..5 style) is renumbered when a region goes, and a prediction's own atol/rtol (which the
    grid does not show) is written back on Save instead of being dropped."""
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("dialog", lambda dialog: dialog.accept())
    data = minimal_suite(predictions=[
        {"type": "formula", "formula": "(2..3;%mismatch%) > (2..3;%match%)", "atol": 0.25},
        {"type": "formula", "formula": "(1,3;%mismatch%) > (1,3;%match%)", "rtol": 0.001},
    ])
    path = tmp_path / "tolerance_suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(path))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/*")
    suite_url = page.url
    page.goto(suite_url + "/edit")
    formulas = page.locator("input.formula")
    page.click('button[aria-label="remove region 1"]')
    expect(formulas.nth(0)).to_have_value("(1..2;%mismatch%) > (1..2;%match%)")  # still regions 2 and 3, renumbered
    expect(formulas.nth(1)).to_have_value("(?,2;%mismatch%) > (?,2;%match%)")  # it summed the removed region
    expect(page.locator('.formula-status[data-p="1"]')).to_contain_text("region that was removed")
    page.click("#undo")
    page.locator('input.cond-name[data-c="1"]').first.fill("mismatched")
    expect(formulas.nth(0)).to_have_value("(2..3;%mismatched%) > (2..3;%match%)")
    page.click("#save")
    page.wait_for_url(suite_url)
    saved = json.loads(page.request.get(suite_url + "/download").text())
    assert saved["predictions"] == [
        {"type": "formula", "formula": "(2..3;%mismatched%) > (2..3;%match%)", "atol": 0.25},
        {"type": "formula", "formula": "(1,3;%mismatched%) > (1,3;%match%)", "rtol": 0.001},
    ]
    context.close()
