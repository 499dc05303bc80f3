"""Parquet copies of run tables (``long.parquet``), with each column's type from ``schema``: pyarrow is optional (the
``parquet`` extra), so it is imported here only."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from pathlib import Path

from linguagym.atomic import atomic_open
from linguagym.evaluation.runfolder import schema


def pyarrow_installed() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def arrow_type(column: str):
    """The Arrow type of a run file's column (``schema``'s sets): int64, bool, float64 or string."""
    import pyarrow as pa

    if column in schema.INTEGER_COLUMNS:
        return pa.int64()
    if column in schema.BOOLEAN_COLUMNS:
        return pa.bool_()
    if column in schema.FLOAT_COLUMNS:
        return pa.float64()
    return pa.string()


def write_parquet(path: Path, columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """``rows`` (as ``runfolder.rows`` builds them: an empty cell is missing) into a Parquet file, written whole."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data: list[list] = [[] for _ in columns]
    numeric = [name in schema.FLOAT_COLUMNS for name in columns]
    for row in rows:
        for values, cell, number in zip(data, row, numeric, strict=True):
            values.append(None if number and cell == "" else cell)  # an undefined value: missing (text stays text)
    table = pa.table({name: pa.array(values, type=arrow_type(name)) for name, values in zip(columns, data,
                                                                                              strict=True)})
    with atomic_open(path, "wb") as handle:
        pq.write_table(table, handle)
