"""Screenshots of the web app's Compare page for docs/syntaxgym-2020.md: the paired accuracies and the paired effects
of two runs, whose model folders are copied from a finished ``linguagym run -o DIR --model A --model B`` (one run per
model, as the lab would have them). Needs Debian's chromium and the playwright package (the browser tests' own).

    PYTHONPATH=. python benchmarks/compare_page_screenshots.py results/sg2020 smollm2-135m gemma-3-270m docs/images
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import sync_playwright

from linguagym.web import WebConfig, create_app
from linguagym.web.db import RunRecord
from linguagym.web.jobs.worker import results_directory
from tests.web.conftest import serve_in_thread
from tests.web.test_browser import CHROMIUM_ARGS
from tests.web.test_results_pages import T0


def main(results: Path, models: list[str], out: Path) -> None:
    tmp = Path(tempfile.mkdtemp())
    app = create_app(WebConfig.build(tmp / "data", start_worker=False, cache_dir=tmp / "cache"))
    ids = []
    for hours, model in enumerate(models):
        with app.extensions["sessions"]() as session:
            run = RunRecord(status="done", models=[model], settings={"policy": "first"}, error="", progress_done=1,
                            progress_total=1, progress_label="", cancel_requested=False, created_at=T0,
                            finished_at=T0 + timedelta(hours=hours))
            session.add(run)
            session.commit()
            ids.append(run.id)
        shutil.copytree(results / model, results_directory(app.extensions["linguagym"], ids[-1]) / "model0")
    shots = ((out / "web-compare-sg2020.png", "#paired-heading", 1000),
             (out / "web-compare-effects-sg2020.png", "#paired-effects-heading", 760))
    with serve_in_thread(app) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS,
                                             headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900}, base_url=url)
        page.set_default_timeout(60_000)
        page.goto("/compare?" + "&".join(f"run={i}" for i in ids))
        for path, heading, height in shots:
            box = page.locator(heading).bounding_box()
            page.screenshot(path=str(path), full_page=True,
                            clip={"x": 0, "y": box["y"] - 16, "width": 1280, "height": height})
        browser.close()
    app.extensions["worker"].stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:-1], Path(sys.argv[-1]))
