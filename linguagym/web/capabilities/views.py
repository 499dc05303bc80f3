"""Capability-test pages: test files (upload, list, view with samples per capability, download, delete) and the
jobs that generate a test file from a dataset or test a stored file against classifiers (start, follow, cancel,
results with the failure table, the chart, examples and every file the job wrote)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, flash, jsonify, redirect, render_template, request, url_for

from linguagym.capabilities.classifiers.registry import describe_classifiers
from linguagym.capabilities.data.datasets import parse_label_map
from linguagym.capabilities.expansion.defaults import INSERTION_SETS, PAPER_FILLS_PER_MASK
from linguagym.capabilities.reports.html import failure_chart
from linguagym.capabilities.seeds.specs import load_specs
from linguagym.capabilities.settings import GenerateSettings
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.web.auth.ownership import new_owner_id, require_owner
from linguagym.web.capabilities.jobs import generate_settings, job_results_directory, open_classifier
from linguagym.web.capabilities.results import failure_examples, file_overview, read_results
from linguagym.web.capabilities.store import (
    create_generate_job,
    create_test_job,
    delete_test_file,
    get_job,
    get_test_file,
    list_jobs,
    list_test_files,
    load_test_file,
    parse_test_file,
    save_test_file,
)
from linguagym.web.context import config, db_session, nobody_runs, notify_worker
from linguagym.web.files import SANDBOX, listing, send_result_file
from linguagym.web.inputs import DEVICES, device_choice, parse_id, plain_text, whole_number
from linguagym.web.jobs.lifecycle import progress_status, request_cancel
from linguagym.web.text import clean_text
from linguagym.web.transactions import commit_retrying

blueprint = Blueprint("capabilities", __name__)

MAX_CLASSIFIERS = 8
DEFAULT_LCS = ("LC2", "LC4", "LC5")
DATASETS = ("rotten-tomatoes", "sentence-polarity")
GENERATE_DEFAULTS = GenerateSettings()  # the form's defaults and placeholders: the library's


@lru_cache(maxsize=1)
def _shipped_specs() -> tuple[tuple[str, str], ...]:
    return tuple((spec.id, spec.name) for spec in load_specs())


def _named_classifiers() -> list[tuple[str, str]]:
    return [(name, about) for name, about in describe_classifiers() if re.fullmatch(r"[a-z0-9][a-z0-9.-]*", name)]


# ------------------------------------------------------------------------------------------------ test files


@blueprint.get("/capabilities")
def index():
    query = request.args.get("q", "")
    return render_template("capabilities.html", files=list_test_files(db_session(), query), query=query)


@blueprint.post("/capabilities/upload")
def upload():
    upload = request.files.get("tests_file")
    name, raw = "", b""
    if upload is not None and upload.filename:
        name, raw = clean_text(upload.filename), upload.read()
    problems: list[str] = []
    hint = ""
    if not raw.strip():
        problems = ["no test file given: choose a .json file written by `linguagym lct generate`"]
    else:
        try:
            document = parse_test_file(raw, name)
        except LinguagymError as error:  # the first line says what, the others list the problems
            problems, hint = [line.strip() for line in error.message.split("\n") if line.strip()], error.hint or ""
    if problems:
        return render_template("capabilities.html", files=list_test_files(db_session()), query="",
                               upload_heading=problems[0], upload_problems=problems[1:], upload_hint=hint), 400
    session = db_session()
    stem = Path(name).stem if name else "tests"
    saved = commit_retrying(session, lambda: save_test_file(session, raw.decode("utf-8-sig"), document,
                                                            name=request.form.get("name", "") or stem,
                                                            note=f"uploaded from {name}",
                                                            owner_id=new_owner_id()))
    if saved.created:
        flash(f"Saved {saved.record.name!r}: {saved.record.seed_count} seeds, {saved.record.expansion_count} "
              f"expansions.", "success")
    else:
        flash(f"This file is already stored as {saved.record.name!r}.", "info")
    return redirect(url_for("capabilities.show", file_id=saved.record.id))


@blueprint.get("/capabilities/files/<int:file_id>")
def show(file_id: int):
    record = get_test_file(db_session(), file_id)
    document = load_test_file(record)
    samples = max(0, min(request.args.get("samples", 5, type=int) or 0, 100))
    return render_template("capability_file.html", record=record, document=document, samples=samples,
                           capabilities=file_overview(document, samples))


@blueprint.get("/capabilities/files/<int:file_id>/download")
def download(file_id: int):
    record = get_test_file(db_session(), file_id)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", record.name).strip("._") or "tests"
    return Response(record.content, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{stem}.json"'})


@blueprint.post("/capabilities/files/<int:file_id>/delete")
def delete(file_id: int):
    session = db_session()
    record = get_test_file(session, file_id)
    require_owner(record)
    name = record.name
    delete_test_file(session, record)
    session.commit()
    flash(f"Deleted test file {name!r}.", "success")
    return redirect(url_for("capabilities.index"))


# ------------------------------------------------------------------------------------------------ jobs


@blueprint.get("/capabilities/jobs")
def jobs():
    session = db_session()
    return render_template("capability_jobs.html", jobs=list_jobs(session), files=list_test_files(session),
                           chosen=request.args.get("file", type=int), specs=_shipped_specs(),
                           default_lcs=DEFAULT_LCS, default_max_seeds=GENERATE_DEFAULTS.max_seeds,
                           datasets=DATASETS, fills_per_mask=GENERATE_DEFAULTS.expansion.settings.fills_per_mask,
                           paper_fills_per_mask=PAPER_FILLS_PER_MASK,
                           masked_per_seed=GENERATE_DEFAULTS.expansion.settings.masked_per_seed,
                           insertion_sets=INSERTION_SETS,
                           default_insertions=GENERATE_DEFAULTS.expansion.settings.insertions,
                           classifiers=_named_classifiers(),
                           devices=DEVICES, python_allowed=config().allow_python_classifiers)


def _number(name: str, low: int, high: int, *, blank: int | None = None, default: str = "") -> int | None:
    text = request.form.get(name, default).strip()
    if not text:
        return blank
    return whole_number(text, name.replace("_", " "), low, high)


@blueprint.post("/capabilities/jobs/generate")
def start_generate():
    form = request.form
    known = [spec_id for spec_id, _ in _shipped_specs()]
    lcs = [lc for lc in form.getlist("lc") if lc in known]
    if not lcs:
        raise ConfigurationError("no capability chosen", hint="tick at least one LC")
    dataset = plain_text(form.get("dataset", "").strip(), "the dataset") or GENERATE_DEFAULTS.dataset
    if len(dataset) > 500:
        raise ConfigurationError("the dataset name is longer than 500 characters")
    expand = form.get("expand") == "on"
    # blank: the library's default; a value no run can take is refused by the library's settings, below
    templates = form.get("templates", GENERATE_DEFAULTS.templates)
    insertions = form.get("insertions", GENERATE_DEFAULTS.expansion.settings.insertions)
    settings = {"name": clean_text(form.get("name", "")).strip()[:300], "dataset": dataset, "lcs": ",".join(lcs),
                "max_seeds": _number("max_seeds", 1, 1_000_000), "seed": _number("seed", 0, 2**31 - 1, blank=0),
                "expand": expand, "expand_seeds": _number("expand_seeds", 0, 100_000) if expand else None,
                "per_seed": _number("per_seed", 1, 1000), "templates": templates,
                # blank: the library's defaults (the command line's); the paper's protocol is 20 fills a mask
                "fills_per_mask": _number("fills_per_mask", 1, PAPER_FILLS_PER_MASK),
                "masked_per_seed": _number("masked_per_seed", 1, 100), "insertions": insertions,
                "test_types": ",".join(["mft", *(t for t in ("inv", "dir") if t in form.getlist("test_type"))])}
    generate_settings(settings, config().score_cache_dir)  # checked now, as the job will build them
    session = db_session()
    job = create_generate_job(session, settings)
    job.owner_id = new_owner_id()
    session.commit()
    notify_worker()
    flash(f"Job {job.id} queued: generate tests for {', '.join(lcs)} from {dataset}.", "success")
    return redirect(url_for("capabilities.job", job_id=job.id))


@blueprint.post("/capabilities/jobs/test")
def start_test():
    form = request.form
    session = db_session()
    file_id = form.get("test_file", "")
    if not file_id.strip():
        raise ConfigurationError("no test file chosen", hint="upload or generate one, then pick it")
    record = get_test_file(session, parse_id(file_id, "test file"))
    specs = form.getlist("classifier") + [line.strip() for line in form.get("other_classifiers", "").splitlines()
                                          if line.strip()]
    specs = list(dict.fromkeys(plain_text(spec, "the classifier") for spec in specs))
    if len(specs) > MAX_CLASSIFIERS:
        raise ConfigurationError(f"{len(specs)} classifiers chosen; a job takes at most {MAX_CLASSIFIERS}",
                                 hint="split them into several jobs")
    device = device_choice(form)
    label_map = None
    if form.get("label_map", "").strip():
        label_map = parse_label_map(form["label_map"])
    settings = {"device": device, "batch_size": _number("batch_size", 1, 4096), "label_map": label_map,
                "examples": _number("examples", 0, 50, blank=3)}
    for spec in specs:  # a typo or a refused python: spec fails here, before the job is queued (nothing heavy loads)
        open_classifier(spec, config(), settings)
    job = create_test_job(session, record, specs, settings)
    job.owner_id = new_owner_id()
    session.commit()
    notify_worker()
    flash(f"Job {job.id} queued: {record.name!r} against {', '.join(job.classifiers)}.", "success")
    return redirect(url_for("capabilities.job", job_id=job.id))


def _status(job) -> dict:
    return {**progress_status(job), "kind": job.kind, "result_file": job.result_file_id}


@blueprint.get("/api/capabilities/jobs/<int:job_id>")
def status(job_id: int):
    return jsonify(_status(get_job(db_session(), job_id)))


@blueprint.post("/capabilities/jobs/<int:job_id>/cancel")
def cancel(job_id: int):
    session = db_session()
    job = get_job(session, job_id)
    require_owner(job)
    request_cancel(job, "cancelling at the next progress step", abandoned=nobody_runs(job))
    session.commit()
    if request.accept_mimetypes.best == "application/json":
        return jsonify(_status(job))
    return redirect(url_for("capabilities.job", job_id=job_id))


def _results(job):
    if job.kind != "test" or job.status != "done" or job.test_file is None:
        return None, None
    document = load_test_file(job.test_file)
    return read_results(job_results_directory(config(), job.id), document), document


@blueprint.get("/capabilities/jobs/<int:job_id>")
def job(job_id: int):
    record = get_job(db_session(), job_id)
    results, document = _results(record)
    examples = max(0, min(request.args.get("examples", 3, type=int) or 0, 50))
    return render_template("capability_job.html", job=record, results=results, examples=examples,
                           failures=failure_examples(results, document, examples) if results else [],
                           files=listing(job_results_directory(config(), job_id)))


@blueprint.get("/capabilities/jobs/<int:job_id>/chart/<kind>.svg")
def chart(job_id: int, kind: str):
    if kind not in ("seeds", "expansions"):
        raise ConfigurationError(f"no chart {kind!r}", hint="seeds or expansions")
    results, _ = _results(get_job(db_session(), job_id))
    if not results or not results.summaries:
        raise ConfigurationError(f"job {job_id} has no finished results to chart")
    return Response(failure_chart(results.summaries, kind), mimetype="image/svg+xml",
                    headers={"Content-Security-Policy": SANDBOX})


@blueprint.get("/capabilities/jobs/<int:job_id>/files/<path:relative>")
def file(job_id: int, relative: str):
    get_job(db_session(), job_id)
    return send_result_file(job_results_directory(config(), job_id), relative,
                            download=bool(request.args.get("download")))
