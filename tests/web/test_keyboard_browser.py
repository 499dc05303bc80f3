"""A whole suite written with the keyboard alone, in a real headless Chromium: Tab and Shift+Tab to reach each box
and button, typing, Enter on buttons, Enter and the arrow keys in the grid, and Save; no click, no filled-in value.
Skipped without Debian's chromium (see test_browser.py, whose browser, server and page fixtures this uses)."""

from __future__ import annotations

import json

from tests.web.test_browser import browser, expect, page, server  # noqa: F401  (the browser fixtures)


def tab_to(page, selector: str, *, back: bool = False, limit: int = 120) -> None:  # noqa: F811
    """Press Tab (Shift+Tab with ``back``) until the focused element matches ``selector``."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def replace(page, text: str) -> None:  # noqa: F811
    """Type ``text`` over the focused box's value."""
    page.keyboard.press("Control+a")
    page.keyboard.type(text)


def cell(i: int, c: int, r: int) -> str:
    return f'input.cell[data-i="{i}"][data-c="{c}"][data-r="{r}"]'


def test_write_a_whole_suite_with_the_keyboard_alone(page):  # noqa: F811
    page.goto("/suites/new")
    tab_to(page, "#suite-name")
    page.keyboard.type("keyboard_agreement")
    tab_to(page, "#suite-author")
    page.keyboard.type("K. Board")
    for r, name in enumerate(("subject", "verb", "rest")):
        tab_to(page, f'input.region-name[data-r="{r}"]')
        replace(page, name)
    tab_to(page, 'input.cond-name[data-c="0"]')
    replace(page, "grammatical")
    tab_to(page, cell(0, 0, 0))
    for text in ("The dog near the cars", "runs", "fast."):  # Tab walks the row's regions
        page.keyboard.type(text)
        page.keyboard.press("Tab")
    tab_to(page, 'input.cond-name[data-c="1"]')
    replace(page, "ungrammatical")
    page.keyboard.press("Tab")
    tab_to(page, cell(0, 1, 0))
    page.keyboard.type("The dog near the cars")
    page.keyboard.press("ArrowRight")  # at the end of the box: the next region
    page.keyboard.type("run")
    page.keyboard.press("Shift+Enter")  # up: the grammatical row's verb
    expect(page.locator(cell(0, 0, 1))).to_be_focused()
    page.keyboard.press("Enter")  # down again, then right to the last region
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")
    page.keyboard.type("fast.")

    tab_to(page, "#add-item", back=True)
    page.keyboard.press("Enter")  # a copy of item 1; the focus goes to its first box
    expect(page.locator(cell(1, 0, 0))).to_be_focused()
    replace(page, "The dogs near the car")
    page.keyboard.press("Tab")
    replace(page, "run")
    page.keyboard.press("Enter")  # down: the ungrammatical row
    replace(page, "runs")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")  # at the start of the box: the region before
    expect(page.locator(cell(1, 1, 0))).to_be_focused()
    replace(page, "The dogs near the car")

    tab_to(page, "#add-prediction")
    page.keyboard.press("Enter")  # a second prediction, focused, written by the builder
    expect(page.locator('input.formula[data-p="1"]')).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # past its remove button, into the builder: the left region
    expect(page.get_by_label("prediction 1, left side: region", exact=True)).to_be_focused()
    page.keyboard.press("ArrowDown")  # region 2
    tab_to(page, '[aria-label="prediction 1: relation"]')
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # >, <, =, >=
    tab_to(page, '[aria-label="prediction 1, right side: region"]')
    page.keyboard.press("ArrowDown")
    expect(page.locator('input.formula[data-p="1"]')).to_have_value("(2;%ungrammatical%) >= (2;%grammatical%)")
    expect(page.locator('.formula-status[data-p="1"]')).to_contain_text("✓")

    tab_to(page, "#save")
    page.keyboard.press("Enter")
    page.wait_for_url("**/suites/1")
    stored = json.loads(page.request.get("/suites/1/download").text())
    assert stored["meta"] == {"name": "keyboard_agreement", "metric": "sum", "author": "K. Board"}
    assert stored["region_meta"] == {"1": "subject", "2": "verb", "3": "rest"}
    assert [p["formula"] for p in stored["predictions"]] == ["(2;%ungrammatical%) > (2;%grammatical%)",
                                                             "(2;%ungrammatical%) >= (2;%grammatical%)"]
    sentences = {(item["item_number"], condition["condition_name"]): [r["content"] for r in condition["regions"]]
                 for item in stored["items"] for condition in item["conditions"]}
    assert sentences == {
        (1, "grammatical"): ["The dog near the cars", "runs", "fast."],
        (1, "ungrammatical"): ["The dog near the cars", "run", "fast."],
        (2, "grammatical"): ["The dogs near the car", "run", "fast."],
        (2, "ungrammatical"): ["The dogs near the car", "runs", "fast."],
    }
