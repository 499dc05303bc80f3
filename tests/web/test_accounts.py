"""Accounts on a lab server, through Flask's test client: local single-user mode unchanged; signing in and out
(throttled, CSRF-checked, a fresh session); sign-up off unless an admin turns it on; rows owned by who made them
and changed or deleted only by their owner or an admin, who alone see the buttons for it; sign-up throttled per
address, look-alike names refused; the access token acting as an admin; the users page for admins only;
``linguagym users``."""

from __future__ import annotations

import io
import json
import re

import pytest

from linguagym.web import db
from linguagym.web.auth.accounts import create_user, set_signup_open
from tests.capabilities.lct_fakes import document
from tests.conftest import minimal_suite
from tests.web.conftest import Client

ALICE, BOB, CAROL = ("alice", "alice-password"), ("bob", "bob-password"), ("carol", "carol-password")
KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


def _add(app, name, password, *, admin=False):
    with app.extensions["sessions"].begin() as session:
        return create_user(session, name, password, admin=admin).id


def _csrf(client):
    client.csrf = re.search(r'name="csrf-token" content="([^"]+)"', client.raw.get("/suites").text).group(1)


def _sign_in(app, user) -> Client:
    client = Client(app)
    response = client.raw.post("/login", data={"username": user[0], "password": user[1], "csrf": client.csrf})
    assert response.status_code == 302, response.text
    _csrf(client)
    return client


@pytest.fixture
def lab(app):
    """A server with accounts: alice (admin), bob and carol (users)."""
    _add(app, *ALICE, admin=True)
    _add(app, *BOB)
    _add(app, *CAROL)
    return app


def _upload(client, suite=None, name="tiny"):
    text = json.dumps(suite or minimal_suite(meta={"name": name, "metric": "sum"}))
    return client.post("/suites/upload", data={"suite_text": text})


def _row(app, model, row_id):
    with app.extensions["sessions"]() as session:
        return session.get(model, row_id)


def _owner(app, model, row_id):
    record = _row(app, model, row_id)
    if record is None or record.owner_id is None:
        return None
    return _row(app, db.UserRecord, record.owner_id).username


def _upload_test_file(client, name="t"):
    content = json.dumps({**document(), "note": name}).encode()  # another note, another file
    return client.post("/capabilities/upload", data={"tests_file": (io.BytesIO(content), f"{name}.json")},
                       content_type="multipart/form-data")


def _start_run(client, model, suite_id=1):
    response = client.post("/runs", data={"suite": [str(suite_id)], "other_models": str(model), "device": "cpu",
                                          "batch_size": "8", "policy": "all"})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


# ------------------------------------------------------------------------------------------------ modes


def test_single_user_mode_needs_no_sign_in_and_owns_nothing(app, client):
    assert _upload(client).status_code == 302
    assert _row(app, db.SuiteRecord, 1).owner_id is None
    page = client.get("/suites").text
    assert "Owner" not in page and "Sign in" not in page and "sign-out" not in page
    assert ">edit</a>" in page and 'id="delete-suite"' in client.get("/suites/1").text  # every button, as before
    assert "no token is needed" in client.get("/login").text
    assert client.post("/suites/1/delete").status_code == 302
    assert _row(app, db.SuiteRecord, 1) is None
    assert client.get("/users").status_code == 200  # the local user may make the first account


def test_the_first_user_made_on_the_users_page_is_an_admin_and_turns_accounts_on(app, client):
    made = client.post("/users", data={"username": "alice", "password": "alice-password"})
    assert made.status_code == 302 and made.headers["Location"].startswith("/login")
    assert _row(app, db.UserRecord, 1).is_admin
    refused = _upload(client)  # the same browser, not signed in: now a change needs an account
    assert refused.status_code == 403 and "Sign in to make changes" in refused.text
    assert "/login?next=" in refused.text


def test_sign_in_gives_a_fresh_session_and_sign_out_ends_it(lab):
    client = Client(lab)
    assert "Sign in" in client.get("/suites").text
    assert _upload(client).status_code == 403
    wrong = client.raw.post("/login", data={"username": "alice", "password": "nope-nope", "csrf": client.csrf})
    assert wrong.status_code == 403 and "Wrong username or password" in wrong.text
    unknown = client.raw.post("/login", data={"username": "zed", "password": "nope-nope", "csrf": client.csrf})
    assert unknown.status_code == 403 and "Wrong username or password" in unknown.text  # no hint which was wrong
    no_csrf = client.raw.post("/login", data={"username": "alice", "password": ALICE[1]})
    assert no_csrf.status_code == 400
    old = client.csrf
    signed = client.raw.post("/login", query_string={"next": "/runs"},
                             data={"username": "ALICE", "password": ALICE[1], "csrf": old})  # any case
    assert signed.status_code == 302 and signed.headers["Location"] == "/runs"
    _csrf(client)
    assert client.csrf != old  # the session was made afresh: the signed-out page's token no longer works
    assert client.raw.post("/suites/upload", data={"suite_text": "{}", "csrf": old}).status_code == 400
    page = client.get("/suites").text
    assert '<span id="signed-in-as">alice' in page and "Sign out" in page and ">Users</a>" in page
    assert _upload(client).status_code == 302
    assert client.post("/logout").status_code == 302
    _csrf(client)
    refused = _upload(client, name="other")
    assert refused.status_code == 403 and "Sign in" in refused.text


def test_wrong_passwords_are_throttled_per_address(lab):
    clock = [1000.0]
    lab.extensions["login_throttle"].clock = lambda: clock[0]
    client = Client(lab)
    for _ in range(5):
        wrong = client.raw.post("/login", data={"username": "bob", "password": "guess-guess", "csrf": client.csrf})
        assert wrong.status_code == 403
    locked = client.raw.post("/login", data={"username": "bob", "password": BOB[1], "csrf": client.csrf})
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) == 60
    assert "Too many wrong passwords" in locked.text
    other = Client(lab)  # another address may still sign in
    page = other.raw.get("/suites", environ_base={"REMOTE_ADDR": "10.0.0.9"}).text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    assert other.raw.post("/login", data={"username": "bob", "password": BOB[1], "csrf": csrf},
                          environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 302
    clock[0] += 61
    assert client.raw.post("/login", data={"username": "bob", "password": BOB[1],
                                           "csrf": client.csrf}).status_code == 302


def test_sign_up_is_off_by_default_and_works_once_an_admin_turns_it_on(lab):
    stranger = Client(lab)
    off = stranger.get("/signup")
    assert off.status_code == 403 and "Sign-up is off" in off.text
    assert stranger.post("/signup", data={"username": "dave", "password": "dave-password"}).status_code == 403
    assert "Sign up" not in stranger.get("/login").text
    alice = _sign_in(lab, ALICE)
    assert alice.post("/users/signup", data={"open": "on"}).status_code == 302
    assert "Sign up" in stranger.get("/login").text
    short = stranger.post("/signup", data={"username": "dave", "password": "short"})
    assert short.status_code == 400 and "at least 8" in short.text and 'value="dave"' in short.text
    taken = stranger.post("/signup", data={"username": "Bob", "password": "dave-password"})
    assert taken.status_code == 400 and "already a user called" in taken.text
    made = stranger.post("/signup", data={"username": "dave", "password": "dave-password"})
    assert made.status_code == 302
    _csrf(stranger)
    assert '<span id="signed-in-as">dave' in stranger.get("/suites").text  # signed in as the new user
    assert _upload(stranger).status_code == 302 and _owner(lab, db.SuiteRecord, 1) == "dave"
    with lab.extensions["sessions"]() as session:
        dave = session.query(db.UserRecord).filter_by(username="dave").one()
        assert not dave.is_admin and dave.password_hash.startswith("scrypt:")
        set_signup_open(session, False)
        session.commit()
    assert stranger.get("/signup").status_code == 302  # signed in already: back to the suites


# ------------------------------------------------------------------------------------------------ ownership


def test_what_a_user_makes_is_theirs(lab, tiny_lm_dir):
    bob = _sign_in(lab, BOB)
    assert _upload(bob).status_code == 302
    saved = bob.post("/api/suites", json={"suite": minimal_suite(meta={"name": "edited", "metric": "sum"})})
    assert saved.status_code == 200 and saved.json["ok"]
    assert _owner(lab, db.SuiteRecord, 1) == _owner(lab, db.SuiteRecord, 2) == "bob"
    run_id = _start_run(bob, tiny_lm_dir)
    assert _owner(lab, db.RunRecord, run_id) == "bob"
    assert _upload_test_file(bob).status_code == 302 and _owner(lab, db.TestFileRecord, 1) == "bob"
    job = bob.post("/capabilities/jobs/test", data={"test_file": "1", "classifier": KEYWORDS})
    assert job.status_code == 302 and _owner(lab, db.CapabilityJob, 1) == "bob"
    generate = bob.post("/capabilities/jobs/generate", data={"lc": ["LC2"], "dataset": "rotten-tomatoes"})
    assert generate.status_code == 302 and _owner(lab, db.CapabilityJob, 2) == "bob"
    listed, shown = '<td class="owner">bob</td>', '<span id="owner">bob</span>'
    for url, marker in (("/suites", listed), ("/suites/1", shown), ("/runs", listed), (f"/runs/{run_id}", shown),
                        ("/capabilities", listed), ("/capabilities/files/1", shown),
                        ("/capabilities/jobs", listed), ("/capabilities/jobs/1", shown),
                        ("/capabilities/jobs/2", shown)):
        assert marker in Client(lab).get(url).text, url  # shown to anyone, signed in or not


def test_another_user_cannot_change_or_delete_what_is_not_theirs_and_an_admin_can(lab, tiny_lm_dir):
    bob, carol, alice = _sign_in(lab, BOB), _sign_in(lab, CAROL), _sign_in(lab, ALICE)
    assert _upload(bob).status_code == 302
    run_id = _start_run(bob, tiny_lm_dir)
    assert _upload_test_file(bob).status_code == 302
    assert bob.post("/capabilities/jobs/test", data={"test_file": "1", "classifier": KEYWORDS}).status_code == 302
    assert _upload_test_file(bob, "unused").status_code == 302  # no job uses it: it can be deleted

    delete = carol.post("/suites/1/delete")
    assert delete.status_code == 403
    assert "The suite &#39;tiny&#39; belongs to bob: only bob or an admin may change or delete it." in delete.text
    changed = minimal_suite(meta={"name": "tiny", "metric": "sum", "author": "carol"})
    edit = carol.post("/api/suites", json={"suite": changed})  # a new version is a change of the suite
    assert edit.status_code == 403 and "belongs to bob" in edit.json["error"]
    assert _upload(carol, changed).status_code == 403
    same = _upload(carol)  # identical content stores nothing, so it changes nothing
    assert same.status_code == 302
    for url in (f"/runs/{run_id}/name", f"/runs/{run_id}/cancel", f"/runs/{run_id}/delete"):
        refused = carol.post(url, data={"name": "mine"})
        assert refused.status_code == 403 and f"Run {run_id} belongs to bob" in refused.text, url
    for url in ("/capabilities/files/2/delete", "/capabilities/jobs/1/cancel"):
        assert carol.post(url).status_code == 403, url
    with lab.extensions["sessions"]() as session:
        assert [v.number for v in session.get(db.SuiteRecord, 1).versions] == [1]
        run = session.get(db.RunRecord, run_id)
        assert run.name is None and run.status == "queued"
        assert session.get(db.TestFileRecord, 2) is not None and session.get(db.CapabilityJob, 1).status == "queued"

    assert bob.post(f"/runs/{run_id}/name", data={"name": "bob's"}).status_code == 302  # the owner may
    assert alice.post("/api/suites", json={"suite": changed}).json["version"] == 2  # an admin may
    assert alice.post("/capabilities/jobs/1/cancel").status_code == 302
    assert alice.post(f"/runs/{run_id}/cancel").status_code == 302
    assert alice.post(f"/runs/{run_id}/delete").status_code == 302
    assert alice.post("/suites/1/delete").status_code == 302
    assert alice.post("/capabilities/files/2/delete").status_code == 302
    with lab.extensions["sessions"]() as session:
        assert session.get(db.SuiteRecord, 1) is None and session.get(db.RunRecord, run_id) is None
        assert session.get(db.TestFileRecord, 2) is None


# the buttons that change a row, by page, and the marker each leaves in the page's HTML
SUITE_BUTTONS = {"/suites": ">edit</a>", "/suites/1": ('id="edit"', 'id="delete-suite"')}
QUEUED_RUN_BUTTONS = ('id="cancel"', 'id="rename"')
ENDED_RUN_BUTTONS = ('id="resume"', 'id="rename"', 'id="delete-run"')
FILE_BUTTONS, JOB_BUTTONS = ('id="delete-test-file"',), ('id="cancel"',)


def _buttons(client, run_id) -> dict[str, bool]:
    """Which change buttons each page shows ``client``."""
    pages = {url: client.get(url).text for url in ("/suites", "/suites/1", f"/runs/{run_id}",
                                                     "/capabilities/files/1", "/capabilities/jobs/1")}
    return {"suites list": ">edit</a>" in pages["/suites"],
            **{f"suite {m}": m in pages["/suites/1"] for m in SUITE_BUTTONS["/suites/1"]},
            **{f"run {m}": m in pages[f"/runs/{run_id}"] for m in QUEUED_RUN_BUTTONS},
            **{f"file {m}": m in pages["/capabilities/files/1"] for m in FILE_BUTTONS},
            **{f"job {m}": m in pages["/capabilities/jobs/1"] for m in JOB_BUTTONS}}


def test_only_the_owner_and_admins_see_the_buttons_that_change_a_row(lab, tiny_lm_dir):
    bob, carol, alice, anonymous = _sign_in(lab, BOB), _sign_in(lab, CAROL), _sign_in(lab, ALICE), Client(lab)
    assert _upload(bob).status_code == 302
    run_id = _start_run(bob, tiny_lm_dir)
    assert _upload_test_file(bob).status_code == 302
    assert bob.post("/capabilities/jobs/test", data={"test_file": "1", "classifier": KEYWORDS}).status_code == 302

    for who in (bob, alice):
        shown = _buttons(who, run_id)
        assert all(shown.values()), shown
    for who in (carol, anonymous):
        shown = _buttons(who, run_id)
        assert not any(shown.values()), shown
    carol_list, carol_suite = carol.get("/suites").text, carol.get("/suites/1").text
    assert ">copy</a>" in carol_list and 'id="copy"' in carol_suite  # the editor is still hers to copy from
    editor = carol.get("/suites/1/edit").text
    assert 'id="not-yours"' in editor and "belongs to bob: only bob or an admin" in editor
    assert "give it a new name" in editor and 'id="not-yours"' not in bob.get("/suites/1/edit").text
    signed_out = anonymous.get("/suites/1/edit").text
    assert "Sign in to change the suite" in signed_out and "Saving needs a signed-in user" in signed_out
    copy = minimal_suite(meta={"name": "carols-copy", "metric": "sum"})
    assert carol.post("/api/suites", json={"suite": copy}).json["ok"]  # saving under a new name is allowed

    assert bob.post(f"/runs/{run_id}/cancel").status_code == 302  # an ended run: resume, rename, delete
    assert all(marker in bob.get(f"/runs/{run_id}").text for marker in ENDED_RUN_BUTTONS)
    assert all(marker in alice.get(f"/runs/{run_id}").text for marker in ENDED_RUN_BUTTONS)
    assert not any(marker in carol.get(f"/runs/{run_id}").text for marker in ENDED_RUN_BUTTONS)
    assert "Cancel the run to delete it" not in carol.get(f"/runs/{run_id}").text


def test_sign_up_is_throttled_per_address(lab):
    clock = [5000.0]
    lab.extensions["signup_throttle"].clock = lambda: clock[0]
    with lab.extensions["sessions"].begin() as session:
        set_signup_open(session, True)

    def sign_up(name, address="127.0.0.1"):
        stranger = Client(lab)
        return stranger.raw.post("/signup", data={"username": name, "password": "long-password", "csrf": stranger.csrf},
                                 environ_base={"REMOTE_ADDR": address})

    assert [sign_up(f"user{n}").status_code for n in range(3)] == [302, 302, 302]
    refused = sign_up("user3")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 3600
    assert "3 accounts were made from this address within the hour" in refused.text
    assert "wait 60 minutes, or ask an admin" in refused.text and 'value="user3"' in refused.text
    assert _user(lab, "user3") is None
    assert sign_up("user3", "10.0.0.7").status_code == 302  # another address may
    clock[0] += 3601
    assert sign_up("user4").status_code == 302


def _user(app, name):
    with app.extensions["sessions"]() as session:
        return session.query(db.UserRecord).filter_by(username=name).one_or_none()


@pytest.mark.parametrize(("name", "message"), [
    ("   ", "no username given (the name was empty or only spaces)"),
    ("ALICE", "there is already a user called &#39;alice&#39;"),
    ("  Bob ", "there is already a user called &#39;bob&#39;"),
    ("aIice", "the username &#39;aIice&#39; looks too much like the existing user &#39;alice&#39;"),
    ("b0b", "looks too much like the existing user &#39;bob&#39;"),
])
def test_sign_up_refuses_empty_and_look_alike_names(lab, name, message):
    with lab.extensions["sessions"].begin() as session:
        set_signup_open(session, True)
    stranger = Client(lab)
    refused = stranger.post("/signup", data={"username": name, "password": "long-password"})
    assert refused.status_code == 400 and message in refused.text
    with lab.extensions["sessions"]() as session:
        assert session.query(db.UserRecord).count() == 3


def test_look_alike_names():
    from linguagym.web.auth.accounts import look_alike

    assert look_alike("Alice", "alice") and look_alike("aIice", "alice") and look_alike("b0b", "bob")
    assert look_alike("carol1", "caroll")
    assert not look_alike("ali", "all") and not look_alike("bob", "rob") and not look_alike("ann", "anna")


def test_rows_made_before_accounts_are_changed_by_admins_only(app, client):
    assert _upload(client).status_code == 302  # single-user mode: no owner
    _add(app, *ALICE)
    _add(app, *BOB)
    bob = _sign_in(app, BOB)
    assert '<td class="owner">—</td>' in bob.get("/suites").text
    refused = bob.post("/suites/1/delete")
    assert refused.status_code == 403 and "made before this server had accounts" in refused.text
    assert _sign_in(app, ALICE).post("/suites/1/delete").status_code == 302


def test_deleting_a_user_keeps_what_they_made_for_the_admins(lab):
    bob, alice = _sign_in(lab, BOB), _sign_in(lab, ALICE)
    assert _upload(bob).status_code == 302
    assert alice.post("/users/2/delete").status_code == 302
    assert _row(lab, db.UserRecord, 2) is None and _row(lab, db.SuiteRecord, 1).owner_id is None
    assert bob.post("/suites/1/delete").status_code == 403  # bob's session is no one's now
    assert alice.post("/suites/1/delete").status_code == 302


def test_the_access_token_acts_as_an_admin(tmp_path):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    try:
        script = app.test_client()
        # no accounts yet: the users page needs the token on a server that has one
        assert script.get("/users").status_code == 403
        assert script.get("/users", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        _add(app, *ALICE, admin=True)
        _add(app, *BOB)
        assert _upload(_sign_in(app, BOB)).status_code == 302
        wrong = script.post("/suites/1/delete", headers={"Authorization": "Bearer guess"})
        assert wrong.status_code == 403 and "not this server&#39;s access token" in wrong.text
        assert script.get("/users").status_code == 403
        assert script.get("/users", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert script.post("/suites/1/delete", headers={"Authorization": "Bearer s3cret"}).status_code == 302
        made = script.post("/suites/upload", data={"suite_text": json.dumps(minimal_suite())},
                           headers={"Authorization": "Bearer s3cret"})
        suite_id = int(made.headers["Location"].rsplit("/", 1)[1])
        assert made.status_code == 302 and _row(app, db.SuiteRecord, suite_id).owner_id is None  # a script owns none
        forged = script.post(f"/suites/{suite_id}/delete", headers={"Authorization": "Bearer s3cret",
                                                          "Origin": "http://evil.example"})
        assert forged.status_code == 403
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


# ------------------------------------------------------------------------------------------------ the users page


def test_the_users_page_is_for_admins(lab):
    anonymous = Client(lab)
    refused = anonymous.get("/users")
    assert refused.status_code == 403 and "sign in first" in refused.text
    bob = _sign_in(lab, BOB)
    assert bob.get("/users").status_code == 403 and ">Users</a>" not in bob.get("/suites").text
    assert bob.post("/users", data={"username": "eve", "password": "eve-password"}).status_code == 403
    alice = _sign_in(lab, ALICE)
    page = alice.get("/users").text
    assert all(name in page for name in ("alice", "bob", "carol")) and "Sign-up" in page
    made = alice.post("/users", data={"username": "eve", "password": "eve-password", "admin": "on"})
    assert made.status_code == 302
    bad = alice.post("/users", data={"username": "no spaces", "password": "long-enough"})
    assert bad.status_code == 400 and "cannot be used" in bad.text and "letters, digits" in bad.text
    assert alice.post("/users/2/admin", data={"admin": "on"}).status_code == 302
    assert _row(lab, db.UserRecord, 2).is_admin
    assert bob.get("/users").status_code == 200  # bob is an admin now
    carol = _sign_in(lab, CAROL)
    assert alice.post("/users/3/password", data={"password": "new-carol-pw"}).status_code == 302
    assert _upload(carol).status_code == 403  # a new password ends the sessions signed in with the old one
    assert _upload(_sign_in(lab, ("carol", "new-carol-pw"))).status_code == 302
    for user_id in (2, 4):
        assert alice.post(f"/users/{user_id}/admin", data={"admin": "off"}).status_code == 302
    last = alice.post("/users/1/delete")
    assert last.status_code == 400 and "only admin" in last.text
    assert alice.post("/users/99/delete").status_code == 404


def test_the_users_command_adds_the_first_admin(tmp_path, capsys, monkeypatch):
    from linguagym.cli.entry import main
    from linguagym.web import WebConfig, create_app

    data = tmp_path / "d"
    secret = tmp_path / "pw"
    secret.write_text("correct horse\n", encoding="utf-8")
    assert main(["users", "--data-dir", str(data), "add", "alice", "--password-file", str(secret)]) == 0
    assert "added admin alice" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("bob-password\n"))
    assert main(["users", "--data-dir", str(data), "add", "bob", "--password-file", "-"]) == 0
    assert main(["users", "--data-dir", str(data), "add", "bob", "--password-file", str(secret)]) == 1
    assert "already a user called 'bob'" in capsys.readouterr().err
    assert main(["users", "--data-dir", str(data), "list"]) == 0
    assert re.search(r"alice\s+admin\s+bob\s+user", capsys.readouterr().out)
    app = create_app(WebConfig.build(data, start_worker=False))
    try:
        client = _sign_in(app, ("alice", "correct horse"))
        assert _upload(client).status_code == 302
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


def test_wrong_passwords_lock_out_neither_a_known_browser_nor_other_accounts_nor_the_token(tmp_path):
    """Five wrong sign-ins from one address locked out every user there, the right password and the token included
    (issue 43; behind a reverse proxy every user has one address). Now they count against the account at that
    address only, and a browser that signed in as that user before (a signed device cookie) is never locked out
    by someone else's guesses."""
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    try:
        for user in (ALICE, BOB):
            _add(app, *user)
        clock = [1000.0]
        app.extensions["login_throttle"].clock = lambda: clock[0]
        known = _sign_in(app, BOB)  # bob's own browser, signed in before
        assert known.post("/logout").status_code == 302
        _csrf(known)
        guesser = Client(app)  # the same address (127.0.0.1), as behind a proxy
        for _ in range(5):
            assert guesser.raw.post("/login", data={"username": "bob", "password": "guess-guess",
                                                    "csrf": guesser.csrf}).status_code == 403
        assert guesser.raw.post("/login", data={"username": "Bob", "password": BOB[1],
                                                "csrf": guesser.csrf}).status_code == 429  # the guesser waits
        assert known.raw.post("/login", data={"username": "bob", "password": BOB[1],
                                              "csrf": known.csrf}).status_code == 302  # bob's browser does not
        other = Client(app)
        assert other.raw.post("/login", data={"username": "alice", "password": ALICE[1],
                                              "csrf": other.csrf}).status_code == 302  # another account
        token = app.test_client().post("/api/formula", json={"formula": "1 > 0"},
                                       headers={"Authorization": "Bearer s3cret"})
        assert token.status_code == 200  # and the access token
        forged = Client(app)  # a device cookie is signed: a made-up one is no way past the throttle
        forged.raw.set_cookie("linguagym_device", "eyJ1c2VyIjoiYm9iIiwiaWQiOiJ4In0.forged")
        assert forged.raw.post("/login", data={"username": "bob", "password": BOB[1],
                                               "csrf": forged.csrf}).status_code == 429
    finally:
        app.extensions["sessions"].kw["bind"].dispose()
