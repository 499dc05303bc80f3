"""Usernames are unique regardless of case in the database too (revision 0006), on SQLite and PostgreSQL: two
sign-ups that both pass the Python check cannot both succeed, the second gets the check's own answer (page and
``linguagym users add``), and a database that already holds such a pair still starts, with a warning."""

from __future__ import annotations

import logging

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from linguagym.web import db
from linguagym.web.auth import accounts
from linguagym.web.auth.username_index import INDEX
from tests.web.conftest import Client


def _insert(engine, *names):
    """Users written straight into the table, as a second sign-up past the Python check would."""
    with engine.begin() as connection:
        for name in names:
            connection.execute(text("INSERT INTO users (username, password_hash) VALUES (:n, 'x')"), {"n": name})


def _names(engine):
    with engine.connect() as connection:
        return sorted(connection.scalars(text("SELECT username FROM users")))


def _refused(engine, name) -> bool:
    try:
        _insert(engine, name)
    except IntegrityError as error:
        assert "username" in str(error.orig).lower()
        return True
    return False


def _no_python_check(monkeypatch):
    """The other sign-up passed the check too: only the database can tell them apart now."""
    monkeypatch.setattr(accounts, "_check_new_name", lambda session, name: None)


def test_a_fresh_database_refuses_names_equal_but_for_case(database_url):
    engine = db.open_database(database_url).kw["bind"]
    _insert(engine, "alice")
    assert _refused(engine, "ALICE") and _refused(engine, "Alice") and _refused(engine, "alice")
    _insert(engine, "alice2", "aIice")  # other names, look-alikes included (those are the Python check's job)
    assert _names(engine) == ["aIice", "alice", "alice2"]
    engine.dispose()


def test_upgrading_a_0005_database_keeps_its_users_and_adds_the_index(database_url):
    engine = db.make_engine(database_url)
    db.migrate(engine, "0005")
    _insert(engine, "alice", "Bob")
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision() >= "0006"
    assert _names(engine) == ["Bob", "alice"]
    assert _refused(engine, "bob") and not _refused(engine, "carol")
    with engine.begin() as connection:  # and back: the index goes, the users stay
        command.downgrade(db._alembic_config(connection), "0005")
    assert not _refused(engine, "ALICE") and len(_names(engine)) == 4
    engine.dispose()


def test_a_database_with_names_equal_but_for_case_starts_warns_and_gets_the_index_once_fixed(
        database_url, caplog, capsys):
    from linguagym.cli.entry import main

    engine = db.make_engine(database_url)
    db.migrate(engine, "0005")
    _insert(engine, "alice", "Alice", "bob", "BOB", "carol")
    with caplog.at_level(logging.WARNING, logger="linguagym.web"):
        db.migrate(engine)
    [warning] = [r.getMessage() for r in caplog.records if "equal but for case" in r.getMessage()]
    assert "'Alice' and 'alice'; 'BOB' and 'bob'" in warning and "linguagym users remove NAME" in warning
    assert db.current_revision(engine) == db.head_revision()  # upgraded all the same: nothing valid is refused
    assert not _refused(engine, "CAROL")  # (no index yet)

    # the fix the warning names: the exact spelling picks the account; each start warns until none is left
    for extra in ("Alice", "BOB"):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="linguagym.web"):
            assert main(["users", "--database-url", database_url, "remove", extra]) == 0
        assert any("equal but for case" in r.getMessage() for r in caplog.records)
    assert main(["users", "--database-url", database_url, "remove", "CAROL"]) == 0
    assert "removed CAROL" in capsys.readouterr().out
    assert _names(engine) == ["alice", "bob", "carol"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="linguagym.web"):
        db.migrate(engine)  # the next start makes the index
    assert not caplog.records
    assert _refused(engine, "Alice") and _refused(engine, "CAROL")
    engine.dispose()


def test_the_second_of_two_simultaneous_sign_ups_gets_the_name_taken_answer(database_url, monkeypatch):
    sessions = db.open_database(database_url)
    with sessions.begin() as session:
        accounts.create_user(session, "alice", "alice-password")
    _no_python_check(monkeypatch)
    with sessions() as session:
        with pytest.raises(accounts.AccountError, match="there is already a user called 'alice'") as refused:
            accounts.create_user(session, "ALICE", "other-password")
        assert "pick another name" in refused.value.hint
        session.rollback()  # (as the pages do) and the session is usable again: one user
        assert [u.username for u in accounts.list_users(session)] == ["alice"]
    sessions.kw["bind"].dispose()


def test_the_sign_up_page_answers_a_lost_race_with_the_form_error(app, monkeypatch):
    with app.extensions["sessions"].begin() as session:
        accounts.create_user(session, "alice", "alice-password", admin=True)
        accounts.set_signup_open(session, True)
    _no_python_check(monkeypatch)
    refused = Client(app).post("/signup", data={"username": "Alice", "password": "long-password"})
    assert refused.status_code == 400
    assert "there is already a user called &#39;alice&#39;" in refused.text and 'value="Alice"' in refused.text
    with app.extensions["sessions"]() as session:
        assert [u.username for u in accounts.list_users(session)] == ["alice"]


def test_users_add_answers_a_lost_race_with_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    from linguagym.cli.entry import main

    secret = tmp_path / "pw"
    secret.write_text("correct horse\n", encoding="utf-8")
    add = ["users", "--data-dir", str(tmp_path / "d"), "add", "--password-file", str(secret)]
    assert main([*add, "alice"]) == 0
    _no_python_check(monkeypatch)
    capsys.readouterr()
    assert main([*add, "ALICE"]) == 1
    err = capsys.readouterr().err
    assert "there is already a user called 'alice'" in err and "Traceback" not in err
    assert INDEX not in err  # the user's words, not the database's
