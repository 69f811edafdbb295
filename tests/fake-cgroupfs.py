#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A FUSE file system that behaves like a cgroup v2 (unified) mount for the cpuset writes rmtools makes.
"""
fake-cgroupfs.py MOUNTPOINT --cpus 0-15 --mems 0-1 [--no-partitions] [--no-cpuset]
                 [--background [--log FILE]]

Emulates, in memory, what the kernel's cgroupfs does for these operations:
  - mkdir/rmdir of cgroups; rmdir fails EBUSY while the cgroup has children or processes; files
    cannot be created (EACCES) or unlinked (EPERM);
  - cgroup.controllers, cgroup.subtree_control ("+x"/"-x" tokens: ENOENT for a controller the
    cgroup does not have, EBUSY to enable one in a non-root cgroup holding processes or to
    disable one a child still enables), cgroup.procs (one pid a write, moved out of its previous
    cgroup; EBUSY into a non-root cgroup with controllers enabled; EINVAL for 0 or garbage),
    cgroup.events;
  - cpuset.cpus / cpuset.mems (kernel list syntax, within the root's sets, else EINVAL),
    cpuset.cpus.effective / cpuset.mems.effective (own set within the parent's effective one,
    or the parent's when empty), and with partitions cpuset.cpus.exclusive (within the parent's
    for a non-root parent, no overlap with a sibling's, else EINVAL),
    cpuset.cpus.exclusive.effective, cpuset.cpus.partition ("member", "root", "isolated"; an
    invalid partition reads "isolated invalid (reason)") and the root's cpuset.cpus.isolated.
    Valid partitions take their CPUs out of the root's effective set.
The cpuset files appear in a child when its parent's subtree_control enables cpuset.
Not emulated: other controllers' files, threads (cgroup.threads, cgroup.type), permissions and
delegation, memory migration, hotplug, real processes (pids are just numbers), local partitions
taking CPUs from a non-root parent, and the order in which the kernel validates partitions
(validity is recomputed on every read, in path order).

--background forks, waits until the mount is there, prints the server's pid and returns; unmount
with `umount MOUNTPOINT` or `fusermount -u MOUNTPOINT` and the server exits.
"""
import argparse
import errno
import os
import stat
import sys
import threading
import time

try:
    import fusepy as fuse  # Debian's python3-fusepy
except ImportError:
    import fuse  # fusepy from PyPI

CONTROLLERS = ["cpuset", "cpu", "io", "memory", "pids"]


def err(code):
    return fuse.FuseOSError(code)


def parse_list(text, allowed):
    """Kernel list syntax ("0-3,8"); empty means the empty set. EINVAL when bad or not allowed."""
    text = text.strip()
    out = set()
    if not text:
        return out
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise err(errno.EINVAL)
        lo, hi = int(lo), int(hi) if hi else int(lo)
        if hi < lo:
            raise err(errno.EINVAL)
        out.update(range(lo, hi + 1))
    if not out <= allowed:
        raise err(errno.EINVAL)
    return out


def fmt_list(s):
    out, ids = [], sorted(s)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(out)


class Cgroup:
    def __init__(self, fs, parent, name):
        self.fs, self.parent, self.name = fs, parent, name
        self.children = {}
        self.procs = set()
        self.subtree = []
        self.cpus, self.mems, self.exclusive = set(), set(), set()
        self.partition = "member"

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
        if not self.parent:
            return self.fs.cpus - self.fs.taken()[0]
        part = self.fs.taken()[1].get(self)
        if part is not None:
            return set(part)
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
                if self.fs.partitions:
                    f["cpuset.cpus.isolated"] = (lambda: fmt_list(self.fs.taken()[2]), None)
            return f
        f["cgroup.events"] = (lambda: "populated %d\nfrozen 0" % self.populated(), None)
        if self.has_cpuset():
            f["cpuset.cpus"] = (lambda: fmt_list(self.cpus), self.w_cpus)
            f["cpuset.mems"] = (lambda: fmt_list(self.mems), self.w_mems)
            f["cpuset.cpus.effective"] = (lambda: fmt_list(self.eff_cpus()), None)
            f["cpuset.mems.effective"] = (lambda: fmt_list(self.eff_mems()), None)
            if self.fs.partitions:
                f["cpuset.cpus.exclusive"] = (lambda: fmt_list(self.exclusive), self.w_exclusive)
                f["cpuset.cpus.exclusive.effective"] = (
                    lambda: fmt_list(self.fs.taken()[1].get(self, set())), None)
                f["cpuset.cpus.partition"] = (self.r_partition, self.w_partition)
        return f

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

    def w_cpus(self, text):
        self.cpus = parse_list(text, self.fs.cpus)

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


class FakeCgroupFS(fuse.Operations):
    def __init__(self, cpus, mems, partitions, cpuset):
        self.cpus, self.mems = cpus, mems
        self.partitions, self.cpuset = partitions, cpuset
        self.mutex = threading.RLock()
        self.root = Cgroup(self, None, "")
        self.root.procs.add(1)

    def all(self, cg=None):
        cg = cg or self.root
        yield cg
        for name in sorted(cg.children):
            yield from self.all(cg.children[name])

    def taken(self):
        """(CPUs held by valid partitions, {cgroup: its CPUs}, isolated CPUs, {cgroup: reason})"""
        taken, valid, isolated, invalid = set(), {}, set(), {}
        for cg in self.all():
            if cg.parent is None or cg.partition == "member" or not cg.has_cpuset():
                continue
            ex = cg.exclusive
            if not ex or not ex <= cg.cpus or (cg.parent.parent and not ex <= cg.parent.exclusive):
                invalid[cg] = "Invalid cpu list in cpuset.cpus.exclusive"
            elif not self.cpus - taken - ex:
                invalid[cg] = "Parent unable to distribute cpu downstream"
            else:
                taken |= ex
                valid[cg] = ex
                if cg.partition == "isolated":
                    isolated |= ex
        return taken, valid, isolated, invalid

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

    def __call__(self, op, *args):
        with self.mutex:
            return super().__call__(op, *args)

    def getattr(self, path, fh=None):
        cg, name = self.lookup(path)
        if name is None:
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2 + len(cg.children))
        writable = cg.files()[name][1] is not None
        return dict(st_mode=stat.S_IFREG | (0o644 if writable else 0o444), st_nlink=1, st_size=0)

    def readdir(self, path, fh):
        cg, name = self.lookup(path)
        if name is not None:
            raise err(errno.ENOTDIR)
        return [".", ".."] + sorted(cg.files()) + sorted(cg.children)

    def open(self, path, flags):
        cg, name = self.lookup(path)
        if name is None:
            raise err(errno.EISDIR)
        if (flags & os.O_ACCMODE) != os.O_RDONLY and cg.files()[name][1] is None:
            raise err(errno.EACCES)
        return 0

    def read(self, path, size, offset, fh):
        cg, name = self.lookup(path)
        text = cg.files()[name][0]()
        data = (text + "\n").encode() if text else b"\n" if name.startswith("cpuset") else b""
        return data[offset:offset + size]

    def write(self, path, data, offset, fh):
        cg, name = self.lookup(path)
        writer = cg.files()[name][1]
        if writer is None:
            raise err(errno.EACCES)
        writer(data.decode(errors="replace"))
        return len(data)

    def truncate(self, path, length, fh=None):
        self.lookup(path)  # the shell's O_TRUNC; cgroupfs ignores it too
        return 0

    def create(self, path, mode, fi=None):
        raise err(errno.EACCES)

    def unlink(self, path):
        self.lookup(path)
        raise err(errno.EPERM)

    def rename(self, old, new):
        raise err(errno.EPERM)

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

    def chmod(self, path, mode):
        raise err(errno.EPERM)

    def chown(self, path, uid, gid):
        raise err(errno.EPERM)


def mounted(mountpoint):
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == mountpoint for line in f)


def main():
    ap = argparse.ArgumentParser(description="Emulate a cgroup v2 cpuset mount with FUSE.")
    ap.add_argument("mountpoint")
    ap.add_argument("--cpus", default="0-15")
    ap.add_argument("--mems", default="0")
    ap.add_argument("--no-partitions", action="store_true")
    ap.add_argument("--no-cpuset", action="store_true")
    ap.add_argument("--background", action="store_true",
                    help="return once mounted, printing the server's pid")
    ap.add_argument("--log", help="with --background: the server's stderr (default /dev/null)")
    a = ap.parse_args()
    mp = os.path.realpath(a.mountpoint)
    try:
        cpus = parse_list(a.cpus, set(range(8192)))
        mems = parse_list(a.mems, set(range(1024)))
    except fuse.FuseOSError:
        ap.error("invalid --cpus or --mems")
    fs = FakeCgroupFS(cpus, mems, not a.no_partitions, not a.no_cpuset)

    if a.background:
        pid = os.fork()
        if pid:
            for _ in range(200):
                if mounted(mp):
                    print(pid)
                    return 0
                if os.waitpid(pid, os.WNOHANG)[0]:
                    sys.exit("fake-cgroupfs: the server exited before mounting %s" % mp)
                time.sleep(0.05)
            sys.exit("fake-cgroupfs: %s not mounted after 10 seconds" % mp)
        os.setsid()
        fd = os.open(os.devnull, os.O_RDWR)
        os.dup2(fd, 0)
        os.dup2(fd, 1)
        os.dup2(os.open(a.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if a.log else fd, 2)
    # direct_io and no caching: every read and write reaches us, as with cgroupfs
    fuse.FUSE(fs, mp, foreground=True, direct_io=True, attr_timeout=0, entry_timeout=0,
              negative_timeout=0, fsname="fake-cgroup2", subtype="fakecgroup")
    return 0


if __name__ == "__main__":
    sys.exit(main())
