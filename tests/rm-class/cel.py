#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The DeviceClasses of `rm-class export dra` evaluated on device records, the way a DRA scheduler
# would evaluate them on a ResourceSlice made from those records: a small evaluator of the CEL
# that rm-class writes (&&, ||, !, comparisons, in, has(), matches(), quantity().compareTo()).
#
#   cel.py CLASSES.yaml RECORDS FIELDS [DOMAIN]
#
# FIELDS lists "name type" per field (tests/unit/test-selector fields): integers become int
# attributes, sizes capacities, the rest string attributes; unknown values ("-") are left out.
# Prints "CLASS: DEVICE DEVICE ..." per DeviceClass. An evaluation error (a missing attribute
# read without has(), a type mismatch) is an error here, as it aborts an allocation in Kubernetes.
import re
import sys

import yaml


class CelError(Exception):
    pass


# ---- records ----

def parse_record(line):
    """The key=value fields of one record line, values unquoted, as str (UTF-8)."""
    fields, i, n = {}, 0, len(line)
    while i < n:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            break
        eq = line.index("=", i)
        key = line[i:eq]
        i = eq + 1
        if i < n and line[i] == '"':
            i += 1
            out = bytearray()
            while line[i] != '"':
                c = line[i]
                if c == "\\":
                    nxt = line[i + 1]
                    if nxt == "x":
                        out.append(int(line[i + 2:i + 4], 16))
                        i += 4
                        continue
                    out += {"n": b"\n", "t": b"\t"}.get(nxt, nxt.encode())
                    i += 2
                    continue
                out += c.encode()
                i += 1
            i += 1
            value = out.decode("utf-8", "surrogateescape")
        else:
            j = i
            while j < n and line[j] not in " \t":
                j += 1
            value = line[i:j]
            i = j
        fields[key] = value
    return fields


def device_of(rec, types, domain):
    """The CEL `device` of a record: attributes and capacities of DOMAIN."""
    attrs, caps = {}, {}
    for key, value in rec.items():
        if value == "-" or key not in types:
            continue
        kind = types[key]
        if kind == "integer":
            attrs[key] = int(value)
        elif kind == "size":
            caps[key] = Quantity(parse_size(value))
        else:
            attrs[key] = value
    std = {"pciBusID": attrs.pop("device")} if "device" in attrs else {}
    if "numa" in attrs:
        std["numaNode"] = attrs.pop("numa")
    return {"driver": "rmtools.test", "attributes": {domain: attrs, STD: std},
            "capacity": {domain: caps}}


STD = "resource.kubernetes.io"


def slice_devices(path):
    """The CEL `device` of each device of the ResourceSlices in PATH (rm-devices export
    resourceslice), as the scheduler sees it: unprefixed names in the driver's domain."""
    out = []
    with open(path) as f:
        for doc in yaml.safe_load_all(f):
            if not doc:
                continue
            driver = doc["spec"]["driver"]
            for d in doc["spec"].get("devices") or []:
                attrs, caps = {}, {}
                for name, value in (d.get("attributes") or {}).items():
                    dom, _, key = name.rpartition("/")
                    attrs.setdefault(dom or driver, {})[key] = next(iter(value.values()))
                for name, value in (d.get("capacity") or {}).items():
                    dom, _, key = name.rpartition("/")
                    caps.setdefault(dom or driver, {})[key] = Quantity.parse(value["value"])
                out.append({"driver": driver, "attributes": attrs, "capacity": caps})
    return out


def parse_size(s):
    m = re.fullmatch(r"(\d+)([KMGTPE]?)(i?B?)", s)
    if not m:
        raise ValueError("bad size " + s)
    return int(m.group(1)) << (10 * " KMGTPE".index(m.group(2) or " "))


class Quantity:
    SUFFIX = {"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50,
              "Ei": 1 << 60, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
              "E": 10**18}

    def __init__(self, value):
        self.value = value

    @classmethod
    def parse(cls, text):
        m = re.fullmatch(r"(-?\d+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|)", text)
        if not m:
            raise CelError("invalid quantity " + text)
        return cls(int(m.group(1)) * cls.SUFFIX[m.group(2)])


# ---- CEL ----

TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<int>-?\d+)|(?P<id>[A-Za-z_]\w*)|'
                   r'(?P<op>&&|\|\||==|!=|<=|>=|[<>!()\[\].,]))')


def unquote(lit):
    out, i, body = [], 0, lit[1:-1]
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif e == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif e == "U":
            out.append(chr(int(body[i + 2:i + 10], 16)))
            i += 10
        else:
            out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"'}[e])
            i += 2
    return "".join(out)


def tokenize(text):
    pos, toks = 0, []
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise CelError("cannot read CEL at %r" % text[pos:pos + 20])
        kind = m.lastgroup
        toks.append((kind, m.group(kind)))
        pos = m.end()
    toks.append(("end", None))
    return toks


class Parser:
    """CEL text into nested tuples."""

    def __init__(self, text):
        self.toks = tokenize(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i]

    def take(self, value=None):
        tok = self.toks[self.i]
        if value is not None and tok[1] != value:
            raise CelError("expected %s, found %s" % (value, tok[1]))
        self.i += 1
        return tok

    def parse(self):
        e = self.orx()
        if self.peek()[0] != "end":
            raise CelError("trailing " + str(self.peek()))
        return e

    def orx(self):
        e = self.andx()
        while self.peek()[1] == "||":
            self.take()
            e = ("or", e, self.andx())
        return e

    def andx(self):
        e = self.unary()
        while self.peek()[1] == "&&":
            self.take()
            e = ("and", e, self.unary())
        return e

    def unary(self):
        if self.peek()[1] == "!":
            self.take()
            return ("not", self.unary())
        return self.rel()

    def rel(self):
        e = self.member()
        tok = self.peek()
        if tok[1] in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", tok[1], e, self.member())
        if tok == ("id", "in"):
            self.take()
            return ("in", e, self.member())
        return e

    def args(self):
        self.take("(")
        out = []
        while self.peek()[1] != ")":
            out.append(self.orx())
            if self.peek()[1] == ",":
                self.take()
        self.take(")")
        return out

    def member(self):
        e = self.primary()
        while self.peek()[1] in (".", "["):
            if self.take()[1] == ".":
                name = self.take()[1]
                if self.peek()[1] == "(":
                    e = ("call", name, e, self.args())
                else:
                    e = ("select", e, name)
            else:
                e = ("index", e, self.orx())
                self.take("]")
        return e

    def primary(self):
        kind, value = self.take()
        if kind == "str":
            return ("lit", unquote(value))
        if kind == "int":
            return ("lit", int(value))
        if value == "(":
            e = self.orx()
            self.take(")")
            return e
        if value == "[":
            items = []
            while self.peek()[1] != "]":
                items.append(self.orx())
                if self.peek()[1] == ",":
                    self.take()
            self.take("]")
            return ("list", items)
        if kind == "id" and self.peek()[1] == "(":
            return ("call", value, None, self.args())
        if kind == "id":
            return ("var", value)
        raise CelError("unexpected " + str(value))


def same_type(a, b):
    if type(a) is not type(b) or isinstance(a, bool):
        raise CelError("no such overload: %r vs %r" % (a, b))


def regex(pattern):
    # RE2 reads "$" at the end as the end of the text, Python as before a final newline too
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def ev(e, env):
    op = e[0]
    if op == "lit":
        return e[1]
    if op == "var":
        return env[e[1]]
    if op == "list":
        return [ev(x, env) for x in e[1]]
    if op == "select":
        obj = ev(e[1], env)
        if e[2] not in obj:
            raise CelError("no such key: " + e[2])
        return obj[e[2]]
    if op == "index":
        obj, key = ev(e[1], env), ev(e[2], env)
        return obj.get(key, {})  # an unknown domain is an empty map
    if op == "and":
        return ev(e[1], env) and ev(e[2], env)  # CEL would also absorb errors; none expected
    if op == "or":
        return ev(e[1], env) or ev(e[2], env)
    if op == "not":
        v = ev(e[1], env)
        if not isinstance(v, bool):
            raise CelError("! of a non-bool")
        return not v
    if op == "cmp":
        a, b = ev(e[2], env), ev(e[3], env)
        same_type(a, b)
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                ">=": a >= b}[e[1]]
    if op == "in":
        a, items = ev(e[1], env), ev(e[2], env)
        for x in items:
            same_type(a, x)
        return a in items
    if op == "call":
        name, target, args = e[1], e[2], e[3]
        if name == "has":
            sel = args[0]
            if sel[0] != "select":
                raise CelError("has() needs a field selection")
            return sel[2] in ev(sel[1], env)
        if name == "quantity":
            return Quantity.parse(ev(args[0], env))
        obj = ev(target, env)
        if name == "compareTo":
            other = ev(args[0], env)
            if not isinstance(obj, Quantity) or not isinstance(other, Quantity):
                raise CelError("compareTo needs quantities")
            return (obj.value > other.value) - (obj.value < other.value)
        if name == "matches":
            if not isinstance(obj, str):
                raise CelError("matches needs a string")
            return regex(ev(args[0], env)).search(obj) is not None
        raise CelError("unknown function " + name)
    raise CelError("cannot evaluate " + op)


def main():
    if sys.argv[2] == "--slices":
        return main_slices(sys.argv[1], sys.argv[3])
    yaml_file, records_file, fields_file = sys.argv[1:4]
    domain = sys.argv[4] if len(sys.argv) > 4 else "rmtools.io"
    with open(fields_file) as f:
        types = dict(line.split() for line in f if line.strip())
    with open(records_file, encoding="utf-8", errors="surrogateescape") as f:
        recs = [parse_record(line.rstrip("\n")) for line in f
                if line.startswith("device=")]
    with open(yaml_file) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for doc in docs:
        assert doc["apiVersion"] == "resource.k8s.io/v1", doc["apiVersion"]
        assert doc["kind"] == "DeviceClass", doc["kind"]
        exprs = [s["cel"]["expression"] for s in doc["spec"]["selectors"]]
        trees = [Parser(x).parse() for x in exprs]
        hits = []
        for rec in recs:
            env = {"device": device_of(rec, types, domain)}
            results = [ev(t, env) for t in trees]
            if any(not isinstance(r, bool) for r in results):
                raise CelError("a selector gave a non-bool")
            if all(results):
                hits.append(rec["device"])
        print("%s: %s" % (doc["metadata"]["name"], " ".join(hits)))


def main_slices(yaml_file, slices_file):
    """cel.py CLASSES.yaml --slices SLICES.yaml: each class's devices (their pciBusID), after
    checking that every attribute the CEL reads is one some device of the slices publishes."""
    devices = slice_devices(slices_file)
    published = {(dom, key) for d in devices for kind in ("attributes", "capacity")
                 for dom, m in d[kind].items() for key in m}
    with open(yaml_file) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for doc in docs:
        exprs = [s["cel"]["expression"] for s in doc["spec"]["selectors"]]
        for x in exprs:
            for dom, key in re.findall(r'device\.(?:attributes|capacity)\["([^"]*)"\]\.(\w+)', x):
                if (dom, key) not in published:
                    raise CelError("%s reads %s/%s, which no device publishes"
                                   % (doc["metadata"]["name"], dom, key))
        trees = [Parser(x).parse() for x in exprs]
        hits = [d["attributes"][STD]["pciBusID"] for d in devices
                if all(ev(t, {"device": d}) is True for t in trees)]
        print("%s: %s" % (doc["metadata"]["name"], " ".join(sorted(hits))))


if __name__ == "__main__":
    try:
        main()
    except CelError as err:
        print("cel.py: CEL error: %s" % err, file=sys.stderr)
        sys.exit(1)
