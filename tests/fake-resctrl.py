#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A FUSE file system that behaves like the kernel's resctrl mount for the writes rmtools makes.
"""
fake-resctrl.py MOUNTPOINT --layout intel-2s|intel-2s-cdp|amd-ccx [--cpus LIST] [--mba-mbps]
                [--min-cbm-bits N] [--closids N] [--rmids N] [--shareable-bits HEX]
                [--background [--log FILE]]

Layouts (what info/ holds, as the kernel shows it on such machines):
  intel-2s      two L3 domains (0, 1), 11 ways (cbm_mask 7ff), min_cbm_bits 1, contiguous masks
                only, 16 CLOSIDs for L3 and 8 for MB; MB in percent (granularity 10, minimum 10);
                L3_MON with llc_occupancy, mbm_total_bytes and mbm_local_bytes.
  intel-2s-cdp  the same mounted with -o cdp: L3CODE and L3DATA instead of L3, 8 CLOSIDs each.
  amd-ccx       eight L3 domains (0-7, one per CCX), 16 ways (ffff), min_cbm_bits 0, sparse masks
                allowed, 16 CLOSIDs; MB in AMD's units of 1/8 GBps (0 to 2048, granularity 1).
--mba-mbps mounts as -o mba_MBps does: MB values are MBps, any 32-bit number, default 4294967295.

Emulated as the kernel does it (arch/x86/kernel/cpu/resctrl, fs/resctrl), with its
info/last_cmd_status texts:
  - mkdir of a control group in the root (one CLOSID: ENOSPC "Out of CLOSIDs"; one RMID:
    ENOSPC "Out of RMIDs"), its first schemata as the kernel makes it (the bits of shareable
    groups and unused bits, trimmed to their lowest run; ENOSPC "No space on L3:1" when fewer
    than min_cbm_bits remain); mkdir in a group's mon_groups makes a monitoring group; elsewhere
    EPERM; rmdir moves tasks and CPUs back to the default group (or the parent);
  - schemata: "NAME:ID=VAL;ID=VAL" lines, one write all or nothing, ending in a newline
    (EINVAL otherwise); unknown resource, missing ':' or '=', unknown or duplicate domain;
    masks: hex, within cbm_mask, contiguous unless sparse, at least min_cbm_bits bits, no
    overlap with an exclusive group (nor, for an exclusive group, with any other group or the
    shareable bits), CDP peers included; MB: a number within [min_bandwidth, max], rounded up to
    the granularity (percent), any number with mba_MBps;
  - mode: shareable or exclusive ("Schemata overlaps" when an exclusive group would overlap
    another group or the shareable bits); pseudo-locksetup is refused;
  - cpus_list / cpus: online CPUs only, taken from the group that had them, dropped ones go to the
    default group, which cannot drop CPUs; tasks: one pid a write, ESRCH "No task N" for a pid
    /proc does not have.
Not emulated: L2, SMBA, pseudo-locking, bit_usage, size, the io_alloc and mbm assignment files
of new kernels, and real counting: mon_data files hold numbers derived from the group (65536
bytes of L3 a task or CPU, plus the CLOSID), and the mbm counters grow by 10 MB for each clock
tick of CPU time the processes of the group's tasks have used (/proc/PID/stat), so that they
move while those work.

--background forks, waits until the mount is there, prints the server's pid and returns; unmount
with `umount MOUNTPOINT` or `fusermount -u MOUNTPOINT` and the server exits.
"""
import errno
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import fusefs  # noqa: E402
from fusefs import err, fmt_list, parse_list  # noqa: E402

U32_MAX = 4294967295


def cpu_ticks(pid):
    """User and system time of process PID in clock ticks; 0 when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def fmt_mask(s):
    v = 0
    for c in s:
        v |= 1 << c
    words = []
    n = max(1, (max(s) // 32 + 1) if s else 1)
    for w in range(n - 1, -1, -1):
        words.append("%08x" % ((v >> (32 * w)) & 0xffffffff))
    return ",".join(words)


def popcount(v):
    return bin(v).count("1")


class CacheRes:
    def __init__(self, name, domains, cbm_len, min_bits, shareable, closids, sparse, peer=None):
        self.name, self.domains, self.cbm_len = name, domains, cbm_len
        self.full = (1 << cbm_len) - 1
        self.min_bits, self.shareable, self.closids = min_bits, shareable, closids
        self.sparse, self.peer = sparse, peer
        self.width = (cbm_len + 3) // 4

    def info(self):
        f = {"cbm_mask": "%x" % self.full, "min_cbm_bits": str(self.min_bits),
             "num_closids": str(self.closids), "shareable_bits": "%x" % self.shareable,
             "sparse_masks": "1" if self.sparse else "0"}
        return f

    def default(self):
        return self.full

    def fmt(self, v):
        return "%0*x" % (self.width, v)


class MbRes:
    def __init__(self, name, domains, unit, closids):
        self.name, self.domains, self.unit, self.closids = name, domains, unit, closids
        if unit == "amd":
            self.max, self.min, self.gran, self.linear, self.width = 2048, 0, 1, 0, 4
        else:
            self.max, self.min, self.gran, self.linear, self.width = 100, 10, 10, 1, 3
        self.mbps = False

    def info(self):
        return {"bandwidth_gran": str(self.gran), "delay_linear": str(self.linear),
                "min_bandwidth": str(self.min), "num_closids": str(self.closids),
                "thread_throttle_mode": "max" if self.unit != "amd" else "undefined"}

    def default(self):
        return U32_MAX if self.mbps else self.max

    def fmt(self, v):
        return "%*u" % (self.width, v)


class MonGroup:
    def __init__(self, parent, name):
        self.parent, self.name = parent, name
        self.tasks, self.cpus = set(), set()


class Group:
    def __init__(self, fs, name, closid):
        self.fs, self.name, self.closid = fs, name, closid
        self.mode = "shareable"
        self.ctrl = {}  # resource name -> {domain: value}
        self.cpus, self.tasks = set(), set()
        self.mon = {}  # name -> MonGroup

    def cache_union(self, dom):
        """The ways of this group in DOM, CDP peers together."""
        v = 0
        for r in self.fs.caches:
            v |= self.ctrl[r.name][dom]
        return v


class FakeResctrl(fusefs.KernfsFS):
    def __init__(self, a):
        super().__init__()
        self.status = "ok"
        self.cpus = parse_list(a.cpus)
        self.rmids = a.rmids
        self.used_rmids = 1
        cdp = a.layout == "intel-2s-cdp"
        if a.layout.startswith("intel"):
            doms = [0, 1]
            cbm_len, min_bits, closids, sparse = 11, 1, 16, False
            mb = MbRes("MB", doms, "percent", 8)
        else:
            doms = list(range(8))
            cbm_len, min_bits, closids, sparse = 16, 0, 16, True
            mb = MbRes("MB", doms, "amd", 16)
        if a.min_cbm_bits is not None:
            min_bits = a.min_cbm_bits
        if a.closids is not None:
            closids = a.closids
            mb.closids = a.closids
        shareable = int(a.shareable_bits, 16)
        if cdp:
            code = CacheRes("L3CODE", doms, cbm_len, min_bits, shareable, closids // 2, sparse)
            data = CacheRes("L3DATA", doms, cbm_len, min_bits, shareable, closids // 2, sparse,
                            code)
            code.peer = data
            self.caches = [code, data]
        else:
            self.caches = [CacheRes("L3", doms, cbm_len, min_bits, shareable, closids, sparse)]
        mb.mbps = a.mba_mbps
        self.mb = mb
        self.resources = self.caches + [mb]
        self.domains = doms
        self.nclosids = min(r.closids for r in self.resources)
        self.root = Group(self, "", 0)
        for r in self.resources:
            self.root.ctrl[r.name] = {d: r.default() for d in doms}
        self.root.cpus = set(self.cpus)
        self.groups = {}  # name -> Group (the control groups below the root)

    # ---- helpers ----

    def all_groups(self):
        return [self.root] + [self.groups[n] for n in sorted(self.groups)]

    def fail(self, code, status=None):
        """Refuse with errno CODE, STATUS in info/last_cmd_status."""
        if status is not None:
            self.status = status
        raise err(code)

    def overlaps(self, res, dom, cbm, group, exclusive):
        """As rdtgroup_cbm_overlaps(): with EXCLUSIVE, overlap with an exclusive group only;
        without, with any other group or the shareable bits. CDP peers are checked too."""
        if not exclusive and cbm & res.shareable:
            return True
        for g in self.all_groups():
            if g is group:
                continue
            for r in [res] + ([res.peer] if res.peer else []):
                if cbm & g.ctrl[r.name][dom]:
                    if exclusive:
                        if g.mode == "exclusive":
                            return True
                        continue
                    return True
        return False

    # ---- reads ----

    def schemata_text(self, g):
        width = max(len(r.name) for r in self.resources)
        lines = []
        for r in self.resources:
            vals = ";".join("%d=%s" % (d, r.fmt(g.ctrl[r.name][d])) for d in r.domains)
            lines.append("%*s:%s" % (width, r.name, vals))
        return "\n".join(lines)

    def mon_value(self, tasks, cpus, closid, dom, event):
        busy = len(tasks) + len(cpus)
        if event == "llc_occupancy":
            return 65536 * busy + closid
        moved = 10000000 * sum(cpu_ticks(pid) for pid in tasks)
        if event == "mbm_total_bytes":
            return 1000000 * (dom + 1) * (busy + 1) + moved
        return 500000 * (dom + 1) * (busy + 1) + moved // 2

    # ---- writes ----

    def w_schemata(self, g, text):
        self.status = "ok"
        if not text.endswith("\n"):
            self.fail(errno.EINVAL)
        staged = {}
        for line in text[:-1].split("\n"):
            name, colon, rest = line.partition(":")
            name = name.strip()
            if not colon:
                self.fail(errno.EINVAL, "Missing ':'")
            if rest == "":
                self.fail(errno.EINVAL, "Missing '%s' value" % name)
            res = next((r for r in self.resources if r.name == name), None)
            if res is None:
                self.fail(errno.EINVAL, "Unknown or unsupported resource name '%s'" % name)
            vals = staged.setdefault(res.name, {})
            for item in rest.split(";"):
                if item == "":
                    break
                dom, eq, val = item.partition("=")
                if not eq or not dom.strip().isdigit():
                    self.fail(errno.EINVAL, "Missing '=' or non-numeric domain")
                dom = int(dom)
                val = val.strip()
                if dom not in res.domains:
                    self.fail(errno.EINVAL)
                if dom in vals:
                    self.fail(errno.EINVAL, "Duplicate domain %d" % dom)
                if isinstance(res, CacheRes):
                    vals[dom] = self.parse_cbm(res, g, dom, val)
                else:
                    vals[dom] = self.parse_bw(res, val)
        for name, vals in staged.items():
            g.ctrl[name].update(vals)

    def parse_cbm(self, res, g, dom, val):
        try:
            cbm = int(val, 16)
        except ValueError:
            self.fail(errno.EINVAL, "Non-hex character in the mask %s" % val)
        if (res.min_bits > 0 and cbm == 0) or cbm > res.full:
            self.fail(errno.EINVAL, "Mask out of range")
        if cbm:
            low = (cbm & -cbm).bit_length() - 1
            run = 0
            while cbm >> (low + run) & 1:
                run += 1
            if not res.sparse and cbm >> (low + run):
                self.fail(errno.EINVAL, "The mask %x has non-consecutive 1-bits" % cbm)
        else:
            run = 0
        if run < res.min_bits:
            self.fail(errno.EINVAL, "Need at least %d bits in the mask" % res.min_bits)
        if self.overlaps(res, dom, cbm, g, True):
            self.fail(errno.EINVAL, "Overlaps with exclusive group")
        if g.mode == "exclusive" and self.overlaps(res, dom, cbm, g, False):
            self.fail(errno.EINVAL, "Overlaps with other group")
        return cbm

    def parse_bw(self, res, val):
        if not val.isdigit() or int(val) > U32_MAX:
            self.fail(errno.EINVAL, "Invalid MB value %s" % val)
        bw = int(val)
        if res.mbps:
            return bw
        if bw < res.min or bw > res.max:
            self.fail(errno.EINVAL, "MB value %d out of range [%d,%d]" % (bw, res.min, res.max))
        return -(-bw // res.gran) * res.gran

    def w_mode(self, g, text):
        self.status = "ok"
        mode = text.strip()
        if mode == "shareable":
            g.mode = mode
        elif mode == "exclusive":
            for r in self.caches:
                for d in r.domains:
                    if self.overlaps(r, d, g.ctrl[r.name][d], g, False):
                        self.fail(errno.EINVAL, "Schemata overlaps")
            g.mode = mode
        elif mode in ("pseudo-locksetup", "pseudo-locked"):
            self.fail(errno.EINVAL, "Pseudo-locking not supported")
        else:
            self.fail(errno.EINVAL, "Unknown or unsupported mode")

    def w_cpus(self, g, text, mask):
        self.status = "ok"
        text = text.strip()
        if mask:
            try:
                v = int(text.replace(",", ""), 16) if text else 0
            except ValueError:
                self.fail(errno.EINVAL, "Bad CPU list/mask")
            new = {i for i in range(v.bit_length()) if v >> i & 1}
        else:
            new = parse_list(text)
            if new is None:
                self.fail(errno.EINVAL, "Bad CPU list/mask")
        if not new <= self.cpus:
            self.fail(errno.EINVAL, "Can only assign online CPUs")
        if g is self.root:
            if not g.cpus <= new:
                self.fail(errno.EINVAL, "Can't drop CPUs from default group")
        else:
            self.root.cpus |= g.cpus - new
        for other in self.all_groups():
            if other is not g:
                other.cpus -= new
        g.cpus = new

    def w_tasks(self, g, mon, text):
        self.status = "ok"
        text = text.strip()
        if not text.isdigit():
            self.fail(errno.EINVAL, "Task list parsing error pid %s" % text)
        pid = int(text)
        if pid == 0 or not os.path.exists("/proc/%d" % pid):
            self.fail(errno.ESRCH, "No task %d" % pid)
        for other in self.all_groups():
            other.tasks.discard(pid)
            for m in other.mon.values():
                m.tasks.discard(pid)
        g.tasks.add(pid)
        if mon:
            mon.tasks.add(pid)

    # ---- the tree ----

    def node(self, path):
        """('dir', obj) or ('file', (read, write)) for PATH; ENOENT otherwise."""
        parts = [p for p in path.split("/") if p]
        node = self.root_dir()
        for i, p in enumerate(parts):
            kind, obj = node
            if kind != "dir" or p not in obj:
                raise err(errno.ENOENT)
            node = obj[p]() if callable(obj[p]) else obj[p]
        return node

    def root_dir(self):
        d = self.group_dir(self.root)
        d["info"] = lambda: self.info_dir()
        for name in self.groups:
            d[name] = (lambda g: lambda: ("dir", self.group_dir(g)))(self.groups[name])
        return ("dir", d)

    def info_dir(self):
        d = {"last_cmd_status": ("file", (lambda: self.status, None))}
        for r in self.resources:
            files = {k: ("file", ((lambda v: lambda: v)(v), None)) for k, v in r.info().items()}
            d[r.name] = ("dir", files)
        mon = {"mon_features": "llc_occupancy\nmbm_total_bytes\nmbm_local_bytes",
               "num_rmids": str(self.rmids), "max_threshold_occupancy": "1048576"}
        d["L3_MON"] = ("dir", {k: ("file", ((lambda v: lambda: v)(v), None))
                               for k, v in mon.items()})
        return ("dir", d)

    def mon_data_dir(self, tasks, cpus, closid):
        d = {}
        for dom in self.domains:
            files = {}
            for ev in ("llc_occupancy", "mbm_total_bytes", "mbm_local_bytes"):
                files[ev] = ("file", ((lambda dm, e: lambda: str(
                    self.mon_value(tasks(), cpus(), closid, dm, e)))(dom, ev), None))
            d["mon_L3_%02d" % dom] = ("dir", files)
        return ("dir", d)

    def group_dir(self, g):
        d = {
            "schemata": ("file", (lambda: self.schemata_text(g),
                                  lambda t: self.w_schemata(g, t))),
            "mode": ("file", (lambda: g.mode, lambda t: self.w_mode(g, t))),
            "cpus_list": ("file", (lambda: fmt_list(g.cpus), lambda t: self.w_cpus(g, t, False))),
            "cpus": ("file", (lambda: fmt_mask(g.cpus), lambda t: self.w_cpus(g, t, True))),
            "tasks": ("file", (lambda: "\n".join(str(p) for p in sorted(g.tasks)),
                               lambda t: self.w_tasks(g, None, t))),
            "mon_data": self.mon_data_dir(lambda: g.tasks, lambda: g.cpus, g.closid),
        }
        mons = {}
        for name, m in g.mon.items():
            mons[name] = ("dir", {
                "tasks": ("file", ((lambda mm: lambda: "\n".join(
                    str(p) for p in sorted(mm.tasks)))(m),
                    (lambda mm: lambda t: self.w_tasks(g, mm, t))(m))),
                "mon_data": self.mon_data_dir((lambda mm: lambda: mm.tasks)(m),
                                              (lambda mm: lambda: mm.cpus)(m), g.closid),
            })
        d["mon_groups"] = ("dir", mons)
        return d

    # ---- FUSE operations ----

    def init_alloc(self, g):
        """The first schemata of a new group, as __init_one_rdt_domain() makes it."""
        for r in self.caches:
            for d in r.domains:
                used = new = r.shareable
                for o in self.all_groups():
                    if o is g:
                        continue
                    peer = o.ctrl[r.peer.name][d] if r.peer else 0
                    used |= o.ctrl[r.name][d] | peer
                    if o.mode == "shareable":
                        new |= o.ctrl[r.name][d] | peer
                new |= r.full & ~used
                if new:  # cbm_ensure_valid(): the lowest run only
                    low = (new & -new).bit_length() - 1
                    run = 0
                    while new >> (low + run) & 1:
                        run += 1
                    new &= ((1 << run) - 1) << low
                if popcount(new) < r.min_bits:
                    self.fail(errno.ENOSPC, "No space on %s:%d" % (r.name, d))
                g.ctrl[r.name][d] = new
        g.ctrl[self.mb.name] = {d: self.mb.default() for d in self.domains}

    def mkdir(self, path, mode):
        self.status = "ok"
        parts = [p for p in path.split("/") if p]
        if len(parts) == 1:
            name = parts[0]
            if name in self.root_dir()[1]:
                raise err(errno.EEXIST)
            if len(self.groups) + 1 >= self.nclosids:
                self.fail(errno.ENOSPC, "Out of CLOSIDs")
            if self.used_rmids >= self.rmids:
                self.fail(errno.ENOSPC, "Out of RMIDs")
            used = {g.closid for g in self.groups.values()}
            closid = min(c for c in range(1, self.nclosids) if c not in used)
            g = Group(self, name, closid)
            for r in self.caches:
                g.ctrl[r.name] = {}
            self.init_alloc(g)
            self.groups[name] = g
            self.used_rmids += 1
            return
        if len(parts) == 3 and parts[1] == "mon_groups":
            g = self.groups.get(parts[0])
            if g is None:
                raise err(errno.ENOENT)
        elif len(parts) == 2 and parts[0] == "mon_groups":
            g = self.root
        else:
            self.node("/".join(parts[:-1]) or "/")
            raise err(errno.EPERM)
        name = parts[-1]
        if name in g.mon:
            raise err(errno.EEXIST)
        if self.used_rmids >= self.rmids:
            self.fail(errno.ENOSPC, "Out of RMIDs")
        g.mon[name] = MonGroup(g, name)
        self.used_rmids += 1

    def rmdir(self, path):
        parts = [p for p in path.split("/") if p]
        if len(parts) == 1 and parts[0] in self.groups:
            g = self.groups.pop(parts[0])
            self.root.tasks |= g.tasks
            self.root.cpus |= g.cpus
            self.used_rmids -= 1 + len(g.mon)
            return
        if len(parts) in (2, 3) and parts[-2] == "mon_groups":
            g = self.root if len(parts) == 2 else self.groups.get(parts[0])
            if g is not None and parts[-1] in g.mon:
                g.mon.pop(parts[-1])
                self.used_rmids -= 1
                return
        self.node(path)
        raise err(errno.EPERM)


def main():
    ap = fusefs.arguments("Emulate a resctrl mount with FUSE.")
    ap.add_argument("--layout", choices=["intel-2s", "intel-2s-cdp", "amd-ccx"], required=True)
    ap.add_argument("--cpus", default="0-15", help="the online CPUs (for cpus_list)")
    ap.add_argument("--mba-mbps", action="store_true", help="as mounted with -o mba_MBps")
    ap.add_argument("--min-cbm-bits", type=int)
    ap.add_argument("--closids", type=int, help="CLOSIDs of every resource (before CDP halves)")
    ap.add_argument("--rmids", type=int, default=64)
    ap.add_argument("--shareable-bits", default="0", help="hex: ways used by hardware too")
    a = fusefs.parse_args(ap)
    if parse_list(a.cpus) is None:
        ap.error("invalid --cpus")
    fs = FakeResctrl(a)
    return fusefs.serve(fs, a, "fake-resctrl", "resctrl", "fakeresctrl")


if __name__ == "__main__":
    sys.exit(main())
