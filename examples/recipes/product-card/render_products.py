#!/usr/bin/env python3
"""Renders the product cards of a CSV over the bridge's HTTP API, with Python's standard library only.

    python3 examples/recipes/product-card/render_products.py <folder> <out-folder> [--csv products.csv] [--url http://127.0.0.1:7700]

<folder> holds card.psd and the photos the CSV names (make-template.mjs writes them). The CSV has the columns of the
command line's render-template: id, text:<layer>, image:<layer> (relative to <folder>), visible:<layer>,
fill:<layer>, comp, and any other column is a value of the output name. One POST /template/render renders every
row, spread over the bridge's editors; each card is trimmed of its transparent edges, so a "square" comp gives a
360x360 file and a "story" one 360x640. Paths are read and written by the bridge: run it on the same machine (or
give folders inside its --files-root).
"""
import csv
import json
import os
import sys
import urllib.error
import urllib.request

TRUE = {"true", "1", "yes", "y", "on", "shown"}
FALSE = {"false", "0", "no", "n", "off", "hidden"}


def post(url, path, body):
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    token = os.environ.get("BRIDGE_TOKEN")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def variant(row, number, folder):
    """One CSV row as a template:render variant; an empty cell leaves its layer as the template has it."""
    out = {"id": row.get("id") or str(number), "edits": [{"method": "document:trim"}]}
    for column, value in row.items():
        kind, _, layer = column.partition(":")
        if column == "id" or value == "":
            continue
        if column == "comp":
            out["comp"] = value
        elif layer and kind == "text":
            out.setdefault("text", {})[layer] = value
        elif layer and kind == "image":
            out.setdefault("images", {})[layer] = value if "://" in value or value.startswith("data:") else os.path.join(folder, value)
        elif layer and kind == "fill":
            out.setdefault("fills", {})[layer] = value
        elif layer and kind == "visible":
            word = value.strip().lower()
            if word not in TRUE | FALSE:
                raise ValueError(f'row {number}, column {column}: "{value}" is not true or false')
            out.setdefault("visible", {})[layer] = word in TRUE
        else:
            out.setdefault("vars", {})[column] = value
    return out


def main(argv):
    url = os.environ.get("BRIDGE_URL", "http://127.0.0.1:7700")
    table = os.path.join(os.path.dirname(os.path.abspath(__file__)), "products.csv")
    args = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--url", "--csv"):
            if argv[i] == "--url":
                url = argv[i + 1]
            else:
                table = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print("usage: render_products.py <folder> <out-folder> [--csv products.csv] [--url <bridge>]", file=sys.stderr)
        return 2
    folder, target = (os.path.abspath(d) for d in args)
    os.makedirs(target, exist_ok=True)
    with open(table, newline="", encoding="utf-8") as file:
        try:
            variants = [variant(row, n, folder) for n, row in enumerate(csv.DictReader(file), start=1)]
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
    body = {
        "template": {"path": os.path.join(folder, "card.psd")},
        "variants": variants,
        "output": {"path": os.path.join(target, "{id}.png")},
    }
    try:
        answer = post(url, "/template/render", body)
    except urllib.error.HTTPError as error:
        problem = json.loads(error.read() or b"{}")
        print(f"{problem.get('code', error.code)} {problem.get('message', '')}", file=sys.stderr)
        return 1
    failed = [v for v in answer["variants"] if not v["ok"]]
    for result in answer["variants"]:
        if result["ok"]:
            print(f"{result['id']} -> {result['path']}")
        else:
            print(f"{result['id']}: {result['error']['code']} {result['error']['message']}", file=sys.stderr)
    print(f"{len(variants) - len(failed)} done, {len(failed)} failed")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
