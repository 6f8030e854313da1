"""Diagnostics latency of `rulesdsl lsp` after a keystroke, once the knowledge base is loaded.

A real server process is driven over stdio by pytest-lsp's client (as an editor drives it). For
each file, the client opens it, waits for its first diagnostics, then types: one character into
a `text "…"` string in the middle of the file, then deletes it, again and again, each change
sent once the diagnostics of the previous one have come back. The latency is the time from
sending a change to receiving the diagnostics published for that very version (they include
the debounce the server waits for more keystrokes).

Anchors, measured in the same run: `python3 -c pass` (a process start) and one in-process
`check` of the same file with the knowledge base's caches warm (`check_paths`, what `rulesdsl
check FILE` does after start-up).

    python benchmarks/bench_lsp.py [--root DIR] [--rounds N] [--debounce MS] [--json] [FILE…]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.uris import from_fs_path
from pytest_lsp import make_test_lsp_client

REPO = Path(__file__).resolve().parent.parent
# the largest file of each kind: a game with its rule sections, rulings, worked questions, a card
FILES = ["rulings/royal/game.rules", "rulings/grm/rulings.rules", "rulings/grm/qa/effects.rules",
         "cards/grm/No.018.rules"]


def keystroke_place(text: str) -> tuple[int, int]:
    """(line, column) just inside the quote of the `text "` line nearest the middle."""
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if 'text "' in line]
    if not candidates:
        candidates = [i for i, line in enumerate(lines) if '"' in line]
    mid = min(candidates, key=lambda i: abs(i - len(lines) // 2))
    return mid, lines[mid].index('"') + 1


async def measure(root: Path, files: list[str], rounds: int, debounce: float) -> dict:
    client = make_test_lsp_client()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    await client.start_io(sys.executable, "-m", "rulesdsl", "--root", str(root), "lsp",
                          "--debounce", str(debounce), env=env, cwd=str(root))
    await client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                       root_uri=from_fs_path(str(root))))
    out = {}
    try:
        for rel in files:
            path = root / rel
            text = path.read_text(encoding="utf-8")
            uri = from_fs_path(str(path))
            client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
                uri=uri, language_id="rulesdsl", version=1, text=text)))
            await published(client, uri, 1)
            line, col = keystroke_place(text)
            # the column in UTF-16 units, as the protocol counts
            char = len(text.split("\n")[line][:col].encode("utf-16-le")) // 2
            times = []
            for v in range(2, 2 + 2 * rounds):
                at = T.Position(line=line, character=char)
                if v % 2 == 0:
                    change = T.TextDocumentContentChangePartial(range=T.Range(start=at, end=at), text="あ")
                else:
                    end = T.Position(line=line, character=char + 1)
                    change = T.TextDocumentContentChangePartial(range=T.Range(start=at, end=end), text="")
                started = time.perf_counter()
                client.text_document_did_change(T.DidChangeTextDocumentParams(
                    text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=v), content_changes=[change]))
                await published(client, uri, v)      # with the text changed, a quote check may fire
                times.append(time.perf_counter() - started)
            client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))
            out[rel] = times
    finally:
        await client.shutdown_session()
        await client.stop()
    return out


async def published(client, uri: str, version: int):
    """The diagnostics published for `version` of the document (others are skipped)."""
    while True:
        params = await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return params.diagnostics


def anchors(root: Path, files: list[str]) -> dict:
    started = time.perf_counter()
    for _ in range(5):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    python = (time.perf_counter() - started) / 5
    sys.path.insert(0, str(REPO))
    from rulesdsl.cli.check import check_paths
    check_paths(root, [])                           # warm the caches
    checks = {}
    for rel in files:
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            check_paths(root, [root / rel])
            runs.append(time.perf_counter() - started)
        checks[rel] = statistics.median(runs)
    return {"python -c pass": python, "check": checks}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", default=FILES)
    p.add_argument("--root", type=Path, default=REPO)
    p.add_argument("--rounds", type=int, default=10, help="keystrokes and deletions per file")
    p.add_argument("--debounce", type=float, default=30.0, help="the server's --debounce (ms)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    base = anchors(args.root, args.files)
    times = asyncio.run(measure(args.root, args.files, args.rounds, args.debounce))
    rows = []
    for rel, ts in times.items():
        ms = sorted(t * 1000 for t in ts)
        median = statistics.median(ms)
        rows.append({"file": rel, "bytes": (args.root / rel).stat().st_size, "median_ms": round(median, 1),
                     "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1), "max_ms": round(ms[-1], 1),
                     "vs_check": round(median / (base["check"][rel] * 1000), 2),
                     "vs_python": round(median / (base["python -c pass"] * 1000), 2)})
    result = {"debounce_ms": args.debounce, "python_ms": round(base["python -c pass"] * 1000, 1),
              "check_ms": {k: round(v * 1000, 1) for k, v in base["check"].items()}, "files": rows}
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    print(f"diagnostics after a keystroke (server --debounce {args.debounce:g} ms); anchors: "
          f"python -c pass {result['python_ms']} ms, in-process check of the file (warm)")
    print(f"{'file':<34} {'bytes':>7} {'median':>8} {'p90':>8} {'max':>8} {'check':>8} {'×check':>7} {'×python':>8}")
    for r in rows:
        print(f"{r['file']:<34} {r['bytes']:>7} {r['median_ms']:>6.1f}ms {r['p90_ms']:>6.1f}ms {r['max_ms']:>6.1f}ms "
              f"{result['check_ms'][r['file']]:>6.1f}ms {r['vs_check']:>7.2f} {r['vs_python']:>8.2f}")


if __name__ == "__main__":
    main()
