"""Accept-header negotiation for Table output: which media range wins, as apiserver's goautoneg ranks them."""

from __future__ import annotations

from fakeapi.http.accept import parse_accept

TABLE_GROUP = "meta.k8s.io"
TABLE_VERSIONS = ("v1", "v1beta1")


def table_group_version(accept: str) -> str | None:
    """`meta.k8s.io/v1` (or v1beta1) when the winning JSON media range asks for a Table, else None.

    Ranges asking for a conversion the server cannot do (another `as`, or `as=Table` without
    `g`/`v`) are skipped, as upstream does; the first plain JSON range means "no Table".
    """
    if ";" not in accept:  # no media range has parameters, so none asks for a Table (most requests)
        return None
    for media in parse_accept(accept):
        if media.type not in ("application", "*") or media.subtype not in ("json", "*"):
            continue
        params = media.params
        if not ({"as", "g", "v"} & params.keys()):
            return None
        if (params.get("as") == "Table" and params.get("g") == TABLE_GROUP
                and params.get("v") in TABLE_VERSIONS):
            return f"{TABLE_GROUP}/{params['v']}"
    return None


def parse_table_accept(accept: str) -> bool:
    """Does this Accept header ask for `as=Table;g=meta.k8s.io;v=v1` (or v1beta1) as its best JSON form?"""
    return table_group_version(accept) is not None
