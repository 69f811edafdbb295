#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Validate the YAML or JSON documents on standard input against an upstream JSON schema.
"""schema-check.py [--nrt] SCHEMA.json: every document on stdin must validate; errors on stderr,
exit 1.

--nrt: also check a NodeResourceTopology's apiVersion and kind, and that no field falls outside
the schema's properties (the CRD schema does not forbid them; the API server prunes them).

A CDI schema.json refers to defs.json beside it: its definitions are merged in. Comments and
several '---' documents are fine (YAML); an empty input is an error."""
import json
import os
import sys

import jsonschema
import yaml


def load_schema(path):
    with open(path) as f:
        schema = json.load(f)
    defs = os.path.join(os.path.dirname(path), "defs.json")
    if os.path.basename(path) == "schema.json" and os.path.exists(defs):
        with open(defs) as f:
            schema.setdefault("definitions", {}).update(json.load(f)["definitions"])
        text = json.dumps(schema).replace('"defs.json#/definitions/', '"#/definitions/')
        schema = json.loads(text)
    return schema


def nrt_errors(doc, schema):
    """NodeResourceTopology checks the CRD schema leaves out: apiVersion, kind, unknown fields."""
    errors = []
    if doc.get("apiVersion") != "topology.node.k8s.io/v1alpha2":
        errors.append("apiVersion: not topology.node.k8s.io/v1alpha2")
    if doc.get("kind") != "NodeResourceTopology":
        errors.append("kind: not NodeResourceTopology")

    def walk(value, sch, path):
        if isinstance(value, dict) and "properties" in sch:
            for key, v in value.items():
                if key not in sch["properties"]:
                    errors.append("%s: field outside the schema" % "/".join(path + [key]))
                else:
                    walk(v, sch["properties"][key], path + [key])
        elif isinstance(value, list) and "items" in sch:
            for i, v in enumerate(value):
                walk(v, sch["items"], path + [str(i)])

    walk(doc, schema, [])
    return errors


def main():
    args = sys.argv[1:]
    nrt = args[:1] == ["--nrt"]
    if nrt:
        args = args[1:]
    schema = load_schema(args[0])
    docs = [d for d in yaml.safe_load_all(sys.stdin.read()) if d is not None]
    if not docs:
        print("no document on standard input", file=sys.stderr)
        return 1
    validator = jsonschema.validators.validator_for(schema)(schema)
    bad = 0
    for i, doc in enumerate(docs):
        for e in validator.iter_errors(doc):
            print("document %d: %s: %s" % (i, "/".join(str(p) for p in e.absolute_path),
                                          e.message), file=sys.stderr)
            bad += 1
        for e in nrt_errors(doc, schema) if nrt else []:
            print("document %d: %s" % (i, e), file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
