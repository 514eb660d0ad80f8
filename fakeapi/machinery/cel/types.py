"""The Kubernetes CEL types (Quantity, URL, IP, CIDR, Format) as protobuf messages, the one way cel-expr-python takes
values of a type of its own: each holds its canonical text, so equality is the types' equality."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = "kubernetes"
TYPE_NAMES = ("Quantity", "URL", "IP", "CIDR", "Format")


def _pool() -> descriptor_pool.DescriptorPool:
    file = descriptor_pb2.FileDescriptorProto(name="fakeapi/kubernetes_cel.proto", package=PACKAGE, syntax="proto3")
    for name in TYPE_NAMES:
        message = file.message_type.add(name=name)
        message.field.add(name="text", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                          label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return pool


POOL = _pool()  # read-only after it is built: the message classes of the types, shared by every server
MESSAGES: dict[str, Any] = {name: message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))
                            for name in TYPE_NAMES}


def make(type_name: str, text: str) -> Any:
    return MESSAGES[type_name](text=text)
