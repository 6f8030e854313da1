"""The LALR driver's reductions (lalr.py): each rule's tree shaping as lark composes it — its
child filter (filtered-out tokens dropped, inlined `_rules`' children spliced), `?rule`'s
single-child expansion, then the transformer's method or a Tree — made once per rule for the
shape of its filter instead of walking the filter child by child."""

from __future__ import annotations

from operator import itemgetter


class Tree:
    """What a rule without a transformer method reduces to (lark's Tree: `data`, `children`)."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"


def _inliner(transformer, specs: list):
    """The transformer's `inlined`, when every inlined rule (`_name`, and lark's helpers for
    `x*`, `x+` and templates) reduces by it and none is a `?rule`: a callable that makes of a
    list (or tuple) of children a sequence which iterates over them (and gives them as a list as its
    `.children`, which lark's child filter splices). Then every inlined rule reduces to a plain
    tuple of its children (not to that sequence: the driver never hands it to a method), which
    the driver splices without `.children`'s copy, and a rule that only splices one child
    reduces to that child itself. Else None (a child spliced through `.children`)."""
    inlined = getattr(type(transformer), "inlined", None)
    if inlined is None:
        return None
    for origin, size, name, expand1, include in specs:
        if origin[:1] == "_" and (expand1 or getattr(transformer, name, None) is not inlined):
            return None
    return inlined


def _callback(name: str, expand1: bool, include, user, inlined=None, size: int = 0):
    """A rule's reduction as lark composes it: the child filter (drop filtered-out tokens, splice
    the children of inlined `_rules`), then `?rule`'s single-child expansion, then the
    transformer's method (or a Tree). None for a rule of one child that reduces to that child
    (see `_inliner`): the driver leaves it in place. With `inlined`, an inlined rule reduces to a
    plain tuple of its children instead of the transformer's sequence: the driver splices it as
    it is, and no method ever receives it (every rule that has an inlined child splices it)."""
    if inlined is not None:
        if user is inlined and not expand1:
            user = inlined = tuple
        if include is not None:
            return _inlined_callback(name, expand1, [(i, bool(x)) for i, x in include], user, inlined, size)
    if user is None:
        def user(children, name=name):
            return Tree(name, children)
    inner = user
    if expand1:
        def inner(children, user=user):
            return children[0] if len(children) == 1 else user(children)
    if include is None:
        return inner
    include = [(i, bool(x)) for i, x in include]
    if not any(x for _, x in include):      # nothing spliced: the children kept, in one call
        if not include:
            return lambda children: inner([])
        if len(include) == 1:
            j = include[0][0]
            return lambda children: inner([children[j]])
        pick = itemgetter(*(i for i, _ in include))
        return lambda children: inner(list(pick(children)))
    if include[0][1] and not any(x for _, x in include[1:]):    # `_items: _items item`
        first = include[0][0]
        rest = [i for i, _ in include[1:]]

        def spliced(children):
            out = children[first].children
            out.extend([children[i] for i in rest])
            return inner(out)
        return spliced

    kept = [i for i, x in include[:-1]]
    if not any(x for _, x in include[:-1]) and kept:     # `clause: NAME _args`: kept, then one spliced
        last = include[-1][0]
        if len(kept) == 1:
            k0 = kept[0]

            def kept_then_spliced(children):
                out = [children[k0]]
                out += children[last].children
                return inner(out)
            return kept_then_spliced
        pick_kept = itemgetter(*kept)

        def some_kept_then_spliced(children):
            out = list(pick_kept(children))
            out += children[last].children
            return inner(out)
        return some_kept_then_spliced
    if len(include) == 2:                                  # `_items: _items _SEP _item`: both spliced
        a, b = include[0][0], include[1][0]

        def both_spliced(children):
            out = children[a].children
            if out:
                out += children[b].children
            else:       # as lark: the spliced list itself
                out = children[b].children
            return inner(out)
        return both_spliced

    def filtered(children, include=include, inner=inner):
        out: list = []
        for i, expand in include:
            if expand:
                if out:
                    out += children[i].children
                else:       # as lark: the spliced list itself (left recursion)
                    out = children[i].children
            else:
                out.append(children[i])
        return inner(out)
    return filtered


def _inlined_callback(name: str, expand1: bool, include: list, user, inlined, size: int):
    """`_callback`'s child filter when every spliced child is a sequence of its children (the
    transformer's `inlined`, see `_inliner`): spliced without `.children`'s copy, in the shapes
    `_callback` makes its own; the same children, in the same order, to the same method."""
    spliced = [i for i, x in include if x]
    if not spliced:
        return _callback(name, expand1, include, user)
    bare = user is inlined and not expand1      # the rule is itself inlined: its children kept as a tuple
    if include == [(spliced[0], True)] and bare:                # `_items: _SEP? _item`
        return None if size == 1 else itemgetter(spliced[0])
    inner = _callback(name, expand1, None, user)
    kept = [i for i, x in include if not x]
    if not kept and len(spliced) == 1:                          # `block: "{" _items "}"`
        only = spliced[0]
        return lambda children: inner(list(children[only]))
    if spliced == [include[0][0]]:                              # `_items: _items item`: then kept
        first = spliced[0]
        if len(kept) == 1:
            k = kept[0]
            if bare:
                return lambda children: children[first] + (children[k],)
            return lambda children: inner([*children[first], children[k]])
        pick = itemgetter(*kept)
        if bare:
            return lambda children: children[first] + pick(children)
        return lambda children: inner([*children[first], *pick(children)])
    if spliced == [include[-1][0]]:                             # `clause: NAME _args`: kept, then spliced
        last = spliced[0]
        if len(kept) == 1:
            k0 = kept[0]
            return lambda children: inner([children[k0], *children[last]])
        pick = itemgetter(*kept)
        return lambda children: inner([*pick(children), *children[last]])
    if len(include) == 2:                                       # `_items: _items _SEP _item`: both spliced
        a, b = spliced
        if bare:
            return lambda children: children[a] + children[b]
        return lambda children: inner([*children[a], *children[b]])

    def filtered(children):
        out: list = []
        for i, expand in include:
            if expand:
                out += children[i]
            else:
                out.append(children[i])
        return inner(out)
    return filtered
