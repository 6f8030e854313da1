"""base.shared_work: tasks shared with a forked copy of this process give exactly what doing
them all here gives, in order, whatever the child does."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from rulesdsl.base.shared_work import jobs, shared_map

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_shared_tasks_come_back_in_order_each_done_once_and_some_by_the_child(tmp_path: Path):
    parent = os.getpid()

    def work(i: int) -> list:
        # each task leaves a mark of the process that did it; the parent's first task waits until
        # the child has taken one, so both processes certainly work
        (tmp_path / f"{i}.{os.getpid()}").touch()
        if os.getpid() == parent and not any(p.suffix != f".{parent}" for p in tmp_path.iterdir()):
            deadline = time.monotonic() + 60
            while not any(p.suffix != f".{parent}" for p in tmp_path.iterdir()):
                assert time.monotonic() < deadline, "the child took no task"
                time.sleep(0.01)
        return [i, i * i]

    got = shared_map(40, work, processes=2, order=list(reversed(range(40))))
    assert got == [[i, i * i] for i in range(40)]
    marks = sorted(p.name for p in tmp_path.iterdir())
    assert sorted(int(m.split(".")[0]) for m in marks) == list(range(40))     # every task done once
    assert {m.split(".")[1] for m in marks} - {str(parent)}, "the child did some of them"


def test_what_a_failing_child_did_not_report_is_done_here():
    parent = os.getpid()

    def work(i: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return i + 1

    assert shared_map(25, work, processes=2) == [i + 1 for i in range(25)]


def _unreadable_after(first: int):
    """A decoder that refuses its first result and, with `first` 0, every one after it."""
    calls = []

    def decode(r: str) -> str:
        calls.append(r)
        if first == 0 or len(calls) == 1:
            raise ValueError("unreadable")
        return r
    return decode


@pytest.mark.parametrize("tasks, size, first", [
    (12, 0, 0),         # every result the child sends is refused
    (40, 20000, 1),     # its first only, among results far beyond a pipe's room: read to the end, or it waits
])
def test_a_result_the_parent_cannot_read_back_makes_every_task_of_the_childs_done_here(tasks, size, first):
    parent = os.getpid()
    made_here = []

    def work(i: int) -> str:
        if os.getpid() == parent:
            made_here.append(i)
        return f"r{i}:" + "x" * size

    got = shared_map(tasks, work, decode=_unreadable_after(first), processes=2)
    assert got == [f"r{i}:" + "x" * size for i in range(tasks)]
    assert sorted(set(made_here)) == list(range(tasks))


def test_encoded_results_are_decoded():
    got = shared_map(10, lambda i: (i, str(i)), encode=list, decode=tuple, processes=2)
    assert got == [(i, str(i)) for i in range(10)]


def test_one_process_when_asked_or_when_another_thread_runs(monkeypatch):
    monkeypatch.delenv("RULESDSL_TEST_JOBS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    counted = threading.active_count
    monkeypatch.setattr(threading, "active_count", lambda: 1)    # whatever threads the test run has left
    assert jobs(5000, 100, "RULESDSL_TEST_JOBS") == 2
    assert jobs(50, 100, "RULESDSL_TEST_JOBS") == 1
    monkeypatch.setenv("RULESDSL_TEST_JOBS", "1")
    assert jobs(5000, 100, "RULESDSL_TEST_JOBS") == 1
    monkeypatch.setenv("RULESDSL_TEST_JOBS", "2")
    assert jobs(5, 100, "RULESDSL_TEST_JOBS") == 2
    monkeypatch.delenv("RULESDSL_TEST_JOBS")
    monkeypatch.setattr(threading, "active_count", counted)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert jobs(5000, 100, "RULESDSL_TEST_JOBS") == 1     # a fork would copy this thread's locks, not the other
    finally:
        stop.set()
        other.join()
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert jobs(5000, 100, "RULESDSL_TEST_JOBS") == 1


def test_the_parents_other_work_is_done_once_here_before_it_takes_a_task():
    parent = os.getpid()
    seen: list = []

    def work(i: int) -> int:
        if os.getpid() == parent:
            seen.append(("task", i))
        return -i

    def meanwhile() -> None:
        assert os.getpid() == parent
        seen.append("meanwhile")

    for processes in (1, 2):
        seen.clear()
        assert shared_map(30, work, processes=processes, meanwhile=meanwhile) == [-i for i in range(30)]
        assert seen[0] == "meanwhile" and seen.count("meanwhile") == 1


def test_the_childs_first_work_is_done_there_once_before_its_tasks_and_never_here(tmp_path: Path):
    parent = os.getpid()
    state = {"first": 0}

    def in_child() -> None:
        state["first"] += 1
        (tmp_path / f"first.{os.getpid()}.{state['first']}").touch()

    def work(i: int) -> int:
        # a task marks who did it and how often that process had done its first work by then;
        # a task of the parent's waits until the child has done one, so the child certainly works
        (tmp_path / f"task.{i}.{os.getpid()}.{state['first']}").touch()
        deadline = time.monotonic() + 60
        while os.getpid() == parent and not any(p.name.startswith("task.") and p.name.split(".")[2] != str(parent)
                                                for p in tmp_path.iterdir()):
            assert time.monotonic() < deadline, "the child took no task"
            time.sleep(0.01)
        return i * 3

    assert shared_map(30, work, processes=2, in_child=in_child) == [i * 3 for i in range(30)]
    marks = [p.name.split(".") for p in tmp_path.iterdir()]
    firsts = [m for m in marks if m[0] == "first"]
    tasks = [m for m in marks if m[0] == "task"]
    assert len(firsts) == 1 and firsts[0][1] != str(parent) and firsts[0][2] == "1"
    assert {m[3] for m in tasks if m[2] == firsts[0][1]} == {"1"}        # each child task after it
    assert {m[3] for m in tasks if m[2] == str(parent)} <= {"0"} and state["first"] == 0     # (it may take none)
    for p in tmp_path.iterdir():
        p.unlink()
    assert shared_map(5, lambda i: i, processes=1, in_child=in_child) == list(range(5))
    assert not any(p.name.startswith("first.") for p in tmp_path.iterdir())


def test_when_this_process_fails_the_child_is_stopped_and_the_error_comes_through(tmp_path: Path):
    parent = os.getpid()

    def work(i: int) -> int:
        if os.getpid() != parent:
            (tmp_path / "child-started").touch()
            _until_stopped(tmp_path)    # only being stopped ends it (a copy left running ends after a while)
        return i

    def meanwhile() -> None:
        deadline = time.monotonic() + 60
        while not (tmp_path / "child-started").exists():
            assert time.monotonic() < deadline, "the child took no task"
            time.sleep(0.01)
        raise KeyError("the page failed")

    with pytest.raises(KeyError, match="the page failed"):
        shared_map(4, work, processes=2, meanwhile=meanwhile)
    assert not (tmp_path / "ran-out").exists(), "the child was not stopped"


def test_work_beside_gives_its_bytes_or_none_and_can_be_stopped(tmp_path: Path):
    from rulesdsl.base.shared_work import beside
    assert beside(lambda: b"made" * 50000).result() == b"made" * 50000     # more than a pipe holds
    assert beside(lambda: b"x", processes=1).result() is None                # not started: the caller does it

    def fails() -> bytes:
        raise RuntimeError("no")
    assert beside(fails).result() is None

    def forever() -> bytes:
        (tmp_path / "started").touch()
        _until_stopped(tmp_path)
        return b"ran out"
    running = beside(forever)
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, "the work did not start"
        time.sleep(0.01)
    running.cancel()                       # returns once the copy is gone (waited for: no zombie)
    assert running.result() is None
    assert not (tmp_path / "ran-out").exists(), "the copy was not stopped"


def _until_stopped(folder: Path) -> None:
    """Work that only a stop ends: had nothing stopped it, it gives up after two minutes and
    leaves a mark (so a copy left running fails the test instead of hanging it)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.05)
    (folder / "ran-out").touch()
