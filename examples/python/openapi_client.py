#!/usr/bin/env python3
"""Calls the bridge through its published OpenAPI document, with the standard library only.

    python3 examples/python/openapi_client.py http://127.0.0.1:7700

It reads GET /openapi.json, finds two operations by their operationId (getHealth and documentCurrent), builds each
request from what the document says (verb, path, path and query parameters, JSON body) and prints one line per call:
the operationId, the request it made, and the JSON it got back. Set BRIDGE_TOKEN when the bridge has a token.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

VERBS = ("get", "post", "put", "patch", "delete")


def fetch(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Accept": "application/json"})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    token = os.environ.get("BRIDGE_TOKEN")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        # Errors are a bare ProtocolError with the status of its code.
        return error.code, json.loads(error.read() or b"null")


def find_operation(document, operation_id):
    """The (verb, path template, operation) of an operationId, or an error naming the ones there are."""
    known = []
    for path, item in document["paths"].items():
        for verb in VERBS:
            operation = item.get(verb)
            if operation is None:
                continue
            known.append(operation.get("operationId"))
            if operation.get("operationId") == operation_id:
                return verb.upper(), path, operation
    raise SystemExit("no operation %r in the document; it has: %s" % (operation_id, ", ".join(sorted(filter(None, known)))))


def call(base, document, operation_id, params=None):
    verb, path, operation = find_operation(document, operation_id)
    params = dict(params or {})
    query = {}
    for parameter in operation.get("parameters", []):
        if "$ref" in parameter:  # shared parameters (the editor choice) are optional: leave them out
            continue
        name = parameter["name"]
        if parameter["in"] == "path":
            path = path.replace("{%s}" % name, urllib.parse.quote(str(params.pop(name)), safe=""))
        elif parameter["in"] == "query" and name in params:
            query[name] = params.pop(name)
    url = base + path + ("?" + urllib.parse.urlencode(query) if query else "")
    body = params if "requestBody" in operation else None
    status, result = fetch(url, verb, body)
    return "%s %s" % (verb, path), status, result


def main(argv):
    if len(argv) < 1:
        raise SystemExit(__doc__)
    base = argv[0].rstrip("/")
    status, document = fetch(base + "/openapi.json")
    if status != 200:
        raise SystemExit("GET /openapi.json answered %d: %s" % (status, document))
    print("openapi %s: %s %s" % (document["openapi"], document["info"]["title"], document["info"]["version"]))
    for operation_id in ("getHealth", "documentCurrent"):
        request, status, result = call(base, document, operation_id)
        print("%s %s %d %s" % (operation_id, request, status, json.dumps(result, sort_keys=True)))


if __name__ == "__main__":
    main(sys.argv[1:])
