"""The parser's tables as the wiki ships them to readers' browsers (lang.parser.shipped_tables,
ask_bundle.py): where no private cache folder exists, a process given them parses a question to
the same model without importing lark; tables made for another grammar are not used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTION = REPO / "examples" / "judge-question.rules"

CHILD = r"""
import sys
from rulesdsl.base import cache
from rulesdsl.lang import parser
from rulesdsl.lang.snapshot import dumps
cache.memory_only("no cache folder, as in a browser")
parser.use_shipped_tables(open(sys.argv[1], "rb").read())
doc = parser.parse_text(open(sys.argv[2], encoding="utf-8").read(), "q.rules")
sys.stdout.write(dumps([doc]).hex() + "\n" + str("lark" in sys.modules))
"""


def _child(tables: Path, tmp_path: Path) -> tuple[str, bool]:
    env = dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", CHILD, str(tables), str(QUESTION)], env=env,
                         capture_output=True, text=True, check=True).stdout
    snap, lark_imported = out.splitlines()
    return snap, lark_imported == "True"


def _expected() -> str:
    from rulesdsl.lang.parser import parse_text
    from rulesdsl.lang.snapshot import dumps
    return dumps([parse_text(QUESTION.read_text(encoding="utf-8"), "q.rules")]).hex()


def test_shipped_tables_parse_a_question_without_lark(tmp_path):
    from rulesdsl.lang.parser import shipped_tables
    tables = tmp_path / "parser.json"
    tables.write_bytes(shipped_tables())
    snap, lark_imported = _child(tables, tmp_path)
    assert snap == _expected()
    assert not lark_imported


def test_tables_shipped_for_another_grammar_are_not_used(tmp_path):
    from rulesdsl.lang.parser import shipped_tables
    kept = json.loads(shipped_tables())
    kept["inputs"] = "0" * 40                     # made from some other grammar
    kept["tables"]["start"] = -1                  # and wrong: used, they could not parse
    tables = tmp_path / "parser.json"
    tables.write_text(json.dumps(kept), encoding="utf-8")
    snap, lark_imported = _child(tables, tmp_path)
    assert snap == _expected()
    assert lark_imported                          # the driver's tables were made afresh

