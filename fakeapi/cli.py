"""The `fakeapi` command: `serve` runs the server; `openapi` writes the OpenAPI documents."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import signal
import sys
from pathlib import Path

from fakeapi.config import ServerConfig
from fakeapi.http.requestlog import DEFAULT_REQUEST_LOG
from fakeapi.kubeconfig import write_kubeconfig
from fakeapi.storage.store import DEFAULT_HISTORY

GC_THRESHOLD = 20_000  # allocations between young-generation collections (CPython's default: 700)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fakeapi", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run the fake API server")
    serve_parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve_parser.add_argument("--port", type=int, default=8080, help="port to bind; 0 picks a free one (default 8080)")
    serve_parser.add_argument("--kubeconfig", type=Path, help="write a kubeconfig for this server to PATH")
    serve_parser.add_argument("--watch-history", type=int, default=DEFAULT_HISTORY, metavar="N",
                       help=f"change events kept for watches resuming from a resourceVersion "
                            f"(default {DEFAULT_HISTORY})")
    serve_parser.add_argument("--watch-history-age", type=float, default=None, metavar="SECONDS",
                       help="also forget changes older than this (default: keep --watch-history events "
                            "whatever their age; upstream's watch cache keeps about 75 s)")
    serve_parser.add_argument("--bookmark-interval", type=float, default=60.0, metavar="SECONDS",
                       help="seconds between watch BOOKMARK events (default 60, as upstream)")
    serve_parser.add_argument("--request-log", type=int, default=DEFAULT_REQUEST_LOG, metavar="N",
                              help=f"requests kept for GET /fakeapi/v1/requests; 0 records none "
                                   f"(default {DEFAULT_REQUEST_LOG})")
    serve_parser.add_argument("--seed", type=int, help="seed uids and generated names, for reproducible runs")
    serve_parser.add_argument("--seed-file", type=Path, action="append", default=[], metavar="FILE",
                              help="create the objects of this YAML or JSON file at start (repeatable)")
    openapi = commands.add_parser("openapi", help="write the OpenAPI documents generated from the schemas")
    openapi.add_argument("--output-dir", type=Path, default=None, metavar="DIR",
                         help="where to write v3/api__v1_openapi.json and v2/swagger.json "
                              "(default: beside fakeapi/openapi/__init__.py, where the server reads them)")
    openapi.add_argument("--check", action="store_true",
                         help="write nothing; exit 1 if the files there differ from what the schemas "
                              "generate")
    args = parser.parse_args(argv)
    if args.command == "openapi":
        return openapi_command(args.output_dir, args.check)
    if args.command == "serve":
        config = ServerConfig(watch_history=args.watch_history, watch_history_age=args.watch_history_age,
                              request_log=args.request_log,
                              bookmark_interval=args.bookmark_interval, seed=args.seed)
        _use_uvloop()
        asyncio.run(serve(config, args.host, args.port, args.kubeconfig, args.seed_file))
        return 0
    return 2


def openapi_command(output_dir: Path | None, check: bool) -> int:
    try:
        from fakeapi.openapi.build import stale_documents, write_documents
    except ImportError as error:  # apispec is a generate-time tool, not a runtime dependency
        print(f"fakeapi openapi needs apispec (pip install 'fakeapi[openapi]'): {error}", file=sys.stderr)
        return 2
    from fakeapi.openapi import DOCUMENTS_DIR

    directory = output_dir or DOCUMENTS_DIR
    if check:
        stale = stale_documents(directory)
        for path in stale:
            print(f"{path} differs from what the schemas generate; run `fakeapi openapi`", file=sys.stderr)
        return 1 if stale else 0
    for path in write_documents(directory):
        print(f"wrote {path}")
    return 0


def _use_uvloop() -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


async def serve(config: ServerConfig, host: str, port: int, kubeconfig: Path | None,
                seed_files: list[Path] | None = None) -> None:
    from aiohttp import web

    from fakeapi.app import create_app

    # handler_cancellation: a watch whose client went away is cancelled at once (aiohttp's default keeps
    # a streaming handler until its next write)
    app = create_app(config)
    if seed_files:
        from fakeapi.http.keys import api_key
        from fakeapi.seeding import seed

        for seed_file in seed_files:
            seed(app[api_key], seed_file)
    # Everything built so far (modules, schemas, plans) lives as long as the server: keep it out of
    # the collector's way, and collect young objects less often (each request allocates thousands).
    # (No gc.collect() first: it finds nothing after the imports and costs ~50 ms of every start.)
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    runner = web.AppRunner(app, access_log=None, handle_signals=False, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1]
    url = f"http://{_url_host(host)}:{bound}"
    if kubeconfig is not None:
        write_kubeconfig(kubeconfig, url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    print(f"fakeapi serving on {url}", flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


if __name__ == "__main__":
    sys.exit(main())
