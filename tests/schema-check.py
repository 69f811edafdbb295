#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Validate the YAML or JSON documents on standard input against an upstream JSON schema.
"""schema-check.py [--nrt] SCHEMA.json: every document on stdin must validate; errors on stderr,
exit 1.

--nrt: also check a NodeResourceTopology's apiVersion and kind, and that no field falls outside
the schema's properties (the CRD schema does not forbid them; the API server prunes them).

A CDI schema.json refers to defs.json beside it: its definitions are merged in. Comments and
several '---' documents are fine (YAML); an empty input is an error. ResourceSlice and
DeviceClass documents are also checked for the rules Kubernetes checks in code, not in its
OpenAPI schema (resource/v1 validation): see k8s_rules."""
import json
import os
import re
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


DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def dns_subdomain(s, limit=253):
    return 0 < len(s) <= limit and all(DNS_LABEL.match(p) for p in s.split("."))


def qualified_name(name):
    """An attribute or capacity name: a C identifier (at most 32), optionally DOMAIN/ (at most
    63, a DNS subdomain) before it."""
    domain, _, ident = name.rpartition("/")
    if domain and not dns_subdomain(domain, 63):
        return False
    return bool(C_IDENT.match(ident)) and len(ident) <= 32


def k8s_rules(docs):
    """The errors of what validation.go checks beyond the schema: per ResourceSlice at most 128
    devices (64 with taints or counters), device names DNS labels unique in their pool, at most
    32 attributes and capacities a device, qualified names, exactly one value per attribute,
    strings at most 64, exactly one of nodeName/nodeSelector/allNodes/perDeviceNodeSelection; a
    pool's slices agreeing on generation and resourceSliceCount and as many as it says."""
    errors = []
    pools = {}
    for i, doc in enumerate(docs):
        kind = doc.get("kind") if isinstance(doc, dict) else None
        name = (doc.get("metadata") or {}).get("name", "") if kind else ""
        if kind in ("ResourceSlice", "DeviceClass") and not dns_subdomain(name):
            errors.append("document %d: metadata.name %r is not a DNS subdomain" % (i, name))
        if kind != "ResourceSlice":
            continue
        spec = doc.get("spec") or {}
        devices = spec.get("devices") or []
        where = [k for k in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
                 if spec.get(k) not in (None, False, "")]
        if len(where) != 1:
            errors.append("document %d: exactly one of nodeName, nodeSelector, allNodes, "
                          "perDeviceNodeSelection must be set, not %s" % (i, where or "none"))
        limit = 64 if any(d.get("taints") or d.get("consumesCounters") for d in devices) else 128
        if len(devices) > limit:
            errors.append("document %d: %d devices, at most %d" % (i, len(devices), limit))
        if not dns_subdomain(spec.get("driver", ""), 63):
            errors.append("document %d: driver %r is not a DNS subdomain" % (i, spec.get("driver")))
        pool = spec.get("pool") or {}
        key = (spec.get("driver"), pool.get("name"))
        p = pools.setdefault(key, {"slices": 0, "counts": set(), "gens": set(), "names": set()})
        p["slices"] += 1
        p["counts"].add(pool.get("resourceSliceCount"))
        p["gens"].add(pool.get("generation"))
        for j, d in enumerate(devices):
            at = "document %d: devices/%d" % (i, j)
            dname = d.get("name", "")
            if not DNS_LABEL.match(dname) or len(dname) > 63:
                errors.append("%s: name %r is not a DNS label" % (at, dname))
            if dname in p["names"]:
                errors.append("%s: name %r twice in pool %s" % (at, dname, key[1]))
            p["names"].add(dname)
            attrs, caps = d.get("attributes") or {}, d.get("capacity") or {}
            if len(attrs) + len(caps) > 32:
                errors.append("%s: %d attributes and capacities, at most 32"
                              % (at, len(attrs) + len(caps)))
            for n in list(attrs) + list(caps):
                if not qualified_name(n):
                    errors.append("%s: %r is not a qualified name" % (at, n))
            for n, v in attrs.items():
                if len(v or {}) != 1:
                    errors.append("%s: attribute %s has %d values, needs one" % (at, n, len(v or {})))
                elif "string" in v and len(v["string"]) > 64:
                    errors.append("%s: attribute %s is longer than 64" % (at, n))
    for (driver, pool), p in pools.items():
        if len(p["counts"]) != 1 or len(p["gens"]) != 1:
            errors.append("pool %s of %s: slices disagree on resourceSliceCount or generation"
                          % (pool, driver))
        elif p["slices"] != next(iter(p["counts"])):
            errors.append("pool %s of %s: %d slices, resourceSliceCount says %s"
                          % (pool, driver, p["slices"], next(iter(p["counts"]))))
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
    for e in k8s_rules(docs):
        print(e, file=sys.stderr)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
