"""POST to the access and identity reviews (fakeapi.registry.reviews): one create-only handler each."""

from __future__ import annotations

from functools import partial

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.http.authentication import review_token, user_of
from fakeapi.http.bodies import read_object
from fakeapi.http.keys import api_key, config_key
from fakeapi.http.responses import json_response
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.reviews import REVIEWS, Review, ReviewContext, create_review


def _handler(review: Review) -> Handler:
    async def create(request: web.Request) -> web.Response:
        body = await read_object(request)
        options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
        app = request.app
        context = ReviewContext(options.field_manager, app[api_key].clock, user_of(request),
                                partial(review_token, app[config_key].authentication,
                                        app[api_key].service_account_tokens), app[api_key].authorizer,
                                request.match_info.get("namespace", ""))
        answer = create_review(review, body, options, context)
        return json_response(answer, status=201, warnings=options.warnings)

    return create


REVIEW_HANDLERS: tuple[tuple[ResourceInfo, Handler], ...] = tuple(
    (review.info, _handler(review)) for review in REVIEWS
)
