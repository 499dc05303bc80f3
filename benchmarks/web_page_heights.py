"""How tall the suites list is with the 34 SyntaxGym 2020 suites, in Chromium at 1280 and 1600 px wide (the figures
in docs/web.md, "Suites"). A layout measure, not a timing: needs Debian's chromium, the playwright package and the
suites in the shared data folder (or a folder given as the first argument).

    python benchmarks/web_page_heights.py [SUITES_DIR]
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
from pathlib import Path

from linguagym.web import WebConfig, create_app
from tests.web.conftest import Client, serve_in_thread

SUITES = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1].parent / "shared" / "data" \
    / "syntaxgym" / "suites"


def main() -> None:
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp())
    app = create_app(WebConfig.build(root / "data", start_worker=False, cache_dir=root / "cache"))
    client = Client(app)
    paths = sorted(SUITES.glob("*.json"))
    for path in paths:
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(path.read_bytes()), path.name)},
                    content_type="multipart/form-data")
    try:
        with serve_in_thread(app) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"),
                                                 args=["--no-sandbox", "--disable-gpu"])
            for width in (1280, 1600):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(f"{url}/suites")
                rows = page.locator("table.suites-list tbody tr")
                height = page.evaluate("() => document.documentElement.scrollHeight")
                print(f"{width} px wide: {rows.count()} suites, page {height} px high, "
                      f"first row {rows.first.bounding_box()['height']:.0f} px")
            browser.close()
    finally:
        app.extensions["worker"].stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
