#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A FUSE file system laid out as a sysroot whose huge page pool files behave like the kernel's.
"""
fake-hugepages.py MOUNTPOINT --node ID:CAPACITY[:SIZES] ... [--sizes 2M,1G] [--default 2M]
                  [--fragment ID:BYTES] [--unmovable ID:BYTES] [--background [--log FILE]]

Emulates, in memory, what the kernel does with the huge page pool files, so that rm-hugepages
can be run with --sysroot MOUNTPOINT against machines it is not on:
  - sys/kernel/mm/hugepages/hugepages-NkB/: nr_hugepages (rw: the pages of every node, spread
    round-robin over the nodes as the kernel does), nr_hugepages_mempolicy (the same),
    nr_overcommit_hugepages (rw), free_hugepages, resv_hugepages, surplus_hugepages;
  - sys/devices/system/node/nodeN/hugepages/hugepages-NkB/: nr_hugepages (rw), free_hugepages,
    surplus_hugepages, for the SIZES of node N only (default: every size; a node of CAPACITY 0
    is memoryless and has no hugepages directory); nodeN/meminfo, nodeN/compact (w);
  - proc/meminfo (MemTotal, HugePages_*, Hugepagesize), proc/sys/vm/{nr_hugepages,
    nr_overcommit_hugepages, compact_memory}, sys/devices/system/node/{online,possible,has_memory},
    sys/kernel/mm/transparent_hugepage/{enabled,defrag}.
A write of a count allocates what the node's CAPACITY (bytes, shared by every page size) still
holds, and no more, without an error: the kernel's short write. --fragment ID:BYTES makes BYTES of
node ID's free memory unusable until its compact file (or compact_memory) is written;
--unmovable ID:BYTES makes them unusable for good (its meminfo still counts them).
Every write is logged: fake/log reads "path value" lines in order; fake/compactions the count.
Pages are never in use: free equals total, nothing is reserved or surplus.

--background forks, waits until the mount is there, prints the server's pid and returns; unmount
with `umount MOUNTPOINT` or `fusermount -u MOUNTPOINT` and the server exits.
"""
import errno
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import fusefs  # noqa: E402
from fusefs import err  # noqa: E402

UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(text):
    text = text.strip()
    for suffix in ("iB", "B"):
        if text.endswith(suffix) and text[:-len(suffix)][-1:].upper() in UNITS:
            text = text[:-len(suffix)]
    if text[-1:].upper() in UNITS:
        return int(text[:-1]) * UNITS[text[-1].upper()]
    return int(text)


class Node:
    def __init__(self, nid, cap, sizes):
        self.id, self.cap, self.sizes = nid, cap, sizes
        self.pages = {kb: 0 for kb in sizes}
        self.frag = self.stuck = 0

    def used(self):
        return sum(n * kb * 1024 for kb, n in self.pages.items())

    def room(self, kb):
        """pages of KB the node can still give"""
        return max(0, self.cap - self.used() - self.frag - self.stuck) // (kb * 1024)


class FakeHugePages(fusefs.FakeFS):
    file_size = 4096

    def __init__(self, nodes, sizes, default_kb):
        super().__init__()
        self.nodes, self.sizes, self.default_kb = nodes, sizes, default_kb
        self.overcommit = {kb: 0 for kb in sizes}
        self.log, self.compactions = [], 0

    # ---- the kernel's behaviour ----

    def set_node(self, node, kb, count):
        cur = node.pages[kb]
        if count > cur:
            count = cur + min(count - cur, node.room(kb))
        node.pages[kb] = count

    def set_global(self, kb, count):
        holders = [n for n in self.nodes if kb in n.sizes]
        total = sum(n.pages[kb] for n in holders)
        while total < count:  # one page a node, round-robin, while any can take one
            grew = False
            for n in holders:
                if total < count and n.room(kb) > 0:
                    n.pages[kb] += 1
                    total += 1
                    grew = True
            if not grew:
                break
        while total > count:
            for n in reversed(holders):
                if total > count and n.pages[kb] > 0:
                    n.pages[kb] -= 1
                    total -= 1

    def compact(self, nodes):
        self.compactions += 1
        for n in nodes:
            n.frag = 0

    def total(self, kb):
        return sum(n.pages.get(kb, 0) for n in self.nodes)

    # ---- the tree: path -> (read, write) ----

    def files(self):
        f = {}

        def count_writer(setter):
            def w(text):
                text = text.strip()
                if not text.isdigit():
                    raise err(errno.EINVAL)
                setter(int(text))
            return w

        for kb in self.sizes:
            d = "sys/kernel/mm/hugepages/hugepages-%dkB/" % kb
            f[d + "nr_hugepages"] = (lambda kb=kb: self.total(kb),
                                     count_writer(lambda v, kb=kb: self.set_global(kb, v)))
            f[d + "nr_hugepages_mempolicy"] = f[d + "nr_hugepages"]
            f[d + "nr_overcommit_hugepages"] = (
                lambda kb=kb: self.overcommit[kb],
                count_writer(lambda v, kb=kb: self.overcommit.__setitem__(kb, v)))
            f[d + "free_hugepages"] = (lambda kb=kb: self.total(kb), None)
            f[d + "resv_hugepages"] = (lambda: 0, None)
            f[d + "surplus_hugepages"] = (lambda: 0, None)
        ids = ",".join(str(n.id) for n in self.nodes)
        nd = "sys/devices/system/node/"
        f[nd + "online"] = (lambda: ids, None)
        f[nd + "possible"] = (lambda: ids, None)
        f[nd + "has_memory"] = (lambda: ",".join(str(n.id) for n in self.nodes if n.cap), None)
        for n in self.nodes:
            d = nd + "node%d/" % n.id
            f[d + "meminfo"] = (lambda n=n: "Node %d MemTotal: %12d kB\nNode %d MemFree: %12d kB"
                                % (n.id, n.cap // 1024, n.id, (n.cap - n.used()) // 1024), None)
            f[d + "compact"] = (None, lambda text, n=n: self.compact([n]))
            for kb in n.sizes:
                h = d + "hugepages/hugepages-%dkB/" % kb
                f[h + "nr_hugepages"] = (lambda n=n, kb=kb: n.pages[kb],
                                         count_writer(lambda v, n=n, kb=kb: self.set_node(n, kb, v)))
                f[h + "free_hugepages"] = (lambda n=n, kb=kb: n.pages[kb], None)
                f[h + "surplus_hugepages"] = (lambda: 0, None)
        dk = self.default_kb
        f["proc/meminfo"] = (lambda: "\n".join([
            "MemTotal: %12d kB" % (sum(n.cap for n in self.nodes) // 1024),
            "MemFree: %12d kB" % (sum(n.cap - n.used() for n in self.nodes) // 1024),
            "HugePages_Total: %6d" % self.total(dk), "HugePages_Free: %6d" % self.total(dk),
            "HugePages_Rsvd: %6d" % 0, "HugePages_Surp: %6d" % 0,
            "Hugepagesize: %8d kB" % dk,
            "Hugetlb: %12d kB" % sum(self.total(kb) * kb for kb in self.sizes)]), None)
        f["proc/sys/vm/nr_hugepages"] = f["sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages" % dk]
        f["proc/sys/vm/nr_overcommit_hugepages"] = \
            f["sys/kernel/mm/hugepages/hugepages-%dkB/nr_overcommit_hugepages" % dk]
        f["proc/sys/vm/compact_memory"] = (None, lambda text: self.compact(self.nodes))
        f["proc/mounts"] = (lambda: "", None)
        t = "sys/kernel/mm/transparent_hugepage/"
        f[t + "enabled"] = (lambda: "always [madvise] never", None)
        f[t + "defrag"] = (lambda: "always defer defer+madvise [madvise] never", None)
        f["fake/log"] = (lambda: "\n".join("%s %s" % w for w in self.log), None)
        f["fake/compactions"] = (lambda: self.compactions, None)
        return f

    def node(self, path):
        """("file", (read, write)) or ("dir", [names])"""
        path = path.strip("/")
        files = self.files()
        if path in files:
            return "file", files[path]
        prefix = path + "/" if path else ""
        names = {p[len(prefix):].split("/")[0] for p in files if p.startswith(prefix)}
        if not names:
            raise err(errno.ENOENT)
        return "dir", sorted(names)

    # ---- FUSE ----

    def show(self, path, value):
        return ("%s\n" % (value,)).encode()

    def store(self, path, write, text):
        self.log.append((path.strip("/"), text.strip()))
        write(text)

    def mkdir(self, path, mode):
        raise err(errno.EPERM)


def main():
    ap = fusefs.arguments("Emulate the kernel's huge page pool files with FUSE.")
    ap.add_argument("--node", action="append", default=[], help="ID:CAPACITY[:SIZES]")
    ap.add_argument("--sizes", default="2M,1G")
    ap.add_argument("--default", default="2M")
    ap.add_argument("--fragment", action="append", default=[], help="ID:BYTES")
    ap.add_argument("--unmovable", action="append", default=[], help="ID:BYTES")
    a = fusefs.parse_args(ap)
    try:
        sizes = [parse_bytes(s) // 1024 for s in a.sizes.split(",")]
        nodes = []
        for spec in a.node or ["0:4G"]:
            parts = spec.split(":")
            cap = parse_bytes(parts[1])
            own = [parse_bytes(s) // 1024 for s in parts[2].split(",")] if len(parts) > 2 \
                else sizes
            nodes.append(Node(int(parts[0]), cap, own if cap else []))
        for spec in a.fragment:
            nid, amount = spec.split(":")
            next(n for n in nodes if n.id == int(nid)).frag = parse_bytes(amount)
        for spec in a.unmovable:
            nid, amount = spec.split(":")
            next(n for n in nodes if n.id == int(nid)).stuck = parse_bytes(amount)
        default_kb = parse_bytes(a.default) // 1024
    except (ValueError, IndexError, StopIteration):
        ap.error("invalid --node, --sizes, --default, --fragment or --unmovable")
    fs = FakeHugePages(nodes, sizes, default_kb)
    return fusefs.serve(fs, a, "fake-hugepages", "fake-hugepages", "fakehugepages")


if __name__ == "__main__":
    sys.exit(main())
