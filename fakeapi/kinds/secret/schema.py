"""core/v1 Secret and SecretList."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import BytesMap, StringMap, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema


class SecretSchema(TypedSchema):
    """Sensitive data (passwords, tokens, keys) under named keys, kept apart from pod specs."""

    openapi_name = "io.k8s.api.core.v1.Secret"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    immutable = fields.Boolean(
        metadata=doc(
            "When true, data can no longer change (only the metadata can), and the field cannot be unset. "
            "When unset or false, the data may change at any time.",
            pointer=True,
        ),
    )
    data = BytesMap(
        metadata=doc(
            "The secret values as bytes, base64-encoded on the wire. Keys consist of alphanumeric "
            "characters, '-', '_' or '.'."
        ),
    )
    stringData = StringMap(
        metadata=doc(
            "Values given as plain text, for convenience when writing: on every write they are merged into "
            "data (replacing values under the same keys). Never returned by the server."
        ),
    )
    type = fields.String(
        metadata=doc(
            "What the secret holds, for programs that handle it: Opaque (the default), "
            "kubernetes.io/tls, kubernetes.io/dockerconfigjson, kubernetes.io/basic-auth... Some types "
            "require certain keys. Cannot change once set."
        ),
    )


class SecretListSchema(TypedSchema):
    """A list of Secrets."""

    openapi_name = "io.k8s.api.core.v1.SecretList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(fields.Nested(SecretSchema), required=True, metadata=doc("The Secrets."))
