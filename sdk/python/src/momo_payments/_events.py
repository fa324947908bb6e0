"""Events as typed models: the event schema of each type (PayinCompletedEvent, …), chosen by `type`."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from . import _models as _m
from ._operations import TypedEvent

#: A typed event, or the generic Event for a type this SDK version does not know yet.
AnyEvent = TypedEvent | _m.Event

_TYPED: TypeAdapter[TypedEvent] = TypeAdapter(TypedEvent)


def parse_event(data: bytes | str | dict[str, Any]) -> AnyEvent:
    """Parses an event (webhook body, stream message, GET /v1/events item) into its typed model."""
    try:
        if isinstance(data, dict):
            return _TYPED.validate_python(data)
        return _TYPED.validate_json(data)
    except ValidationError:
        # A type newer than this SDK: keep it, as the generic Event (or raise if not even that).
        try:
            if isinstance(data, dict):
                return _m.Event.model_validate(data)
            return _m.Event.model_validate_json(data)
        except ValidationError as exc:
            raise ValueError(str(exc)) from exc
