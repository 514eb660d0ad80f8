"""core/v1 ConfigMap and ConfigMapList."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import BytesMap, StringMap, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema


class ConfigMapSchema(TypedSchema):
    """Configuration data, as text or bytes under named keys, for pods to read."""

    openapi_name = "io.k8s.api.core.v1.ConfigMap"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    immutable = fields.Boolean(
        metadata=doc(
            "When true, data and binaryData can no longer change (only the metadata can), and the field "
            "cannot be unset. When unset or false, the data may change at any time.",
            pointer=True,
        ),
    )
    data = StringMap(
        metadata=doc(
            "The configuration as text. Keys consist of alphanumeric characters, '-', '_' or '.'; values "
            "that are not valid UTF-8 belong in binaryData. A key may not appear in both data and binaryData."
        ),
    )
    binaryData = BytesMap(
        metadata=doc(
            "The configuration as bytes, base64-encoded on the wire: for values that are not UTF-8 text. "
            "Keys follow the same rules as data's and may not also appear there."
        ),
    )


class ConfigMapListSchema(TypedSchema):
    """A list of ConfigMaps."""

    openapi_name = "io.k8s.api.core.v1.ConfigMapList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(
        fields.Nested(ConfigMapSchema),
        required=True,
        metadata=doc("The ConfigMaps."),
    )
