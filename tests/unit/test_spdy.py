"""SPDY/3.1 as the port-forward tunnel carries it: frames in pieces, header blocks through one zlib context per
direction with SPDY's dictionary, and what the server answers to the client's frames."""

from __future__ import annotations

import hashlib
import zlib

import pytest

from fakeapi.http import spdy
from fakeapi.http.spdy import DICTIONARY, Parser, ProtocolError, Session, Stream, Writer


def test_the_dictionary_is_spdy3s() -> None:
    assert (len(DICTIONARY), hashlib.sha256(DICTIONARY).hexdigest()) == (
        1423, "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02")


def test_frames_cut_anywhere_parse_and_header_blocks_share_one_context() -> None:
    client = Writer()
    wire = (client.syn_stream(1, {"streamtype": ["error"], "port": ["8080"], "requestid": ["0"]})
            + client.syn_stream(3, {"streamtype": ["data"], "port": ["8080"], "requestid": ["0"]})
            + client.data(3, b"GET / HTTP/1.1\r\n\r\n") + client.data(3, b"", fin=True) + client.ping(1))
    parser = Parser()
    frames = [frame for index in range(0, len(wire), 7) for frame in parser.feed(wire[index:index + 7])]
    assert [(frame.kind, frame.stream_id, frame.flags) for frame in frames] == [
        (spdy.SYN_STREAM, 1, 0), (spdy.SYN_STREAM, 3, 0), (0, 3, 0), (0, 3, spdy.FLAG_FIN), (spdy.PING, 0, 0)]
    assert frames[1].headers == {"streamtype": ["data"], "port": ["8080"], "requestid": ["0"]}
    assert frames[2].data == b"GET / HTTP/1.1\r\n\r\n" and frames[4].ping_id == 1


def test_a_header_block_compressed_as_go_compresses_it_is_read() -> None:
    deflate = zlib.compressobj(9, zdict=DICTIONARY)  # Go's zlib.NewWriterLevelDict, flushed after each block
    block = b"\x00\x00\x00\x01\x00\x00\x00\x04port\x00\x00\x00\x0280"
    payload = b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00" + deflate.compress(block) + deflate.flush(zlib.Z_SYNC_FLUSH)
    frame = b"\x80\x03\x00\x01" + len(payload).to_bytes(4, "big") + payload
    assert Parser().feed(frame)[0].headers == {"port": ["80"]}


@pytest.mark.parametrize("wire", [
    b"\x80\x02\x00\x06\x00\x00\x00\x04\x00\x00\x00\x01",  # SPDY/2
    b"\x80\x03\x00\x06\x00\x00\x00\x03\x00\x00\x01",  # a PING of three bytes
    b"\x00\x00\x00\x00\x00\x00\x00\x01x",  # data on stream 0
    b"\x80\x03\x00\x01\x00\x00\x00\x0e\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00garbage!",  # no zlib in the headers
    b"\x80\x03\x00\x01\x7f\xff\xff\xff",  # a control frame of 16 MiB
])
def test_a_broken_frame_is_a_protocol_error(wire: bytes) -> None:
    with pytest.raises(ProtocolError):
        Parser().feed(wire)


async def test_the_session_accepts_refuses_echoes_and_goes_away() -> None:
    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    def accept(stream: Stream) -> str | None:
        return None if stream.header("port").isdigit() else "no port"

    session = Session(send, accept)
    client = Writer()
    accepted = await session.feed(client.syn_stream(1, {"port": ["80"], "streamtype": ["data"]}))
    refused = await session.feed(client.syn_stream(3, {"streamtype": ["data"]}))
    await session.feed(client.ping(5) + client.data(1, b"hello") + client.data(9, b"stray"))
    replies = _frames(sent)
    assert [len(accepted), len(refused)] == [1, 0]
    assert [(frame.kind, frame.stream_id, frame.status) for frame in replies] == [
        (spdy.SYN_REPLY, 1, 0), (spdy.RST_STREAM, 3, spdy.REFUSED_STREAM), (spdy.PING, 0, 0),
        (spdy.RST_STREAM, 9, spdy.INVALID_STREAM)]
    assert await accepted[0].incoming.read() == b"hello"
    await accepted[0].write(b"x" * 70000)
    await accepted[0].close()
    data_frames = [frame for frame in _frames(sent) if frame.kind == 0]
    assert [len(frame.data) for frame in data_frames] == [32768, 32768, 4464, 0]
    assert data_frames[-1].flags == spdy.FLAG_FIN
    sent.clear()
    await session.feed(b"\x80\x07\x00\x00")  # (a broken frame: eight bytes are needed)
    await session.feed(b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
    assert session.gone and _frames(sent)[-1].kind == spdy.GOAWAY


def _frames(sent: list[bytes]) -> list[spdy.Frame]:
    """What the server sent, read back (its header blocks through one context, as the client reads them)."""
    parser = Parser()
    return [frame for data in sent for frame in parser.feed(data)]
