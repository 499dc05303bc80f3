"""``linguagym users ...``: the accounts of a ``linguagym serve`` lab server, from the machine it runs on.
``add NAME [--admin]`` makes the first admin (which turns accounts on), ``list``, ``password NAME`` and
``remove NAME``. Passwords come from a prompt or ``--password-file`` (``-``: standard input), never the command
line, where other users of the machine could read them."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from linguagym.cli.output import console
from linguagym.errors import ConfigurationError
from linguagym.extras import require_database_driver, require_extra


def add_users_parser(commands) -> argparse.ArgumentParser:
    """Add the ``users`` command group to ``commands`` (the main parser's subparsers object)."""
    users = commands.add_parser(
        "users", help="accounts of the web server: add the first admin, list, reset passwords, remove",
        description="Accounts of `linguagym serve`. A server with no users is single-user (no sign-in); the first "
        "user added is an admin and turns accounts on. Give the same --data-dir/--database-url as to serve.")
    _server_options(users, default=None)
    sub = users.add_subparsers(dest="users_command", metavar="COMMAND")
    users.set_defaults(func=lambda args: users.print_help() or 0)
    # The server options are taken after the subcommand too (`users add NAME --admin --data-dir D`): there they
    # default to SUPPRESS, so one given before the subcommand is not overwritten by the subparser's default.
    common = argparse.ArgumentParser(add_help=False)
    _server_options(common, default=argparse.SUPPRESS)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, parents=[common])

    p = command("add", "add a user (the first one is always an admin)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--admin", action="store_true", help="may change everything and manage users")
    _password_file(p)
    p.set_defaults(func=cmd_add)

    p = command("list", "list the users")
    p.set_defaults(func=cmd_list)

    p = command("password", "set a user's password")
    p.add_argument("name", metavar="NAME")
    _password_file(p)
    p.set_defaults(func=cmd_password)

    p = command("remove", "remove a user (what they made stays, with no owner: admins change it)")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_remove)
    return users


def _server_options(parser: argparse.ArgumentParser, *, default) -> None:
    parser.add_argument("--data-dir", type=Path, default=default, metavar="DIR",
                        help="the server's data directory (default: $LINGUAGYM_DATA_DIR, else the user data "
                        "directory)")
    parser.add_argument("--database-url", default=default, metavar="URL",
                        help="the server's database (default: $LINGUAGYM_DATABASE_URL, else DATA_DIR's SQLite file)")


def _password_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--password-file", type=Path, default=None, metavar="FILE",
                        help="read the password from the first line of FILE ('-': standard input) instead of a "
                        "prompt")


def _read_password(args: argparse.Namespace) -> str:
    if args.password_file is not None:
        try:
            text = sys.stdin.readline() if str(args.password_file) == "-" else \
                args.password_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigurationError(f"cannot read the password file {args.password_file}: {error}",
                                     hint="give a readable UTF-8 file whose first line is the password") from None
        lines = text.splitlines()
        return lines[0] if lines else ""
    if not sys.stdin.isatty():
        raise ConfigurationError("no terminal to ask for the password",
                                 hint="pass --password-file FILE (or --password-file - to read standard input)")
    first = getpass.getpass(f"password for {args.name}: ")
    if getpass.getpass("again: ") != first:
        raise ConfigurationError("the two passwords differ", hint="run the command again and type the same twice")
    return first


def _open(args: argparse.Namespace):
    require_extra("web", "flask", "sqlalchemy", "alembic", needed_by="linguagym users")
    from linguagym.web.config import WebConfig
    from linguagym.web.db import open_database

    config = WebConfig.build(args.data_dir, args.database_url)
    require_database_driver(config.database_url, needed_by="--database-url")
    return open_database(config.database_url)


def _user(session, name: str):
    from linguagym.web.auth.accounts import find_user

    user = find_user(session, name)
    if user is None:
        raise ConfigurationError(f"there is no user called {name!r}", hint="see `linguagym users list`")
    return user


def cmd_add(args: argparse.Namespace) -> int:
    from linguagym.web.auth.accounts import check_username, create_user

    check_username(args.name)  # before asking for a password
    password = _read_password(args)
    sessions = _open(args)
    with sessions.begin() as session:
        user = create_user(session, args.name, password, admin=args.admin)
        role = "admin" if user.is_admin else "user"
    console().print(f"added {role} {args.name}" + ("" if args.admin or role == "user" else
                                                   " (the first user is always an admin)"))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from linguagym.web.auth.accounts import list_users

    with _open(args).begin() as session:
        users = [(u.username, "admin" if u.is_admin else "user") for u in list_users(session)]
    if not users:
        console().print("no users: the server is in single-user mode (add one with `linguagym users add NAME`)")
    for name, role in users:
        console().print(f"{name}\t{role}", highlight=False, markup=False)
    return 0


def cmd_password(args: argparse.Namespace) -> int:
    from linguagym.web.auth.accounts import set_password

    password = _read_password(args)
    with _open(args).begin() as session:
        set_password(_user(session, args.name), password)
    console().print(f"set a new password for {args.name}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from linguagym.web.auth.accounts import delete_user

    with _open(args).begin() as session:
        delete_user(session, _user(session, args.name))
    console().print(f"removed {args.name}")
    return 0
