"""How `team.TeamStore` hands a capability to one of its two stores: descriptors, each typed
by the method it calls, so the routing table is one line a capability and mypy checks it
against `interface.MemoryStore` as it would a hand-written method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, Literal, ParamSpec, Protocol, TypeVar, overload

#: Document kinds kept with the clone (`TeamStore.local`), not in the team's store.
PER_CLONE = frozenset({"code", "commit"})


class Router(Protocol):
    """What the descriptors use of the store they route for (a `TeamStore`)."""

    @property
    def local(self) -> object: ...
    def team_for_write(self) -> object: ...
    def _target(self, to: Target) -> object: ...
    def _by_id(self, doc_id: int) -> tuple[object, int]: ...
    def _by_uid(self, uid: str) -> object: ...


_P = ParamSpec("_P")
_R = TypeVar("_R")
#: Where a routed capability goes: the team's store (reads), the team's store inside this
#: transaction (writes), or the clone's.
Target = Literal["team", "write", "local"]


class Route(Generic[_P, _R]):
    """A capability of one store, called there: typed by that store's method."""

    def __init__(self, to: Target, method: Callable[Concatenate[Any, _P], _R]) -> None:
        self._to = to
        self._name = method.__name__

    @overload
    def __get__(self, owner: None, cls: type[Any]) -> Route[_P, _R]: ...
    @overload
    def __get__(self, owner: Router, cls: type[Any]) -> Callable[_P, _R]: ...
    def __get__(self, owner: Router | None, cls: type[Any]) -> Route[_P, _R] | Callable[_P, _R]:
        if owner is None:
            return self
        found: Callable[_P, _R] = getattr(owner._target(self._to), self._name)
        return found


class RouteByDoc(Generic[_P, _R]):
    """A capability on one document's rows, called in the store holding it with the id the
    document has there."""

    def __init__(self, method: Callable[Concatenate[Any, int, _P], _R]) -> None:
        self._name = method.__name__

    @overload
    def __get__(self, owner: None, cls: type[Any]) -> RouteByDoc[_P, _R]: ...
    @overload
    def __get__(self, owner: Router, cls: type[Any]) -> Callable[Concatenate[int, _P], _R]: ...
    def __get__(
        self, owner: Router | None, cls: type[Any]
    ) -> RouteByDoc[_P, _R] | Callable[Concatenate[int, _P], _R]:
        if owner is None:
            return self
        team = owner

        def call(doc_id: int, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            store, own = team._by_id(doc_id)
            found: Callable[Concatenate[int, _P], _R] = getattr(store, self._name)
            return found(own, *args, **kwargs)

        return call


class RouteByUid(Generic[_P, _R]):
    """A capability on one document, called in the store holding it (see `_by_uid`)."""

    def __init__(self, method: Callable[Concatenate[Any, str, _P], _R]) -> None:
        self._name = method.__name__

    @overload
    def __get__(self, owner: None, cls: type[Any]) -> RouteByUid[_P, _R]: ...
    @overload
    def __get__(self, owner: Router, cls: type[Any]) -> Callable[Concatenate[str, _P], _R]: ...
    def __get__(
        self, owner: Router | None, cls: type[Any]
    ) -> RouteByUid[_P, _R] | Callable[Concatenate[str, _P], _R]:
        if owner is None:
            return self
        team = owner

        def call(uid: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            found: Callable[Concatenate[str, _P], _R] = getattr(team._by_uid(uid), self._name)
            return found(uid, *args, **kwargs)

        return call


class RouteInsert(Generic[_P]):
    """`insert_document`: per-clone kinds into the clone's store (negative ids here), the
    rest into the team's."""

    def __init__(self, method: Callable[Concatenate[Any, _P], int]) -> None:
        self._name = method.__name__

    @overload
    def __get__(self, owner: None, cls: type[Any]) -> RouteInsert[_P]: ...
    @overload
    def __get__(self, owner: Router, cls: type[Any]) -> Callable[_P, int]: ...
    def __get__(self, owner: Router | None, cls: type[Any]) -> RouteInsert[_P] | Callable[_P, int]:
        if owner is None:
            return self
        team = owner

        def call(*args: _P.args, **kwargs: _P.kwargs) -> int:
            local = kwargs.get("kind") in PER_CLONE
            found: Callable[_P, int] = getattr(
                team.local if local else team.team_for_write(), self._name
            )
            return -found(*args, **kwargs) if local else found(*args, **kwargs)

        return call
