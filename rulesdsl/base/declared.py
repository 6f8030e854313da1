"""The base class of the declared models (the syntax model, diagnostics, resolved points).

The models are declared with pydantic. Nothing on the way to an answer validates through
pydantic at run time — the parser, the builder and the knowledge base's checks validate a file
and build its nodes with `model_construct`; a parsed file comes back from the parse snapshot
without validation (rulesdsl/lang/snapshot.py) — but importing pydantic and building the model
classes is a third of a judge's new question (`rulesdsl ask FILE` in a fresh process). So the
command line's answer path (rulesdsl/cli/fastpath.py) asks, before any model module is imported,
for the same classes on `Plain`: a stand-in for `pydantic.BaseModel` with the same fields in the
same order, the same defaults, `model_construct`, `model_copy`, `model_dump`, equality, hashing
and frozenness, and none of pydantic's import or class building. Every other process (the server,
check, the wiki, the tests) uses pydantic itself. That the two give byte-identical answers is
pinned by tests/test_plain_models.py.

    from ..base.declared import BaseModel, ConfigDict   # in a model module, at import
"""

from __future__ import annotations

import enum
from typing import Any, Optional

from .record import own_annotations

_PLAIN = False


def use_plain() -> bool:
    """Give the model modules imported from now on `Plain` rather than pydantic's BaseModel.
    Does nothing (returns False) once a model module has been imported with pydantic's: a
    process never mixes the two."""
    global _PLAIN
    import sys
    if any(m in sys.modules for m in _MODEL_MODULES):
        return _PLAIN
    _PLAIN = True
    return True


def plain() -> bool:
    return _PLAIN


_MODEL_MODULES = ("rulesdsl.lang.model", "rulesdsl.lang.diagnostics", "rulesdsl.lang.vocab",
                  "rulesdsl.kb.knowledge")


def __getattr__(name: str) -> Any:
    if name == "BaseModel":
        if _PLAIN:
            return Plain
        from pydantic import BaseModel
        return BaseModel
    if name == "ConfigDict":
        if _PLAIN:
            return dict
        from pydantic import ConfigDict
        return ConfigDict
    raise AttributeError(name)


class FrozenInstanceError(TypeError):
    pass


_MISSING = object()


class Plain:
    """pydantic's BaseModel as far as the declared models use it, in plain Python: fields from
    the annotations of the class and its bases (bases first, in order), a class attribute as
    the default, `model_config` read for `frozen` and `extra`. Construction does not validate
    types: it is used only where pydantic is not asked to either (see the module's docstring);
    it refuses unknown fields and missing required ones, and makes a list given for a tuple
    field a tuple, as pydantic's validation would."""

    __slots__ = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")

    model_config: dict = {}
    model_fields: dict = {}
    __plain_defaults__: tuple = ()
    __plain_tuples__: frozenset = frozenset()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields: dict[str, Any] = {}
        tuples: set[str] = set()
        for klass in reversed(cls.__mro__[:cls.__mro__.index(Plain)]):
            for name, note in own_annotations(klass).items():
                if name.startswith(("_", "model_")) or str(note).startswith("ClassVar"):
                    continue
                default = vars(klass).get(name, _MISSING)
                if isinstance(default, (property, classmethod, staticmethod)):
                    default = _MISSING
                fields[name] = default
                if str(note).startswith("tuple["):
                    tuples.add(name)
        cls.model_fields = {name: _FieldInfo(d) for name, d in fields.items()}
        cls.__plain_defaults__ = tuple((n, d) for n, d in fields.items() if d is not _MISSING)
        cls.__plain_tuples__ = frozenset(tuples)
        config = cls.__dict__.get("model_config")
        if config is not None:
            merged = dict(getattr(super(cls, cls), "model_config", {}) or {})
            merged.update(config)
            cls.model_config = merged
        if cls.model_config.get("frozen"):
            cls.__hash__ = Plain.__frozen_hash__       # type: ignore[assignment]

    # -- construction -------------------------------------------------------------------
    @classmethod
    def model_construct(cls, _fields_set: Optional[set] = None, **values: Any):
        m = object.__new__(cls)
        d: dict[str, Any] = {}
        given = set()
        for name in cls.model_fields:
            if name in values:
                d[name] = values[name]
                given.add(name)
        for name, default in cls.__plain_defaults__:
            if name not in d:
                d[name] = default
        d = {name: d[name] for name in cls.model_fields if name in d}   # pydantic's order
        object.__setattr__(m, "__dict__", d)
        object.__setattr__(m, "__pydantic_fields_set__", given if _fields_set is None else _fields_set)
        object.__setattr__(m, "__pydantic_extra__", None)
        object.__setattr__(m, "__pydantic_private__", None)
        return m

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        unknown = [k for k in values if k not in cls.model_fields]
        missing = [n for n, f in cls.model_fields.items() if f.default is _MISSING and n not in values]
        if unknown or missing:
            raise TypeError(f"{cls.__name__}: " + "; ".join(
                ([f"unknown field(s) {', '.join(unknown)}"] if unknown else []) +
                ([f"missing field(s) {', '.join(missing)}"] if missing else [])))
        for name in cls.__plain_tuples__:
            if type(values.get(name)) is list:
                values[name] = tuple(values[name])
        made = cls.model_construct(**values)
        object.__setattr__(self, "__dict__", made.__dict__)
        object.__setattr__(self, "__pydantic_fields_set__", made.__pydantic_fields_set__)
        object.__setattr__(self, "__pydantic_extra__", None)
        object.__setattr__(self, "__pydantic_private__", None)

    def model_copy(self, *, update: Optional[dict] = None, deep: bool = False):
        if deep:
            import copy
            return copy.deepcopy(self)
        m = object.__new__(type(self))
        d = dict(self.__dict__)
        fields_set = set(self.__pydantic_fields_set__)
        if update:
            for k, v in update.items():
                if k in type(self).model_fields:
                    d[k] = v
                    fields_set.add(k)
        object.__setattr__(m, "__dict__", d)
        object.__setattr__(m, "__pydantic_fields_set__", fields_set)
        object.__setattr__(m, "__pydantic_extra__", None)
        object.__setattr__(m, "__pydantic_private__", None)
        return m

    @property
    def model_fields_set(self) -> set:
        return self.__pydantic_fields_set__

    # -- reading ------------------------------------------------------------------------
    def model_dump(self, *, mode: str = "python") -> dict:
        return {k: _dump(v, mode) for k, v in self.__dict__.items()}

    def __getattr__(self, item: str) -> Any:
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {item!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if type(self).model_config.get("frozen"):
            raise FrozenInstanceError(f"{type(self).__name__} is frozen")
        object.__setattr__(self, name, value) if name.startswith("__") else self.__dict__.__setitem__(name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"{type(self).__name__}: fields cannot be deleted")

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Plain):
            return type(self) is type(other) and self.__dict__ == other.__dict__
        return NotImplemented

    __hash__ = None     # type: ignore[assignment]  # a frozen class gets __frozen_hash__

    def __frozen_hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def __iter__(self):
        yield from self.__dict__.items()

    def __repr_str__(self, sep: str) -> str:
        return sep.join(f"{k}={v!r}" for k, v in self.__dict__.items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__repr_str__(', ')})"

    def __str__(self) -> str:
        return self.__repr_str__(" ")

    def __copy__(self):
        return self.model_copy()

    # pickled only through the pipe between the loader and its own fork (kb/loader.parse_all);
    # nothing pickled is ever read from a file
    def __getstate__(self):
        return self.__dict__, self.__pydantic_fields_set__

    def __setstate__(self, state) -> None:
        object.__setattr__(self, "__dict__", state[0])
        object.__setattr__(self, "__pydantic_fields_set__", state[1])
        object.__setattr__(self, "__pydantic_extra__", None)
        object.__setattr__(self, "__pydantic_private__", None)


class _FieldInfo:
    __slots__ = ("default",)

    def __init__(self, default: Any) -> None:
        self.default = default

    def is_required(self) -> bool:
        return self.default is _MISSING


def _dump(v: Any, mode: str) -> Any:
    """pydantic's model_dump of a value of the declared models' types."""
    if isinstance(v, Plain):
        return v.model_dump(mode=mode)
    if isinstance(v, tuple):
        if hasattr(v, "_fields") and "__get_pydantic_core_schema__" in vars(type(v)):
            if type(v).__name__ == "Loc":             # accepted as it is, dumped as a tuple
                return list(v) if mode == "json" else tuple(v)
            return _dump(v.as_dict(), mode)          # the named tuples that dump as a dict
        items = [_dump(x, mode) for x in v]
        return items if mode == "json" else tuple(items)
    if isinstance(v, list):
        return [_dump(x, mode) for x in v]
    if isinstance(v, dict):
        return {k: _dump(x, mode) for k, x in v.items()}
    if isinstance(v, enum.Enum):
        return v.value if mode == "json" else v
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    if "__get_pydantic_core_schema__" in vars(type(v)):
        return str(v)               # a value class serialised to its text (PartialDate), in both modes
    return str(v) if mode == "json" else v
