"""SPDY/3.1 as the server side of a Kubernetes streaming connection speaks it: the frames, their header
blocks (zlib with SPDY's dictionary, one compression context per direction for the whole connection),
and a session that accepts the client's streams.

kubectl 1.32 runs port-forward's SPDY inside a WebSocket (`SPDY/3.1+portforward.k8s.io`): its frames come
cut into binary messages at any place, so the session reads a byte stream. What the Go side (moby's
spdystream, under client-go) needs of a server: a SYN_REPLY for each stream it accepts (RST_STREAM
REFUSED_STREAM for one it refuses), DATA frames (FIN closes a direction), PINGs echoed; it sends no
flow control that matters (WINDOW_UPDATE and SETTINGS are read and ignored), so back pressure is the
connection's.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from fakeapi.processes.pipes import Pipe

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
PROTOCOL_ERROR, INVALID_STREAM, REFUSED_STREAM, CANCEL = 1, 2, 3, 5
GOAWAY_OK, GOAWAY_PROTOCOL_ERROR = 0, 1
MAX_CONTROL_BYTES = 1 << 20  # a control frame longer than this is a protocol error here
MAX_HEADER_BYTES = 1 << 20  # a header block decompressing to more is one too
DATA_CHUNK = 32 * 1024  # data sent per DATA frame at most

# The SPDY/3 header compression dictionary (draft-mbelshe-httpbis-spdy-00, 2.6.10.1): length-prefixed
# words, then text.
_DICTIONARY_WORDS = (
    'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding',
    'accept-language', 'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection',
    'content-base', 'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5',
    'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match',
    'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location',
    'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after',
    'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning',
    'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie',
    'keep-alive', 'origin',
)
_DICTIONARY_TAIL = (
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 "
    "Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 "
    "Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr "
    "May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,"
    "image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age="
    "gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
)
DICTIONARY = b"".join(struct.pack(">I", len(word)) + word.encode() for word in _DICTIONARY_WORDS) \
    + _DICTIONARY_TAIL.encode()

Headers = dict[str, list[str]]


class ProtocolError(Exception):
    """The peer broke SPDY: the session ends with GOAWAY PROTOCOL_ERROR."""


# ---- frames


@dataclass
class Frame:
    kind: int  # a control frame's type, or 0 for DATA
    flags: int
    stream_id: int = 0
    data: bytes = b""
    headers: Headers = field(default_factory=dict)
    status: int = 0  # RST_STREAM's status, GOAWAY's
    ping_id: int = 0


class Parser:
    """Frames from a byte stream, and header blocks through the inbound zlib context."""

    def __init__(self, max_buffer: int = (1 << 24) + 8) -> None:
        self._buffer = bytearray()
        self._max_buffer = max_buffer
        self._inflate = zlib.decompressobj(zdict=DICTIONARY)

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        if len(self._buffer) > self._max_buffer:
            raise ProtocolError("frame too large")
        frames = []
        while len(self._buffer) >= 8:
            length = int.from_bytes(self._buffer[5:8], "big")
            if self._buffer[0] & 0x80 and length > MAX_CONTROL_BYTES:
                raise ProtocolError("control frame too large")
            if len(self._buffer) < 8 + length:
                break
            head, payload = bytes(self._buffer[:8]), bytes(self._buffer[8:8 + length])
            del self._buffer[:8 + length]
            frames.append(self._frame(head, payload))
        return frames

    def _frame(self, head: bytes, payload: bytes) -> Frame:
        flags = head[4]
        if not head[0] & 0x80:
            stream_id = int.from_bytes(head[:4], "big") & 0x7FFFFFFF
            if stream_id == 0:
                raise ProtocolError("stream id zero is disallowed")
            return Frame(0, flags, stream_id, payload)
        version = int.from_bytes(head[:2], "big") & 0x7FFF
        kind = int.from_bytes(head[2:4], "big")
        if version != VERSION:
            raise ProtocolError(f"unsupported SPDY version {version}")
        if kind == SYN_STREAM:
            if len(payload) < 10:
                raise ProtocolError("invalid SYN_STREAM")
            return Frame(kind, flags, _stream_id(payload), headers=self._headers(payload[10:]))
        if kind in (SYN_REPLY, HEADERS):
            if len(payload) < 4:
                raise ProtocolError("invalid control frame")
            return Frame(kind, flags, _stream_id(payload), headers=self._headers(payload[4:]))
        if kind == RST_STREAM:
            if len(payload) != 8:
                raise ProtocolError("invalid RST_STREAM")
            return Frame(kind, flags, _stream_id(payload), status=int.from_bytes(payload[4:8], "big"))
        if kind == PING:
            if len(payload) != 4:
                raise ProtocolError("invalid PING")
            return Frame(kind, flags, ping_id=int.from_bytes(payload, "big"))
        if kind == GOAWAY:
            if len(payload) != 8:
                raise ProtocolError("invalid GOAWAY")
            return Frame(kind, flags, _stream_id(payload), status=int.from_bytes(payload[4:8], "big"))
        return Frame(kind, flags)  # SETTINGS, WINDOW_UPDATE and unknown types: nothing to do with them

    def _headers(self, block: bytes) -> Headers:
        try:
            raw = self._inflate.decompress(block, MAX_HEADER_BYTES)
        except zlib.error as error:
            raise ProtocolError(f"header block: {error}") from None
        if self._inflate.unconsumed_tail:
            raise ProtocolError("header block too large")
        return parse_header_block(raw)


def _stream_id(payload: bytes) -> int:
    return int.from_bytes(payload[:4], "big") & 0x7FFFFFFF


def parse_header_block(raw: bytes) -> Headers:
    """A decompressed header block: a count, then (name, value) pairs, each length-prefixed; several values
    of a name are separated by NUL."""
    try:
        (count,) = struct.unpack_from(">I", raw)
        position = 4
        headers: Headers = {}
        for _ in range(count):
            (size,) = struct.unpack_from(">I", raw, position)
            name = raw[position + 4:position + 4 + size].decode()
            position += 4 + size
            (size,) = struct.unpack_from(">I", raw, position)
            value = raw[position + 4:position + 4 + size].decode()
            position += 4 + size
            if position > len(raw):
                raise ProtocolError("truncated header block")
            headers.setdefault(name.lower(), []).extend(value.split("\x00"))
    except (struct.error, UnicodeDecodeError):
        raise ProtocolError("invalid header block") from None
    return headers


class Writer:
    """Frames as bytes, and header blocks through the outbound zlib context."""

    def __init__(self) -> None:
        self._deflate = zlib.compressobj(9, zdict=DICTIONARY)

    def control(self, kind: int, flags: int, payload: bytes) -> bytes:
        return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload

    def data(self, stream_id: int, data: bytes, fin: bool = False) -> bytes:
        return struct.pack(">II", stream_id & 0x7FFFFFFF, ((FLAG_FIN if fin else 0) << 24) | len(data)) + data

    def syn_reply(self, stream_id: int, headers: Headers) -> bytes:
        return self.control(SYN_REPLY, 0, struct.pack(">I", stream_id) + self._header_block(headers))

    def syn_stream(self, stream_id: int, headers: Headers, fin: bool = False) -> bytes:
        """(What a client sends: for tests of the session.)"""
        payload = struct.pack(">IIBB", stream_id, 0, 0, 0) + self._header_block(headers)
        return self.control(SYN_STREAM, FLAG_FIN if fin else 0, payload)

    def rst_stream(self, stream_id: int, status: int) -> bytes:
        return self.control(RST_STREAM, 0, struct.pack(">II", stream_id, status))

    def ping(self, ping_id: int) -> bytes:
        return self.control(PING, 0, struct.pack(">I", ping_id))

    def goaway(self, last_stream_id: int, status: int) -> bytes:
        return self.control(GOAWAY, 0, struct.pack(">II", last_stream_id, status))

    def _header_block(self, headers: Headers) -> bytes:
        raw = struct.pack(">I", len(headers))
        for name, values in headers.items():
            value = "\x00".join(values).encode()
            raw += struct.pack(">I", len(name)) + name.lower().encode() + struct.pack(">I", len(value)) + value
        return self._deflate.compress(raw) + self._deflate.flush(zlib.Z_SYNC_FLUSH)


# ---- the session


Send = Callable[[bytes], Awaitable[None]]


class Stream:
    """A stream the client opened: its headers, what it sends (`incoming`, end of file at its FIN), and
    what the server sends back."""

    def __init__(self, session: Session, stream_id: int, headers: Headers) -> None:
        self.session = session
        self.id = stream_id
        self.headers = headers
        self.incoming = Pipe()
        self.closed = False  # the server sent its FIN
        self.reset = False  # either side reset it

    def header(self, name: str) -> str:
        values = self.headers.get(name.lower()) or [""]
        return values[0]

    async def write(self, data: bytes) -> None:
        if self.closed or self.reset:
            return
        for start in range(0, len(data), DATA_CHUNK):
            await self.session.send(self.session.writer.data(self.id, data[start:start + DATA_CHUNK]))

    async def close(self) -> None:
        """Half-close: the server sends no more (an empty DATA frame with FIN)."""
        if not self.closed and not self.reset:
            self.closed = True
            await self.session.send(self.session.writer.data(self.id, b"", fin=True))


Accept = Callable[[Stream], str | None]  # a new stream: None to accept it, else why it is refused


class Session:
    """The server side of a SPDY connection: `feed` it the bytes that arrive."""

    def __init__(self, send: Send, accept: Accept) -> None:
        self.send = send
        self.accept = accept
        self.writer = Writer()
        self.parser = Parser()
        self.streams: dict[int, Stream] = {}
        self.last_stream_id = 0
        self.gone = False  # the client sent GOAWAY, or broke the protocol

    async def feed(self, data: bytes) -> list[Stream]:
        """Handle the frames these bytes complete; the streams accepted meanwhile."""
        try:
            frames = self.parser.feed(data)
        except ProtocolError:
            await self.send(self.writer.goaway(self.last_stream_id, GOAWAY_PROTOCOL_ERROR))
            self.gone = True
            return []
        accepted: list[Stream] = []
        for frame in frames:
            stream = await self._handle(frame)
            if stream is not None:
                accepted.append(stream)
        return accepted

    async def _handle(self, frame: Frame) -> Stream | None:
        if frame.kind == 0:
            stream = self.streams.get(frame.stream_id)
            if stream is None:
                await self.send(self.writer.rst_stream(frame.stream_id, INVALID_STREAM))
                return None
            if frame.data:
                stream.incoming.write(frame.data)
                await stream.incoming.drain()
            if frame.flags & FLAG_FIN:
                stream.incoming.close()
            return None
        if frame.kind == SYN_STREAM:
            if frame.stream_id in self.streams or frame.stream_id % 2 == 0:
                await self.send(self.writer.rst_stream(frame.stream_id, PROTOCOL_ERROR))
                return None
            self.last_stream_id = max(self.last_stream_id, frame.stream_id)
            stream = Stream(self, frame.stream_id, frame.headers)
            refused = self.accept(stream)
            if refused is not None:
                await self.send(self.writer.rst_stream(frame.stream_id, REFUSED_STREAM))
                return None
            self.streams[stream.id] = stream
            if frame.flags & FLAG_FIN:
                stream.incoming.close()
            await self.send(self.writer.syn_reply(stream.id, {}))
            return stream
        if frame.kind == RST_STREAM:
            stream = self.streams.pop(frame.stream_id, None)
            if stream is not None:
                stream.reset = True
                stream.incoming.close()
            return None
        if frame.kind == PING:
            if frame.ping_id % 2 == 1:  # the client's: echoed (an even one would answer ours; we send none)
                await self.send(self.writer.ping(frame.ping_id))
            return None
        if frame.kind == GOAWAY:
            self.gone = True
        return None

    def remove(self, stream: Stream) -> None:
        self.streams.pop(stream.id, None)

    async def reset_stream(self, stream: Stream, status: int = CANCEL) -> None:
        if not stream.reset:
            stream.reset = True
            self.streams.pop(stream.id, None)
            await self.send(self.writer.rst_stream(stream.id, status))

    def close(self) -> None:
        """The connection is gone: every stream's incoming side ends."""
        for stream in self.streams.values():
            stream.incoming.close()
        self.streams.clear()

