"""The answer path's plain models (rulesdsl/base/declared.py) give what pydantic's give.

`rulesdsl ask` runs, in the command line's own process, on plain stand-ins for the declared
models (the syntax model, diagnostics, resolved points) rather than pydantic's BaseModel. These
tests pin that nothing a user sees depends on which: the classes have the same fields, in the
same order, with the same defaults; every worked question of the bundled knowledge base gets a
byte-identical `ask --json` (and text) answer; refusals and their located errors are the same;
a parse snapshot written by either is the same bytes; and a snapshot that is damaged is rebuilt,
not trusted, on the plain path too.

Each mode runs in its own process (a process never mixes the two)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

# Runs in a subprocess: `plain` or `pydantic` first, then a job.
SCRIPT = r'''
import json, sys
mode, job, *rest = sys.argv[1:]
if mode == "plain":
    from rulesdsl.base import declared
    assert declared.use_plain()
if job == "fields":
    from rulesdsl.lang import model, diagnostics, vocab
    from rulesdsl.kb import knowledge
    out = {}
    for mod in (model, diagnostics, vocab, knowledge):
        for name, obj in vars(mod).items():
            if isinstance(obj, type) and hasattr(obj, "model_fields") and obj.__module__ == mod.__name__:
                out[f"{mod.__name__}.{name}"] = [
                    [n, "required" if f.is_required() else repr(f.default)] for n, f in obj.model_fields.items()]
    print(json.dumps(out, sort_keys=True))
elif job == "ask":
    from rulesdsl.cli.main import run_captured
    from rulesdsl.kb import loader
    import os
    loader.PARALLEL_MIN = int(os.environ.get("PARALLEL_MIN", loader.PARALLEL_MIN))
    here = []                           # the files this process parsed itself
    parse_one = loader.parse_one
    loader.parse_one = lambda *a: (here.append(1), parse_one(*a))[1]
    out = [dict(run_captured(json.loads(argv)), parsed_here=len(here)) for argv in rest]
    import rulesdsl.lang.model as m
    if mode == "plain":
        assert "pydantic" not in sys.modules, "the plain path imported pydantic"
    print(json.dumps(out, ensure_ascii=False))
elif job == "snapshot":
    from rulesdsl.lang.parser import parse_text
    from rulesdsl.lang.snapshot import dumps, loads
    docs = [parse_text(open(p, encoding="utf-8").read(), p) for p in rest]
    data = dumps(docs)
    back = loads(data)
    assert back == docs
    assert [d.model_dump() for d in back] == [d.model_dump() for d in docs]
    import pickle                       # as the loader's fork sends its share of a parse
    assert pickle.loads(pickle.dumps(docs, protocol=pickle.HIGHEST_PROTOCOL)) == docs
    sys.stdout.buffer.write(data)
elif job == "dump":
    from rulesdsl.lang.parser import parse_text
    docs = [parse_text(open(p, encoding="utf-8").read(), p) for p in rest]
    print(json.dumps([d.model_dump(mode="json") for d in docs], ensure_ascii=False))
    print(repr([d.model_dump() for d in docs]))
'''


def run(mode: str, job: str, *args: str, env: dict | None = None) -> bytes:
    r = subprocess.run([sys.executable, "-c", SCRIPT, mode, job, *args], cwd=REPO, capture_output=True,
                       env=dict(os.environ, **(env or {})), check=False)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout


def both(job: str, *args: str, env: dict | None = None) -> tuple[bytes, bytes]:
    return run("pydantic", job, *args, env=env), run("plain", job, *args, env=env)


def outputs(raw: bytes) -> list[dict]:
    """What each command printed and its exit code (not how many files it parsed itself)."""
    return [{k: r[k] for k in ("code", "stdout", "stderr")} for r in json.loads(raw)]


def worked_question_files() -> list[Path]:
    return sorted(p for p in (REPO / "rulings").rglob("*.rules")
                  if re.search(r"^\s*scenario ", p.read_text(encoding="utf-8"), re.M))


def test_the_plain_models_have_pydantics_fields_in_its_order_with_its_defaults():
    pyd, plain = both("fields")
    assert json.loads(pyd) == json.loads(plain)
    # every declared model (the syntax model's nodes, the diagnostics): 23; a resolved point and a
    # card reference are frozen records, the same class in both modes
    assert len(json.loads(pyd)) >= 23


def test_every_worked_question_gets_the_same_answer_on_the_plain_path(tmp_path):
    files = worked_question_files()
    assert len(files) >= 40
    argvs = [json.dumps(["ask", "--json", str(f)]) for f in files]
    # the text form too, for one file of each game
    for game in ("grm", "thgm", "royal", "pm"):
        first = next(f for f in files if f"/rulings/{game}/" in str(f))
        argvs.append(json.dumps(["ask", "--trace", "all", "--readings", str(first)]))
    env = {"RULESDSL_CACHE": str(tmp_path / "cache")}
    pyd, plain = both("ask", *argvs, env=env)     # the plain process reads pydantic's snapshot
    pyd_out, plain_out = outputs(pyd), outputs(plain)
    assert len(pyd_out) == len(argvs)
    answered = 0
    for argv, a, b in zip(argvs, pyd_out, plain_out):
        assert a == b, argv
        if '"--json"' in argv:
            answered += len(json.loads(a["stdout"])["answers"])
    assert answered >= 450                          # the worked questions, each answered


def judge(folder: Path, text: str) -> str:
    path = folder / "judge.rules"
    path.write_text(text, encoding="utf-8")
    return str(path)


JUDGE = (REPO / "examples" / "judge-question.rules").read_text(encoding="utf-8")


@pytest.mark.parametrize("edit", [
    pytest.param(lambda t: t, id="a-new-question"),
    pytest.param(lambda t: t.replace("expect ", "expect nonsense ", 1), id="an-expectation-not-in-the-vocabulary"),
    pytest.param(lambda t: t.replace("{", "{{", 1), id="a-syntax-error"),
    pytest.param(lambda t: t + '\ncard "未知" { weight 1kg }\n', id="a-statement-outside-a-scenario"),
])
def test_a_judges_own_file_is_answered_or_refused_the_same_way_on_the_plain_path(tmp_path, edit):
    path = judge(tmp_path, edit(JUDGE))
    argvs = [json.dumps(["ask", "--json", path]), json.dumps(["ask", path])]
    pyd, plain = both("ask", *argvs, env={"RULESDSL_CACHE": str(tmp_path / "cache")})
    assert outputs(pyd) == outputs(plain)


def test_a_snapshot_written_on_the_plain_path_is_the_same_bytes_and_reads_back_equal():
    files = [str(p) for p in worked_question_files()[:12]] + [str(p) for p in sorted((REPO / "cards").rglob("*.rules"))[:6]]
    pyd, plain = both("snapshot", *files)
    assert pyd == plain and len(pyd) > 10_000


def test_the_plain_models_dump_as_pydantics_do():
    files = [str(p) for p in worked_question_files()[:8]] + [str(REPO / "rulings/grm/game.rules")]
    pyd, plain = both("dump", *files)
    assert pyd.splitlines()[0] == plain.splitlines()[0]          # mode="json"
    assert pyd.splitlines()[1] == plain.splitlines()[1]          # the Python objects, by their repr


def test_without_caches_the_plain_path_parses_in_two_processes_and_answers_the_same(tmp_path):
    path = judge(tmp_path, JUDGE)
    argvs = [json.dumps(["--no-cache", "ask", "--json", path])]
    pyd, plain = both("ask", *argvs, env={"PARALLEL_MIN": "2"})   # the bundled base is under the usual 500
    assert outputs(pyd) == outputs(plain)
    out = json.loads(plain)[0]
    assert json.loads(out["stdout"])["ok"] is True
    files = len(list((REPO / "rulings").rglob("*.rules"))) + len(list((REPO / "cards").rglob("*.rules")))
    assert 0 < out["parsed_here"] < files * 0.6      # the fork parsed its half and sent it back


def test_a_damaged_parse_snapshot_is_rebuilt_not_trusted_on_the_command_lines_answer_path(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, RULESDSL_CACHE=str(cache))
    path = judge(tmp_path, JUDGE)
    cmd = [sys.executable, "-m", "rulesdsl", "-v", "ask", "--json", path]
    clean = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert clean.returncode == 0, clean.stderr
    snapshots = [p for p in cache.rglob("*") if p.is_file() and p.name.startswith("parsed")]
    assert snapshots
    for p in snapshots:                          # one byte changed in the middle of each
        data = bytearray(p.read_bytes())
        data[len(data) // 2] ^= 0x20
        p.write_bytes(bytes(data))
    for p in cache.rglob("out"):                 # forget the kept outputs, so the command runs
        for f in p.rglob("*"):
            if f.is_file():
                f.unlink()
    again = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert again.stdout == clean.stdout
    assert "parse snapshot" in again.stderr and "ignoring" in again.stderr
