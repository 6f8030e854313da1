"""The defensive tendencies 001 states for each attribute (thgm/attributes/…): a play aid, not a
rule — a character's defense is what its card's 基本防御力 and 特殊防御力 fields say. Kept as
the source words them: per attribute, the attack means it is strong against, weak against, immune
to, or affected by, and whether it has no particular weakness."""

from __future__ import annotations

# attribute -> (rule section, {attack means: strong | weak | immune | effective}, no particular weakness)
TENDENCIES: dict[str, tuple[str, dict[str, str], bool]] = {
    # 霊力に強く、物理・使い魔・毒・死に弱い。
    "human": ("thgm/attributes/human", {"霊力": "strong", "物理": "weak", "使い魔": "weak", "毒": "weak", "死": "weak"}, False),
    # 妖力に強く、霊力に弱い。
    "youkai": ("thgm/attributes/youkai", {"妖力": "strong", "霊力": "weak"}, False),
    # 特に弱点を持たない。
    "demon": ("thgm/attributes/demon", {}, True),
    # 特に弱点を持たないが、強力なキャラはいない。
    "fairy": ("thgm/attributes/fairy", {}, True),
    # 物理・使い魔に強く、毒・死が無効。封魂が効く唯一の種族。
    "spirit": ("thgm/attributes/spirit", {"物理": "strong", "使い魔": "strong", "毒": "immune", "死": "immune",
                                          "封魂": "effective"}, False),
    # 氷に弱い。
    "beast": ("thgm/attributes/beast", {"氷": "weak"}, False),
    # 霊力に強く、毒・死が無効。非常に強力な種族。
    "god": ("thgm/attributes/god", {"霊力": "strong", "毒": "immune", "死": "immune"}, False),
}
