"""The スキル・ロイヤル・ガーディアンTCG（仮称） interpreter (source: 003_eacd25c5d22094df.txt)."""

from .engine import RoyalEngine

ENGINE = RoyalEngine()
