#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A FUSE file system that behaves like a cgroup v2 (unified) mount for the cpuset writes rmtools makes.
"""
fake-cgroupfs.py MOUNTPOINT --cpus 0-15 --mems 0-1 [--offline LIST] [--no-partitions | --no-exclusive]
                 [--no-cpuset] [--background [--log FILE]]

Emulates, in memory, what the kernel's cgroupfs does for these operations:
  - mkdir/rmdir of cgroups; rmdir fails EBUSY while the cgroup has children or processes; files
    cannot be created (EACCES) or unlinked (EPERM);
  - cgroup.controllers, cgroup.subtree_control ("+x"/"-x" tokens: ENOENT for a controller the
    cgroup does not have, EBUSY to enable one in a non-root cgroup holding processes or to
    disable one a child still enables), cgroup.procs (one pid a write, moved out of its previous
    cgroup; EBUSY into a non-root cgroup with controllers enabled; EINVAL for 0 or garbage),
    cgroup.events;
  - cpuset.cpus / cpuset.mems (kernel list syntax, within the root's sets, else EINVAL; --cpus
    are the possible CPUs, of which --offline ones are kept in cpuset.cpus but left out of every
    effective set, as v2 does across hotplug),
    cpuset.cpus.effective / cpuset.mems.effective (own set within the parent's effective one,
    or the parent's when empty), and with partitions cpuset.cpus.exclusive (within the parent's
    for a non-root parent, no overlap with a sibling's, else EINVAL),
    cpuset.cpus.exclusive.effective, cpuset.cpus.partition ("member", "root", "isolated"; an
    invalid partition reads "isolated invalid (reason)") and the root's cpuset.cpus.isolated.
    Valid partitions take their CPUs out of the root's effective set. A partition's CPUs must be
    exclusive among its siblings (its cpuset.cpus.exclusive, else its cpuset.cpus, against
    theirs), else it reads "... invalid (Cpu list in cpuset.cpus not exclusive)", and a write to
    cpuset.cpus overlapping a valid partition sibling fails EINVAL, as 6.12 does.
  - --no-exclusive is Linux 6.1-6.6: cpuset.cpus.partition without cpuset.cpus.exclusive (nor
    the root's cpuset.cpus.isolated); a partition is valid only below the root or a valid
    partition ("Parent is not a partition root"), with cpuset.cpus exclusive among its
    siblings, and takes its CPUs from its parent, which must keep one while it has processes
    ("Parent unable to distribute cpu downstream"; the root always has some).
  - --no-partitions is older than 5.11: no partition files at all.
  - memory.max / memory.min / memory.high / memory.swap.max and pids.max ("max" or a number,
    else EINVAL; stored as written).
  - --fail-write NAME: every write to a file NAME fails with EIO, for the tests of what a tool
    undoes when the kernel refuses a write half-way.
The cpuset files appear in a child when its parent's subtree_control enables cpuset, the memory
files when it enables memory, pids.max when it enables pids.
Not emulated: other controllers' files, threads (cgroup.threads, cgroup.type), permissions and
delegation, memory migration, hotplug, real processes (pids are just numbers), local partitions
taking CPUs from a non-root parent with cpuset.cpus.exclusive, and the order in which the kernel
validates partitions (validity is recomputed on every read, in path order).

--background forks, waits until the mount is there, prints the server's pid and returns; unmount
with `umount MOUNTPOINT` or `fusermount -u MOUNTPOINT` and the server exits.
"""
import errno
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import fusefs  # noqa: E402
from fusefs import err, fmt_list  # noqa: E402

CONTROLLERS = ["cpuset", "cpu", "io", "memory", "pids"]


def parse_list(text, allowed):
    """Kernel list syntax ("0-3,8"); empty means the empty set. EINVAL when bad or not allowed."""
    out = fusefs.parse_list(text)
    if out is None or not out <= allowed:
        raise err(errno.EINVAL)
    return out


class Cgroup:
    def __init__(self, fs, parent, name):
        self.fs, self.parent, self.name = fs, parent, name
        self.children = {}
        self.procs = set()
        self.subtree = []
        self.cpus, self.mems, self.exclusive = set(), set(), set()
        self.partition = "member"
        self.memory = {"max": "max", "min": "0", "high": "max", "swap.max": "max"}
        self.pids_max = "max"

    @property
    def path(self):
        return "/" if not self.parent else self.parent.path.rstrip("/") + "/" + self.name

    def controllers(self):
        if not self.parent:
            return [c for c in CONTROLLERS if c != "cpuset" or self.fs.cpuset]
        return list(self.parent.subtree)

    def has_cpuset(self):
        return self.parent is not None and "cpuset" in self.parent.subtree

    def populated(self):
        return bool(self.procs) or any(c.populated() for c in self.children.values())

    def eff_cpus(self):
        t = self.fs.taken()
        if not self.parent:
            return self.fs.cpus - self.fs.offline - t[0] - t[4].get(self, set())
        part = t[1].get(self)
        if part is not None:
            return set(part) - t[4].get(self, set())
        pe = self.parent.eff_cpus()
        return (self.cpus & pe) or pe if self.has_cpuset() else pe

    def eff_mems(self):
        if not self.parent:
            return set(self.fs.mems)
        pe = self.parent.eff_mems()
        return (self.mems & pe) or pe if self.has_cpuset() else pe

    # name -> (read function, write function or None); what this cgroup shows now
    def files(self):
        f = {
            "cgroup.controllers": (lambda: " ".join(self.controllers()), None),
            "cgroup.subtree_control": (lambda: " ".join(self.subtree), self.w_subtree),
            "cgroup.procs": (lambda: "\n".join(str(p) for p in sorted(self.procs)), self.w_procs),
        }
        if not self.parent:
            if self.fs.cpuset:
                f["cpuset.cpus.effective"] = (lambda: fmt_list(self.eff_cpus()), None)
                f["cpuset.mems.effective"] = (lambda: fmt_list(self.eff_mems()), None)
                if self.fs.exclusive:
                    f["cpuset.cpus.isolated"] = (lambda: fmt_list(self.fs.taken()[2]), None)
            return f
        f["cgroup.events"] = (lambda: "populated %d\nfrozen 0" % self.populated(), None)
        if self.has_cpuset():
            f["cpuset.cpus"] = (lambda: fmt_list(self.cpus), self.w_cpus)
            f["cpuset.mems"] = (lambda: fmt_list(self.mems), self.w_mems)
            f["cpuset.cpus.effective"] = (lambda: fmt_list(self.eff_cpus()), None)
            f["cpuset.mems.effective"] = (lambda: fmt_list(self.eff_mems()), None)
            if self.fs.exclusive:
                f["cpuset.cpus.exclusive"] = (lambda: fmt_list(self.exclusive), self.w_exclusive)
                f["cpuset.cpus.exclusive.effective"] = (
                    lambda: fmt_list(self.fs.taken()[1].get(self, set())), None)
            if self.fs.partitions:
                f["cpuset.cpus.partition"] = (self.r_partition, self.w_partition)
        if "memory" in self.parent.subtree:
            for k in self.memory:
                f["memory." + k] = ((lambda k=k: self.memory[k]),
                                    (lambda text, k=k: self.w_memory(k, text)))
        if "pids" in self.parent.subtree:
            f["pids.max"] = (lambda: self.pids_max, self.w_pids)
        return f

    def w_memory(self, key, text):
        v = text.strip()
        if not (v.isdigit() or v == "max"):
            raise err(errno.EINVAL)
        self.memory[key] = v

    def w_pids(self, text):
        v = text.strip()
        if not (v.isdigit() or v == "max"):
            raise err(errno.EINVAL)
        self.pids_max = v

    def w_subtree(self, text):
        changes = []
        for tok in text.split():
            if tok[0] not in "+-" or tok[1:] not in CONTROLLERS:
                raise err(errno.EINVAL if tok[0] not in "+-" else errno.ENOENT)
            if tok[1:] not in self.controllers():
                raise err(errno.ENOENT)
            changes.append(tok)
        for tok in changes:
            name = tok[1:]
            if tok[0] == "+" and name not in self.subtree:
                if self.parent and self.procs:
                    raise err(errno.EBUSY)  # no internal processes
                self.subtree = [c for c in CONTROLLERS if c in self.subtree or c == name]
            elif tok[0] == "-" and name in self.subtree:
                if any(name in c.subtree for c in self.children.values()):
                    raise err(errno.EBUSY)
                self.subtree.remove(name)
                if name == "cpuset":  # the children's cpuset state goes with the controller
                    for c in self.children.values():
                        c.cpus, c.mems, c.exclusive, c.partition = set(), set(), set(), "member"

    def w_procs(self, text):
        text = text.strip()
        if not text.isdigit() or int(text) == 0:
            raise err(errno.EINVAL)
        if self.parent and self.subtree:
            raise err(errno.EBUSY)  # no internal processes
        pid = int(text)
        for cg in self.fs.all():
            cg.procs.discard(pid)
        self.procs.add(pid)

    def xcpus(self):
        """The CPUs it asks to hold exclusively: cpuset.cpus.exclusive, else cpuset.cpus."""
        return self.exclusive or self.cpus

    def siblings(self):
        return [c for c in self.parent.children.values() if c is not self and c.has_cpuset()]

    def w_cpus(self, text):
        new = parse_list(text, self.fs.cpus)
        valid = self.fs.taken()[1]
        # a partition's CPUs are exclusive among its siblings: writes that would overlap fail
        for c in self.siblings():
            if (c in valid or self in valid) and new & (c.xcpus() if c in valid else c.cpus):
                raise err(errno.EINVAL)
        self.cpus = new

    def w_mems(self, text):
        self.mems = parse_list(text, self.fs.mems)

    def w_exclusive(self, text):
        new = parse_list(text, self.fs.cpus)
        if self.parent.parent and not new <= self.parent.exclusive:
            raise err(errno.EINVAL)
        if any(new & c.exclusive for c in self.parent.children.values() if c is not self):
            raise err(errno.EINVAL)
        self.exclusive = new

    def r_partition(self):
        if self.partition == "member":
            return "member"
        reason = self.fs.taken()[3].get(self)
        return self.partition if not reason else "%s invalid (%s)" % (self.partition, reason)

    def w_partition(self, text):
        text = text.strip()
        if text not in ("member", "root", "isolated"):
            raise err(errno.EINVAL)
        self.partition = text


class FakeCgroupFS(fusefs.KernfsFS):
    def __init__(self, cpus, mems, partitions, exclusive, cpuset):
        super().__init__()
        self.cpus, self.mems = cpus, mems
        self.partitions, self.exclusive, self.cpuset = partitions, partitions and exclusive, cpuset
        self.offline = set()
        self.fail_writes = set()
        self.root = Cgroup(self, None, "")
        self.root.procs.add(1)

    def write(self, path, data, offset, fh):
        if path.rsplit("/", 1)[-1] in self.fail_writes:
            raise err(errno.EIO)
        return super().write(path, data, offset, fh)

    def all(self, cg=None):
        cg = cg or self.root
        yield cg
        for name in sorted(cg.children):
            yield from self.all(cg.children[name])

    def taken(self):
        """(CPUs held by remote partitions, {cgroup: its CPUs}, isolated CPUs, {cgroup: reason},
        {parent: CPUs its local partition children took})"""
        taken, valid, isolated, invalid, given = set(), {}, set(), {}, {}
        for cg in self.all():
            if cg.parent is None or cg.partition == "member" or not cg.has_cpuset():
                continue
            if any(cg.xcpus() & c.xcpus() for c in cg.siblings()):
                invalid[cg] = "Cpu list in cpuset.cpus not exclusive"
            elif self.exclusive:
                ex = cg.exclusive
                if not ex or not ex <= cg.cpus or (cg.parent.parent and not ex <= cg.parent.exclusive):
                    invalid[cg] = "Invalid cpu list in cpuset.cpus.exclusive"
                elif not self.cpus - taken - ex:
                    invalid[cg] = "Parent unable to distribute cpu downstream"
                else:
                    taken |= ex
                    valid[cg] = ex
            else:  # local partitions: each takes its CPUs from its parent partition
                par = cg.parent
                if par.parent is not None and par not in valid:
                    invalid[cg] = ("Parent is not a partition root" if par.partition == "member"
                                   else "Parent is an invalid partition root")
                    continue
                have = (self.cpus if par.parent is None else valid[par]) - given.get(par, set())
                if not cg.cpus & have:
                    invalid[cg] = "Invalid cpu list in cpuset.cpus"
                elif not have - cg.cpus and self.populated_outside(par, cg):
                    invalid[cg] = "Parent unable to distribute cpu downstream"
                else:
                    valid[cg] = cg.cpus & have
                    given[par] = given.get(par, set()) | valid[cg]
            if cg in valid and cg.partition == "isolated":
                isolated |= valid[cg]
        return taken, valid, isolated, invalid, given

    def populated_outside(self, par, cg):
        """Whether processes run in partition PAR itself or below it but outside partitions."""
        def members(c):
            return c.procs or any(members(k) for k in c.children.values()
                                  if k is not cg and k.partition == "member")
        return par.parent is None or members(par)

    def lookup(self, path):
        """(cgroup, file name or None)"""
        cg = self.root
        parts = [p for p in path.split("/") if p]
        for i, p in enumerate(parts):
            if p in cg.children:
                cg = cg.children[p]
            elif i == len(parts) - 1 and p in cg.files():
                return cg, p
            else:
                raise err(errno.ENOENT)
        return cg, None

    def node(self, path):
        cg, name = self.lookup(path)
        return ("dir", cg) if name is None else ("file", cg.files()[name])

    def entries(self, cg):
        return sorted(cg.files()) + sorted(cg.children)

    def nlink(self, cg):
        return 2 + len(cg.children)

    def show(self, path, value):
        if not value and path.rpartition("/")[2].startswith("cpuset"):
            return b"\n"
        return super().show(path, value)

    def mkdir(self, path, mode):
        parent, _, name = path.rstrip("/").rpartition("/")
        cg, fname = self.lookup(parent or "/")
        if fname is not None:
            raise err(errno.ENOTDIR)
        if name in cg.children or name in cg.files():
            raise err(errno.EEXIST)
        cg.children[name] = Cgroup(self, cg, name)

    def rmdir(self, path):
        cg, name = self.lookup(path)
        if name is not None:
            raise err(errno.ENOTDIR)
        if cg.parent is None:
            raise err(errno.EBUSY)
        if cg.children or cg.procs:
            raise err(errno.EBUSY)
        del cg.parent.children[cg.name]


def main():
    ap = fusefs.arguments("Emulate a cgroup v2 cpuset mount with FUSE.")
    ap.add_argument("--cpus", default="0-15")
    ap.add_argument("--mems", default="0")
    ap.add_argument("--offline", default="")
    ap.add_argument("--no-partitions", action="store_true")
    ap.add_argument("--no-exclusive", action="store_true")
    ap.add_argument("--no-cpuset", action="store_true")
    ap.add_argument("--fail-write", action="append", default=[], metavar="NAME")
    a = fusefs.parse_args(ap)
    try:
        cpus = parse_list(a.cpus, set(range(8192)))
        mems = parse_list(a.mems, set(range(1024)))
        offline = parse_list(a.offline, cpus)
    except fusefs.fuse.FuseOSError:
        ap.error("invalid --cpus, --mems or --offline")
    fs = FakeCgroupFS(cpus, mems, not a.no_partitions, not a.no_exclusive, not a.no_cpuset)
    fs.offline = offline
    fs.fail_writes = set(a.fail_write)
    return fusefs.serve(fs, a, "fake-cgroupfs", "fake-cgroup2", "fakecgroup")


if __name__ == "__main__":
    sys.exit(main())
