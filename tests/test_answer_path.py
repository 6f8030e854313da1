"""What a judge's new question (`rulesdsl ask FILE`, a file outside the knowledge base) pays for:
only what its answer needs — no module pattern of a check, reading or format it never meets
(rulesdsl/base/patterns.py), no `string` (whose import compiles Template's pattern), no other
command's module (`show`: --as-of is read by cli/main.py)."""

from __future__ import annotations


def test_a_new_question_compiles_no_pattern_and_imports_no_command_it_does_not_meet(new_question_probe):
    # module patterns of checks, readings and formats the judge's question never meets
    idle = ["rulesdsl.kb.lint:_RULE_REF", "rulesdsl.kb.lint:_QUOTED",
            "rulesdsl.engine.chance_words:_NUMBERED", "rulesdsl.lang.dates:_JA", "rulesdsl.lang.builder:_ESCAPES",
            "rulesdsl.kb.sources:OMISSION"]
    said = new_question_probe("nopattern", (
        f"idle = {idle!r}\n"
        "made = [n for n in idle if 'match' in vars(getattr(sys.modules[n.split(':')[0]], n.split(':')[1]))]\n"
        "print(answer.startswith('答え: '), 'string' in sys.modules, 'rulesdsl.cli.show' in sys.modules, made)\n"))
    assert said.split() == ["True", "False", "False", "[]"], said


def test_the_help_lists_every_command_in_its_order_whatever_imported_them():
    # a question imports `ask` alone; the help imports every command's module, in any order
    import re
    from rulesdsl.cli.commands import MODULES
    from rulesdsl.cli.main import build_parser
    listed = re.findall(r"^    ([a-z]+) ", build_parser().format_help(), re.M)
    assert listed == list(MODULES)
