"""The 東方グランドメレー interpreter (source: 001_9b6083e9083ef739.txt)."""

from .engine import ThgmEngine

ENGINE = ThgmEngine()
