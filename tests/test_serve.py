"""`rulesdsl serve`: a resident process answering the read-only commands with the knowledge base
kept loaded; the command line asks it first and falls back to running the command itself.

Every wait here is for a condition — a line in the server's log, the server's exit, a thread's
end — never for a guessed delay, and nothing asserts on timing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from conftest import REPO

from rulesdsl.base import cache
from rulesdsl.cli import server as server_module
from rulesdsl.cli import wire

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
def cache_base(monkeypatch):
    # short: a Unix socket's path is limited to about 100 bytes
    folder = Path(tempfile.mkdtemp(prefix="rs-"))
    monkeypatch.setenv("RULESDSL_CACHE", str(folder))
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def env_for(base: Path, **extra) -> dict:
    env = dict(os.environ, RULESDSL_CACHE=str(base))
    env.pop("RULESDSL_ROOT", None)
    env.pop("RULESDSL_NO_CACHE", None)      # unless the test sets it
    env.update(extra)
    return env


def cli(base: Path, *args, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulesdsl", *map(str, args)], cwd=REPO,
                          env=env_for(base, **env), capture_output=True, text=True, timeout=300)


# `rulesdsl serve` as started from a terminal, where Ctrl-C (SIGINT) reaches it whatever the
# disposition this test run inherited (a run started in the background of a script ignores it)
FROM_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                   "from rulesdsl.cli.fastpath import entry; entry()")


class Running:
    """A `rulesdsl serve` subprocess whose log is collected line by line. It is stopped with
    SIGTERM, or with SIGINT (Ctrl-C) when started as from a terminal."""

    def __init__(self, base: Path, *args: str, terminal: bool = False, cwd: Path = REPO, **env: str) -> None:
        start = ["-c", FROM_A_TERMINAL] if terminal else ["-m", "rulesdsl"]
        self.terminal = terminal
        self.proc = subprocess.Popen([sys.executable, *start, "serve", *args], cwd=cwd,
                                     env=env_for(base, **env), stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.lines.append("")          # the end of the log
            self.changed.notify_all()

    def wait_for(self, text: str) -> str:
        """Block until a log line holds `text` (or the server's log ends, which fails)."""
        with self.changed:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                assert not self.lines or self.lines[-1] != "", f"the server ended first:\n{self.log()}"
                self.changed.wait()

    def log(self) -> str:
        return "".join(self.lines)

    def stop(self) -> str:
        """Stop the server and wait for its exit; its whole log."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if self.terminal else signal.SIGTERM)
        self.proc.wait(timeout=120)
        self.reader.join(timeout=120)
        return self.log()


@pytest.fixture
def server(cache_base):
    running = Running(cache_base, "--idle", "600")
    running.wait_for("answering")              # loaded, listening, and its socket in place
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait()


def request(sock_path: Path, value: dict, read: bool = True):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(sock_path))
        wire.send(s, value, 30)
        s.shutdown(socket.SHUT_WR)
        return wire.decode(wire.receive(s, wire.MAX_REPLY, 300)) if read else None


def code() -> str:
    return cache.code_digest()


def test_the_server_answers_a_judges_question_exactly_as_the_command_line_does(cache_base, server, tmp_path):
    question = judge_file(tmp_path, 60)
    alone = cli(cache_base, "ask", question, RULESDSL_NO_CACHE="1")     # never asks a server
    served = cli(cache_base, "ask", question)
    log = server.stop()
    assert "after 1 answers" in log
    assert (served.returncode, served.stdout, served.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert served.returncode == 0 and served.stdout.startswith("答え: ")


def test_with_a_server_running_a_question_asked_again_is_answered_by_it_from_the_kept_output(cache_base, server, tmp_path):
    # the client asks the server first, with its code digest alone: the server keys the command
    # and answers what it kept as the command line would (the client walks no knowledge base)
    question = judge_file(tmp_path, 60)
    first = cli(cache_base, "ask", question)
    again = cli(cache_base, "ask", question, RULESDSL_VERBOSE="1")
    log = server.stop()
    alone = cli(cache_base, "ask", question, RULESDSL_NO_CACHE="1")
    assert "after 2 answers" in log
    assert "answered by the server" in again.stderr
    assert (first.returncode, first.stdout) == (again.returncode, again.stdout) == (alone.returncode, alone.stdout)
    assert again.stderr.replace("rulesdsl: cache: answered by the server\n", "") == alone.stderr


def test_the_server_reads_an_edited_question_again(cache_base, server, tmp_path):
    # 60 kg beats the 45 kg top card, which turns face down; 40 kg does not
    assert cli(cache_base, "ask", judge_file(tmp_path, 60)).returncode == 0
    lighter = cli(cache_base, "ask", judge_file(tmp_path, 40))
    log = server.stop()
    assert "after 2 answers" in log
    assert lighter.returncode == 1 and "✗" in lighter.stdout


def test_the_server_sees_a_knowledge_base_file_added_between_two_questions(cache_base, tmp_path):
    # a resident process keeps the file list, the vocabularies and the documents it read; a file
    # added to the knowledge base (here one declaring the question's own id) is still seen
    kb = tmp_path / "kb"
    for folder in ("cards", "rulings"):
        shutil.copytree(REPO / folder, kb / folder)
    running = Running(cache_base, "--idle", "600", cwd=kb)
    running.wait_for("answering")

    def ask(**env) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "rulesdsl", "ask", str(question)], cwd=kb,
                              env=env_for(cache_base, **env), capture_output=True, text=True, timeout=300)
    question = judge_file(tmp_path, 60)
    first = ask()
    (kb / "rulings" / "grm" / "judge-copy.rules").write_text(JUDGE, encoding="utf-8")
    second = ask()
    alone = ask(RULESDSL_NO_CACHE="1")                  # never asks a server
    log = running.stop()
    assert "after 2 answers" in log
    assert first.returncode == 0 and first.stdout.startswith("答え: ")
    assert second.returncode == 2 and "duplicate-id" in second.stderr
    assert (second.returncode, second.stdout, second.stderr) == (alone.returncode, alone.stdout, alone.stderr)


def test_the_server_answers_show_and_check_for_the_bundled_knowledge_base(cache_base, server):
    shown = cli(cache_base, "show", "grm/battle/zero-weight", "--as-of", "2026-02-01")
    checked = cli(cache_base, "check")
    log = server.stop()
    alone = cli(cache_base, "check", RULESDSL_NO_CACHE="1")
    assert "after 2 answers" in log
    assert shown.returncode == 0 and "grm/battle/zero-weight" in shown.stdout
    assert (checked.returncode, checked.stdout) == (alone.returncode, alone.stdout)
    assert "files checked" in checked.stdout


def test_a_client_running_other_code_is_refused_and_the_server_goes_on(cache_base, server):
    """Any process of the user can send a request naming another code digest: that alone must
    not stop the server (only a real change of its own code files does, below)."""
    show = {"argv": ["show", "grm/battle/zero-weight"], "cwd": str(REPO), "env": {}}
    reply = request(cache.socket_path(REPO), {**show, "code": "other code"})
    answered = request(cache.socket_path(REPO), {**show, "code": code()})
    log = server.stop()
    assert "refused" in reply                # the client then runs the command itself
    assert answered["code"] == 0 and "grm/battle/zero-weight" in answered["stdout"]
    assert "refused a request: the client runs other code" in log and "after 1 answers" in log
    assert "code changed" not in log


def test_the_server_stops_when_its_own_code_files_change(cache_base, tmp_path):
    """A copy of the package, so that its code can be changed for real."""
    from conftest import MINI_GAME, write_kb
    package = tmp_path / "pkg"
    shutil.copytree(REPO / "rulesdsl", package / "rulesdsl", ignore=shutil.ignore_patterns("__pycache__"))
    root = write_kb(tmp_path / "kb", {})
    assert "game mini" in MINI_GAME
    running = Running(cache_base, "--idle", "600", cwd=root, PYTHONPATH=str(package))
    try:
        running.wait_for("answering")
        sock = cache.socket_path(root)
        show = {"argv": ["show", "mini"], "cwd": str(root), "env": {}}
        assert "refused" in request(sock, {**show, "code": "other code"})
        assert request(sock, {**show, "code": code()})["code"] == 0       # still serving
        with open(package / "rulesdsl" / "cli" / "wire.py", "a", encoding="utf-8") as f:
            f.write("\n# changed while the server ran\n")
        assert "refused" in request(sock, {**show, "code": "other code"})
        assert running.proc.wait(timeout=120) == 0
    finally:
        log = running.stop()
    assert "the package's code changed; stopping after 1 answers" in log, log


def test_a_busy_server_refuses_at_once(monkeypatch):
    """The client asks the server before it looks for a kept output: a server running another
    command refuses rather than keep it waiting (in-process: its one run taken)."""
    srv = server_module.Server.__new__(server_module.Server)
    srv.code = code()
    srv.run_lock = threading.Lock()
    srv.run = lambda argv: pytest.fail("a busy server ran a command")
    request = {"argv": ["show", "grm/battle/zero-weight"], "cwd": str(REPO), "env": {}, "code": srv.code}
    with srv.run_lock:
        assert srv.answer(request) == {"refused": "busy with another command"}


def test_refused_by_a_busy_server_the_client_answers_from_its_kept_output(cache_base, tmp_path):
    # a stand-in server that is always busy: the client runs the question itself, keeps the
    # output, and the second time answers from it, exactly as the command line alone
    sock_path = cache.socket_path(REPO)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(sock_path))
    listener.listen(8)
    asked = []

    def busy() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                asked.append(wire.decode(wire.receive(conn, wire.MAX_REQUEST, 30)))
                wire.send(conn, {"refused": "busy with another command"}, 30)
    threading.Thread(target=busy, daemon=True).start()
    try:
        question = judge_file(tmp_path, 60)
        first = cli(cache_base, "ask", question, RULESDSL_VERBOSE="1")
        again = cli(cache_base, "ask", question, RULESDSL_VERBOSE="1")
    finally:
        listener.close()
        sock_path.unlink()
    alone = cli(cache_base, "ask", question, RULESDSL_NO_CACHE="1")
    assert len(asked) == 2 and all(a["argv"] == ["ask", str(question)] for a in asked)
    assert "the server refused: busy with another command" in first.stderr
    assert "output of this command line found" in again.stderr
    assert (first.returncode, first.stdout) == (again.returncode, again.stdout) == (alone.returncode, alone.stdout)


def test_a_request_nested_too_deeply_is_answered_with_a_refusal(monkeypatch):
    """In-process: 200,000 brackets deep; the client gets a reply, the server no RecursionError."""
    log = []
    srv = server_module.Server.__new__(server_module.Server)
    srv.log, srv.served = None, 0
    srv.count_lock = threading.Lock()
    srv.say = log.append
    srv.answer = lambda request: pytest.fail("a request too deep reached the commands")
    client, end = socket.socketpair()
    handling = threading.Thread(target=srv.handle, args=(end,))
    handling.start()
    client.sendall(b"[" * 200_000 + b"]" * 200_000)
    client.shutdown(socket.SHUT_WR)
    reply = wire.decode(wire.receive(client, wire.MAX_REPLY, 30))
    handling.join()
    client.close()
    assert "nested deeper than" in reply["refused"]
    assert len(log) == 1 and "nested deeper than" in log[0]


@pytest.mark.parametrize("data", [b"[" * 200_000, b'{"a":' * 100_000, b"[" * 17 + b"]" * 17])
def test_wire_decode_bounds_the_depth_before_parsing(data):
    with pytest.raises(wire.WireError, match="nested deeper"):
        wire.decode(data)


def test_wire_decode_counts_no_bracket_inside_a_string():
    value = {"argv": ["[" * 100, "{\\\"[["], "env": {"X": "}" * 50}}
    assert wire.decode(json.dumps(value).encode()) == value


def test_a_second_server_for_the_same_knowledge_base_refuses_to_start(cache_base, server):
    second = cli(cache_base, "serve", "--idle", "5")
    server.stop()
    assert second.returncode == 2
    assert "already answering" in second.stderr
    assert "Traceback" not in second.stderr


def test_a_socket_left_by_a_killed_server_is_replaced(cache_base):
    stale = cache.socket_path(REPO)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(str(stale))                 # bound, never listening: nobody answers
    assert cli(cache_base, "show", "grm/battle/zero-weight").returncode == 0   # the client runs it itself
    running = Running(cache_base, "--idle", "1")
    running.wait_for("answering")
    assert running.proc.wait(timeout=120) == 0, running.log()
    log = running.stop()
    assert "1 s without a request" in log
    assert not stale.exists()              # removed on the way out


def test_sigterm_stops_the_server_after_its_answers_and_removes_its_socket(cache_base, server, tmp_path):
    assert cli(cache_base, "ask", judge_file(tmp_path, 60)).returncode == 0
    sock = cache.socket_path(REPO)
    assert sock.exists()
    log = server.stop()                    # SIGTERM
    assert server.proc.returncode == 0, log
    assert "terminated; stopping after 1 answers" in log
    assert not sock.exists()


def test_ctrl_c_stops_a_server_started_from_a_terminal(cache_base):
    running = Running(cache_base, "--idle", "600", terminal=True)
    running.wait_for("answering")
    log = running.stop()                   # SIGINT
    assert running.proc.returncode == 0, log
    assert "interrupted; stopping after 0 answers" in log
    assert not cache.socket_path(REPO).exists()


def test_the_socket_is_private_to_its_user(cache_base, server):
    sock = cache.socket_path(REPO)
    assert sock.parent == cache.kb_dir(REPO)
    assert os.stat(sock.parent).st_mode & 0o777 == 0o700
    assert os.stat(sock).st_mode & 0o777 == 0o600
    server.stop()


def test_the_server_refuses_commands_that_write_and_writes_nothing(cache_base, server, tmp_path):
    messy = tmp_path / "messy.rules"
    messy.write_text('card grm No.1 "x" {weight 1kg}\n', encoding="utf-8")
    before = messy.read_bytes()
    for argv in (["fmt", "--write", str(messy)], ["--root", str(REPO), "fmt", "--write", str(messy)],
                 ["-v", "fmt", "--write", str(messy)], ["wiki", "build", "-d", str(tmp_path / "site")]):
        reply = request(cache.socket_path(REPO), {"argv": argv, "cwd": str(tmp_path), "env": {}, "code": code()})
        assert "refused" in reply, argv
    log = server.stop()
    assert messy.read_bytes() == before
    assert not (tmp_path / "site").exists()
    assert log.count("refused a request") == 4 and "after 0 answers" in log


def test_the_server_decides_where_outputs_are_kept(cache_base, server, tmp_path):
    """Old clients sent the folder and key to write the output under; those are ignored, and so is
    a client's RULESDSL_CACHE."""
    evil = tmp_path / "evil"
    evil.mkdir()
    reply = request(cache.socket_path(REPO), {
        "argv": ["show", "grm/battle/zero-weight"], "cwd": str(REPO), "code": code(),
        "env": {"RULESDSL_CACHE": str(evil), "NO_COLOR": "1"}, "folder": str(evil), "digest": "../../planted"})
    server.stop()
    assert reply["code"] == 0 and "grm/battle/zero-weight" in reply["stdout"]
    assert list(evil.iterdir()) == []
    assert not (tmp_path / "planted.json").exists()
    kept = list((cache.kb_dir(REPO) / "out").iterdir())
    assert len(kept) == 1


def test_a_client_that_sends_nothing_does_not_stall_the_others(cache_base, server, tmp_path):
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(str(cache.socket_path(REPO)))          # connected, and never says a word
    try:
        served = cli(cache_base, "ask", judge_file(tmp_path, 60))
    finally:
        silent.close()
    log = server.stop()
    assert served.returncode == 0 and "grm/judge/stack" in served.stdout
    assert "after 1 answers" in log


def test_a_client_that_does_not_read_its_answer_holds_up_only_its_own_connection(monkeypatch, tmp_path):
    """In-process: one connection's reply is larger than the socket can buffer and its client
    never reads; another connection is answered meanwhile, and the first is dropped at its
    deadline."""
    monkeypatch.setattr(server_module, "WRITE_TIMEOUT", 1.0)
    log = []
    srv = server_module.Server.__new__(server_module.Server)
    srv.log, srv.served = None, 0
    srv.count_lock = threading.Lock()
    srv.say = log.append
    big = {"code": 0, "stdout": "x" * (8 << 20), "stderr": ""}
    srv.answer = lambda request: big if request["argv"] == ["big"] else {"code": 0, "stdout": "small", "stderr": ""}
    stuck_client, stuck_server = socket.socketpair()
    quick_client, quick_server = socket.socketpair()
    stuck_client.sendall(json.dumps({"argv": ["big"]}).encode())
    stuck_client.shutdown(socket.SHUT_WR)
    quick_client.sendall(json.dumps({"argv": ["small"]}).encode())
    quick_client.shutdown(socket.SHUT_WR)
    stuck = threading.Thread(target=srv.handle, args=(stuck_server,))
    stuck.start()
    srv.handle(quick_server)                               # answered while the other is stuck
    assert wire.decode(wire.receive(quick_client, wire.MAX_REPLY, 30))["stdout"] == "small"
    stuck.join()                                           # ends at its write deadline
    assert any("did not take its answer" in line for line in log), log
    for s in (stuck_client, quick_client):
        s.close()


@pytest.mark.parametrize("argv", [["--ro=/etc", "show", "grm"], ["--ro", "/etc", "show", "grm"],
                                  ["--no-c", "show", "grm"], ["--root=/etc", "show", "grm"]])
def test_the_server_answers_only_for_its_own_knowledge_base_however_the_option_is_spelled(argv, cache_base):
    """In-process, nothing loaded: an abbreviated --root was read by argparse and not by the rule."""
    srv = server_module.Server(REPO, log=None)
    reply = srv.answer({"argv": argv, "cwd": str(REPO), "env": {}, "code": srv.code})
    assert "refused" in reply, reply
