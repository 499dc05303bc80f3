"""Cancel in the web app keeps what was computed (issue 36): a run cancelled while its first chunk of sentences is
scored stops once that chunk is committed, and resuming it from its page computes only the tokens of the rest."""

from __future__ import annotations

import io
import itertools
import json
from types import SimpleNamespace

from linguagym.scoring.engine.order import CHUNK
from linguagym.web.db import RunRecord
from tests.evaluation.long_suite import ITEMS, long_suite


class CountingInner:
    """The run's model behind its real score cache: counts the tokens it is handed, and asks the run's page to
    cancel the run as its first chunk begins."""

    def __init__(self, inner, on_first_score) -> None:
        self.inner, self.on_first_score = inner, on_first_score
        self.identity = inner.identity
        self.batch_size = inner.batch_size
        self.progress = None
        self.tokens = 0

    def count_tokens(self, texts):
        return self.inner.count_tokens(texts)

    def warm_up(self):
        self.inner.warm_up()

    def score(self, texts):
        if self.on_first_score is not None:
            self.on_first_score()
            self.on_first_score = None
        self.tokens += self.inner.count_tokens(texts)
        self.inner.progress = self.progress
        return self.inner.score(texts)


def test_a_cancelled_web_run_resumes_with_only_the_tokens_it_had_not_computed(tmp_path, tiny_lm_dir, monkeypatch):
    from linguagym.web import WebConfig, create_app
    from linguagym.web.jobs import rows as jobs
    from tests.web.conftest import Client

    # every step of the count is written (and the cancel request read), as if each took longer than the interval
    monkeypatch.setattr(jobs, "time", SimpleNamespace(monotonic=itertools.count(step=10).__next__))
    made: list[CountingInner] = []
    state = {"run": 0}

    def cancel() -> None:  # the cancel button, pressed while the first chunk is being scored
        assert client.post(f"/runs/{state['run']}/cancel").status_code == 302

    def scorers(settings):
        scorer = settings.scorer_spec().load()  # the server's own cached scorer, its model counted
        scorer.inner = CountingInner(scorer.inner, cancel if not made else None)
        made.append(scorer.inner)
        return scorer

    config = WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=tmp_path / "c")
    app = create_app(config, scorer_factory=scorers)
    try:
        client = Client(app)
        upload = io.BytesIO(json.dumps(long_suite()).encode())
        client.post("/suites/upload", data={"suite_file": (upload, "long.json")}, content_type="multipart/form-data")
        started = client.post("/runs", data={"suite": ["1"], "other_models": str(tiny_lm_dir), "device": "cpu",
                                             "batch_size": "8", "policy": "all"})
        state["run"] = run_id = int(started.headers["Location"].rsplit("/", 1)[1])
        assert app.extensions["worker"].run_next()
        stopped = client.get(f"/api/runs/{run_id}").json
        assert stopped["status"] == "cancelled"
        assert 0 < stopped["done"] == made[0].tokens < stopped["total"]  # the first chunk, whole, and no more

        assert client.post(f"/runs/{run_id}/resume").status_code == 302
        assert app.extensions["worker"].run_next()
        resumed = client.get(f"/api/runs/{run_id}").json
        assert resumed["status"] == "done", resumed["error"]
        assert resumed["total"] == resumed["done"] == made[1].tokens == stopped["total"] - stopped["done"]
        with app.extensions["sessions"]() as session:
            assert session.get(RunRecord, run_id).status == "done"
        [record] = (config.runs_dir / str(run_id) / "results").glob("*/run.json")
        cache = json.loads(record.read_text(encoding="utf-8"))["cache"]
        assert (cache["hits"], cache["misses"]) == (CHUNK, 2 * ITEMS - CHUNK)
    finally:
        app.extensions["worker"].stop()
