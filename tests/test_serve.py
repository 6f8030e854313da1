"""`rulesdsl serve`: a resident process answering the read-only commands with the knowledge base
kept loaded; the command line asks it first and falls back to running the command itself."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import REPO
from rulesdsl import fastpath

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets only")

JUDGE = (REPO / "examples" / "judge-question.rules").read_text(encoding="utf-8")


def judge_file(folder: Path, weight: int) -> Path:
    """A judge's own question, outside the knowledge base: the README's example with the played
    card at another weight."""
    text = re.sub(r'(card "重い" \{\s*weight )60kg', rf"\g<1>{weight}kg", JUDGE)
    assert text != JUDGE or weight == 60
    path = folder / "judge.rules"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def cache():
    # short: a Unix socket's path is limited to about 100 bytes
    folder = Path(tempfile.mkdtemp(prefix="rs-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def env_for(cache: Path, **extra) -> dict:
    env = dict(os.environ, RULESDSL_CACHE=str(cache), **extra)
    env.pop("RULESDSL_ROOT", None)
    env.pop("RULESDSL_NO_CACHE", None)
    return env


def cli(cache: Path, *args, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulesdsl", *map(str, args)], cwd=REPO,
                          env=env_for(cache, **env), capture_output=True, text=True, timeout=120)


@pytest.fixture
def server(cache):
    proc = subprocess.Popen([sys.executable, "-m", "rulesdsl", "serve", "--idle", "60"], cwd=REPO,
                            env=env_for(cache), stderr=subprocess.PIPE, text=True)
    sock = fastpath.server_socket(cache)
    deadline = time.monotonic() + 60
    while not sock.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)

    def stop() -> str:
        """Stop the server; what it logged."""
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        return err

    yield stop
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


def test_the_server_answers_a_judges_question_exactly_as_the_command_line_does(cache, server, tmp_path):
    question = judge_file(tmp_path, 60)
    alone = cli(cache, "ask", question, RULESDSL_NO_CACHE="1")     # never asks a server
    served = cli(cache, "ask", question)
    log = server()
    assert "after 1 answers" in log
    assert (served.returncode, served.stdout, served.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert served.returncode == 0 and served.stdout.startswith("答え: ")


def test_the_server_reads_an_edited_question_again(cache, server, tmp_path):
    # 60 kg beats the 45 kg top card, which turns face down; 40 kg does not
    assert cli(cache, "ask", judge_file(tmp_path, 60)).returncode == 0
    lighter = cli(cache, "ask", judge_file(tmp_path, 40))
    log = server()
    assert "after 2 answers" in log
    assert lighter.returncode == 1 and "✗" in lighter.stdout


def test_the_server_answers_show_and_check_for_the_bundled_knowledge_base(cache, server):
    shown = cli(cache, "show", "grm/battle/zero-weight", "--as-of", "2026-02-01")
    checked = cli(cache, "check")
    log = server()
    assert "after 2 answers" in log
    assert shown.returncode == 0 and "grm/battle/zero-weight" in shown.stdout
    assert checked.returncode == 0


def test_a_client_running_other_code_is_refused_and_the_server_stops(cache, server):
    reply = fastpath.ask_server(cache, ["show", "grm/battle/zero-weight"], "0" * 40, "other code")
    log = server()
    assert reply is None                  # the client then runs the command itself
    assert "code changed" in log


def test_a_second_server_for_the_same_cache_refuses_to_start(cache, server):
    second = cli(cache, "serve", "--idle", "5")
    server()
    assert second.returncode == 2
    assert "already answering" in second.stderr
    assert "Traceback" not in second.stderr


def test_a_socket_left_by_a_killed_server_is_replaced(cache):
    stale = fastpath.server_socket(cache)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(str(stale))                 # bound, never listening: nobody answers
    assert cli(cache, "show", "grm/battle/zero-weight").returncode == 0   # the client runs it itself
    proc = subprocess.Popen([sys.executable, "-m", "rulesdsl", "serve", "--idle", "1"], cwd=REPO,
                            env=env_for(cache), stderr=subprocess.PIPE, text=True)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "answering" in err and "1 s without a request" in err
    assert not stale.exists()              # removed on the way out
