"""Lark's parse tables kept in the private cache as JSON (rulesdsl/lang/parser.py `tables_dumps`):
read back they are the tables Lark serialized, types and all, a parser loaded from them parses
as one built from the grammar, and an entry that is damaged is not used."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

from rulesdsl.lang import parser

OPTIONS = dict(parser="lalr", lexer="contextual", maybe_placeholders=False, propagate_positions=False)


def same(a, b) -> bool:
    """Equal, with the same container types all the way down (a tuple is not a list here; a str
    subclass, lark's Token, is kept as its text)."""
    if isinstance(a, str) and isinstance(b, str):
        return str(a) == str(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(k, k2) for k, k2 in zip(a, b)) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def twice(script: str, env: dict, *args: str) -> list[bytes]:
    """The output of `script` run twice in a new interpreter: the first run makes the tables and
    keeps them in the cache folder `env` names, the second reads them back."""
    outs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, env=env, capture_output=True, check=False)
        assert r.returncode == 0, r.stderr.decode()
        outs.append(r.stdout)
    return outs


def test_lark_s_serialized_tables_read_back_as_they_were():
    built = Lark(parser.GRAMMAR.read_text(encoding="utf-8"), **OPTIONS)
    data, memo = built.memo_serialize([TerminalDef, Rule])
    back = parser.tables_loads(parser.tables_dumps([data, memo]))
    assert same(back, [data, memo])
    assert any(type(k) is int for k in memo)          # what plain JSON would have turned into text


def test_a_parser_loaded_from_the_kept_tables_parses_the_corpus_as_a_built_one(tmp_path):
    files = sorted(p for p in (REPO / "rulings").rglob("*.rules"))[:30]
    script = (
        "import sys, json\n"
        "from rulesdsl.lang import parser\n"
        "from rulesdsl.lang.snapshot import dumps\n"
        "docs = [parser.parse_text(open(p, encoding='utf-8').read(), p) for p in sys.argv[1:]]\n"
        "sys.stdout.buffer.write(dumps(docs))\n")
    env = dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache"))
    outs = twice(script, env, *map(str, files))
    kept = [p for p in (tmp_path / "cache").iterdir() if p.name.startswith("grammar-")]
    assert kept
    assert outs[0] == outs[1] and len(outs[0]) > 10_000
    # a damaged entry is not used: the tables are built again, and the parse is the same
    for p in kept:
        data = bytearray(p.read_bytes())
        data[-10] ^= 0x01
        p.write_bytes(bytes(data))
    r = subprocess.run([sys.executable, "-m", "rulesdsl", "-v", "check", str(files[0])], cwd=REPO, env=env,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "grammar" in r.stderr


def test_the_driver_made_on_an_empty_cache_runs_on_the_tables_a_later_run_reads_back(tmp_path):
    """Made from Lark's parser, the driver's tables are plain JSON values (lark's Tokens for
    names would make each table look-up call their Python __eq__), the very tables the next run
    reads from the cache."""
    script = (
        "import json, sys\n"
        "from rulesdsl.lang import lalr, parser\n"
        "seen = []\n"
        "made = lalr.Driver\n"
        "lalr.Driver = lambda tables, builder: seen.append(tables) or made(tables, builder)\n"
        "parser._driver()\n"
        "def plain(v):\n"
        "    if type(v) is dict:\n"
        "        return all(type(k) is str and plain(x) for k, x in v.items())\n"
        "    if type(v) is list:\n"
        "        return all(map(plain, v))\n"
        "    return type(v) in (str, int, float, bool) or v is None\n"
        "print(json.dumps([plain(seen[0]), seen[0]]))\n")
    outs = twice(script, dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache")))
    assert (tmp_path / "cache" / "grammar-driver").exists()
    assert outs[0] == outs[1] and outs[0].startswith(b"[true,")
