"""The プレシャスメモリーズ interpreter (source: 004_b16f2fd495c48e23.txt)."""

from .engine import PmEngine

ENGINE = PmEngine()
