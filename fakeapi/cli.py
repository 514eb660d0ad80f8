"""The `fakeapi` command: `serve` runs the server; `openapi` writes the OpenAPI documents.

Exit codes: 0 on success, 2 for flags the parser rejects, 1 for a failure at run time (printed as one
`fakeapi: ...` line naming the cause and the fix).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path
from typing import TypeVar

from fakeapi import __version__
from fakeapi.config import DEFAULT_REQUEST_LOG, DEFAULT_REQUEST_LOG_BYTES, SIMULATION_MODES
from fakeapi.storage.etcd.config import (
    DEFAULT_COMPACTION_INTERVAL,
    DEFAULT_PREFIX,
    Endpoint,
    EtcdConfig,
    EtcdConfigError,
    parse_endpoints,
)
from fakeapi.storage.store import DEFAULT_HISTORY, DEFAULT_HISTORY_AGE, DEFAULT_HISTORY_BYTES

Number = TypeVar("Number", int, float)


def main(argv: list[str] | None = None) -> int:
    fakeapi = parser()
    args = fakeapi.parse_args(argv)
    if args.command == "openapi":
        return openapi_command(args.output_dir, args.check)
    error = tls_flags_error(args)
    if error is not None:
        args.serve_parser.error(error)  # exit 2 with the usage, as for a value the parser rejects
    return serve_command(args)


def parser() -> argparse.ArgumentParser:
    fakeapi = argparse.ArgumentParser(prog="fakeapi", description=__doc__,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
    fakeapi.add_argument("--version", action="version", version=f"fakeapi {__version__}")
    commands = fakeapi.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the fake API server")
    serve.set_defaults(serve_parser=serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=8080, help="port to bind; 0 picks a free one (default 8080)")
    serve.add_argument("--kubeconfig", type=Path, help="write a kubeconfig for this server to PATH")
    serve.add_argument("--watch-history", type=count, default=DEFAULT_HISTORY, metavar="N",
                       help=f"change events kept for watches resuming from a resourceVersion "
                            f"(default {DEFAULT_HISTORY})")
    serve.add_argument("--watch-history-bytes", type=count, default=DEFAULT_HISTORY_BYTES, metavar="BYTES",
                       help=f"... holding at most this many bytes of objects, before and after each change "
                            f"(default {DEFAULT_HISTORY_BYTES}: 128 MiB)")
    serve.add_argument("--watch-history-age", type=seconds, default=DEFAULT_HISTORY_AGE, metavar="SECONDS",
                       help=f"... and forget changes older than this on the server clock (default "
                            f"{DEFAULT_HISTORY_AGE:g}, as upstream's watch cache; 0 keeps them whatever their age)")
    serve.add_argument("--bookmark-interval", type=positive_seconds, default=60.0, metavar="SECONDS",
                       help="seconds between watch BOOKMARK events (default 60, as upstream)")
    serve.add_argument("--event-ttl", type=positive_seconds, default=3600.0, metavar="SECONDS",
                       help="seconds an event lives after its last write (default 3600, kube-apiserver's 1h)")
    serve.add_argument("--request-log", type=count, default=DEFAULT_REQUEST_LOG, metavar="N",
                       help=f"requests kept for GET /fakeapi/v1/requests; 0 records none "
                            f"(default {DEFAULT_REQUEST_LOG})")
    serve.add_argument("--request-log-bytes", type=count, default=DEFAULT_REQUEST_LOG_BYTES, metavar="BYTES",
                       help=f"and at most this many bytes (each body is cut at 64 KiB; default "
                            f"{DEFAULT_REQUEST_LOG_BYTES})")
    serve.add_argument("--seed", type=int, help="seed uids and generated names, for reproducible runs")
    serve.add_argument("--seed-file", type=Path, action="append", default=[], metavar="FILE",
                       help="create the objects of this YAML or JSON file at start (repeatable; with "
                            "--storage sqlite:PATH, only when the file is new)")
    serve.add_argument("--storage", type=storage, default=None, metavar="memory|sqlite:PATH|etcd:URL,...",
                       help="where objects are kept: memory (the default; gone when the server stops), "
                            "sqlite:PATH, a file that keeps every object and the resourceVersion sequence "
                            "across restarts and crashes, or etcd:http://HOST:PORT[,...], etcd as kube-apiserver "
                            "uses it: several servers on one etcd serve one cluster")
    etcd = serve.add_argument_group("etcd", "with --storage etcd:..., as kube-apiserver's flags")
    etcd.add_argument("--etcd-prefix", default=DEFAULT_PREFIX, metavar="PREFIX",
                      help=f"the prefix of every key (default {DEFAULT_PREFIX})")
    etcd.add_argument("--etcd-cafile", type=Path, metavar="FILE", help="CA certificates that verify etcd's")
    etcd.add_argument("--etcd-certfile", type=Path, metavar="FILE", help="the client certificate for etcd")
    etcd.add_argument("--etcd-keyfile", type=Path, metavar="FILE", help="... and its key")
    etcd.add_argument("--etcd-compaction-interval", type=seconds, default=DEFAULT_COMPACTION_INTERVAL,
                      metavar="SECONDS", help=f"compact etcd's history this often, keeping one interval of it; 0 "
                                              f"never compacts (default {DEFAULT_COMPACTION_INTERVAL:g}, 5m)")
    serve.add_argument("--disable-admission-plugins", type=admission_plugins, default=frozenset(),
                       metavar="A,B", help="admission plugins to turn off, by kube-apiserver's names (fakeapi "
                                           "runs NamespaceLifecycle, ServiceAccount, TaintNodesByCondition, "
                                           "Priority and DefaultTolerationSeconds)")
    serve.add_argument("--simulate", choices=SIMULATION_MODES, default="cluster",
                       help="run a simulated cluster around the API: a scheduler, kubelets and the node "
                            "controllers (cluster, the default); only bind pods, never start them "
                            "(scheduler); or nothing, pods stay Pending (none)")
    serve.add_argument("--nodes", type=count, default=1, metavar="N",
                       help="simulated nodes registered at start, node-1 to node-N (default 1; 0 for none)")
    serve.add_argument("--node-capacity", type=node_capacity, default={}, metavar="R=Q,...",
                       help="each simulated node's capacity, e.g. cpu=8,memory=32Gi,pods=110 (those are the "
                            "defaults, with ephemeral-storage=100Gi); allocatable is the same")
    serve.add_argument("--node-labels", type=node_labels, default={}, metavar="K=V,...",
                       help="labels of the nodes registered at start, besides the kubelet's own")
    serve.add_argument("--controllers", type=controllers, default=("*",), metavar="NAME,-NAME,*",
                       help="the simulated cluster's kube-controller-manager controllers, as its flag: '*' "
                            "enables those on by default, 'foo' enables foo, '-foo' disables foo (names such "
                            "as deployment-controller, or the older deployment; default '*')")
    serve.add_argument("--max-requests-inflight", type=count, default=400, metavar="N",
                       help="reads handled at once; past it the answer is 429 with Retry-After, as upstream's; "
                            "watches and pod logs are not counted; 0 for no limit (default 400)")
    serve.add_argument("--max-mutating-requests-inflight", type=count, default=200, metavar="N",
                       help="writes handled at once, as --max-requests-inflight for reads (default 200)")
    serve.add_argument("--request-timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                       help="time a request may take, its body upload included, before a 504; watches and pod "
                            "logs are not limited (default 60, as upstream)")
    serve.add_argument("--idle-timeout", type=positive_seconds, default=90.0, metavar="SECONDS",
                       help="close a connection that sends no new request for this long (default 90, "
                            "upstream's); it also bounds the headers of each request after the first")
    serve.add_argument("--read-header-timeout", type=positive_seconds, default=32.0, metavar="SECONDS",
                       help="close a new connection whose first request's headers are not in by then "
                            "(default 32, upstream's)")
    serve.add_argument("--allowed-hosts", type=host_names, default=None, metavar="NAME,NAME",
                       help="Host names to answer besides localhost, 127.0.0.1 and [::1], any port. On a "
                            "loopback --host, other names get 403 (against DNS rebinding); on other addresses "
                            "every name is answered unless this is given")
    serve.add_argument("--control-api", type=boolean, nargs="?", const=True, default=True, metavar="BOOL",
                       help="serve the control API under /fakeapi/v1/; --control-api=false turns it off "
                            "(default true)")
    serve.add_argument("--webhook-address", type=webhook_address, action="append", default=[],
                       metavar="NAME.NAMESPACE.svc:PORT=HOST:PORT",
                       help="where a webhook named by a service is reached (fakeapi runs no Services); "
                            "NAMESPACE/NAME=HOST:PORT for port 443; repeatable")
    serve.add_argument("--service-cluster-ip-range", type=cluster_ip_range, default="10.96.0.0/12", metavar="CIDR",
                       help="the addresses Services are given (kube-apiserver's flag; default 10.96.0.0/12, the "
                            "first for the kubernetes Service)")
    serve.add_argument("--service-node-port-range", type=node_port_range, default="30000-32767",
                       metavar="LOW-HIGH", help="the node ports Services are given (default 30000-32767)")
    serve.add_argument("--advertise-address", type=advertise_address, default=None, metavar="IP",
                       help="the address the kubernetes Service's endpoints name (default: --host when endpoints "
                            "may hold it, else 172.18.0.1, the server's place in the simulated network)")
    serve.add_argument("-v", "--log-requests", action="store_true",
                       help="write one line per request to stderr: method, path, status, duration, user agent")
    auth = serve.add_argument_group(
        "authentication, authorization and TLS", "as kube-apiserver's flags")
    auth.add_argument("--authorization-mode", type=authorization_modes, default=("AlwaysAllow",),
                      metavar="MODE,MODE",
                      help="the authorizers asked in order: AlwaysAllow, AlwaysDeny, Node, RBAC (default "
                           "AlwaysAllow: every user may do everything)")
    auth.add_argument("--token-auth-file", type=Path, metavar="FILE",
                      help='bearer tokens and their users, one a line: token,user,uid,"group1,group2"')
    auth.add_argument("--client-ca-file", type=Path, metavar="FILE",
                      help="CA certificates (PEM) whose client certificates authenticate: the user is the "
                           "certificate's CN, its groups the O values (needs TLS)")
    auth.add_argument("--anonymous-auth", type=boolean, nargs="?", const=True, default=True, metavar="BOOL",
                      help="requests without credentials are system:anonymous; false answers them 401 "
                           "(default true)")
    auth.add_argument("--tls-cert-file", type=Path, metavar="FILE",
                      help="serve https with this certificate (PEM; the chain may follow it)")
    auth.add_argument("--tls-private-key-file", type=Path, metavar="FILE",
                      help="the private key of --tls-cert-file (PEM)")
    auth.add_argument("--tls-self-signed", action="store_true",
                      help="serve https with a CA made at start and a certificate for loopback, --host and "
                           "--allowed-hosts; --kubeconfig then holds the CA, and a client certificate it "
                           "issues unless --token-auth-file gives a token")
    tokens = serve.add_argument_group("service account tokens", "as kube-apiserver's flags")
    tokens.add_argument("--service-account-issuer", action="append", metavar="URL",
                        help="the issuer (iss) of the tokens the server signs; repeat it to also accept tokens of "
                             "earlier issuers (default https://kubernetes.default.svc.cluster.local)")
    tokens.add_argument("--service-account-signing-key-file", type=Path, metavar="FILE",
                        help="the private key (PEM, RSA or EC P-256) tokens are signed with (default: a P-256 key "
                             "made at start)")
    tokens.add_argument("--service-account-key-file", type=Path, action="append", metavar="FILE",
                        help="more keys (PEM: public keys, private keys or certificates) whose tokens are accepted")
    tokens.add_argument("--api-audiences", type=lambda text: tuple(filter(None, text.split(","))), default=(),
                        metavar="AUD[,AUD...]", help="the audiences of a token asked for without one (default: "
                                                     "the issuers)")
    tokens.add_argument("--service-account-max-token-expiration", type=int, default=0, metavar="SECONDS",
                        help="the longest lifetime a TokenRequest gets (default: as asked, up to 2^32 seconds)")
    tokens.add_argument("--service-account-extend-token-expiration", type=boolean, nargs="?", const=True,
                        default=True, metavar="BOOL",
                        help="a pod-bound token asked for 3607 s (the kubelet's) lives a year and warns after "
                             "3607 s (default true)")
    tokens.add_argument("--cluster-signing-cert-file", type=Path, metavar="FILE",
                        help="the CA certificate (PEM) that signs approved kubernetes.io/kube-apiserver-client "
                             "CSRs (kube-controller-manager's flag; default the --tls-self-signed CA)")
    tokens.add_argument("--cluster-signing-key-file", type=Path, metavar="FILE",
                        help="the private key (PEM) of --cluster-signing-cert-file")
    openapi = commands.add_parser("openapi", help="write the OpenAPI documents generated from the schemas")
    openapi.add_argument("--output-dir", type=Path, default=None, metavar="DIR",
                         help="where to write v3/api__v1_openapi.json and v2/swagger.json "
                              "(default: beside fakeapi/openapi/__init__.py, where the server reads them)")
    openapi.add_argument("--check", action="store_true",
                         help="write nothing; exit 1 if the files there differ from what the schemas "
                              "generate")
    return fakeapi


def port(text: str) -> int:
    number = _parse(int, text, "a port number")
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port: pick one in 0..65535 (0 picks a free one)")
    return number


def count(text: str) -> int:
    number = _parse(int, text, "a whole number")
    if number < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative: give 0 or more")
    return number


def seconds(text: str) -> float:
    number = _parse(float, text, "a number of seconds")
    if not number >= 0:  # also rejects nan
        raise argparse.ArgumentTypeError(f"{text} is not a duration: give 0 or more seconds")
    return number


def positive_seconds(text: str) -> float:
    number = _parse(float, text, "a number of seconds")
    if not number > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a duration: give more than 0 seconds")
    return number


def boolean(text: str) -> bool:
    """A flag value as Go's strconv.ParseBool reads it, as upstream's boolean flags take them."""
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not true or false")


def host_names(text: str) -> frozenset[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give one or more host names, separated by commas")
    for name in names:
        if "/" in name:
            raise argparse.ArgumentTypeError(f"{name!r} is not a host name: give the name alone, such as "
                                             f"fakeapi.example")
        if not name.startswith("[") and name.count(":") == 1 or name.startswith("[") and "]:" in name:
            raise argparse.ArgumentTypeError(f"{name!r} has a port: give the name alone (every port is "
                                             f"answered)")
    return frozenset(names)


def storage(text: str) -> Path | tuple[Endpoint, ...] | None:
    """`memory` (None), `sqlite:PATH` (the path) or `etcd:http://HOST:PORT[,...]` (the endpoints)."""
    if text == "memory":
        return None
    scheme, _, rest = text.partition(":")
    if scheme == "sqlite" and rest:
        return Path(rest)
    if scheme == "etcd" and rest:
        try:
            return parse_endpoints(rest)
        except EtcdConfigError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    raise argparse.ArgumentTypeError(f"{text!r} is not a storage: give memory, sqlite:PATH or "
                                     f"etcd:http://HOST:PORT[,...]")


def storage_settings(args: argparse.Namespace) -> tuple[Path | None, EtcdConfig | None]:
    """The SQLite file or the etcd settings the storage flags name."""
    if isinstance(args.storage, tuple):
        return None, EtcdConfig(args.storage, prefix=args.etcd_prefix, ca_file=args.etcd_cafile,
                                cert_file=args.etcd_certfile, key_file=args.etcd_keyfile,
                                compaction_interval=args.etcd_compaction_interval)
    return args.storage, None


def admission_plugins(text: str) -> frozenset[str]:
    from fakeapi.registry.admission import UPSTREAM_PLUGINS

    names = frozenset(name.strip() for name in text.split(",") if name.strip())
    for name in sorted(names - UPSTREAM_PLUGINS):
        raise argparse.ArgumentTypeError(f'disable-admission-plugins plugin "{name}" is unknown')
    return names


def authorization_modes(text: str) -> tuple[str, ...]:
    from fakeapi.registry.authorization.modes import check_modes

    modes = tuple(mode.strip() for mode in text.split(",") if mode.strip())
    problem = check_modes(modes)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return modes


def controllers(text: str) -> tuple[str, ...]:
    from fakeapi.simulation.controllers.names import UnknownController, parse

    try:
        return parse(text)
    except UnknownController as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _pairs(text: str, what: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in (item.strip() for item in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise argparse.ArgumentTypeError(f"{item!r} is not {what}=VALUE")
        pairs[key.strip()] = value.strip()
    return pairs


def node_capacity(text: str) -> dict[str, str]:
    from fakeapi.machinery.quantity import parse

    capacity = _pairs(text, "RESOURCE")
    for name, quantity in capacity.items():
        try:
            if parse(quantity).nanos < 0:
                raise ValueError
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}={quantity}: {quantity!r} is not a quantity "
                                             f"(e.g. 8, 500m, 32Gi)") from None
    return capacity


def node_labels(text: str) -> dict[str, str]:
    from fakeapi.machinery.validation.names import is_qualified_name, is_valid_label_value

    labels = _pairs(text, "KEY")
    for key, value in labels.items():
        problems = is_qualified_name(key) + is_valid_label_value(value)
        if problems:
            raise argparse.ArgumentTypeError(f"{key}={value}: {problems[0]}")
    return labels


def webhook_address(text: str) -> tuple[str, str]:
    service, _, address = text.partition("=")
    namespace, slash, name = service.partition("/")
    if slash and namespace and name and "." not in namespace:
        service = f"{name}.{namespace}.svc:443"
    if not service.count(".") >= 2 or ".svc:" not in service or ":" not in address:
        raise argparse.ArgumentTypeError(f"{text}: expected NAME.NAMESPACE.svc:PORT=HOST:PORT")
    return service, address


def cluster_ip_range(text: str) -> str:
    from fakeapi.kinds.service.ranges import parse_cluster_ip_range

    try:
        parse_cluster_ip_range(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def node_port_range(text: str) -> str:
    from fakeapi.kinds.service.ranges import parse_node_port_range

    try:
        parse_node_port_range(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def advertise_address(text: str) -> str:
    from fakeapi.cluster import endpoint_address

    if not endpoint_address(text):
        raise argparse.ArgumentTypeError(f"{text!r} cannot be advertised: give an IP address that is not loopback, "
                                         "unspecified or link-local")
    return text


def tls_flags_error(args: argparse.Namespace) -> str | None:
    """What is wrong with flags that make sense only together (None: nothing)."""
    given = args.tls_cert_file is not None, args.tls_private_key_file is not None
    if args.tls_self_signed and any(given):
        return "--tls-self-signed makes its own certificate: leave out --tls-cert-file and --tls-private-key-file"
    if any(given) and not all(given):
        return "--tls-cert-file and --tls-private-key-file go together: give both"
    if args.client_ca_file is not None and not (args.tls_self_signed or any(given)):
        return "--client-ca-file needs https: add --tls-self-signed, or --tls-cert-file and --tls-private-key-file"
    if (args.cluster_signing_cert_file is None) != (args.cluster_signing_key_file is None):
        return "--cluster-signing-cert-file and --cluster-signing-key-file go together: give both"
    return None


def _parse(kind: type[Number], text: str, what: str) -> Number:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def serve_command(args: argparse.Namespace) -> int:
    from fakeapi.config import DEFAULT_NODE_CAPACITY, Authentication, ServerConfig, SimulationConfig
    from fakeapi.http.access import answered_hosts, host_name
    from fakeapi.serve import (
        StartupError,
        cluster_signing,
        read_token_file,
        serve,
        server_tls,
        service_account_settings,
    )

    simulation = SimulationConfig(mode=args.simulate, nodes=args.nodes,
                                  node_capacity={**DEFAULT_NODE_CAPACITY, **args.node_capacity},
                                  node_labels=args.node_labels, controllers=args.controllers)
    try:
        tokens = read_token_file(args.token_auth_file) if args.token_auth_file is not None else None
        tls = server_tls(args.host, args.tls_self_signed, args.tls_cert_file, args.tls_private_key_file,
                         args.client_ca_file, {host_name(name) for name in args.allowed_hosts or ()})
        authentication = Authentication(tokens, client_certificates=tls is not None and bool(tls.client_cas),
                                        anonymous=args.anonymous_auth)
        storage_file, etcd = storage_settings(args)
        service_accounts = service_account_settings(args.service_account_issuer, args.service_account_signing_key_file,
                                                    args.service_account_key_file, args.api_audiences,
                                                    args.service_account_max_token_expiration,
                                                    args.service_account_extend_token_expiration)
        config = ServerConfig(watch_history=args.watch_history, watch_history_age=args.watch_history_age,
                              watch_history_bytes=args.watch_history_bytes,
                              request_log=args.request_log, request_log_bytes=args.request_log_bytes,
                              bookmark_interval=args.bookmark_interval, event_ttl=args.event_ttl, seed=args.seed,
                              disabled_admission_plugins=args.disable_admission_plugins,
                              simulation=simulation, max_requests_inflight=args.max_requests_inflight,
                              max_mutating_requests_inflight=args.max_mutating_requests_inflight,
                              request_timeout=args.request_timeout, idle_timeout=args.idle_timeout,
                              read_header_timeout=args.read_header_timeout,
                              allowed_hosts=answered_hosts(args.host, args.allowed_hosts),
                              control_api=args.control_api, authentication=authentication,
                              storage_file=storage_file, etcd=etcd,
                              service_cluster_ip_range=args.service_cluster_ip_range,
                              service_node_port_range=args.service_node_port_range,
                              advertise_address=args.advertise_address,
                              webhook_addresses=dict(args.webhook_address), service_accounts=service_accounts,
                              cluster_signing=cluster_signing(args.cluster_signing_cert_file,
                                                              args.cluster_signing_key_file, tls),
                              authorization_modes=args.authorization_mode)
        _use_uvloop()
        asyncio.run(serve(config, args.host, args.port, args.kubeconfig, args.seed_file, args.log_requests, tls))
    except StartupError as error:
        print(f"fakeapi: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C before the server took over SIGINT: stop quietly
        return 130
    return 0


def openapi_command(output_dir: Path | None, check: bool) -> int:
    """Write (or, with `check`, compare) the OpenAPI documents a fresh server serves."""
    from fakeapi.app import create_app
    from fakeapi.http.openapi import served_documents
    from fakeapi.openapi import DOCUMENTS_DIR
    from fakeapi.openapi.build import stale_documents, write_documents

    directory = output_dir or DOCUMENTS_DIR
    documents = served_documents(create_app())
    if check:
        stale = stale_documents(documents, directory)
        for path in stale:
            print(f"{path} differs from what a fresh server serves; run `fakeapi openapi`", file=sys.stderr)
        return 1 if stale else 0
    try:
        written = write_documents(documents, directory)
    except OSError as error:
        print(f"fakeapi: cannot write the OpenAPI documents: {error.filename}: "
              f"{(error.strerror or str(error)).lower()}; pass a writable folder with --output-dir",
              file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    return 0


def _use_uvloop() -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


if __name__ == "__main__":
    sys.exit(main())
