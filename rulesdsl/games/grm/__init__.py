"""The GRMカード interpreter (source: 000_a437c75d0e53c518.txt)."""

from .engine import GrmEngine

ENGINE = GrmEngine()
