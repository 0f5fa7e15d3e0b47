"""engine.sources.google_auth against the fake Google over real HTTP: the installed-app
sign-in with a fake browser, tokens in the keyring, refresh and re-save, revoked grants as
NeedsSignIn and server trouble as TransientError."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.accounts.secrets import get_secret, set_secret
from engine.sources.base import NeedsSignIn, SourceError, TransientError
from engine.sources.google.auth import (
    CALENDAR_SCOPE,
    GMAIL_SCOPE,
    SUCCESS_PAGE,
    GoogleApiError,
    GoogleSession,
    secret_name,
    sign_in,
    sign_out,
)
from tests.sources.fake_google import ACCOUNT, FakeBrowser, FakeGoogle, running_google


@pytest.fixture
def google(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGoogle]:
    # oauthlib insists on https for the token endpoint; the fake speaks plain http.
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")
    with running_google(monkeypatch) as fake:
        yield fake


@pytest.fixture
def session(google: FakeGoogle) -> Iterator[GoogleSession]:
    google.sign_in()
    session = GoogleSession(ACCOUNT, timeout=5)
    yield session
    session.close()


def profile(session: GoogleSession, google: FakeGoogle) -> dict:
    users = session.service("gmail", "v1", google.url).users()
    return session.execute(users.getProfile(userId="me"))


# sign-in -----------------------------------------------------------------------------------


async def test_sign_in_in_the_browser_stores_the_token_in_the_keyring(
    google: FakeGoogle, tmp_path: Path
) -> None:
    browser = FakeBrowser()

    account = await sign_in(google.client_secret_file(tmp_path / "client.json"), browser)
    browser.join()

    assert account == ACCOUNT
    assert browser.errors == []
    assert browser.pages == [SUCCESS_PAGE]
    (asked,) = google.auth_requests
    assert browser.opened[0].startswith(f"{google.url}o/oauth2/auth?")
    assert asked["redirect_uri"].startswith("http://127.0.0.1:")
    assert asked["code_challenge_method"] == "S256"  # PKCE, checked by the token endpoint
    assert asked["access_type"] == "offline" and asked["prompt"] == "consent"
    assert {GMAIL_SCOPE, CALENDAR_SCOPE, "openid"} <= set(asked["scope"].split())
    stored = json.loads(get_secret(secret_name(ACCOUNT)) or "{}")
    assert stored["refresh_token"] in google.refresh_tokens
    assert stored["token"] in google.access_tokens
    assert stored["client_id"] == "tic-test.apps.googleusercontent.com"
    assert list(google.keyring.secrets) == [("tic-desktop", f"google:{ACCOUNT}")]


async def test_signed_in_account_can_call_the_api_right_away(
    google: FakeGoogle, tmp_path: Path
) -> None:
    browser = FakeBrowser()
    account = await sign_in(
        google.client_secret_file(tmp_path / "client.json"), browser, login_hint=ACCOUNT
    )
    browser.join()

    assert google.auth_requests[0]["login_hint"] == ACCOUNT
    session = GoogleSession(account, timeout=5)
    try:
        assert profile(session, google)["emailAddress"] == ACCOUNT
    finally:
        session.close()
    assert google.refreshes == 0


async def test_sign_in_refused_in_the_browser_stores_nothing(
    google: FakeGoogle, tmp_path: Path
) -> None:
    google.deny_next_sign_in = True
    browser = FakeBrowser()

    with pytest.raises(SourceError, match="access_denied"):
        await sign_in(google.client_secret_file(tmp_path / "client.json"), browser)
    browser.join()

    assert google.keyring.secrets == {}


async def test_sign_in_times_out_when_the_browser_never_comes_back(
    google: FakeGoogle, tmp_path: Path
) -> None:
    opened: list[str] = []

    with pytest.raises(SourceError, match="timed out"):
        await sign_in(
            google.client_secret_file(tmp_path / "client.json"),
            opened.append,
            timeout_seconds=0.3,
        )

    assert len(opened) == 1 and google.codes == {}
    assert google.keyring.secrets == {}


async def test_a_token_endpoint_that_stops_answering_fails_the_sign_in_in_time(
    google: FakeGoogle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("engine.sources.google.auth.TOKEN_TIMEOUT", 0.1)
    google.stall("/token", 3.0)  # far past the time limit
    browser = FakeBrowser()

    with pytest.raises(TransientError, match="could not reach Google"):
        await sign_in(google.client_secret_file(tmp_path / "client.json"), browser)
    browser.join()

    assert len(google.calls("/token")) == 1 and google.keyring.secrets == {}


async def test_sign_in_reports_an_unusable_client_file(google: FakeGoogle, tmp_path: Path) -> None:
    (tmp_path / "web.json").write_text(json.dumps({"something": {}}))

    with pytest.raises(SourceError, match="not a Google OAuth client file"):
        await sign_in(tmp_path / "web.json", FakeBrowser())
    with pytest.raises(SourceError, match="cannot read the OAuth client file"):
        await sign_in(tmp_path / "missing.json", FakeBrowser())


async def test_a_browser_that_cannot_open_fails_the_sign_in(
    google: FakeGoogle, tmp_path: Path
) -> None:
    def broken(url: str) -> None:
        raise OSError("no display")

    with pytest.raises(SourceError, match=r"could not open the browser.*no display"):
        await sign_in(google.client_secret_file(tmp_path / "client.json"), broken)


def test_sign_out_forgets_the_tokens(google: FakeGoogle) -> None:
    google.sign_in()

    assert sign_out(ACCOUNT) is True
    assert get_secret(secret_name(ACCOUNT)) is None
    assert sign_out(ACCOUNT) is False


# authorized calls --------------------------------------------------------------------------


def test_an_expired_access_token_is_refreshed_and_saved(
    google: FakeGoogle, session: GoogleSession
) -> None:
    before = google.stored_credentials()
    google.expire_access_tokens()  # the API now answers 401 to the stored token

    assert profile(session, google)["emailAddress"] == ACCOUNT

    after = google.stored_credentials()
    assert google.refreshes == 1
    assert before and after and after["token"] != before["token"]
    assert after["token"] in google.access_tokens
    assert after["refresh_token"] == before["refresh_token"]
    assert profile(session, google)["emailAddress"] == ACCOUNT  # no second refresh needed
    assert google.refreshes == 1


def test_a_token_past_its_expiry_is_refreshed_before_the_call(google: FakeGoogle) -> None:
    set_secret(secret_name(ACCOUNT), google.authorized_user_json(expired=True))
    session = GoogleSession(ACCOUNT, timeout=5)
    try:
        profile(session, google)
    finally:
        session.close()

    assert google.refreshes == 1
    assert len(google.calls("/profile")) == 1  # refreshed first, not after a 401
    assert (google.stored_credentials() or {})["token"] in google.access_tokens


def test_a_revoked_grant_needs_sign_in(google: FakeGoogle, session: GoogleSession) -> None:
    google.revoke_refresh_tokens()

    with pytest.raises(NeedsSignIn, match="revoked or expired; sign in again"):
        profile(session, google)

    assert google.refreshes == 0
    assert len(google.calls("/token")) == 1


def test_401_after_a_refresh_needs_sign_in(google: FakeGoogle, session: GoogleSession) -> None:
    google.fail("/profile", 401, times=2)

    with pytest.raises(NeedsSignIn, match="after a refresh"):
        profile(session, google)

    assert google.refreshes == 1  # refreshed once, then gave up
    assert len(google.calls("/profile")) == 2


def test_a_new_sign_in_is_picked_up_after_needs_sign_in(
    google: FakeGoogle, session: GoogleSession
) -> None:
    google.revoke_refresh_tokens()
    with pytest.raises(NeedsSignIn):
        profile(session, google)

    google.sign_in()  # the user signs in again

    assert profile(session, google)["emailAddress"] == ACCOUNT


def test_a_refresh_never_undoes_a_sign_out_or_a_newer_sign_in(
    google: FakeGoogle, session: GoogleSession
) -> None:
    profile(session, google)
    sign_out(ACCOUNT)
    google.expire_access_tokens()

    profile(session, google)  # refreshed with the old grant, which Google still honours

    assert google.refreshes == 1 and google.stored_credentials() is None
    with pytest.raises(NeedsSignIn, match="not signed in"):
        profile(session, google)

    google.sign_in()
    other = GoogleSession(ACCOUNT, timeout=5)
    try:
        profile(other, google)  # ``other`` now holds this grant
        google.sign_in()  # the user signs in once more
        latest = google.stored_credentials()
        google.expire_access_tokens()
        profile(other, google)  # refreshed with the previous grant
    finally:
        other.close()
    assert google.stored_credentials() == latest


def test_no_stored_sign_in_needs_sign_in(google: FakeGoogle) -> None:
    session = GoogleSession("nobody@example.com")
    with pytest.raises(NeedsSignIn, match="not signed in"):
        profile(session, google)
    set_secret(secret_name("nobody@example.com"), "{not json")
    with pytest.raises(NeedsSignIn, match="unreadable"):
        profile(session, google)


@pytest.mark.allow_log_warnings  # googleapiclient logs every 403 it sees
@pytest.mark.parametrize(
    ("status", "reason"),
    [(500, None), (503, None), (429, None), (403, "rateLimitExceeded")],
)
def test_server_trouble_is_transient(
    google: FakeGoogle, session: GoogleSession, status: int, reason: str | None
) -> None:
    google.fail("/profile", status, reason=reason)

    with pytest.raises(TransientError, match=str(status)):
        profile(session, google)

    assert profile(session, google)["emailAddress"] == ACCOUNT  # the next call works


@pytest.mark.allow_log_warnings  # googleapiclient logs every 403 it sees
def test_a_missing_permission_needs_sign_in(google: FakeGoogle, session: GoogleSession) -> None:
    google.fail("/profile", 403, reason="insufficientPermissions")

    with pytest.raises(NeedsSignIn, match="did not grant"):
        profile(session, google)


def test_other_client_errors_are_not_retried(google: FakeGoogle, session: GoogleSession) -> None:
    google.fail("/profile", 400, reason="invalidArgument")

    with pytest.raises(GoogleApiError) as caught:
        profile(session, google)

    assert caught.value.status == 400
    assert not isinstance(caught.value, TransientError | NeedsSignIn)


def test_a_timeout_is_transient(google: FakeGoogle) -> None:
    google.sign_in()
    google.stall("/profile", seconds=1.0)
    session = GoogleSession(ACCOUNT, timeout=0.2)
    try:
        with pytest.raises(TransientError, match="cannot reach Google"):
            profile(session, google)
    finally:
        session.close()


def test_an_unreachable_server_is_transient(google: FakeGoogle) -> None:
    google.sign_in()
    session = GoogleSession(ACCOUNT, timeout=2)
    try:
        users = session.service("gmail", "v1", "http://127.0.0.1:9/").users()
        with pytest.raises(TransientError, match="cannot reach Google"):
            session.execute(users.getProfile(userId="me"))
    finally:
        session.close()
