"""Records: what `@dataclass` gives the classes a judge's question meets, without `dataclasses`.

`dataclasses` imports inspect (and with it ast, dis and tokenize), and for every class writes its
`__init__`, `__eq__` and `__repr__` (a frozen one's `__setattr__`, `__delattr__` and `__hash__`
too) as source text that it compiles at each start: for the two dozen classes of the engine, the
language and the knowledge base on a new question's path, about a sixth of its time
(benchmarks/README.md). A `Record` is declared as a dataclass is — its fields are the annotations
of the class body in order (after those of a `Record` base), a class attribute is a field's
default, `field(default_factory=..., repr=False, compare=False)` says the rest — and gets the same
behaviour from methods written once here:

- the constructor takes the fields by position or by name, required ones first, fills in the
  defaults (a factory's value made anew each time), keeps them in the instance's `__dict__` in
  field order and then calls `__post_init__` if the class has one; a class may write its own
  `__init__` instead (a record made in a hot loop: the generic one is slower than generated code);
- `==` holds between instances of the same class whose compared fields are equal, as tuples
  (another class: NotImplemented); a record is unhashable unless frozen, and then hashes as the
  tuple of its compared fields, exactly as a dataclass does;
- `repr` is `Name(field=value, ...)` over the shown fields (`...` for a record inside itself);
- `frozen=True` (`class Interval(Record, frozen=True)`) refuses to set or delete a field after
  the constructor;
- `replace(record, **changes)` is `dataclasses.replace`: a new record of the same class, through
  its constructor, with the changed fields;
- `slots=True` (`class Answer(Record, slots=True)`) keeps the class's own fields in `__slots__`
  rather than in a dictionary per instance (its defaults kept aside: a slot cannot have a class
  attribute), as `@dataclass(slots=True)` does: for a record kept by the tens of thousands (a
  dictionary of thirty fields is ~1.6 kB, thirty slots 240 bytes). The instance keeps a
  `__dict__` for anything else set on it, made only when something is; `shallow_copy` copies
  both (`copy.copy` would go through `__reduce_ex__`).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, Optional

_MISSING = object()


def own_annotations(cls: type) -> dict:
    """The annotations class `cls` itself declares (not its bases'), as written: strings, since
    the modules that declare records and models postpone them. Python 3.14 (the browser's) keeps a
    named tuple's behind a function rather than in the class's __dict__: annotationlib gives them
    as strings without evaluating them. Every reader of a class's own fields comes here."""
    own = vars(cls)
    found = own.get("__annotations__")
    if found is None and ("__annotate_func__" in own or "__annotate__" in own):
        import annotationlib        # Python >= 3.14 only, where typing has imported it already
        found = annotationlib.get_annotations(cls, format=annotationlib.Format.STRING)
    return found or {}


class FrozenRecordError(AttributeError):
    """A field of a frozen record set or deleted (dataclasses' FrozenInstanceError)."""


class Field:
    __slots__ = ("default", "default_factory", "repr", "compare")

    def __init__(self, default: Any, default_factory: Optional[Callable[[], Any]], repr: bool, compare: bool) -> None:
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare


def field(*, default: Any = _MISSING, default_factory: Optional[Callable[[], Any]] = None,
          repr: bool = True, compare: bool = True) -> Any:
    """A field's default or factory, and whether `repr` shows it and `==` compares it."""
    if default is not _MISSING and default_factory is not None:
        raise ValueError("a field has a default or a default_factory, not both")
    return Field(default, default_factory, repr, compare)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The fields' values as a tuple (attrgetter gives one field's value bare)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        name = names[0]
        return lambda record: (getattr(record, name),)
    return lambda record: ()


_IN_REPR: set[int] = set()


def _is_class_var(note: Any) -> bool:
    return str(note).startswith(("ClassVar", "typing.ClassVar"))


class _RecordType(type):
    """Records' metaclass: with `slots=True`, the class is made with its own fields as
    `__slots__`, their defaults moved to `__record_defaults__` (where `__init_subclass__` reads
    them) and a `__dict__` slot unless a base gives one. A class body whose annotations are not
    at hand as a dictionary (Python >= 3.14 without postponed annotations) is made without slots:
    the same record, in a dictionary."""

    def __new__(mcls, name: str, bases: tuple, ns: dict, slots: bool = False, **kw: Any) -> type:
        notes = ns.get("__annotations__")
        if slots and isinstance(notes, dict):
            own = [n for n, note in notes.items() if not _is_class_var(note)]
            ns = dict(ns)
            ns["__record_defaults__"] = {n: ns.pop(n) for n in own if n in ns}
            given = any(b.__dictoffset__ for b in bases)     # (a base's instances have a __dict__)
            ns["__slots__"] = (*own, *(() if given else ("__dict__",)))
        return super().__new__(mcls, name, bases, ns, **kw)


class Record(metaclass=_RecordType):
    __slots__ = ()      # (a subclass without `slots=True` has its `__dict__`, as any class)
    __record_fields__: dict[str, Field] = {}
    __record_names__: tuple[str, ...] = ()
    __record_post__: Optional[Callable[[Any], None]] = None
    __record_frozen__ = False

    def __init_subclass__(cls, frozen: bool = False, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields = dict(cls.__record_fields__)
        slotted = vars(cls).get("__record_defaults__")      # (`slots=True`: the defaults kept aside)
        defaults = vars(cls) if slotted is None else slotted
        for name, note in own_annotations(cls).items():
            if _is_class_var(note):
                continue
            value = defaults.get(name, _MISSING)
            if isinstance(value, Field):
                spec = value
                if slotted is None:         # (with slots, the class holds no default to replace)
                    if spec.default is _MISSING:
                        delattr(cls, name)
                    else:
                        setattr(cls, name, spec.default)
            else:
                spec = Field(value, None, True, True)
            fields[name] = spec
        required = False
        for name, spec in reversed(fields.items()):
            if spec.default is _MISSING and spec.default_factory is None:
                required = True
            elif required:
                raise TypeError(f"{cls.__name__}: non-default field after default field {name!r}")
        cls.__record_fields__ = fields
        cls.__record_names__ = tuple(fields)
        cls.__record_fill__ = tuple((n, s.default, s.default_factory) for n, s in fields.items())
        cls.__record_key__ = staticmethod(_getter(tuple(n for n, s in fields.items() if s.compare)))
        cls.__record_shown__ = tuple(n for n, s in fields.items() if s.repr)
        cls.__record_post__ = getattr(cls, "__post_init__", None)
        cls.__record_frozen__ = frozen
        if frozen:
            cls.__setattr__ = Record.__frozen_setattr__      # type: ignore[assignment]
            cls.__delattr__ = Record.__frozen_delattr__      # type: ignore[assignment]
            cls.__hash__ = Record.__frozen_hash__            # type: ignore[assignment]
        else:
            cls.__hash__ = None                              # type: ignore[assignment]

    def __init__(self, *args: Any, **named: Any) -> None:
        cls = type(self)
        if args:
            named = _by_position(cls, args, named)
        for name, default, factory in cls.__record_fill__:
            value = named.pop(name, _MISSING)
            if value is _MISSING:
                if factory is not None:
                    value = factory()
                elif default is _MISSING:
                    raise TypeError(f"{cls.__name__}() is missing the field {name!r}")
                else:
                    value = default
            # set one by one, in field order, as dataclasses' code does (the instance keeps
            # CPython's compact attribute storage); past a frozen record's refusal too
            object.__setattr__(self, name, value)
        if named:
            raise TypeError(f"{cls.__name__}() has no field {', '.join(sorted(named))}")
        post = cls.__record_post__
        if post is not None:
            post(self)

    def __eq__(self, other: Any) -> Any:
        if other.__class__ is self.__class__:
            key = self.__record_key__
            return key(self) == key(other)
        return NotImplemented

    def __repr__(self) -> str:
        if id(self) in _IN_REPR:
            return "..."
        _IN_REPR.add(id(self))
        try:
            shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
        finally:
            _IN_REPR.discard(id(self))
        return f"{type(self).__qualname__}({shown})"

    def __frozen_setattr__(self, name: str, value: Any) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r}")

    def __frozen_delattr__(self, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r}")

    def __frozen_hash__(self) -> int:
        return hash(self.__record_key__(self))


def _by_position(cls: type, args: tuple, named: dict) -> dict:
    """The fields given by position and by name, by name."""
    names = cls.__record_names__[:len(args)]
    if len(args) > len(cls.__record_names__) or not named.keys().isdisjoint(names):
        raise TypeError(f"{cls.__name__}() takes {len(cls.__record_names__)} fields, "
                        f"{len(args)} given by position and {', '.join(named) or 'none'} by name")
    named.update(zip(names, args))
    return named


_COPIERS: dict[type, Callable[[Any], Any]] = {}


def shallow_copy(record: Any) -> Any:
    """A new record of the same class holding the same values, not made through its constructor
    (`copy.copy`'s): its slots (each set one: a slot a subclass's property stands in front of is
    never set) and its `__dict__`. Made by a function written once per class (as `dataclasses`
    writes its methods): one attribute read and one store per slot, where reading and setting
    each slot through its descriptor cost ~50,000 instructions an answer (a tenth of answering
    a question)."""
    cls = type(record)
    copier = _COPIERS.get(cls)
    if copier is None:
        copier = _COPIERS[cls] = _copier(cls)
    twin = copier(record)
    own = getattr(record, "__dict__", None)
    if own:
        twin.__dict__.update(own)
    return twin


def _slots(cls: type) -> list[tuple[str, Any]]:
    """The slots a copy of a `cls` carries, with their descriptors: each class's own in its MRO
    but `__dict__` and `__weakref__`, and none a subclass's attribute (a property) stands in front
    of (never set: the property keeps its value in a slot of its own)."""
    found = []
    for k in cls.__mro__:
        names = vars(k).get("__slots__", ())
        for n in (names,) if isinstance(names, str) else names:
            if n in ("__dict__", "__weakref__"):
                continue
            if n.startswith("__") and not n.endswith("__"):     # a private name: kept mangled
                n = f"_{k.__name__.lstrip('_')}{n}"
            d = vars(k)[n]
            if getattr(cls, n, None) is d:
                found.append((n, d))
    return found


def _copier(cls: type) -> Callable[[Any], Any]:
    slots = _slots(cls)

    def each(record: Any) -> Any:       # through the descriptors: past a frozen record's refusal
        twin = cls.__new__(cls)
        for name, d in slots:
            try:
                d.__set__(twin, d.__get__(record))
            except AttributeError:      # a slot never set
                pass
        return twin

    if cls.__setattr__ is not object.__setattr__ or any(not name.isidentifier() for name, _ in slots):
        return each
    body = "".join(f"    twin.{name} = record.{name}\n" for name, _ in slots)
    made: dict = {"new": cls.__new__, "cls": cls}
    exec(f"def at_once(record):\n    twin = new(cls)\n{body}    return twin\n", made)
    at_once = made["at_once"]

    def copy(record: Any) -> Any:
        try:
            return at_once(record)
        except AttributeError:          # a slot never set: those set, one by one
            return each(record)
    return copy


def replace(record: Any, **changes: Any) -> Any:
    """A new record of the same class with `changes`, through its constructor (dataclasses.replace)."""
    for name in record.__record_names__:
        if name not in changes:
            changes[name] = getattr(record, name)
    return type(record)(**changes)
