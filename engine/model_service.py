"""Choosing, getting and dropping models: the use cases behind Settings → Model and
``tic-desktop model``. Reached through the façade as ``Engine.models``.

- the catalog as it fits this computer, and the files in the workspace's ``models/``;
- downloads from the Hugging Face hub, one worker thread each, reported on the bus
  (``ModelDownloadProgress``, ``ModelDownloadEnded``) and kept running when a window closes;
- using a model (a catalog name, a GGUF file or a server URL): saved in the settings and
  swapped in live by ``Engine.apply_settings``; deleting a downloaded one;
- model servers already running on this machine (Ollama, LM Studio, llama.cpp's server), and
  a watch on the one in use that says when it is down (``ModelServerDown`` / ``ModelServerUp``);
- whether a model choice is usable, and what it could be trusted with (``check_choice``,
  which needs no engine: the Settings dialog checks a file before anything is applied).

It is given what it needs of the engine, not the engine: the workspace, the model that runs,
the bus, the settings in use and the engine's two ways of changing them (saving settings, and
loading the model they choose).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

from engine.accounts.secrets import SecretStoreUnavailable, delete_secret, get_secret, set_secret
from engine.bus import (
    EventBus,
    ModelDownloadEnded,
    ModelDownloadProgress,
    ModelServerDown,
    ModelServerUp,
)
from engine.errors import ModelError, TicError
from engine.llm import library
from engine.llm.capability import gguf_capability
from engine.llm.catalog import CatalogEntry, assess, find_entry, load_catalog
from engine.llm.download import DownloadCancelled, DownloadError, download
from engine.llm.holder import ModelHolder
from engine.llm.llama import LlamaCppModel, validate_model_file
from engine.llm.loading import check_model_choice
from engine.llm.machine import probe_machine
from engine.llm.openai_compat import OpenAICompatModel, is_server_url
from engine.llm.select import default_model_path, resolve_model_path
from engine.llm.servers import (
    discover,
    looks_like_server,
    normalize_url,
    probe,
    server_api_key,
    set_server_api_key,
)
from engine.llm.unavailable import UnavailableModel
from engine.modeltypes import (
    Capability,
    CatalogChoice,
    DownloadState,
    InstalledModel,
    LocalServer,
    MachineInfo,
    ModelOffer,
)
from engine.settings import Settings
from engine.tasks import Periodic, TaskSet
from engine.types import SettingsApplied
from engine.urls import masked_url
from engine.workspace import Workspace

log = logging.getLogger(__name__)

HUB_TOKEN_SECRET = "huggingface-token"
SERVER_WATCH_SECONDS = 30.0
STOPPING_SECONDS = 15.0  # how long a new download waits for a paused one to let go
EMBEDDED = ("embedded", "default")


def hub_token() -> str | None:
    """The user's Hugging Face access token from the keyring (for gated repositories): read
    only when the hub asks for one, so a public model's download never opens the keyring."""
    try:
        return get_secret(HUB_TOKEN_SECRET)
    except SecretStoreUnavailable:
        return None


def check_choice(choice: str) -> Capability:
    """Raise ModelError unless ``choice`` is a usable GGUF file or a model server's URL; else
    what it could be trusted with (a server is capable, a GGUF file is judged by its header).
    Blocking (it reads the file's header): call it off the UI thread."""
    check_model_choice(choice)
    if is_server_url(choice):
        return "capable"
    return gguf_capability(Path(choice).expanduser())


class ModelService:
    def __init__(
        self,
        workspace: Workspace,
        running: ModelHolder,
        bus: EventBus,
        *,
        settings: Callable[[], Settings],
        apply_settings: Callable[[Settings], Awaitable[SettingsApplied]],
        load_model: Callable[[], Awaitable[str | None]],
        catalog_path: Path | None = None,
        machine: Callable[[], MachineInfo] | None = None,
        watch_seconds: float = SERVER_WATCH_SECONDS,
    ):
        """``settings``: the settings in use now; ``apply_settings``: save and use new ones
        (``Engine.apply_settings``); ``load_model``: load the model they choose, returning
        why it could not be (``Engine.load_model``)."""
        self._workspace = workspace
        self._running = running  # the engine's model: what runs now
        self._bus = bus
        self._settings = settings
        self._apply_settings = apply_settings
        self._load_model = load_model
        self.catalog_path = catalog_path
        self.machine_probe = machine  # None: this computer's (tests fake one)
        self._tasks = TaskSet(logger=log, bus=bus)
        self._cancels: dict[str, threading.Event] = {}
        self._waiting: dict[str, asyncio.Future[Path]] = {}
        self._threads: dict[str, threading.Thread] = {}
        self.downloads: dict[str, DownloadState] = {}  # the latest state of each download
        self._watch = Periodic(
            "model-server-watch", self._check_server, interval=watch_seconds, logger=log
        )
        self.server_down: str | None = None  # why the server in use does not answer

    @property
    def models_dir(self) -> Path:
        return self._workspace.models_dir

    # what there is --------------------------------------------------------------------------

    def catalog(self) -> list[CatalogEntry]:
        return load_catalog(self.catalog_path)

    def entry(self, name: str) -> CatalogEntry:
        return find_entry(self.catalog(), name)

    def machine(self) -> MachineInfo:
        if self.machine_probe is not None:
            return self.machine_probe()
        return probe_machine(self.models_dir)

    def in_use(self) -> Path | None:
        """The GGUF file the engine runs now (None for a model server); where it runs none
        (a command line without a model) the one the settings choose."""
        current = self._running.current
        if isinstance(current, LlamaCppModel):
            return current.path
        if isinstance(current, UnavailableModel):
            return self.chosen_file()
        return None

    def chosen_file(self) -> Path | None:
        """The GGUF file the settings choose (None for a model server)."""
        settings = self._settings()
        if is_server_url(settings.model_path):
            return None
        try:
            return resolve_model_path(None, settings, self._workspace)
        except ModelError:
            return None

    def describe_current(self) -> str:
        """The model the engine runs now, in a few words."""
        current = self._running.current
        if isinstance(current, OpenAICompatModel):
            return f"{current.model} at {current.shown_url}"
        settings = self._settings()
        if isinstance(current, UnavailableModel) and is_server_url(settings.model_path):
            return f"{settings.server_model} at {masked_url(str(settings.model_path))}"
        path = self.in_use()
        if path is None:
            return current.name
        entry = {e.file: e for e in self.catalog()}.get(path.name)
        if entry is not None and path.parent == self.models_dir:
            return f"{entry.title} ({entry.name})"
        if path == _embedded():
            return "the embedded SmolLM2-135M"
        return str(path)

    def installed(self) -> list[InstalledModel]:
        return library.installed(self.models_dir, self.in_use())

    def choices(self, machine: MachineInfo | None = None) -> list[CatalogChoice]:
        """The catalog as it fits this computer, with what is downloaded or in use."""
        entries = self.catalog()
        files = {m.path.name: m for m in self.installed()}
        downloaded = frozenset(e.name for e in entries if e.file in files)
        fits = assess(entries, machine or self.machine(), downloaded=downloaded)
        choices = []
        for fit in fits:
            entry = fit.entry
            here = files.get(entry.file)
            choices.append(
                CatalogChoice(
                    name=entry.name,
                    title=entry.title,
                    parameters=entry.parameters,
                    size=entry.size,
                    ram_gb=entry.ram_gb,
                    context_length=entry.context_length,
                    licence=entry.licence,
                    capability=entry.capability,
                    summary=entry.summary,
                    repo=entry.repo,
                    fits=fit.fits,
                    reasons=fit.reasons,
                    recommended=fit.recommended,
                    path=here.path if here else None,
                    partial=0 if here else library.partial_size(self.models_dir, entry.file),
                    in_use=bool(here and here.in_use),
                )
            )
        return choices

    def offer(self) -> ModelOffer | None:
        """What the first-run welcome offers: the recommended catalog model for this computer
        while a tiny model runs (None when a capable one runs, or none fits)."""
        if self._running.capability != "tiny":
            return None
        choice = next((c for c in self.choices() if c.recommended), None)
        if choice is None or choice.in_use:
            return None
        downloaded = choice.path is not None
        return ModelOffer(choice.name, choice.title, choice.size, choice.summary, downloaded)

    async def get_and_use(self, name: str) -> SettingsApplied:
        """The offer's one click: download the catalog model (unless it is here already),
        then use it from now on (see ``use``)."""
        if not (self.models_dir / self.entry(name).file).is_file():
            await self.download(name)
        return await self.use(name)

    # downloads ------------------------------------------------------------------------------

    def downloading(self) -> list[str]:
        return list(self._cancels)

    async def download(
        self,
        name: str,
        on_progress: Callable[[DownloadState], None] | None = None,
        *,
        cancel: threading.Event | None = None,
    ) -> Path:
        """Download a catalog model on a worker thread; progress goes on the bus (and to
        ``on_progress``). DownloadError / DownloadCancelled when it does not finish."""
        entry = self.entry(name)
        registered = self._cancels.get(entry.name)
        if registered is not None and registered is not cancel:
            raise DownloadError(f"{entry.title} is already downloading")
        cancel = cancel if cancel is not None else threading.Event()
        self._cancels[entry.name] = cancel
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Path] = loop.create_future()
        self._waiting[entry.name] = done
        try:
            await self._wait_for_paused(entry)
            if cancel.is_set():
                raise DownloadCancelled("download paused")
            self._start_thread(entry, cancel, done, on_progress)
            path = await done
        except DownloadCancelled:
            self._ended(entry, "cancelled")
            raise
        except TicError as exc:
            self._ended(entry, "failed", str(exc))
            raise
        except Exception as exc:
            self._ended(entry, "failed", f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self._forget(entry.name)
        self._ended(entry, "finished", path=path)
        return path

    def _forget(self, name: str) -> None:
        self._cancels.pop(name, None)
        self._waiting.pop(name, None)

    async def _wait_for_paused(self, entry: CatalogEntry) -> None:
        """A paused download's thread may still be stopping (a stalled connection)."""
        previous = self._threads.get(entry.name)
        if previous is not None and previous.is_alive():
            await asyncio.to_thread(previous.join, STOPPING_SECONDS)
            if previous.is_alive():
                raise DownloadError(f"{entry.title} is still pausing: try again in a moment")

    def _start_thread(
        self,
        entry: CatalogEntry,
        cancel: threading.Event,
        done: asyncio.Future[Path],
        on_progress: Callable[[DownloadState], None] | None,
    ) -> None:
        loop = done.get_loop()

        def report(state: DownloadState) -> None:
            if on_progress is not None:
                on_progress(state)
            if state.phase not in ("finished", "failed", "cancelled"):  # _ended says those
                self.downloads[state.name] = state
                self._bus.publish(ModelDownloadProgress(state))

        def from_thread(callback: Callable[..., object], *args: object) -> None:
            try:
                loop.call_soon_threadsafe(callback, *args)
            except RuntimeError:  # the loop is gone (the app quit): stop here
                cancel.set()

        def settle(result: Path | BaseException) -> None:
            if done.done():
                return
            if isinstance(result, BaseException):
                done.set_exception(result)
            else:
                done.set_result(result)

        def work() -> None:
            try:
                path = download(
                    entry,
                    self.models_dir,
                    token_for=hub_token,
                    on_progress=lambda s: from_thread(report, s),
                    cancel=cancel,
                )
            except BaseException as exc:
                from_thread(settle, exc)
            else:
                from_thread(settle, path)

        thread = threading.Thread(target=work, name=f"download-{entry.name}", daemon=True)
        self._threads[entry.name] = thread
        thread.start()

    def _ended(
        self, entry: CatalogEntry, phase: str, error: str | None = None, path: Path | None = None
    ) -> None:
        self._forget(entry.name)  # no longer downloading, before anyone hears it ended
        last = self.downloads.get(entry.name)
        done = path.stat().st_size if path else library.partial_size(self.models_dir, entry.file)
        state = DownloadState(
            entry.name,
            entry.title,
            done=done,
            total=last.total if last else None,
            phase=phase,
            error=error,
            path=path,
        )
        self.downloads[entry.name] = state
        self._bus.publish(ModelDownloadEnded(state))

    def start_download(self, name: str) -> None:
        """Download in the background (the app: it goes on when a window closes)."""
        entry = self.entry(name)
        if entry.name in self._cancels:
            return
        cancel = threading.Event()
        self._cancels[entry.name] = cancel  # downloading from now on, for the buttons
        self._tasks.spawn(
            self._download_in_background(entry.name, cancel), f"download-{entry.name}"
        )

    async def _download_in_background(self, name: str, cancel: threading.Event) -> None:
        try:
            await self.download(name, cancel=cancel)
        except DownloadCancelled:
            log.info("download of %s paused", name)
        except TicError as exc:  # said on the bus, in one line
            log.warning("download of %s failed: %s", name, exc)

    def cancel_download(self, name: str) -> bool:
        """Pause a download now: its thread stops before writing another chunk (even a
        stalled connection does not hold the caller up); the bytes so far stay."""
        cancel = self._cancels.get(name)
        if cancel is None:
            return False
        cancel.set()
        waiting = self._waiting.get(name)
        if waiting is not None and not waiting.done():
            waiting.set_exception(DownloadCancelled("download paused"))
        return True

    # using and removing ---------------------------------------------------------------------

    def settings_for(self, choice: str, server_model: str | None = None) -> Settings:
        """The settings that choose ``choice``: a catalog name (downloaded), a GGUF file in
        ``models/`` or anywhere, "embedded", or a model server's URL. ModelError if none."""
        current = self._settings()
        text = choice.strip()
        if looks_like_server(text):
            url = normalize_url(text)
            return current.model_copy(
                update={"model_path": url, "server_model": server_model or current.server_model}
            )
        if text.lower() in EMBEDDED:
            return current.model_copy(update={"model_path": str(default_model_path())})
        entry = {e.name: e for e in self.catalog()}.get(text.lower())
        in_models = self.models_dir / text
        if entry is not None:
            path = self.models_dir / entry.file
            if not path.is_file():
                raise ModelError(
                    f"{entry.title} is not downloaded yet: tic-desktop model pull {entry.name}"
                )
        elif "/" not in text and in_models.is_file():
            path = in_models
        else:
            path = Path(text).expanduser()
            if not path.exists() and "/" not in text and not text.endswith(".gguf"):
                raise ModelError(
                    f"no model {text!r}: give a catalog name (tic-desktop model list), "
                    "a .gguf file or a model server's URL"
                )
        validate_model_file(path)
        return current.model_copy(update={"model_path": str(path.resolve())})

    async def use(
        self, choice: str, server_model: str | None = None, *, load: bool = True
    ) -> SettingsApplied:
        """Use ``choice`` from now on: saved in the settings, swapped in live, and (with
        ``load``) loaded. A server's address with a password in it is refused: settings are
        plain text, and the key has its place in the keyring. A server with several chat
        models needs ``server_model``."""
        if looks_like_server(choice) and masked_url(choice) != choice:
            raise ModelError(
                f"{masked_url(choice)}: a server's address is saved in plain text, so it can't "
                "hold a password; use the address without it and give the key with API key… "
                "in Settings → Model (or tic-desktop model key URL)"
            )
        if looks_like_server(choice) and server_model is None:
            server_model = await self.pick_server_model(choice)
        applied = await self._apply_settings(self.settings_for(choice, server_model))
        if load and applied.model_changed and applied.model_error is None:
            error = await self._load_model()
            return SettingsApplied(model_changed=True, model_error=error)
        return applied

    async def pick_server_model(self, url: str) -> str:
        """The server's one chat model; ModelError naming them when it has several."""
        server = await asyncio.to_thread(probe, url, key_for=server_api_key)
        if server.error is not None:
            raise ModelError(f"{masked_url(server.url)}: {server.error}")
        names = [m.id for m in server.models]
        if len(names) == 1:
            return names[0]
        if not names:
            raise ModelError(f"{masked_url(server.url)} offers no chat model")
        shown = masked_url(server.url)
        raise ModelError(f"{shown} offers several models; name one: {', '.join(names)}")

    def remove(self, name: str) -> list[Path]:
        """Delete a downloaded model (by catalog name or file name) and its partial download.
        The model in use, or one downloading, is refused."""
        entries = {e.name: e for e in self.catalog()}
        entry = entries.get(name.strip().lower())
        file = entry.file if entry is not None else Path(name).name
        if entry is not None and entry.name in self._cancels:
            raise ModelError(f"{entry.title} is downloading: cancel the download first")
        path = self.models_dir / file
        in_use = self.in_use()
        if in_use is not None and path.exists() and in_use.resolve() == path.resolve():
            raise ModelError(f"{file} is the model in use: choose another one first")
        deleted = library.remove(self.models_dir, file)
        if not deleted:
            raise ModelError(f"{name} is not in {self.models_dir}")
        return deleted

    # servers and secrets --------------------------------------------------------------------

    async def find_servers(self, urls: list[str] | tuple[str, ...] = ()) -> list[LocalServer]:
        """Model servers on this machine's usual ports, and at ``urls``, with their models.
        A server's API key is read only for ``urls`` and the server in use."""
        in_use = self._settings().model_path
        return await discover(urls, keyed=[in_use] if in_use and is_server_url(in_use) else [])

    @staticmethod
    def set_server_key(url: str, key: str | None) -> None:
        set_server_api_key(url, key)

    @staticmethod
    def set_hub_token(token: str | None) -> None:
        """Keep (or with None forget) the Hugging Face access token in the keyring."""
        if token:
            set_secret(HUB_TOKEN_SECRET, token.strip())
        else:
            delete_secret(HUB_TOKEN_SECRET)

    # the server in use ----------------------------------------------------------------------

    def start(self) -> None:
        self._watch.start()

    async def stop(self) -> None:
        """Stop watching; pause the downloads (their bytes stay for the next start)."""
        await self._watch.stop()
        for name in list(self._cancels):
            self.cancel_download(name)
        await self._tasks.stop()

    async def _check_server(self) -> None:
        url = self._settings().model_path
        if not is_server_url(url):
            self.server_down = None
            return
        assert url is not None
        server = await asyncio.to_thread(probe, url, key_for=server_api_key)
        if server.error is not None and self.server_down is None:
            self.server_down = server.error
            self._bus.publish(ModelServerDown(server.url, server.error))
        elif server.error is None and self.server_down is not None:
            self.server_down = None
            self._bus.publish(ModelServerUp(server.url))

    def check_server_now(self) -> None:
        self._watch.wake()


def _embedded() -> Path:
    try:
        return default_model_path()
    except ModelError:
        return Path("(embedded model missing)")
