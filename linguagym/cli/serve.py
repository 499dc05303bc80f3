"""``linguagym serve``: the web application. ``add_serve_parser`` hooks the command into the main parser;
Flask, SQLAlchemy and the server are imported inside the command so ``linguagym --help`` stays fast."""

from __future__ import annotations

import argparse
from pathlib import Path

from linguagym.errors import ConfigurationError
from linguagym.executors import EXECUTORS
from linguagym.extras import require_database_driver, require_extra

# what the web app imports, all brought by the [web] extra
WEB_MODULES = ("flask", "werkzeug", "markupsafe", "sqlalchemy", "alembic", "waitress")


def add_serve_parser(commands) -> argparse.ArgumentParser:
    """Add the ``serve`` command to ``commands`` (the main parser's subparsers object)."""
    p = commands.add_parser(
        "serve", help="the web application: suites, the grid editor, runs, capability tests and results in a browser",
        description="Serve linguagym's web application. It binds 127.0.0.1 (this machine only) unless told "
        "otherwise; on any other address changes need an access token (printed at start, or --token). "
        "Needs the web extra: pip install 'linguagym[web]'.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                   help="where suites, runs and the database live (default: $LINGUAGYM_DATA_DIR, else the user "
                   "data directory)")
    p.add_argument("--database-url", default=None, metavar="URL",
                   help="any SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (default: $LINGUAGYM_DATABASE_URL, "
                   "else a SQLite file in the data directory)")
    p.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="score and prediction cache, and fetched models and data (default: the command line's, "
                   "$LINGUAGYM_CACHE_DIR else the user cache; DATA_DIR/cache where an earlier server made one)")
    p.add_argument("--token", default=None,
                   help="access token for changes (default: $LINGUAGYM_TOKEN; made up and printed when binding "
                   "beyond localhost)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME[:PORT]", dest="allowed_hosts",
                   help="a further host name the server answers for (repeatable), e.g. the lab machine's name or "
                   "the name a reverse proxy forwards; requests for any other Host are refused (DNS rebinding)")
    p.add_argument("--allow-python-classifiers", action="store_true",
                   help="let capability-test jobs use python:module:function classifiers, which import and run "
                   "code on this machine: only where everyone who can reach the server may run code")
    p.add_argument("--max-upload-mb", type=float, default=8.0, metavar="MB", help="largest upload (default 8)")
    p.add_argument("--threads", type=int, default=8, help="request threads (default 8)")
    g = p.add_argument_group("jobs")
    g.add_argument("--workers", type=int, default=1, metavar="N",
                   help="runs and capability jobs done at once (default 1); on a CPU each gets an equal share of "
                   "its cores (unless $LINGUAGYM_THREADS is set)")
    g.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="where jobs score, as `linguagym run --executor`: local (in this process, the default) or "
                   "ray (on a Ray cluster)")
    g.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --executor ray: the cluster to join (default: start a local one at the first job)")
    p.set_defaults(func=cmd_serve)
    return p


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    require_extra("web", *WEB_MODULES, needed_by="linguagym serve")
    from linguagym.web.app import create_app  # loads flask and sqlalchemy
    from linguagym.web.config import WebConfig  # off --help's path

    if not 0 < args.max_upload_mb <= 1024:
        raise ConfigurationError("--max-upload-mb must be between 0 and 1024")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    if not 0 < args.port < 65536:
        raise ConfigurationError(f"--port {args.port} is not a TCP port", hint="use 1..65535, e.g. 8000")
    if not 1 <= args.threads <= 256:
        raise ConfigurationError("--threads must be between 1 and 256")
    config = WebConfig.build(args.data_dir, args.database_url, host=args.host, token=args.token,
                             max_upload=int(args.max_upload_mb * 1024 * 1024), cache_dir=args.cache_dir,
                             port=args.port, allowed_hosts=tuple(args.allowed_hosts),
                             allow_python_classifiers=args.allow_python_classifiers, workers=args.workers,
                             executor=args.executor, ray_address=args.ray_address)
    require_database_driver(config.database_url, needed_by="--database-url")
    app = create_app(config)
    from linguagym.web.server import create_server  # off --help's path

    try:
        try:
            server = create_server(app, args.host, args.port, threads=args.threads)
        except OSError as error:
            raise ConfigurationError(f"cannot listen on {args.host}:{args.port}: {error.strerror}",
                                     hint="pick another --port, or stop what uses it") from None
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(f"linguagym serving http://{shown}:{args.port}/  (data: {config.data_dir})", flush=True)
        if config.token_required:
            print(f"changes need the access token: {config.token}", flush=True)
        if config.allow_python_classifiers:
            print("python:module:function classifiers are allowed: web users can run code on this machine",
                  flush=True)
        server.run()
    finally:
        app.extensions["worker"].stop()
    return 0
