"""Prints the SDK's manifest (the contract check's input, scripts/check-sdks.ts) by introspecting the
package: every resource method marked with @operation on the client, and the fields of the model of
each component schema (its JSON names; a union model lists the fields of all its variants).
"""

from __future__ import annotations

import inspect
import json
import typing
import warnings
from typing import Any

from pydantic import BaseModel, RootModel

import momo_payments
from momo_payments import _models
from momo_payments._operations import COMPONENT_SCHEMAS


def fields(model: Any) -> list[str]:
    if isinstance(model, type) and issubclass(model, RootModel):
        return fields(model.model_fields["root"].annotation)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return [f.alias or name for name, f in model.model_fields.items()]
    out: list[str] = []
    for arg in typing.get_args(model):
        out += [f for f in fields(arg) if f not in out]
    return out


def operations() -> dict[str, str]:
    client = momo_payments.MomoPayments("mk_test_manifest", "sk_test_manifest", base_url="http://localhost")
    found: dict[str, str] = {}
    for resource_name, resource in vars(client).items():
        if resource_name.startswith("_") or not hasattr(resource, "_t"):
            continue
        for method_name, method in inspect.getmembers(resource, inspect.ismethod):
            op = getattr(method, "__momo_operation__", None)
            if op:
                found[op] = f"{resource_name}.{method_name}"
    client.close()
    return dict(sorted(found.items()))


def resources() -> tuple[list[str], dict[str, str]]:
    """The client's resources, and its deprecated names: properties that warn and answer a resource."""
    client = momo_payments.MomoPayments("mk_test_manifest", "sk_test_manifest", base_url="http://localhost")
    names = [n for n, r in vars(client).items() if not n.startswith("_") and hasattr(r, "_t")]
    by_id = {id(getattr(client, n)): n for n in names}
    aliases: dict[str, str] = {}
    for name, prop in inspect.getmembers(type(client), lambda m: isinstance(m, property)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(client, name)
        if id(value) in by_id and any(issubclass(w.category, DeprecationWarning) for w in caught):
            aliases[name] = by_id[id(value)]
    client.close()
    return names, aliases


resource_names, deprecated_aliases = resources()
print(
    json.dumps(
        {
            "sdk": "python",
            "version": momo_payments.__version__,
            "operations": operations(),
            "models": {name: fields(getattr(_models, name)) for name in COMPONENT_SCHEMAS},
            "resources": resource_names,
            "deprecatedAliases": deprecated_aliases,
        }
    )
)
