"""Schemathesis hooks for .ci/schemathesis: credentials for each route family, made at run time.

At import, a merchant, its tokens, a customer and a customer token are made through the service's own
API (ST_BASE_URL, with ST_ADMIN_TOKEN and ST_METRICS_TOKEN from the script); nothing secret is written down.
"""
import base64
import itertools
import json
import os
import re
import urllib.request

import schemathesis

BASE = os.environ["ST_BASE_URL"].rstrip("/")
ADMIN_TOKEN = os.environ["ST_ADMIN_TOKEN"]
METRICS_TOKEN = os.environ["ST_METRICS_TOKEN"]
# The one origin the merchant allows: the browser routes answer 403 to any other (docs/embedding.md).
ORIGIN = "http://shop.schemathesis.test"


def call(method, path, body=None, token=None):
    request = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Accept", "application/json")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


merchant = call("POST", "/admin/merchants", {"name": "Schemathesis"}, ADMIN_TOKEN)["merchant"]
call("PATCH", f"/admin/merchants/{merchant['id']}", {"allowed_origins": [ORIGIN]}, ADMIN_TOKEN)
MERCHANT_TOKEN = call("POST", "/v2/tokens/merchant", {"access_key": merchant["access_key"], "secret_key": merchant["secret_key"]})["token"]
customer = call("POST", "/v2/customers", {"account_id": "schemathesis-1", "email_address": "advocate@example.com"}, MERCHANT_TOKEN)["customer"]
CUSTOMER_TOKEN = call("POST", "/v2/tokens/customer", {"customer_id": customer["id"]}, MERCHANT_TOKEN)["token"]
# The admin routes' {merchant_id} in positive cases: a merchant of its own, so that the key rotations
# and settings Schemathesis sends there leave the credentials above working.
ADMIN_TARGET = call("POST", "/admin/merchants", {"name": "Schemathesis admin target"}, ADMIN_TOKEN)["merchant"]["id"]
# DELETE /v2/tokens/merchant revokes every token of its merchant: it gets a merchant of its own, whose keys
# valid requests carry in their body and whose fresh token each case gets.
REVOKER = call("POST", "/admin/merchants", {"name": "Schemathesis revoker"}, ADMIN_TOKEN)["merchant"]
REVOKER_KEYS = {"access_key": REVOKER["access_key"], "secret_key": REVOKER["secret_key"]}
BASIC = "Basic " + base64.b64encode(f"{merchant['access_key']}:{merchant['secret_key']}".encode()).decode()


class HeaderAuth:
    """Sets the headers that `get` returns on the case (they replace generated ones of the same name)."""

    headers: dict = {}

    def get(self, case, ctx):
        return self.headers

    def set(self, case, data, ctx):
        case.headers = {**(case.headers or {}), **data}


@schemathesis.auth().apply_to(path_regex=r"^/v1/")
class BasicAuth(HeaderAuth):
    headers = {"Authorization": BASIC}


ALTERNATE = itertools.count()


# v2: the merchant token, on every v2 route but the one that makes it (which takes the keys in its body).
# Not cached (refresh_interval=None): the token is chosen afresh for each case.
@schemathesis.auth(refresh_interval=None).apply_to(path_regex=r"^/v2/").skip_for(path="/v2/tokens/merchant")
class TokenAuth(HeaderAuth):
    def get(self, case, ctx):
        # Routes that also take a customer token (spec §5.2 rule 4) get one every other case (a counter,
        # not `random`, which would make Hypothesis's runs irreproducible).
        takes_customer = any("customer_token" in s for s in (ctx.operation.definition.raw.get("security") or []))
        token = CUSTOMER_TOKEN if takes_customer and next(ALTERNATE) % 2 else MERCHANT_TOKEN
        return {"Authorization": f"Bearer {token}"}


@schemathesis.auth(refresh_interval=None).apply_to(path="/v2/tokens/merchant", method="DELETE")
class RevokerAuth(HeaderAuth):
    def get(self, case, ctx):
        return {"Authorization": "Bearer " + call("POST", "/v2/tokens/merchant", REVOKER_KEYS)["token"]}


@schemathesis.auth().apply_to(path_regex=r"^/admin/")
class AdminAuth(HeaderAuth):
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@schemathesis.auth().apply_to(path_regex=r"^/browser/")
class PublishableKeyAuth(HeaderAuth):
    headers = {"X-Publishable-Key": merchant["publishable_key"], "Origin": ORIGIN}

    def set(self, case, data, ctx):
        # The routes that act for a customer declare X-Customer-Token: a generated one is replaced by the
        # real token, and a case that leaves it out on purpose (missing_required_header) keeps it out.
        headers = {**data, **({"X-Customer-Token": CUSTOMER_TOKEN} if "X-Customer-Token" in (case.headers or {}) else {})}
        super().set(case, headers, ctx)


@schemathesis.auth().apply_to(path="/metrics")
class MetricsAuth(HeaderAuth):
    headers = {"Authorization": f"Bearer {METRICS_TOKEN}"}


@schemathesis.hook
def map_case(context, case):
    """Positive cases only: what the document cannot say, so that a valid request is one the service can take."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return case
    query = case.query or {}
    # A cursor is opaque: only a next_page URL gives a valid one, and any other string is rightly refused (400).
    query.pop("cursor", None)
    # GET /v1/customer_info needs account_id or email (one of two; OpenAPI 3.0 cannot say so for parameters).
    if case.path == "/v1/customer_info" and not query.get("account_id") and not query.get("email"):
        query["account_id"] = "schemathesis-1"
    case.query = query
    if case.method.upper() == "DELETE" and case.path == "/v2/tokens/merchant":
        case.body = dict(REVOKER_KEYS)
    if case.path_parameters and "merchant_id" in case.path_parameters:
        case.path_parameters["merchant_id"] = ADMIN_TARGET
    return case


def holds_null(value):
    """Whether a JSON value holds a null at any depth."""
    if value is None:
        return True
    if isinstance(value, dict):
        return any(holds_null(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_null(v) for v in value)
    return False


@schemathesis.hook
def filter_case(context, case):
    """Negative cases with a null in the body are left out: null on an optional property means the
    property is absent (docs/api-decisions.md, "Errors"), so the service rightly takes what the
    document, which marks only the properties that null clears as nullable, calls invalid."""
    if case.meta is None or case.meta.generation.mode.is_positive:
        return True
    return not holds_null(case.body)


# Rules the service applies that OpenAPI 3.0 cannot state, or states only in words: a valid-looking
# request refused for one of them (400 naming that rule, on these operations) is no finding of
# positive_data_acceptance. Each: the operations (method and path), the refusal's message, why.
UNSTATABLE = [
    # One of two properties is required, or two exclude each other: 3.0 has no dependentRequired,
    # and the schema's description says which.
    (r"POST /v[12]/conversions", r"referral_code or coupon_code is required"),
    (r"POST /v2/personal_referral_links", r"customer_id or email_address is required"),
    (r"POST /admin/merchants/\{merchant_id\}/vanity_links", r"exactly one of customer_id and email_address|customer_id or email_address"),
    (r"POST /v1/referral_codes", r"are mutually exclusive|customer.id or email is required|customer.id is required when other customer fields"),
    # A code is valid when it names an advocate of this merchant: made at run time, no generator can know one.
    (r"POST /v[12]/conversions", r"attributes the purchase to no advocate"),
    # Emails, http(s) URLs and origins are checked with validator.js (isEmail, isURL), whose grammar
    # is narrower than JSON Schema's "email" and "uri" formats (quoted local parts, hosts, lengths).
    (r".*", r"must be an email|must be an http or https URL|must be an origin"),
    # Coupon codes are trimmed, then hold no whitespace, control or Unicode formatting character
    # (\p{Cc}, \p{Cf}): not expressible in the pattern dialect both ECMA 262 and Python's re read.
    (r"POST /admin/merchants/\{merchant_id\}/coupon_banks.*", r"codes\.\d+ must not (be blank|hold)"),
    # Link parameters: a map of at most 50 keys with scalar values, described in words.
    (r".*", r"(link_)?parameters must be a JSON object of at most 50"),
    # A widget's reward_type and reward_amount are given together or not at all.
    (r"(POST|PATCH) /admin/merchants/\{merchant_id\}/widgets(/\{widget_id\})?", r"are set together or both null"),
    # GET /admin/merchants/{merchant_id}/as_of takes exactly one of position and at.
    (r"GET /admin/merchants/\{merchant_id\}/as_of", r"give exactly one of position"),
    # At most 20 event types, counted over every value after splitting each at its commas.
    (r"GET /v2/audit/(events|entities/\{entity\})", r"at most \d+ event types at once"),
    # Callback and webhook hosts must resolve to public addresses: that depends on DNS, not on the request's form.
    (r".*", r"has a host that does not resolve|public addresses only"),
    # Custom header names are HTTP tokens: OpenAPI 3.0 has no propertyNames to say so of a map's keys.
    (r"PUT /admin/merchants/\{merchant_id\}/custom_headers", r"a header name must be"),
    # Money takes at most 4 decimal places: multipleOf 0.0001 is not exact in binary floating point.
    (r".*", r"must have at most 4 decimal places"),
    # A purchase token is a JWT the merchant's server signed: its content (a decodable token, its claims) is
    # not a string's form. A token that does not verify is the 401 the document gives.
    (r"POST /browser/v1/purchases", r"purchase_token must be a JWT|purchase_token: |referral_code differs from the one the purchase_token"),
    # What a share needs depends on its channel (recipients for an email share, none for a social one): 3.0 has no if/then.
    (r"POST /browser/v1/shares", r"is required for an email share|is for an email share only"),
]


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if type(failure).__name__ != "RejectedPositiveData" or response.status_code != 400:
        return True
    label = f"{case.method.upper()} {case.operation.path}"
    text = response.content.decode("utf-8", "replace")
    return not any(re.fullmatch(operation, label) and re.search(message, text) for operation, message in UNSTATABLE)
