"""A run's page in a real headless Chromium while its model loads: the live page (run.js) shows the library's
loading stage as a labelled bar without an end and no count, then the count in tokens, then the results.
Skipped without Debian's chromium (see test_browser.py). ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves
web-run-loading.png."""

from __future__ import annotations

import threading

from linguagym.progress import stage
from tests.web.test_browser import _shot, browser, expect  # noqa: F401  (the browser fixture)
from tests.web.test_runs import _start, _upload_examples

DEQUANTISING = "de-quantising the GGUF weights (about 15 s the first time)"


def test_the_live_page_shows_a_loading_stage_then_counts_tokens(browser, tmp_path, tiny_lm_dir):  # noqa: F811
    from werkzeug.serving import make_server

    from linguagym.scoring.registry import load_scorer
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    loading, release = threading.Event(), threading.Event()

    class SlowToLoad:
        """The tiny model, held in a loading stage until the test has looked at the page."""

        def __init__(self, settings):
            self.inner = load_scorer(settings.model, device="cpu", score_cache=False)
            self.identity = self.inner.identity
            self.progress = None

        def count_tokens(self, texts):
            return self.inner.count_tokens(texts)

        def warm_up(self):
            stage(DEQUANTISING)
            loading.set()
            release.wait(60)
            self.inner.warm_up()

        def score(self, texts):
            self.inner.progress = self.progress
            return self.inner.score(texts)

    app = create_app(WebConfig.build(tmp_path / "d", start_worker=True, cache_dir=tmp_path / "c"),
                     scorer_factory=SlowToLoad)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    context = browser.new_context(viewport={"width": 1000, "height": 700}, base_url=f"http://127.0.0.1:{http.server_port}")
    page = context.new_page()
    try:
        client = Client(app)
        _upload_examples(client)
        run_id = _start(client, tiny_lm_dir)
        assert loading.wait(60)
        page.goto(f"/runs/{run_id}")
        expect(page.locator("#run-label")).to_have_text(f"loading {tiny_lm_dir.name}: {DEQUANTISING}")
        page.wait_for_timeout(1500)  # a poll or two: the live page keeps the bar without an end
        assert page.eval_on_selector("#run-progress", "bar => bar.hasAttribute('value')") is False
        assert page.locator("#run-count").is_hidden()
        _shot(page, "run-loading")
        release.set()
        page.locator("#accuracy").wait_for(timeout=90_000)  # counted, scored, and the page reloaded itself
        assert page.inner_text("#run-status") == "done"
    finally:
        release.set()
        context.close()
        http.shutdown()
        app.extensions["worker"].stop()
