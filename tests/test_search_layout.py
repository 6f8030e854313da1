"""The search index's layout: how many files it makes for its entries and terms (each one a file
the build makes and a query may load; benchmarks/README.md, «Twentieth round: search»)."""

from __future__ import annotations

import json
from pathlib import Path

from rulesdsl.wiki.search import Entry, decode, write_index

WORDS = ["裏向きになる", "体重", "未確定", "スタック", "ポイント置き場", "特殊防御力", "振りなおし", "No.018", "PROMO015"]


def entries(count: int) -> list[Entry]:
    return [Entry(f"g/p{i}.html", f"題{i} {WORDS[i % len(WORDS)]}",
                  " ".join(WORDS[(i * k) % len(WORDS)] + str(i % (k + 7)) for k in range(1, 12)), where="GRM ＞ カード")
            for i in range(count)]


def body(path: Path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1:-3].split(",", 1)[1])


def test_the_index_writes_four_entries_a_file_and_as_few_term_shards_as_keep_them_near_3000_bytes(tmp_path):
    stats = write_index(tmp_path, entries(1401))
    root = tmp_path / "search"
    docs = sorted((root / "d").glob("*.js"), key=lambda f: int(f.stem))
    assert [len(body(f)) for f in docs] == [4] * 350 + [1]
    assert [row[0] for f in docs for row in body(f)] == [f"g/p{i}.html" for i in range(1401)]
    shards = list((root / "t" / "0").glob("*.js"))
    sizes = [f.stat().st_size for f in shards]
    # a power of two: about the fewest shards of about 3,000 bytes each (the writer counts characters;
    # a pair of kana or kanji is 6 bytes in the file), half as many would hold more
    assert len(shards) > 1 and len(shards) & (len(shards) - 1) == 0
    assert 3_000 < sum(sizes) / (len(shards) // 2) and 1_500 < sum(sizes) / len(shards) <= 3_000 * 1.25
    assert stats["files"] == len(list(root.rglob("*.js"))) == 351 + len(shards) + 1


def test_every_entry_a_term_names_is_in_the_file_its_id_points_to(tmp_path):
    """What the browser does with an id (file id // 4, row id % 4) finds the entry the term was in."""
    made = entries(203)
    write_index(tmp_path, made)
    root = tmp_path / "search"
    rows = {int(f.stem): body(f) for f in (root / "d").glob("*.js")}
    for f in (root / "t" / "0").glob("*.js"):
        for term, (ids, weights) in body(f).items():
            for i, _ in decode(ids, weights):
                assert rows[i // 4][i % 4][0] == made[i].url, term
