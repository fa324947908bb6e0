"""Generates the SDK's code from sdk/openapi.json: the pydantic models (datamodel-code-generator),
the operation table and the resource classes (one method per /v1/ operation, sync and async), and
the version. `--check` regenerates into memory and fails when the committed files differ, so the
models and methods cannot drift from the document.

Run with the SDK venv's python (scripts/provision-sdk-python): sdk/python/tools/regenerate.sh, or
npm run generate:sdks for the three SDKs.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import types
import typing
from pathlib import Path
from typing import Any

CODEGEN = Path(__file__).resolve().parent.parent
SDK = CODEGEN.parent / "python"
PACKAGE = SDK / "src" / "momo_payments"
DOCUMENT = SDK.parent / "openapi.json"

# Where each operation lives in the SDK: operationId -> (resource, method), and the deprecated aliases
# of resources, from the resource manifest the three SDKs share (sdk/codegen/resources.json): one name
# per resource, snake_cased here. An operation of the document missing there fails the generation.
MANIFEST = CODEGEN / "resources.json"


def snake_name(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def load_manifest() -> tuple[dict[str, tuple[str, str]], dict[str, list[str]]]:
    manifest = json.loads(MANIFEST.read_text())
    names: dict[str, tuple[str, str]] = {}
    aliases: dict[str, list[str]] = {}
    for resource in manifest["resources"]:
        rname = snake_name(resource["name"])
        aliases[rname] = list(resource.get("deprecatedAliases", {}).get("python", []))
        for op_id, op in resource["operations"].items():
            names[op_id] = (rname, op.get("python") or snake_name(op["method"]))
    return names, aliases


NAMES, ALIASES = load_manifest()
# The SDK's version: the API's major.minor and a patch of its own for the SDK's fixes
# (docs/decisions/sdks/sdk-version-api-major-minor-own-patch.md). Raise the patch for a release of
# SDK fixes; when the API's version changes, start again from it (the generation fails until then).
SDK_VERSION = "1.0.2"
# The auto-paging iterator beside each cursor-paged list.
ITERATORS = {
    "list": "iter",
    "list_entries": "iter_entries",
    "list_deliveries": "iter_deliveries",
    "list_payments": "iter_payments",
}
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def snake(name: str) -> str:
    s = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("-", "_")
    return s + "_" if s == "from" else s  # a Python keyword


def camel_class(resource: str) -> str:
    return "".join(part.capitalize() for part in resource.split("_"))


def nullable_primitives(node: Any) -> Any:
    """`anyOf: [{type: integer, minimum…}, {type: null}]` (zod's nullable int) becomes
    `{type: [integer, null], minimum…}`: datamodel-code-generator makes the first a RootModel[int]
    (`statusCode == 200` is then False), the second a plain `int | None` with its bounds."""
    if isinstance(node, list):
        return [nullable_primitives(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: nullable_primitives(v) for k, v in node.items()}
    variants = node.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        (other,) = [v for v in variants if v != {"type": "null"}]
        if isinstance(other, dict) and other.get("type") in ("integer", "number", "string", "boolean"):
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return {**other, **rest, "type": [other["type"], "null"]}
    return node


def models_source(document: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "_models.py"
        source = Path(tmp) / "openapi.json"
        source.write_text(json.dumps(nullable_primitives(json.loads(document.read_text()))))
        subprocess.run(
            [
                sys.executable, "-m", "datamodel_code_generator",
                "--input", str(source), "--input-file-type", "openapi",
                "--output", str(out),
                "--output-model-type", "pydantic_v2.BaseModel",
                "--target-python-version", "3.10",
                "--use-annotated", "--use-standard-collections", "--use-union-operator",
                "--field-constraints", "--enum-field-as-literal", "all",
                "--use-schema-description", "--collapse-root-models",
                # Inline objects take their parent's name (TestWebhookResultEvent), so none can take a
                # component schema's name (Event) from it.
                "--naming-strategy", "full-path",
                # Answers may gain fields in a minor version of the API: keep them, do not fail.
                "--extra-fields", "allow",
                "--disable-timestamp", "--formatters", "black", "isort",
                "--custom-file-header",
                "# Generated by sdk/codegen/python/generate.py from sdk/openapi.json"
                " (datamodel-code-generator). Do not edit.",
            ],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        return out.read_text()


def load_models(source: str) -> types.ModuleType:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "_momo_models_probe.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("_momo_models_probe", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        for model in vars(module).values():
            if isinstance(model, type) and model.__module__ == spec.name and hasattr(model, "model_rebuild"):
                model.model_rebuild()
        return module


def render_type(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(render_type(a) for a in typing.get_args(tp))
    if origin is list:
        return f"list[{render_type(typing.get_args(tp)[0])}]"
    if origin is typing.Annotated:
        return render_type(typing.get_args(tp)[0])
    if tp is type(None):
        return "None"
    if isinstance(tp, type):
        return f"_m.{tp.__name__}" if tp.__module__ == "_momo_models_probe" else tp.__name__
    raise SystemExit(f"generate.py: cannot render the type {tp!r}")


def deref(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        *_, section, name = node["$ref"].split("/")
        node = doc["components"][section][name]
    return node


def ref_name(node: dict[str, Any]) -> str:
    return str(node["$ref"].rsplit("/", 1)[1])


def param_type(schema: dict[str, Any]) -> str:
    if schema.get("type") == "object":
        # A deepObject parameter (metadata[key]=value): a mapping, sent as one pair per entry.
        value = schema.get("additionalProperties")
        return f"Mapping[str, {param_type(value) if isinstance(value, dict) else 'Any'}]"
    if "enum" in schema:
        return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
    t = schema.get("type")
    if t == "integer":
        return "int"
    if t == "boolean":
        return "bool"
    if schema.get("format") == "date-time":
        return "str | datetime"
    return "str"


class Method:
    def __init__(self, doc: dict[str, Any], path: str, verb: str, op: dict[str, Any]) -> None:
        self.id = op["operationId"]
        self.resource, self.name = NAMES[self.id]
        self.verb = verb.upper()
        self.path = path
        self.summary = (op.get("summary") or "").strip()
        params = [deref(doc, p) for p in op.get("parameters", [])]
        self.path_params = [p["name"] for p in params if p["in"] == "path"]
        self.query = [p for p in params if p["in"] == "query"]
        content = (op.get("requestBody") or {}).get("content", {}).get("application/json")
        self.body_required = bool((op.get("requestBody") or {}).get("required"))
        self.body_types: list[str] = []
        if content:
            schema = content["schema"]
            variants = schema.get("oneOf") or schema.get("anyOf") or [schema]
            self.body_types = [f"_m.{ref_name(v)}" for v in variants]
        self.kind = "none"
        self.model = ""
        for status, response in sorted(op["responses"].items()):
            if not status.startswith("2"):
                continue
            body = response.get("content", {})
            if "application/json" in body:
                self.kind, self.model = "model", ref_name(body["application/json"]["schema"])
                break
            if body:
                self.kind = "bytes"
                break

    def signature(self, iterator: bool = False) -> str:
        args = ["self"] + [f"{snake(p)}: str" for p in self.path_params]
        if self.id == "downloadStatement":
            # The ready Statement itself carries the signed link (download.url): take it whole.
            args = ["self", "id: str | _m.Statement"]
        if self.body_types:
            union = " | ".join(self.body_types + ["Mapping[str, Any]"])
            args.append(f"body: {union}" if self.body_required else f"body: {union} | None = None")
        kw: list[str] = []
        for q in self.query:
            if iterator and q["name"] == "cursor":
                continue
            t = param_type(q.get("schema", {}))
            optional = not q.get("required") or self.id == "downloadStatement"
            kw.append(f"{snake(q['name'])}: {t} | None = None" if optional else f"{snake(q['name'])}: {t}")
        if self.verb == "POST" and not iterator:
            kw.append("idempotency_key: str | None = None")
        kw += ["accept_language: Language | None = None", "timeout: float | None = None"]
        return ", ".join(args + ["*"] + kw)

    def call_args(self, cursor: str | None = None) -> str:
        path = ", ".join(f'"{p}": {snake(p)}' for p in self.path_params)
        query = ", ".join(
            f'"{q["name"]}": {cursor if (cursor and q["name"] == "cursor") else snake(q["name"])}'
            for q in self.query
        )
        body = "body" if self.body_types else "None"
        key = "idempotency_key" if self.verb == "POST" else "None"
        return (
            f"path={{{path}}}, query={{{query}}}, body={body}, idempotency_key={key}, "
            "accept_language=accept_language, timeout=timeout"
        )


def resources_source(doc: dict[str, Any], methods: list[Method], models: types.ModuleType) -> str:
    by_resource: dict[str, list[Method]] = {}
    for m in methods:
        by_resource.setdefault(m.resource, []).append(m)
    out = [
        "# Generated by sdk/codegen/python/generate.py from sdk/openapi.json. Do not edit.",
        '"""One method per /v1/ operation, grouped by resource, for the sync and the async client."""',
        "",
        "from __future__ import annotations",
        "",
        "import warnings",
        "from collections.abc import AsyncIterator, Iterator, Mapping, Sequence",
        "from datetime import datetime",
        "from typing import Any, Literal",
        "",
        "from . import _models as _m",
        "from ._core import Language, statement_link",
        "from ._operations import OPERATIONS, operation",
        "from ._resource import AsyncResource, SyncResource",
        "from ._stream import AsyncEventStream, EventStream",
        "from ._transport import AsyncTransport, SyncTransport",
        "",
        "__all__ = [",
    ]
    for r in by_resource:
        out.append(f'    "{camel_class(r)}", "Async{camel_class(r)}",')
    out.append("]")
    for is_async in (False, True):
        for resource, ms in by_resource.items():
            cls = ("Async" if is_async else "") + camel_class(resource)
            base = "AsyncResource" if is_async else "SyncResource"
            out += ["", "", f"class {cls}({base}):", f'    """{resource.replace("_", " ").capitalize()}."""']
            for m in ms:
                out += method_source(m, models, is_async)
    for is_async in (False, True):
        prefix = "Async" if is_async else ""
        transport = "AsyncTransport" if is_async else "SyncTransport"
        out += ["", "", f"class _{prefix}Resources:", f'    """The resources of the {"async" if is_async else "sync"} client."""', ""]
        out += [f"    {r}: {prefix}{camel_class(r)}" for r in by_resource]
        out += ["", f"    def _bind(self, transport: {transport}) -> None:"]
        out += [f"        self.{r} = {prefix}{camel_class(r)}(transport)" for r in by_resource]
        for r in by_resource:
            for alias in ALIASES.get(r, []):
                out += [
                    "",
                    "    @property",
                    f"    def {alias}(self) -> {prefix}{camel_class(r)}:",
                    f'        """Deprecated: `{r}`, its one name in the three SDKs; `{alias}` goes in the next minor release."""',
                    "        warnings.warn(",
                    f'            "{alias} is deprecated and goes in the next minor release: use {r}",',
                    "            DeprecationWarning,",
                    "            stacklevel=2,",
                    "        )",
                    f"        return self.{r}",
                ]
    return "\n".join(out) + "\n"


def method_source(m: Method, models: types.ModuleType, is_async: bool) -> list[str]:
    aw = "await " if is_async else ""
    df = "async def" if is_async else "def"
    op = f'OPERATIONS["{m.id}"]'
    lines = ["", f'    @operation("{m.id}")']
    doc = f'        """{m.verb} {m.path}: {m.summary}"""' if m.summary else f'        """{m.verb} {m.path}."""'
    if m.id == "openEventStream":
        stream = "AsyncEventStream" if is_async else "EventStream"
        lines += [
            f"    def {m.name}(self, *, references: Sequence[str] | None = None, last_event_id: str | None = None,"
            f" reconnect: bool = True) -> {stream}:",
            doc,
            f"        return {stream}(self._t.config, {op}, references=references,"
            " last_event_id=last_event_id, reconnect=reconnect)",
        ]
        return lines
    if m.kind == "model":
        ret, call = f"_m.{m.model}", f"{aw}self._t.model({op}, _m.{m.model}, {m.call_args()})"
    elif m.kind == "bytes":
        ret, call = "bytes", f"{aw}self._t.bytes({op}, {m.call_args()})"
    else:
        ret, call = "None", f"{aw}self._t.none({op}, {m.call_args()})"
    lines += [f"    {df} {m.name}({m.signature()}) -> {ret}:", doc]
    if m.id == "downloadStatement":
        lines.append("        id, expires, signature = statement_link(id, expires, signature)")
    lines.append(f"        return {call}")
    if any(q["name"] == "cursor" for q in m.query) and m.kind == "model":
        page = getattr(models, m.model)
        item = render_type(page.model_fields["data"].annotation)
        assert item.startswith("list["), item
        item = item[5:-1]
        it = ITERATORS[m.name]
        iter_type = f"AsyncIterator[{item}]" if is_async else f"Iterator[{item}]"
        lines += [
            "",
            f"    {df} {it}({m.signature(iterator=True)}) -> {iter_type}:",
            f'        """Every item of `{m.name}`, page after page (follows nextCursor)."""',
            "        cursor: str | None = None",
            "        while True:",
            f"            page = {aw}self._t.model({op}, _m.{m.model}, {m.call_args(cursor='cursor')})",
            "            for item in page.data:",
            "                yield item",
            "            if not page.nextCursor:",
            "                return",
            "            cursor = page.nextCursor",
        ]
    return lines


def operations_source(methods: list[Method], schemas: list[str], events: list[str]) -> str:
    out = [
        "# Generated by sdk/codegen/python/generate.py from sdk/openapi.json. Do not edit.",
        '"""The operation table the resource methods send with, and the schemas the models cover."""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Callable",
        "from typing import Annotated, TypeVar, Union",
        "",
        "from pydantic import Field",
        "",
        "from . import _models as _m",
        "from ._core import Operation",
        "",
        'F = TypeVar("F", bound=Callable[..., object])',
        "",
        "",
        "def operation(operation_id: str) -> Callable[[F], F]:",
        '    """Marks a method as the SDK\'s call of `operation_id` (read by manifest.sh)."""',
        "",
        "    def mark(fn: F) -> F:",
        "        setattr(fn, \"__momo_operation__\", operation_id)",
        "        return fn",
        "",
        "    return mark",
        "",
        "",
        "OPERATIONS: dict[str, Operation] = {",
    ]
    for m in methods:
        out.append(
            f'    "{m.id}": Operation("{m.id}", "{m.verb}", "{m.path}", '
            f"{tuple(m.path_params)!r}, {tuple(q['name'] for q in m.query)!r}, {bool(m.body_types)}),"
        )
    out += ["}", "", "#: The document's components.schemas, each a class of _models.", "COMPONENT_SCHEMAS = ("]
    out += [f'    "{s}",' for s in schemas]
    out += [")", "", "#: The events of the document's `webhooks`, told apart by `type`."]
    out += ["TypedEvent = Annotated[", "    Union["]
    out += [f"        _m.{e}," for e in events]
    out += ["    ],", '    Field(discriminator="type"),', "]"]
    return "\n".join(out) + "\n"


def generate() -> dict[Path, str]:
    doc = json.loads(DOCUMENT.read_text())
    models = models_source(DOCUMENT)
    module = load_models(models)
    methods: list[Method] = []
    for path, item in doc["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for verb in HTTP_METHODS:
            if verb in item:
                op_id = item[verb]["operationId"]
                if op_id not in NAMES:
                    raise SystemExit(f"generate.py: {op_id} has no place in NAMES: add one")
                methods.append(Method(doc, path, verb, item[verb]))
    stale = set(NAMES) - {m.id for m in methods}
    if stale:
        raise SystemExit(f"generate.py: NAMES lists operations the document lacks: {sorted(stale)}")
    schemas = list(doc["components"]["schemas"])
    missing = [s for s in schemas if not hasattr(module, s)]
    if missing:
        raise SystemExit(f"generate.py: no model generated for {missing}")
    events = []
    for hook in doc.get("webhooks", {}).values():
        name = ref_name(hook["post"]["requestBody"]["content"]["application/json"]["schema"])
        if name not in events:
            events.append(name)
    version = doc["info"]["version"]
    sdk, api = SDK_VERSION.split("."), version.split(".")
    if sdk[:2] != api[:2] or int(sdk[2]) < int(api[2]):
        raise SystemExit(f"generate.py: SDK_VERSION {SDK_VERSION} is not a release of the API's {version}: update it")
    return {
        PACKAGE / "_models.py": models,
        PACKAGE / "_operations.py": operations_source(methods, schemas, events),
        PACKAGE / "_resources.py": format_source(resources_source(doc, methods, module)),
        PACKAGE / "_version.py": "# Generated by sdk/codegen/python/generate.py: the SDK's version (the API's\n"
        "# major.minor, a patch of its own) and the API's (info.version of sdk/openapi.json).\n"
        f'__version__ = "{SDK_VERSION}"\n'
        f'__api_version__ = "{version}"\n',
    }


def format_source(source: str) -> str:
    import black

    return black.format_str(source, mode=black.Mode(line_length=100))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail when the committed files differ")
    args = parser.parse_args()
    files = generate()
    files = {p: (format_source(s) if p.name == "_operations.py" else s) for p, s in files.items()}
    stale = []
    for path, text in files.items():
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        if args.check:
            stale.append(path)
            sys.stdout.writelines(
                difflib.unified_diff(current.splitlines(True), text.splitlines(True), str(path), "generated", n=1)
            )
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(SDK)}")
    if stale:
        print(f"generate.py --check: {len(stale)} file(s) differ from sdk/openapi.json; run npm run generate:sdks", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
