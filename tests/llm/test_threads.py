"""Threads for llama.cpp: the cores free now, never more (its threads spin while waiting)."""

from __future__ import annotations

from engine.llm.threads import DECODE_MAX, LoadMeter, ThreadPolicy, choose_threads


def test_an_idle_machine_gets_every_core_for_prompts_and_a_few_for_decoding() -> None:
    assert (choose_threads(0.0, cpus=2).decode, choose_threads(0.0, cpus=2).prompt) == (2, 2)
    big = choose_threads(0.0, cpus=32)
    assert (big.decode, big.prompt) == (DECODE_MAX, 32)


def test_cores_kept_busy_by_others_are_left_to_them() -> None:
    assert choose_threads(1.0, cpus=2).prompt == 1
    assert choose_threads(0.4, cpus=2).prompt == 2  # mostly free
    assert choose_threads(1.6, cpus=2).prompt == 1
    assert choose_threads(6.0, cpus=2).prompt == 1  # never none
    assert "2 CPU(s), 1.0 kept busy" in choose_threads(1.0, cpus=2).why


def test_the_users_setting_wins() -> None:
    choice = ThreadPolicy(fixed=3).choose()
    assert (choice.decode, choice.prompt) == (3, 3)


def test_the_load_meter_needs_a_window_of_a_useful_length() -> None:
    meter = LoadMeter()
    assert meter.others_busy() is None  # a few microseconds: says nothing
    busy = meter.others_busy(wait=True)  # waits the quarter second out
    assert busy is not None and busy >= 0.0


def test_calls_too_close_together_keep_the_previous_choice() -> None:
    policy = ThreadPolicy()
    first = policy.choose()  # measured over a quarter of a second
    assert policy.choose() is first
