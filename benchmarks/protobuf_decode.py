"""Decoding protobuf request bodies: kubectl's own, timed in-process.

    python benchmarks/protobuf_decode.py [--number 5000] [--repeat 5]

Times `decode_k8s_protobuf` on bodies captured from kubectl v1.32: `create namespace foo` (54 bytes),
`create configmap cm1 --from-literal=a=b -n default` (63 bytes) and the Pod `debug web --copy-to` sends
(774 bytes: a container with a port, limits, a liveness probe and two volume mounts, two volumes, the
server's defaults). Each is decoded through the kinds a fresh server serves (what a request pays) and
through upstream's definitions. Prints the best and the median of `--repeat` runs, in µs per decode.
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from functools import partial

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.protobuf import decode_k8s_protobuf, served_kind, upstream_kind

BODIES = {
    "Namespace": bytes.fromhex(
        "6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a00320038004200"
        "12001a020a001a002200"),
    "ConfigMap": bytes.fromhex(
        "6b3873000a0f0a0276311209436f6e6669674d617012240a1a0a03636d3112001a0764656661756c7422002a00"
        "32003800420012060a01611201621a002200"),
    "Pod": bytes.fromhex(
        "6b3873000a090a0276311203506f6412f0050a2b0a087765622d636f707912001a0764656661756c7422002a003200380042005a0a0a"
        "03617070120377656212ae050a0c0a0464617461120412020a000a84010a156b7562652d6170692d6163636573732d7173623866126b"
        "d201680a0e220c0a0010971c1a05746f6b656e0a281a260a120a106b7562652d726f6f742d63612e63727412100a0663612e63727412"
        "0663612e6372740a2912270a250a096e616d65737061636512180a02763112126d657461646174612e6e616d65737061636510a40312"
        "b4020a03776562120c62757379626f783a312e33362a0032120a0468747470100018903f22035443502a0042440a0d0a036370751206"
        "0a043530306d0a110a066d656d6f727912070a053235364d69120d0a0363707512060a043530306d12110a066d656d6f727912070a05"
        "3235364d694a130a046461746110001a052f64617461220032004a4c0a156b7562652d6170692d6163636573732d717362386610011a"
        "2d2f7661722f72756e2f736563726574732f6b756265726e657465732e696f2f736572766963656163636f756e7422003200522c0a20"
        "121e0a082f6865616c74687a120a080110001a04687474701a0022044854545010001801200a280130036a142f6465762f7465726d69"
        "6e6174696f6e2d6c6f67720c49664e6f7450726573656e74800100880100900100a2010446696c651a06416c77617973201e320c436c"
        "75737465724669727374420764656661756c744a0764656661756c74520058006000680072008201008a01009a011164656661756c74"
        "2d7363686564756c6572b201360a1c6e6f64652e6b756265726e657465732e696f2f6e6f742d726561647912064578697374731a0022"
        "094e6f4578656375746528ac02b201380a1e6e6f64652e6b756265726e657465732e696f2f756e726561636861626c65120645786973"
        "74731a0022094e6f4578656375746528ac02c20100c80100f00101fa0114507265656d70744c6f7765725072696f726974791a100a00"
        "1a0022002a0032004a005a0072001a002200"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=5000, help="decodes per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs")
    args = parser.parse_args()
    served = served_kind(create_app(ServerConfig()))
    print(f"{'body':<10} {'bytes':>5} {'lookup':<9} {'best µs':>8} {'median µs':>9}")
    for name, body in BODIES.items():
        for label, lookup in (("served", served), ("upstream", upstream_kind)):
            decode_k8s_protobuf(body, lookup)  # compiles the kind's schema once, as the first request does
            runs = timeit.repeat(partial(decode_k8s_protobuf, body, lookup), number=args.number, repeat=args.repeat)
            per_decode = [run / args.number * 1e6 for run in runs]
            print(f"{name:<10} {len(body):>5} {label:<9} {min(per_decode):>8.1f} {statistics.median(per_decode):>9.1f}")


if __name__ == "__main__":
    main()
