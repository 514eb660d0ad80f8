"""Container probes and lifecycle hooks."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import Int32, Int64, IntOrString, K8sSchema, doc


class ExecActionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ExecAction"

    command = fields.List(
        fields.String(),
        metadata=doc(
            "Command is the command line to execute inside the container, the working directory for the"
            " command is root ('/') in the container's filesystem.",
            list_type="atomic",
        ),
    )


class HTTPHeaderSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.HTTPHeader"

    name = fields.String(
        required=True,
        metadata=doc(
            "The header field name. This will be canonicalized upon output, so case-variant names will "
            "be understood as the same header.",
        ),
    )
    value = fields.String(required=True, metadata=doc("The header field value"))


class HTTPGetActionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.HTTPGetAction"

    path = fields.String(metadata=doc("Path to access on the HTTP server."))
    port = IntOrString(
        required=True,
        metadata=doc(
            "Name or number of the port to access on the container. Number must be in the range 1 to "
            "65535. Name must be an IANA_SVC_NAME.",
        ),
    )
    host = fields.String(
        metadata=doc(
            'Host name to connect to, defaults to the pod IP. You probably want to set "Host" in '
            "httpHeaders instead."
        ),
    )
    scheme = fields.String(metadata=doc("Scheme to use for connecting to the host. Defaults to HTTP."))
    httpHeaders = fields.List(
        fields.Nested(HTTPHeaderSchema),
        metadata=doc(
            "Custom headers to set in the request. HTTP allows repeated headers.",
            list_type="atomic",
        ),
    )


class TCPSocketActionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.TCPSocketAction"

    port = IntOrString(
        required=True,
        metadata=doc(
            "Number or name of the port to access on the container. Number must be in the range 1 to "
            "65535. Name must be an IANA_SVC_NAME.",
        ),
    )
    host = fields.String(metadata=doc("Optional: Host name to connect to, defaults to the pod IP."))


class GRPCActionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.GRPCAction"

    port = Int32(
        required=True,
        metadata=doc("Port number of the gRPC service. Number must be in the range 1 to 65535."),
    )
    service = fields.String(
        metadata=doc(
            "Service is the name of the service to place in the gRPC HealthCheckRequest (see "
            "https://github.com/grpc/grpc/blob/master/doc/health-checking.md).",
            omitempty=False, pointer=True,
        ),
    )


class ProbeSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Probe"

    exec = fields.Nested(
        ExecActionSchema,
        metadata=doc("Exec specifies a command to execute in the container."),
    )
    httpGet = fields.Nested(
        HTTPGetActionSchema,
        metadata=doc("HTTPGet specifies an HTTP GET request to perform."),
    )
    tcpSocket = fields.Nested(
        TCPSocketActionSchema,
        metadata=doc("TCPSocket specifies a connection to a TCP port."),
    )
    grpc = fields.Nested(GRPCActionSchema, metadata=doc("GRPC specifies a GRPC HealthCheckRequest."))
    initialDelaySeconds = Int32(
        metadata=doc(
            "Number of seconds after the container has started before liveness probes are initiated."
        ),
    )
    timeoutSeconds = Int32(
        metadata=doc(
            "Number of seconds after which the probe times out. Defaults to 1 second. Minimum value is 1.",
        ),
    )
    periodSeconds = Int32(
        metadata=doc(
            "How often (in seconds) to perform the probe. Default to 10 seconds. Minimum value is 1."
        ),
    )
    successThreshold = Int32(
        metadata=doc(
            "Minimum consecutive successes for the probe to be considered successful after having "
            "failed. Defaults to 1. Must be 1 for liveness and startup. Minimum value is 1."
        ),
    )
    failureThreshold = Int32(
        metadata=doc(
            "Minimum consecutive failures for the probe to be considered failed after having succeeded."
            " Defaults to 3. Minimum value is 1.",
        ),
    )
    terminationGracePeriodSeconds = Int64(
        metadata=doc(
            "Optional duration in seconds the pod needs to terminate gracefully upon probe failure.",
            pointer=True,
        ),
    )


class SleepActionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SleepAction"

    seconds = Int64(required=True, metadata=doc("Seconds is the number of seconds to sleep."))


class LifecycleHandlerSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.LifecycleHandler"

    exec = fields.Nested(
        ExecActionSchema,
        metadata=doc("Exec specifies a command to execute in the container."),
    )
    httpGet = fields.Nested(
        HTTPGetActionSchema,
        metadata=doc("HTTPGet specifies an HTTP GET request to perform."),
    )
    tcpSocket = fields.Nested(
        TCPSocketActionSchema,
        metadata=doc(
            "Deprecated. TCPSocket is NOT supported as a LifecycleHandler and kept for backward "
            "compatibility."
        ),
    )
    sleep = fields.Nested(
        SleepActionSchema,
        metadata=doc("Sleep represents a duration that the container should sleep."),
    )


class LifecycleSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Lifecycle"

    postStart = fields.Nested(
        LifecycleHandlerSchema,
        metadata=doc(
            "PostStart is called immediately after a container is created. If the handler fails, the "
            "container is terminated and restarted according to its restart policy.",
        ),
    )
    preStop = fields.Nested(
        LifecycleHandlerSchema,
        metadata=doc(
            "PreStop is called immediately before a container is terminated due to an API request or "
            "management event such as liveness/startup probe failure, preemption, resource contention, "
            "etc.",
        ),
    )
