"""AppKeys: every piece of server state lives on the aiohttp app under one of these."""

from __future__ import annotations

from aiohttp import web

from fakeapi.cluster import Api
from fakeapi.config import ServerConfig
from fakeapi.storage.watch import WatchHub

api_key = web.AppKey("api", Api)
config_key = web.AppKey("config", ServerConfig)
watch_hub_key = web.AppKey("watch_hub", WatchHub)
