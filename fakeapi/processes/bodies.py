"""The JSON of exec scripts and port-forward rules (the control API's, and the `fakeapi.dev/` annotations'), as
marshmallow schemas: loaded with the first script or rule."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, post_load, validate, validates_schema

from fakeapi.machinery.bodies import BodySchema


def _text(name: str) -> fields.String:
    return fields.String(allow_none=True, load_default=None, error_messages={"invalid": f"{name} must be a string"})


class ScriptSchema(BodySchema):
    """A script's JSON: what `exec` of the commands it matches prints and exits with, or a shell script."""

    what = "script"
    namespace = _text("namespace")
    pod = _text("pod")
    container = _text("container")
    command = _text("command")
    stdout = _text("stdout")
    stderr = _text("stderr")
    script = _text("script")
    exit_code = fields.Integer(
        data_key="exitCode", strict=True, load_default=0,
        validate=validate.Range(0, 255, error="exitCode must be an integer from 0 to 255"),
        error_messages={"invalid": "exitCode must be an integer from 0 to 255"})

    @validates_schema
    def _one_answer(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data["script"] is not None and (data["stdout"] or data["stderr"] or data["exit_code"]):
            raise ValidationError("give either a script, or stdout, stderr and exitCode")

    @post_load
    def _defaults(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        for name in ("namespace", "pod", "container", "command"):
            data[name] = data.get(name) or "*"
        for name in ("stdout", "stderr"):
            data[name] = data[name] or ""
        return data


SCRIPT = ScriptSchema()
UNSCOPED_SCRIPT = ScriptSchema(exclude=("namespace", "pod", "container"))


class PortRuleSchema(BodySchema):
    """A port rule's JSON: the address port-forward connections to the pods (and port) it matches reach."""

    what = "port"
    namespace = fields.String(allow_none=True, load_default=None,
                              error_messages={"invalid": "namespace must be a string"})
    pod = fields.String(allow_none=True, load_default=None, error_messages={"invalid": "pod must be a string"})
    port = fields.Integer(strict=True, allow_none=True, load_default=None,
                          validate=validate.Range(1, 65535, error="port must be an integer from 1 to 65535"),
                          error_messages={"invalid": "port must be an integer from 1 to 65535"})
    address = fields.String(required=True, error_messages={
        problem: 'address is required: "host:port"' for problem in ("invalid", "required", "null")})


PORT_RULE = PortRuleSchema()
