"""The channel.k8s.io WebSocket subprotocols: each message is one channel's data, its first byte the channel
number (stdin 0, stdout 1, stderr 2, error 3, resize 4 for exec and attach; for port-forward 2n and 2n+1
per port). Base64 variants (`base64.channel.k8s.io`, `v4.base64.channel.k8s.io`) send text messages: the
channel as a digit, then the data in base64. `v5.channel.k8s.io` adds the CLOSE signal, `[255, channel]`:
the sender is done writing to that channel (a client's end of stdin).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from aiohttp import WSMsgType, web

V5 = "v5.channel.k8s.io"
V4 = "v4.channel.k8s.io"
V4_BASE64 = "v4.base64.channel.k8s.io"
V1 = "channel.k8s.io"
V1_BASE64 = "base64.channel.k8s.io"
CLOSE_SIGNAL = 255
MESSAGE_BYTES = 32 * 1024  # data sent per message at most (what client-go's buffers hold)
MAX_RECEIVED_BYTES = 32 << 20  # a message from the client may be this large (x/net/websocket's default limit)
# the kubelet's exec and attach protocols, and the translating apiserver's (v5 only)
KUBELET_PROTOCOLS = ("", V1, V1_BASE64, V4, V4_BASE64)


def requested_protocols(request: web.Request) -> list[str]:
    """The subprotocols the client asks for, in its order (a bearer token sent as one is not a protocol)."""
    found: list[str] = []
    for header in request.headers.getall("Sec-WebSocket-Protocol", []):
        found.extend(part.strip() for part in header.split(",") if part.strip())
    return [protocol for protocol in found if not protocol.startswith("base64url.bearer.authorization.k8s.io.")]


def is_websocket(request: web.Request) -> bool:
    """wsstream.IsWebSocketRequest: `Upgrade: websocket` and `Connection` naming upgrade."""
    connection = [part.strip().lower() for part in request.headers.get("Connection", "").split(",")]
    return request.headers.get("Upgrade", "").lower() == "websocket" and "upgrade" in connection


@dataclass
class Message:
    channel: int
    data: bytes
    close: bool = False  # a v5 CLOSE signal for `channel`


class Channels:
    """One WebSocket connection carrying channels, over aiohttp's WebSocketResponse."""

    def __init__(self, ws: web.WebSocketResponse, protocol: str) -> None:
        self.ws = ws
        self.protocol = protocol
        self.base64 = protocol in (V1_BASE64, V4_BASE64)
        self.signals_close = protocol == V5

    async def send(self, channel: int, data: bytes) -> None:
        """`data` on `channel` (in several messages if large; an empty one is sent as such)."""
        if not data:
            await self._send_one(channel, b"")
            return
        for start in range(0, len(data), MESSAGE_BYTES):
            await self._send_one(channel, data[start:start + MESSAGE_BYTES])

    async def _send_one(self, channel: int, data: bytes) -> None:
        if self.base64:
            await self.ws.send_str(chr(ord("0") + channel) + base64.b64encode(data).decode())
        else:
            await self.ws.send_bytes(bytes((channel,)) + data)

    async def receive(self) -> Message | None:
        """The next message on a channel; None once the client closed the connection or it broke."""
        while True:
            message = await self.ws.receive()
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return None
            if message.type in (WSMsgType.BINARY, WSMsgType.TEXT) and not self.base64:
                # (a text message is taken as its bytes, as upstream's reader takes it: the Python client
                # sends str data so)
                raw: bytes = message.data if message.type == WSMsgType.BINARY else message.data.encode()
                if not raw:
                    continue
                if raw[0] == CLOSE_SIGNAL and self.signals_close:
                    if len(raw) == 2:
                        return Message(raw[1], b"", close=True)
                    continue  # upstream logs and ignores a malformed CLOSE
                return Message(raw[0], raw[1:])
            if message.type == WSMsgType.TEXT and self.base64:
                text: str = message.data
                if not text:
                    continue
                try:
                    return Message(ord(text[0]) - ord("0"), base64.b64decode(text[1:], validate=True))
                except (binascii.Error, ValueError):
                    continue  # upstream drops a frame it cannot decode
            # another kind of message: ignored, as upstream's reader ignores frames it cannot place
