"""``linguagym serve``'s parser (hooked into the main CLI by ``add_serve_parser``)."""

from __future__ import annotations

import argparse

import pytest

from linguagym.cli.serve import add_serve_parser
from linguagym.errors import ConfigurationError


def _parse(*argv):
    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


def test_defaults_bind_localhost():
    args = _parse()
    assert args.host == "127.0.0.1" and args.port == 8000 and args.data_dir is None and args.token is None


def test_bad_upload_limit_is_a_user_error(tmp_path):
    args = _parse("--data-dir", str(tmp_path), "--max-upload-mb", "0")
    with pytest.raises(ConfigurationError, match="max-upload-mb"):
        args.func(args)
