"""The markers a test gets from what it uses (tests/conftest.py applies them at collection),
so a new test is marked without anyone remembering to; pyproject.toml registers them.

- ``desktop``: under ``tests/desktop/``, or uses pytest-qt's ``qtbot`` or ``qapp``.
- ``server``: its module, or an import inside the test, uses a server helper: Dovecot, the
  fake model servers, the fake Hugging Face hub, the fake Google. A test that reaches a
  server some other way (a port where nothing answers, gnome-keyring) marks itself.
- ``slow``: the test calls a helper that runs ``tic-desktop`` as a child process (each one
  starts a Python and imports the engine), or it is in ``MEASURED_SLOW`` below. Modules
  that are long by nature (fuzzing, crash trials, long conversations) mark themselves.
- ``real_model`` is never set here: a test that loads weights marks itself, and the model
  guard (tests/conftest.py) fails it when it does not.
"""

from __future__ import annotations

import inspect
import itertools
import re
import types
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESKTOP_DIR = ROOT / "tests" / "desktop"
DESKTOP_FIXTURES = frozenset({"qtbot", "qapp"})
SERVER_HELPERS = frozenset(
    {
        "tests.sources.dovecot",
        "tests.model_server",
        "tests.llm.fake_servers",
        "tests.llm.fake_hub",
        "tests.sources.fake_google",
    }
)
CHILD_PROCESS_HELPERS = {
    "run_tic": "tests.cli_helpers",
    "start_tic": "tests.deliveries",
    "tic_in_namespace": "tests.mounts",
}

# Tests that took half a second or more each here (``--durations=0`` on the 2-CPU machine,
# shared), by why. A test is named ``path::function`` (all its parameters) or by its full
# id; one renamed since runs in the fast run again, which costs time, not coverage.
_MEASURED: dict[str, tuple[str, ...]] = {
    "child processes (a Python each, importing the engine)": (
        "tests/test_readme.py::test_the_readme_commands_run_headless_with_no_model",
        "tests/test_bench.py::test_a_quick_run_of_one_figure_writes_the_table_and_the_json",
        "tests/test_models_cli.py::test_a_pull_killed_halfway_resumes_from_its_partial_file",
        "tests/test_models_cli.py::test_pull_use_and_rm_without_the_app",
        "tests/test_models_cli.py::test_pull_of_an_unknown_model_or_without_internet_is_one_line",
        "tests/test_models_cli.py::test_servers_lists_what_runs_here",
        "tests/ipc/test_ipc.py::test_cli_ingest_and_tick_are_handed_to_the_running_app",
        "tests/test_launcher.py::test_python_m_tic_cli_is_headless_and_says_where_the_app_is",
        "tests/test_launcher.py::test_python_m_tic_desktop_runs_the_commands",
        "tests/test_plain_install.py::test_extra_only_modules_are_imported_lazily",
        "tests/test_plain_install.py::test_every_third_party_import_is_a_dependency_or_a_lazy_extra",
        "tests/test_plain_install.py::test_every_module_imports_with_the_extras_unimportable",
        "tests/test_layering.py::test_importing_the_whole_engine_loads_no_qt",
        "tests/test_cli_imports.py::test_triage_loads_no_store_keyring_schema_model_runtime_nor_qt",
    ),
    "64 MB or a thousand connections through the channel": (
        "tests/ipc/test_channel_bounds.py::test_a_real_ingest_over_64_mb_beside_the_app_fails_loudly",
        "tests/ipc/test_channel_bounds.py::test_an_app_flooded_with_idle_connections_keeps_answering",
        "tests/ipc/test_channel_bounds.py::test_a_flood_of_bad_requests_writes_a_few_log_lines_not_one_each",
    ),
    "hundreds of messages decided, or every module read": (
        "tests/triage/test_narrow_lines.py::test_a_narrow_line_decides_little_of_a_varied_pool",
        "tests/triage/test_quality.py::test_decisions_meet_the_goals_with_no_model_call[evaluation]",
        "tests/triage/test_quality.py::test_decisions_meet_the_goals_with_no_model_call[generalization]",
        "tests/triage/test_isolation.py::test_hostile_events_are_decided_with_the_good_ones",
        "tests/triage/test_no_test_constants.py::test_the_engine_holds_no_sender_domain_of_the_tests",
        "tests/store/test_store_safety.py::test_history_on_corrupted_stores_is_one_line_never_a_traceback",
        "tests/test_layering.py::test_no_engine_module_imports_qt",
        "tests/test_layering.py::test_no_engine_module_imports_a_front_end_or_the_launcher",
    ),
    "the 98 MB model downloaded from the fake hub": (
        "tests/test_model_service.py::test_a_paused_download_keeps_its_bytes_and_resumes",
        "tests/test_model_service.py::test_a_download_is_reported_on_the_bus_and_then_listed",
        "tests/llm/test_download.py::test_a_corrupt_file_is_rejected_by_its_sha256_and_deleted",
        "tests/llm/test_download.py::test_a_download_reports_progress_and_is_verified_before_it_appears",
        "tests/llm/test_download.py::test_a_dropped_connection_resumes_from_the_bytes_already_there",
        "tests/llm/test_download.py::test_a_gated_repository_needs_the_token_which_never_leaves_the_hub",
        "tests/llm/test_download.py::test_cancel_keeps_the_partial_file_and_the_next_download_resumes",
        "tests/llm/test_download.py::test_the_rate_and_time_left_are_measured",
        "tests/llm/test_download.py::test_the_token_is_asked_for_only_when_the_hub_wants_one",
        "tests/llm/test_download.py::test_without_a_catalog_sha256_the_hubs_is_checked",
        "tests/llm/test_download.py::test_without_any_published_sha256_the_size_and_header_are_checked_and_the_hash_kept",
    ),
    "real waits: delivery batch windows, model retries, the wake settle": (
        "tests/chat/test_delivery.py::test_800_pending_notifications_go_out_20_a_reply_oldest_first",
        "tests/chat/test_delivery.py::test_a_capable_model_that_keeps_failing_gets_the_composed_words",
        "tests/chat/test_delivery.py::test_a_notified_event_is_parsed_once_on_its_way_to_the_reply",
        "tests/chat/test_digest.py::test_since_the_last_look_covers_only_what_came_after",
        "tests/chat/test_hub.py::test_a_bug_in_delivery_is_logged_with_its_traceback_and_counted",
        "tests/chat/test_hub.py::test_a_model_failure_in_delivery_is_one_line_and_not_a_bug",
        "tests/chat/test_hub.py::test_a_model_that_keeps_failing_still_delivers_plainly",
        "tests/chat/test_hub.py::test_failed_resume_keeps_notifications_pending_then_delivers",
        "tests/chat/test_hub.py::test_notifications_after_the_window_make_a_second_message",
        "tests/chat/test_places.py::test_remind_me_later_delivers_the_same_message_again_an_hour_later",
        "tests/store/test_storage_faults.py::test_a_damaged_table_is_reported_once_and_replies_are_not_retried",
        "tests/test_model_service.py::test_notifications_are_delivered_in_plain_words_while_the_server_is_down",
        "tests/test_url_credentials.py::test_a_failing_model_server_leaves_no_password_in_the_log_or_the_store",
        "tests/triage/test_mute_identity.py::test_a_mute_that_would_silence_others_is_not_added_and_says_why",
        "tests/triage/test_mute_identity.py::test_mute_preview_lists_the_rule_and_the_last_30_days",
        "tests/triage/test_runner.py::test_a_big_tick_hands_the_loop_over_while_it_works",
        "tests/triage/test_runner.py::test_a_model_server_down_for_every_try_leaves_no_event_undecided",
        "tests/triage/test_runner.py::test_attempts_are_bounded_and_the_last_decides_without_the_model",
        "tests/triage/test_wake.py::test_a_burst_of_ingests_is_one_check",
        "tests/triage/test_wake.py::test_a_sync_that_stores_events_wakes_a_check",
        "tests/triage/test_wake.py::test_an_ingest_is_checked_within_seconds_without_a_tick",
        "tests/triage/test_wake.py::test_what_arrives_during_a_check_is_checked_when_it_ends",
    ),
    "Dovecot: a wrong password, a restart, or IDLE": (
        "tests/accounts/test_registry.py::test_connect_read_and_disconnect_an_imap_account",
        "tests/sources/test_imap.py::test_mutated_mail_never_blocks_the_mailbox",
        "tests/sources/test_imap.py::test_wrong_password_needs_sign_in",
        "tests/sources/test_imap_idle.py::test_a_failed_sign_in_ends_the_watcher_and_leaves_the_poll",
        "tests/sources/test_imap_idle.py::test_a_server_restart_is_survived_with_a_reconnect",
        "tests/sources/test_imap_idle.py::test_mail_delivered_to_the_server_is_reported_at_once",
        "tests/sources/test_imap_idle.py::test_the_runner_fetches_as_soon_as_idle_says_so",
    ),
}
MEASURED_SLOW = frozenset(test for tests in _MEASURED.values() for test in tests)


def markers_for(item: pytest.Item) -> list[str]:
    """The names of the markers ``item`` gets from what it uses."""
    found = []
    fixtures = set(getattr(item, "fixturenames", ()))
    if DESKTOP_DIR in item.path.parents or fixtures & DESKTOP_FIXTURES:
        found.append("desktop")
    if not isinstance(item, pytest.Function):
        return found
    function = inspect.unwrap(item.function)
    names = _names(function.__code__)
    if names & SERVER_HELPERS or _module_uses(item.module, SERVER_HELPERS):
        found.append("server")  # ``from tests.model_server import ...`` in the test, or atop
    children = any(_is_helper(function, name) for name in names & CHILD_PROCESS_HELPERS.keys())
    if children or _measured_slow(item):
        found.append("slow")
    return found


def _measured_slow(item: pytest.Function) -> bool:
    where = item.path.relative_to(ROOT).as_posix()
    return not MEASURED_SLOW.isdisjoint({f"{where}::{item.originalname}", f"{where}::{item.name}"})


def deselects_every(marker: str, markexpr: str) -> bool:
    """Whether ``-m markexpr`` leaves out every test marked ``marker``, however else it is
    marked: then a directory of such tests need not even be imported (``tests/desktop/``
    imports Qt). False when unsure."""
    names = set(re.findall(r"[A-Za-z_]\w*", markexpr)) - {"and", "or", "not", marker}
    if not markexpr.strip() or len(names) > 8:
        return False
    try:
        from _pytest.mark.expression import Expression  # pytest's own -m parser

        expression = Expression.compile(markexpr)
        for values in itertools.product((False, True), repeat=len(names)):
            on = {marker} | {n for n, v in zip(sorted(names), values, strict=True) if v}
            if expression.evaluate(_marked(on)):
                return False
    except Exception:  # another pytest, or an expression it cannot read: collect all
        return False
    return True


def _marked(on: set[str]) -> Callable[..., bool]:
    """A matcher for pytest's expressions: a test marked with ``on`` (no marker arguments)."""

    def matches(name: str, /, **kwargs: object) -> bool:
        return not kwargs and name in on

    return matches


def _names(code: types.CodeType) -> set[str]:
    """The global names and modules ``code`` refers to, its nested functions' included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _is_helper(function: types.FunctionType, name: str) -> bool:
    value = function.__globals__.get(name)
    return getattr(value, "__module__", None) == CHILD_PROCESS_HELPERS[name]


@cache
def _module_uses(module: types.ModuleType, helpers: frozenset[str]) -> bool:
    """Whether ``module`` imported one of the ``helpers`` modules, or something from one."""
    for value in vars(module).values():
        name = value.__name__ if isinstance(value, types.ModuleType) else None
        if (name or getattr(value, "__module__", None)) in helpers:
            return True
    return False
