#!/usr/bin/env python3
"""Exports every PSD of a folder as a PNG of the same name, over the bridge's HTTP API, with the standard library.

    python3 examples/recipes/batch_export.py <psd-folder> <png-folder> [--url http://127.0.0.1:7700]

Paths are read by the bridge: run it on the same machine (or give folders inside its --files-root).
"""
import json
import os
import sys
import urllib.error
import urllib.request


def call(url, path, body, accept="application/json"):
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": accept},
        method="POST",
    )
    token = os.environ.get("BRIDGE_TOKEN")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        data = response.read()
        return data if accept.startswith("image/") else json.loads(data)


def main(argv):
    url = os.environ.get("BRIDGE_URL", "http://127.0.0.1:7700")
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--url":
            url = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print("usage: batch_export.py <psd-folder> <png-folder> [--url <bridge>]", file=sys.stderr)
        return 2
    source, target = (os.path.abspath(d) for d in args)
    os.makedirs(target, exist_ok=True)
    failed = 0
    for name in sorted(os.listdir(source)):
        stem, ext = os.path.splitext(name)
        if ext.lower() not in (".psd", ".psb"):
            continue
        try:
            doc = call(url, "/document/open", {"path": os.path.join(source, name)})
            png = call(url, "/image/export-document", {"documentId": doc["id"], "format": "png"}, accept="image/png")
            out = os.path.join(target, stem + ".png")
            with open(out, "wb") as file:
                file.write(png)
            call(url, "/document/close", {"documentId": doc["id"]})
            print(f"{name} -> {out} ({len(png)} bytes)")
        except urllib.error.HTTPError as error:
            failed += 1
            problem = json.loads(error.read() or b"{}")
            print(f"{name}: {problem.get('code', error.code)} {problem.get('message', '')}", file=sys.stderr)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
