"""The checked syntax tree of a compiled CEL expression (cel.expr.CheckedExpr, which the runtime hands out
serialized), read into plain Python nodes: what the cost estimator walks.

The message layouts below are those of cel-spec's checked.proto and syntax.proto (their field numbers, the
facts of the wire format); only what the estimator reads is declared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_OPTIONAL, _REPEATED = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED


def _message(file: descriptor_pb2.FileDescriptorProto, name: str,
             fields: list[tuple[str, int, int, str, int]], parent: Any = None, oneof: str = "",
             members: tuple[str, ...] = ()) -> Any:
    """A message of `(name, number, type, type name, label)` fields; `members` form the oneof `oneof`."""
    message = (parent.nested_type if parent is not None else file.message_type).add(name=name)
    if oneof:
        message.oneof_decl.add(name=oneof)
    for field_name, number, kind, type_name, label in fields:
        declared = message.field.add(name=field_name, number=number, type=kind, label=label)
        if type_name:
            declared.type_name = type_name
        if field_name in members:
            declared.oneof_index = 0
    return message


def _pool() -> descriptor_pool.DescriptorPool:
    file = descriptor_pb2.FileDescriptorProto(name="fakeapi/cel_checked.proto", package="celexpr", syntax="proto3")
    msg, string, i64, u64, dbl, boolean, raw, enum = (_F.TYPE_MESSAGE, _F.TYPE_STRING, _F.TYPE_INT64, _F.TYPE_UINT64,
                                                      _F.TYPE_DOUBLE, _F.TYPE_BOOL, _F.TYPE_BYTES, _F.TYPE_INT32)
    _message(file, "Empty", [])
    _message(file, "Constant", [("null_value", 1, enum, "", _OPTIONAL), ("bool_value", 2, boolean, "", _OPTIONAL),
                                ("int64_value", 3, i64, "", _OPTIONAL), ("uint64_value", 4, u64, "", _OPTIONAL),
                                ("double_value", 5, dbl, "", _OPTIONAL), ("string_value", 6, string, "", _OPTIONAL),
                                ("bytes_value", 7, raw, "", _OPTIONAL)],
             oneof="constant_kind", members=("null_value", "bool_value", "int64_value", "uint64_value",
                                             "double_value", "string_value", "bytes_value"))
    expr = _message(file, "Expr", [
        ("id", 2, i64, "", _OPTIONAL), ("const_expr", 3, msg, ".celexpr.Constant", _OPTIONAL),
        ("ident_expr", 4, msg, ".celexpr.Expr.Ident", _OPTIONAL),
        ("select_expr", 5, msg, ".celexpr.Expr.Select", _OPTIONAL),
        ("call_expr", 6, msg, ".celexpr.Expr.Call", _OPTIONAL),
        ("list_expr", 7, msg, ".celexpr.Expr.CreateList", _OPTIONAL),
        ("struct_expr", 8, msg, ".celexpr.Expr.CreateStruct", _OPTIONAL),
        ("comprehension_expr", 9, msg, ".celexpr.Expr.Comprehension", _OPTIONAL)],
        oneof="expr_kind", members=("const_expr", "ident_expr", "select_expr", "call_expr", "list_expr",
                                    "struct_expr", "comprehension_expr"))
    _message(file, "Ident", [("name", 1, string, "", _OPTIONAL)], expr)
    _message(file, "Select", [("operand", 1, msg, ".celexpr.Expr", _OPTIONAL), ("field", 2, string, "", _OPTIONAL),
                              ("test_only", 3, boolean, "", _OPTIONAL)], expr)
    _message(file, "Call", [("target", 1, msg, ".celexpr.Expr", _OPTIONAL), ("function", 2, string, "", _OPTIONAL),
                            ("args", 3, msg, ".celexpr.Expr", _REPEATED)], expr)
    _message(file, "CreateList", [("elements", 1, msg, ".celexpr.Expr", _REPEATED)], expr)
    struct = _message(file, "CreateStruct", [("message_name", 1, string, "", _OPTIONAL),
                                             ("entries", 2, msg, ".celexpr.Expr.CreateStruct.Entry", _REPEATED)],
                      expr)
    _message(file, "Entry", [("id", 1, i64, "", _OPTIONAL), ("field_key", 2, string, "", _OPTIONAL),
                             ("map_key", 3, msg, ".celexpr.Expr", _OPTIONAL),
                             ("value", 4, msg, ".celexpr.Expr", _OPTIONAL)], struct)
    _message(file, "Comprehension", [
        ("iter_var", 1, string, "", _OPTIONAL), ("iter_range", 2, msg, ".celexpr.Expr", _OPTIONAL),
        ("accu_var", 3, string, "", _OPTIONAL), ("accu_init", 4, msg, ".celexpr.Expr", _OPTIONAL),
        ("loop_condition", 5, msg, ".celexpr.Expr", _OPTIONAL), ("loop_step", 6, msg, ".celexpr.Expr", _OPTIONAL),
        ("result", 7, msg, ".celexpr.Expr", _OPTIONAL)], expr)
    kind = _message(file, "Type", [
        ("dyn", 1, msg, ".celexpr.Empty", _OPTIONAL), ("null", 2, enum, "", _OPTIONAL),
        ("primitive", 3, enum, "", _OPTIONAL), ("wrapper", 4, enum, "", _OPTIONAL),
        ("well_known", 5, enum, "", _OPTIONAL), ("list_type", 6, msg, ".celexpr.Type.ListType", _OPTIONAL),
        ("map_type", 7, msg, ".celexpr.Type.MapType", _OPTIONAL), ("message_type", 9, string, "", _OPTIONAL),
        ("type_param", 10, string, "", _OPTIONAL), ("type", 11, msg, ".celexpr.Type", _OPTIONAL),
        ("error", 12, msg, ".celexpr.Empty", _OPTIONAL),
        ("abstract_type", 14, msg, ".celexpr.Type.AbstractType", _OPTIONAL)],
        oneof="type_kind", members=("dyn", "null", "primitive", "wrapper", "well_known", "list_type", "map_type",
                                    "message_type", "type_param", "type", "error", "abstract_type"))
    _message(file, "ListType", [("elem_type", 1, msg, ".celexpr.Type", _OPTIONAL)], kind)
    _message(file, "MapType", [("key_type", 1, msg, ".celexpr.Type", _OPTIONAL),
                               ("value_type", 2, msg, ".celexpr.Type", _OPTIONAL)], kind)
    _message(file, "AbstractType", [("name", 1, string, "", _OPTIONAL),
                                    ("parameter_types", 2, msg, ".celexpr.Type", _REPEATED)], kind)
    _message(file, "Reference", [("name", 1, string, "", _OPTIONAL), ("overload_id", 3, string, "", _REPEATED)])
    source = _message(file, "SourceInfo", [("positions", 4, msg, ".celexpr.SourceInfo.PositionsEntry", _REPEATED)])
    positions = _message(file, "PositionsEntry", [("key", 1, i64, "", _OPTIONAL), ("value", 2, enum, "", _OPTIONAL)],
                         source)
    positions.options.map_entry = True
    checked = _message(file, "CheckedExpr", [
        ("reference_map", 2, msg, ".celexpr.CheckedExpr.ReferenceMapEntry", _REPEATED),
        ("type_map", 3, msg, ".celexpr.CheckedExpr.TypeMapEntry", _REPEATED),
        ("expr", 4, msg, ".celexpr.Expr", _OPTIONAL),
        ("source_info", 5, msg, ".celexpr.SourceInfo", _OPTIONAL)])
    _message(file, "ParsedExpr", [("expr", 2, msg, ".celexpr.Expr", _OPTIONAL),
                                  ("source_info", 3, msg, ".celexpr.SourceInfo", _OPTIONAL)])
    for entry, value in (("ReferenceMapEntry", ".celexpr.Reference"), ("TypeMapEntry", ".celexpr.Type")):
        declared = _message(file, entry, [("key", 1, i64, "", _OPTIONAL), ("value", 2, msg, value, _OPTIONAL)],
                            checked)
        declared.options.map_entry = True
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return pool


_POOL = _pool()
_CHECKED = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("celexpr.CheckedExpr"))
_PARSED = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("celexpr.ParsedExpr"))
_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}


@dataclass(frozen=True)
class CelType:
    """A checked type: `kind` is bool, int, uint, double, string, bytes, timestamp, duration, null, list,
    map, message (named), dyn, type, error or opaque (named, with parameters)."""

    kind: str
    name: str = ""
    params: tuple[CelType, ...] = ()

    @property
    def scalar(self) -> bool:
        """Of a size known when compiled (cel-go's isScalar)."""
        return self.kind in ("bool", "double", "duration", "int", "timestamp", "uint")


DYN = CelType("dyn")


def _type(message: Any) -> CelType:
    which = message.WhichOneof("type_kind")
    if which == "primitive":
        return CelType(_PRIMITIVES.get(message.primitive, "dyn"))
    if which == "wrapper":
        return CelType(_PRIMITIVES.get(message.wrapper, "dyn"))
    if which == "well_known":
        return CelType(_WELL_KNOWN.get(message.well_known, "dyn"))
    if which == "null":
        return CelType("null")
    if which == "list_type":
        return CelType("list", params=(_type(message.list_type.elem_type),))
    if which == "map_type":
        return CelType("map", params=(_type(message.map_type.key_type), _type(message.map_type.value_type)))
    if which == "message_type":
        return CelType("message", message.message_type)
    if which == "type":
        return CelType("type")
    if which == "error":
        return CelType("error")
    if which == "abstract_type":
        return CelType("opaque", message.abstract_type.name,
                       tuple(_type(param) for param in message.abstract_type.parameter_types))
    return DYN


@dataclass(eq=False)
class Expr:
    """A node: `kind` is const, ident, select, call, list, map, struct or comprehension."""

    id: int
    kind: str
    type: CelType = DYN
    value: Any = None  # const: the literal; ident: the name; select: the field; call: the function
    target: Expr | None = None  # select: the operand; call: the receiver of a member call
    args: list[Expr] = field(default_factory=list)  # call arguments, list elements, map keys and values
    test_only: bool = False  # has()
    overloads: tuple[str, ...] = ()
    iter_var: str = ""
    accu_var: str = ""
    iter_range: Expr | None = None
    accu_init: Expr | None = None
    loop_condition: Expr | None = None
    loop_step: Expr | None = None
    result: Expr | None = None
    position: int = -1  # the offset in the source, in code points


def checked_tree(serialized: bytes) -> Expr:
    """The tree of a serialized checked (or only parsed) expression (`Expression.serialize()`)."""
    wrapper = any_pb2.Any()
    wrapper.ParseFromString(serialized)
    if wrapper.type_url.endswith(".ParsedExpr"):
        parsed = _PARSED()
        parsed.ParseFromString(wrapper.value)
        return _expr(parsed.expr, {}, {}, dict(parsed.source_info.positions.items()))
    checked = _CHECKED()
    checked.ParseFromString(wrapper.value)
    types = {key: _type(value) for key, value in checked.type_map.items()}
    overloads = {key: tuple(value.overload_id) for key, value in checked.reference_map.items()}
    positions = dict(checked.source_info.positions.items())
    return _expr(checked.expr, types, overloads, positions)


def _expr(message: Any, types: dict[int, CelType], overloads: dict[int, tuple[str, ...]],
          positions: dict[int, int]) -> Expr:
    def sub(child: Any) -> Expr:
        return _expr(child, types, overloads, positions)

    which = message.WhichOneof("expr_kind")
    node = Expr(message.id, which.removesuffix("_expr") if which else "const", types.get(message.id, DYN),
                overloads=overloads.get(message.id, ()), position=positions.get(message.id, -1))
    if which == "const_expr":
        constant = message.const_expr
        kind = constant.WhichOneof("constant_kind")
        node.value = None if kind in (None, "null_value") else getattr(constant, kind)
    elif which == "ident_expr":
        node.value = message.ident_expr.name
    elif which == "select_expr":
        node.value = message.select_expr.field
        node.target = sub(message.select_expr.operand)
        node.test_only = message.select_expr.test_only
    elif which == "call_expr":
        call = message.call_expr
        node.value = call.function
        node.target = sub(call.target) if call.HasField("target") else None
        node.args = [sub(arg) for arg in call.args]
    elif which == "list_expr":
        node.args = [sub(element) for element in message.list_expr.elements]
    elif which == "struct_expr":
        struct = message.struct_expr
        node.kind = "struct" if struct.message_name else "map"
        node.args = []
        for entry in struct.entries:
            if entry.HasField("map_key"):
                node.args.append(sub(entry.map_key))
            node.args.append(sub(entry.value))
    elif which == "comprehension_expr":
        loop = message.comprehension_expr
        node.iter_var, node.accu_var = loop.iter_var, loop.accu_var
        node.iter_range, node.accu_init = sub(loop.iter_range), sub(loop.accu_init)
        node.loop_condition, node.loop_step = sub(loop.loop_condition), sub(loop.loop_step)
        node.result = sub(loop.result)
    return node
