"""Google accounts: sign-in in the system browser, tokens kept only in the keyring, and an
authorized connection whose failures are translated into the source error types.

Sign-in is Google's installed-app OAuth flow (a loopback redirect to a one-shot local server,
PKCE). The authorized-user JSON (refresh token included) is stored under ``google:<email>``
and re-saved whenever the access token is refreshed. A revoked or expired grant becomes
:class:`NeedsSignIn`; network trouble, 429 and 5xx become :class:`TransientError`."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httplib2
from google.auth import jwt
from google.auth.exceptions import RefreshError, TransportError
from google.oauth2.credentials import Credentials
from google_auth_httplib2 import AuthorizedHttp
from google_auth_oauthlib.flow import InstalledAppFlow, WSGITimeoutError
from googleapiclient.discovery import Resource, build
from googleapiclient.errors import HttpError
from googleapiclient.http import HttpRequest
from oauthlib.oauth2.rfc6749.errors import OAuth2Error
from requests import RequestException

from engine.accounts.secrets import delete_secret, get_secret, set_secret
from engine.sources.base import NeedsSignIn, SourceError, TransientError
from engine.sources.google import secret_name

log = logging.getLogger(__name__)

GMAIL_SCOPE = "https://www.googleapis.com/auth/gmail.readonly"
CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar.readonly"
# Full scope URLs: Google answers with these spellings, and oauthlib refuses a token whose
# scopes are spelled differently from the request.
SCOPES: tuple[str, ...] = (
    "openid",
    "https://www.googleapis.com/auth/userinfo.email",
    GMAIL_SCOPE,
    CALENDAR_SCOPE,
)
SUCCESS_PAGE = "TIC is signed in to your Google account. You can close this tab."

TOKEN_TIMEOUT = 30.0  # seconds for the sign-in's token exchange (requests has no default)
_TRANSIENT_STATUS = {408, 429, 500, 502, 503, 504}
_RATE_LIMIT_REASONS = {"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"}
_SCOPE_REASONS = {"insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"}
_NETWORK_ERRORS = (OSError, httplib2.HttpLib2Error, http.client.HTTPException, TransportError)


# sign-in -------------------------------------------------------------------------------


async def sign_in(
    client_secret_path: str | Path,
    open_browser: Callable[[str], object],
    *,
    scopes: tuple[str, ...] = SCOPES,
    login_hint: str | None = None,
    timeout_seconds: float = 300.0,
) -> str:
    """Sign in to Google in the system browser; returns the account's email address.

    ``client_secret_path`` is the OAuth client JSON the user downloaded from the Google Cloud
    console ("Desktop app" client). ``open_browser(url)`` is called on the event loop's
    thread (``webbrowser.open`` in the app); it must not wait for the page to load. The
    token is stored in the keyring under ``google:<email>``. Raises SourceError (file
    unusable, access refused, timed out) or SecretStoreUnavailable."""
    loop = asyncio.get_running_loop()

    def open_on_loop(url: str) -> None:
        async def call() -> None:
            open_browser(url)

        try:
            asyncio.run_coroutine_threadsafe(call(), loop).result(timeout=60)
        except Exception as exc:
            raise SourceError(f"could not open the browser for Google sign-in: {exc}") from None

    return await asyncio.to_thread(
        _sign_in_blocking,
        Path(client_secret_path),
        open_on_loop,
        scopes,
        login_hint,
        timeout_seconds,
    )


class _BrowserFlow(InstalledAppFlow):
    """The installed-app flow, opening the authorization URL with a given function."""

    opener: Callable[[str], None]

    def authorization_url(self, **kwargs: Any) -> tuple[str, str]:
        url, state = super().authorization_url(**kwargs)
        self.opener(url)
        return url, state

    def fetch_token(self, **kwargs: Any) -> dict[str, Any]:
        """The code for tokens, within ``TOKEN_TIMEOUT``: the flow passes no timeout, and a
        request without one can wait for ever on a server that stops answering."""
        kwargs.setdefault("timeout", TOKEN_TIMEOUT)
        token: dict[str, Any] = super().fetch_token(**kwargs)
        return token


def _load_flow(path: Path, scopes: tuple[str, ...]) -> _BrowserFlow:
    try:
        return _BrowserFlow.from_client_secrets_file(str(path), scopes=list(scopes))
    except OSError as exc:
        raise SourceError(f"cannot read the OAuth client file {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise SourceError(
            f"{path} is not a Google OAuth client file (download the JSON of a "
            f"'Desktop app' client from the Google Cloud console): {exc}"
        ) from None


def _sign_in_blocking(
    path: Path,
    opener: Callable[[str], None],
    scopes: tuple[str, ...],
    login_hint: str | None,
    timeout_seconds: float,
) -> str:
    flow = _load_flow(path, scopes)
    flow.opener = opener
    extra = {"login_hint": login_hint} if login_hint else {}
    try:
        creds = flow.run_local_server(
            host="127.0.0.1",
            port=0,
            open_browser=False,
            authorization_prompt_message=None,
            success_message=SUCCESS_PAGE,
            timeout_seconds=timeout_seconds,
            prompt="consent",  # always returns a refresh token, also on a second sign-in
            **extra,
        )
    except WSGITimeoutError:
        raise SourceError("Google sign-in timed out: the browser never came back") from None
    except OAuth2Error as exc:
        raise SourceError(f"Google sign-in failed: {exc.error}") from None
    except Warning as exc:  # oauthlib raises (not warns) when fewer scopes were granted
        raise SourceError(
            "Google sign-in did not grant every permission TIC asked for; sign in again "
            f"and allow them all ({exc})"
        ) from None
    except RequestException as exc:
        raise TransientError(f"Google sign-in could not reach Google: {exc}") from None
    finally:
        flow.oauth2session.close()
    if not creds.refresh_token:
        raise SourceError("Google did not return a refresh token; sign in again")
    account = _account_email(creds)
    set_secret(secret_name(account), creds.to_json())
    log.info("signed in to Google as %s", account)
    return account


def _account_email(creds: Credentials) -> str:
    # The ID token came straight from Google's token endpoint over TLS, so its claims are
    # trusted without a signature check (OpenID Connect Core 3.1.3.7).
    if not creds.id_token:
        raise SourceError("Google did not say which account signed in (no ID token)")
    try:
        claims = jwt.decode(creds.id_token, verify=False)
    except ValueError:
        raise SourceError("Google returned an unreadable ID token") from None
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email:
        raise SourceError("Google did not say which account signed in (no email)")
    return email.lower()


def sign_out(account: str) -> bool:
    """Forget the account's tokens; True when there were some."""
    return delete_secret(secret_name(account))


# authorized calls ------------------------------------------------------------------------


def load_credentials(account: str) -> Credentials:
    """The stored credentials of ``account``; NeedsSignIn when there are none usable."""
    raw = get_secret(secret_name(account))
    if raw is None:
        raise NeedsSignIn(f"{account} is not signed in to Google")
    try:
        return Credentials.from_authorized_user_info(json.loads(raw))
    except (ValueError, TypeError, AttributeError):
        raise NeedsSignIn(
            f"the stored Google sign-in of {account} is unreadable; sign in again"
        ) from None


class GoogleApiError(SourceError):
    """A Google API refused a request for a reason retrying will not fix (e.g. 404, 410)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class GoogleSession:
    """One account's authorized connection, shared by the API services built on it.

    Blocking: call it from a worker thread. ``execute`` translates every failure into
    GoogleApiError / TransientError / NeedsSignIn and saves a refreshed token."""

    def __init__(self, account: str, *, timeout: float = 30.0):
        self.account = account
        self.timeout = timeout
        self._http: AuthorizedHttp | None = None
        self._services: dict[tuple[str, str], Resource] = {}
        self._saved_token: str | None = None
        self._loaded_refresh: str | None = None

    def service(self, name: str, version: str, endpoint: str | None = None) -> Resource:
        """The API client ``name``/``version``; ``endpoint`` replaces Google's base URL."""
        key = (name, version)
        if key not in self._services:
            self._services[key] = build(
                name,
                version,
                http=self._authorized(),
                static_discovery=True,
                cache_discovery=False,
                client_options={"api_endpoint": endpoint} if endpoint else None,
            )
        return self._services[key]

    def execute(self, request: HttpRequest) -> dict[str, Any]:
        try:
            return request.execute()
        except HttpError as exc:
            raise self._http_error(exc) from None
        except RefreshError as exc:
            if exc.retryable:
                raise TransientError(f"Google sign-in service unavailable: {exc}") from None
            self.reset()
            raise NeedsSignIn(
                f"Google access for {self.account} was revoked or expired; sign in again"
            ) from None
        except _NETWORK_ERRORS as exc:
            raise TransientError(f"cannot reach Google: {exc or type(exc).__name__}") from None
        finally:
            self._save_if_refreshed()

    def reset(self) -> None:
        """Drop the connection; the next call reloads the credentials from the keyring."""
        if self._http is not None:
            self._http.close()
        self._http = None
        self._services.clear()
        self._saved_token = None

    close = reset

    def _authorized(self) -> AuthorizedHttp:
        if self._http is None:
            creds = load_credentials(self.account)
            self._saved_token = creds.token
            self._loaded_refresh = creds.refresh_token
            # One refresh on a 401; a second 401 means the grant is gone.
            self._http = AuthorizedHttp(
                creds, http=httplib2.Http(timeout=self.timeout), max_refresh_attempts=1
            )
        return self._http

    def _save_if_refreshed(self) -> None:
        if self._http is None:
            return
        creds: Credentials = self._http.credentials
        if not creds.token or creds.token == self._saved_token:
            return
        stored = get_secret(secret_name(self.account))
        if stored is None or json.loads(stored).get("refresh_token") != self._loaded_refresh:
            # The user signed out, or in again, meanwhile: never undo that with old tokens.
            self.reset()
            return
        set_secret(secret_name(self.account), creds.to_json())
        self._saved_token = creds.token

    def _http_error(self, exc: HttpError) -> SourceError:
        status = exc.resp.status
        reasons = _reasons(exc)
        what = f"Google API error {status} ({', '.join(sorted(reasons)) or exc.reason})"
        if status == 401:
            self.reset()
            return NeedsSignIn(
                f"Google rejected the sign-in of {self.account} after a refresh; sign in again"
            )
        if status == 403 and reasons & _SCOPE_REASONS:
            self.reset()
            return NeedsSignIn(f"{self.account} did not grant TIC this access; sign in again")
        if status in _TRANSIENT_STATUS or (status == 403 and reasons & _RATE_LIMIT_REASONS):
            return TransientError(what)
        return GoogleApiError(status, what)


def _reasons(exc: HttpError) -> set[str]:
    """The machine-readable reasons of a Google error body (both error formats)."""
    try:
        body = json.loads(exc.content.decode("utf-8", "replace"))
    except (ValueError, AttributeError):
        return set()
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return set()
    found = {e.get("reason") for e in error.get("errors", []) if isinstance(e, dict)}
    found |= {d.get("reason") for d in error.get("details", []) if isinstance(d, dict)}
    return {r for r in found if isinstance(r, str)}
