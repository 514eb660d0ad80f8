"""Regenerate fakeapi's copy of the Kubernetes API definitions for one minor (fakeapi/machinery/schema/data/).

The definitions are upstream's published OpenAPI (the JSON Schema copy that the `kubernetes-validate`
package ships for v1.25-v1.37, made from upstream's swagger.json), trimmed to the stable API groups, with
two facts OpenAPI does not carry added to every property from the Go types of the same release
(k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver at tag v0.<minor>.0):

* `x-go`: how encoding/json writes the Go struct field: its shape (`pointer`, `struct`, `slice`, `map` or
  `scalar`) and `,omitempty` when its json tag says so;
* `x-protobuf`: the field's number in the protobuf message (the `protobuf:"..."` tag); a definition whose
  Go struct embeds another one inline in JSON but as a field of its own in protobuf (Volume's
  VolumeSource) lists it under `x-protobuf-inline` as {number: [the JSON names of its fields]}.

Only facts are taken (names, types, tags, descriptions); no code. Usage, from a checkout root:

    git clone -q --bare https://github.com/kubernetes/api /tmp/api.git             # and apimachinery,
    python scripts/vendor_definitions.py 1.32 --api /tmp/api.git \\                  # apiextensions-apiserver
        --apimachinery /tmp/apimachinery.git --apiextensions /tmp/apiextensions-apiserver.git

It downloads the `kubernetes-validate` wheel with pip (or takes `--validate-wheel PATH`) and writes
fakeapi/machinery/schema/data/kubernetes-<minor>.json.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT_DIR = ROOT / "fakeapi" / "machinery" / "schema" / "data"
VALIDATE_VERSION = "1.37.0"

# definition name prefix -> (repository, directory of the Go package at the tag)
GO_PACKAGES: tuple[tuple[str, str, str], ...] = (
    ("io.k8s.apimachinery.pkg.apis.meta.v1.", "apimachinery", "pkg/apis/meta/v1"),
    ("io.k8s.apimachinery.pkg.runtime.", "apimachinery", "pkg/runtime"),
    ("io.k8s.apimachinery.pkg.version.", "apimachinery", "pkg/version"),
    ("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.", "apiextensions", "pkg/apis/apiextensions/v1"),
)
# Go types with a JSON form of their own (MarshalJSON): the definition upstream publishes for each
SPECIAL = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
        "description": "Quantity is a fixed-point representation of a number. It provides convenient "
                       "marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() "
                       "accessors.",
        "type": "string"},
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "description": "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML "
                       "marshalling and unmarshalling, it produces or consumes the inner type.  This allows "
                       "you to have, for example, a JSON field that can accept a name or number.",
        "format": "int-or-string", "type": "string"},
}
# Go types that marshal as something other than their struct: what shape a field of that type has
STRUCT_LIKE = {"Time", "MicroTime", "Quantity", "IntOrString", "Duration"}
# Properties a later minor added that fakeapi serves at this one: the pod semantics it follows (its
# spec, from upstream's pod strategy) carry `observedGeneration` forward on status writes.
BACKPORTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "1.32": (("io.k8s.api.core.v1.PodStatus", "observedGeneration", "1.33"),
             ("io.k8s.api.core.v1.PodCondition", "observedGeneration", "1.33")),
}
UNSTABLE = re.compile(r"\.v[0-9]+(alpha|beta)[0-9]+\.")
_FIELD = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s+([^\s`]+)\s*(?:`([^`]*)`)?\s*(?://.*)?$")
_EMBEDDED = re.compile(r"^\s*(\*?[A-Za-z_][A-Za-z0-9_.]*)\s*(?:`([^`]*)`)?\s*(?://.*)?$")
_TAG = re.compile(r'(\w+):"([^"]*)"')
_IMPORT = re.compile(r'^\s*(?:import\s+)?(\w+\s+)?"([^"]+)"\s*$', re.MULTILINE)
Package = tuple[str, str]  # (repository, directory)


@dataclass(frozen=True)
class GoType:
    """A named Go type: a struct (its fields: name, type, tags) or a definition of another type."""

    imports: dict[str, Package]  # of the file that declares it, by alias
    fields: list[tuple[str, str, dict[str, str]]] | None = None
    target: str | None = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("minor", help="the Kubernetes minor, e.g. 1.32")
    parser.add_argument("--api", required=True, help="a git clone of k8s.io/api (github.com/kubernetes/api)")
    parser.add_argument("--apimachinery", required=True, help="a git clone of k8s.io/apimachinery")
    parser.add_argument("--apiextensions", required=True, help="a git clone of k8s.io/apiextensions-apiserver")
    parser.add_argument("--validate-wheel", help="the kubernetes-validate wheel (downloaded with pip if absent)")
    args = parser.parse_args()
    repositories = {"api": args.api, "apimachinery": args.apimachinery, "apiextensions": args.apiextensions}
    wheel = args.validate_wheel or _download_wheel()
    trimmed = _with_go_facts(args.minor, wheel, repositories)
    for name, prop, minor in BACKPORTS.get(args.minor, ()):
        later = _with_go_facts(minor, wheel, repositories, only=name)
        trimmed[name]["properties"][prop] = later[name]["properties"][prop]
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    output = OUTPUT_DIR / f"kubernetes-{args.minor}.json"
    document = {"kubernetes": f"v{args.minor}.0", "definitions": trimmed}
    # definitions sorted by name; the properties of each in its Go struct's order
    output.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {output.relative_to(ROOT)}: {len(trimmed)} definitions")


def _with_go_facts(minor: str, wheel: str, repositories: dict[str, str], only: str | None = None) -> dict[str, Any]:
    """The minor's kept definitions (or only one), with the Go facts of the structs behind them."""
    definitions = _published_definitions(minor, wheel)
    structs = GoStructs(repositories, "v0." + minor.split(".")[1] + ".0")
    trimmed = {name: _clean(name, schema) for name, schema in definitions.items()
               if _kept(name) and only in (None, name)}
    if only is None:
        trimmed.update(SPECIAL)
    trimmed = dict(sorted(trimmed.items()))
    for name, schema in trimmed.items():
        found = structs.find(name)
        if found is not None:
            _add_go_facts(schema, *found, structs)
    return trimmed


def _download_wheel() -> str:
    target = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", target,
                    f"kubernetes-validate=={VALIDATE_VERSION}"], check=True)
    return str(next(Path(target).glob("*.whl")))


def _published_definitions(minor: str, wheel: str) -> dict[str, Any]:
    member = f"kubernetes_validate/kubernetes-json-schema/v{minor}.0-local/_definitions.json"
    with zipfile.ZipFile(wheel) as archive:
        definitions: dict[str, Any] = json.loads(archive.read(member))["$defs"]
    return definitions


def _kept(name: str) -> bool:
    """Stable API groups only (no alpha or beta versions), and no aggregated APIs (APIService)."""
    return not UNSTABLE.search(name) and name not in SPECIAL and not name.startswith("io.k8s.kube-aggregator.")


def _clean(name: str, schema: Any) -> Any:
    """The definition in swagger's form: one type per schema (the copy adds "null" to optional ones),
    `$ref`s by definition name, and no `enum` on apiVersion and kind (the copy adds those)."""
    if isinstance(schema, list):
        return [_clean(name, item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, list):
            types = [kind for kind in value if kind != "null"]
            out[key] = types[0] if len(types) == 1 else types
        elif key == "$ref":
            out[key] = "#/definitions/" + value.rsplit("/", 1)[-1]
        elif key == "properties":
            out[key] = {prop: _clean(name, sub) for prop, sub in value.items()}
            for typed in ("apiVersion", "kind"):
                if typed in out[key]:
                    out[key][typed].pop("enum", None)
        else:
            out[key] = _clean(name, value)
    return out


class GoStructs:
    """The Go types of the API packages at one tag: each struct's fields with their tags, each other
    named type's definition, and the imports of the file that declares it."""

    def __init__(self, repositories: dict[str, str], tag: str) -> None:
        self._repositories = repositories
        self._tag = tag
        self._packages: dict[Package, dict[str, GoType]] = {}

    def find(self, definition: str) -> tuple[Package, GoType] | None:
        """The struct of a definition and its package, or None when it is no Go struct we can read."""
        package, type_name = _package_of(definition)
        if package is None:
            return None
        found = self._types(package).get(type_name)
        return (package, found) if found is not None and found.fields is not None else None

    def resolve(self, package: Package, go_type: GoType, name: str) -> tuple[Package, GoType] | None:
        """A type named in `go_type`'s file (`Pod`, `metav1.Time`): its package and definition, or None
        for a builtin or a type of a module not read."""
        if "." in name:
            alias, name = name.split(".", 1)
            if alias not in go_type.imports:
                return None
            package = go_type.imports[alias]
        found = self._types(package).get(name)
        return (package, found) if found is not None else None

    def _types(self, package: Package) -> dict[str, GoType]:
        if package not in self._packages:
            self._packages[package] = {}
            repository, directory = package
            if repository in self._repositories:
                for path in self._go_files(repository, directory):
                    self._packages[package].update(_parse_go(self._show(repository, path)))
        return self._packages[package]

    def _go_files(self, repository: str, directory: str) -> list[str]:
        listing = subprocess.run(["git", "-C", self._repositories[repository], "ls-tree", "--name-only",
                                  f"{self._tag}:{directory}"], capture_output=True, text=True)
        return [f"{directory}/{name}" for name in listing.stdout.split()
                if name.endswith(".go") and not name.endswith("_test.go") and not name.startswith("zz_")
                and not name.startswith("generated") and "swagger_doc" not in name]

    def _show(self, repository: str, path: str) -> str:
        return subprocess.run(["git", "-C", self._repositories[repository], "show", f"{self._tag}:{path}"],
                              check=True, capture_output=True, text=True).stdout


def _package_of(definition: str) -> tuple[Package | None, str]:
    for prefix, repository, directory in GO_PACKAGES:
        if definition.startswith(prefix):
            return (repository, directory), definition[len(prefix):]
    match = re.match(r"io\.k8s\.api\.([a-z0-9]+)\.(v[0-9a-z]+)\.(\w+)$", definition)
    if match:
        return ("api", f"{match.group(1)}/{match.group(2)}"), match.group(3)
    return None, definition


def _import_package(path: str) -> Package:
    for module, repository in (("k8s.io/api/", "api"), ("k8s.io/apimachinery/", "apimachinery"),
                               ("k8s.io/apiextensions-apiserver/", "apiextensions")):
        if path.startswith(module):
            return repository, path[len(module):]
    return "", path


def _parse_go(source: str) -> dict[str, GoType]:
    """Top-level `type X struct {...}` (fields with their tags) and `type X Y` definitions of a file."""
    imports: dict[str, Package] = {}
    for alias, path in _IMPORT.findall(source.split("\ntype ", 1)[0]):
        imports[alias.strip() or path.rsplit("/", 1)[-1]] = _import_package(path)
    types: dict[str, GoType] = {}
    lines = source.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        struct = re.match(r"^type (\w+) struct \{\s*$", line)
        alias = re.match(r"^type (\w+) (\S+)\s*(//.*)?$", line)
        if struct:
            fields: list[tuple[str, str, dict[str, str]]] = []
            index += 1
            while not lines[index].startswith("}"):
                text = lines[index].split("//", 1)[0] if "`" not in lines[index] else lines[index]
                field = _FIELD.match(text)
                embedded = _EMBEDDED.match(text) if field is None else None
                if field:
                    fields.append((field.group(1), field.group(2), dict(_TAG.findall(field.group(3) or ""))))
                elif embedded and embedded.group(1).strip():
                    fields.append(("", embedded.group(1), dict(_TAG.findall(embedded.group(2) or ""))))
                index += 1
            types[struct.group(1)] = GoType(imports, fields=fields)
        elif alias and alias.group(2) not in ("struct", "interface"):
            types[alias.group(1)] = GoType(imports, target=alias.group(2))
        index += 1
    return types


def _shape(structs: GoStructs, package: Package, owner: GoType, go_type: str) -> str:
    """How encoding/json treats a field of this Go type (named in `owner`'s file)."""
    for _ in range(6):
        if go_type.startswith("*"):
            return "pointer"
        if go_type.startswith("[]"):
            return "scalar" if go_type == "[]byte" else "slice"
        if go_type.startswith("map["):
            return "map"
        if go_type.rsplit(".", 1)[-1] in STRUCT_LIKE:
            return "struct"
        found = structs.resolve(package, owner, go_type)
        if found is None:
            return "scalar"  # a builtin (string, int32, bool...)
        package, owner = found
        if owner.fields is not None:
            return "struct"
        assert owner.target is not None
        go_type = owner.target
    return "scalar"


def _add_go_facts(schema: dict[str, Any], package: Package, struct: GoType, structs: GoStructs) -> None:
    properties: dict[str, Any] = schema.get("properties", {})
    inline: dict[str, list[str]] = {}
    fields = _json_fields(structs, package, struct, inline)
    # in the Go struct's order, which is the order encoding/json writes
    order = {json_name: index for index, (json_name, *_rest) in enumerate(fields)}
    schema["properties"] = properties = dict(sorted(properties.items(), key=lambda item: order.get(item[0], 1 << 20)))
    for json_name, field_package, owner, go_type, tags, number in fields:
        prop = properties.get(json_name)
        if prop is None:
            continue
        shape = _shape(structs, field_package, owner, go_type)
        omitempty = ",omitempty" in tags.get("json", "")
        prop["x-go"] = shape + (",omitempty" if omitempty else "")
        if number is not None:
            prop["x-protobuf"] = number
    if inline:
        schema["x-protobuf-inline"] = inline


Field = tuple[str, Package, "GoType", str, dict[str, str], int | None]


def _json_fields(structs: GoStructs, package: Package, struct: GoType, inline: dict[str, list[str]]) -> list[Field]:
    """The struct's fields as JSON sees them: (json name, package and type declaring it, Go type, tags,
    protobuf number), with the fields of inline embedded structs. An embedded struct with a protobuf
    number of its own is a nested message in protobuf: `inline` gets its number and the JSON names of
    its fields (whose numbers are the nested message's); one without (TypeMeta) is not in the message,
    and its fields have no number."""
    out: list[Field] = []
    assert struct.fields is not None
    for field_name, go_type, tags in struct.fields:
        json_tag = tags.get("json", "")
        json_name = json_tag.split(",", 1)[0]
        if json_name == "-":
            continue
        number = _protobuf_number(tags.get("protobuf", ""))
        if not json_name and (not field_name or ",inline" in json_tag):
            embedded = structs.resolve(package, struct, go_type.lstrip("*"))
            if embedded is None or embedded[1].fields is None:
                continue
            fields = _json_fields(structs, embedded[0], embedded[1], {})
            if number is not None:
                inline[str(number)] = [field[0] for field in fields]
                out.extend(fields)
            else:  # not in the message at all (TypeMeta: the protobuf envelope carries apiVersion and kind)
                out.extend((*field[:5], None) for field in fields)
            continue
        out.append((json_name or field_name or go_type.rsplit(".", 1)[-1], package, struct, go_type, tags, number))
    return out


def _protobuf_number(tag: str) -> int | None:
    parts = tag.split(",")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


if __name__ == "__main__":
    main()
