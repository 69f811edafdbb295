# SPDX-License-Identifier: GPL-2.0-or-later
# What the FUSE fakes of kernel file systems (tests/fake-*.py) share: the FUSE operations on a
# tree of files that each have a read and a write function, the kernel's CPU list syntax, and
# mounting in the foreground or the background.
"""
A fake is a subclass of FakeFS (or of KernfsFS, which also refuses renames, modes and owners as
kernfs does) with a method node(PATH) that gives ("dir", ENTRIES) or ("file", (READ, WRITE)),
or raises ENOENT. READ() gives the file's contents (None: the file cannot be read); WRITE(TEXT)
takes one write (None: the file cannot be written). entries(ENTRIES) gives readdir's names
(by default sorted(ENTRIES)), nlink(ENTRIES) the directory's link count (by default 2). Every
operation holds one lock.

main() of a fake: ap = arguments(DESCRIPTION), its own options, a = parse_args(ap), then
serve(FS, a, NAME, FSNAME, SUBTYPE). --background forks, waits until the mount is there, prints
the server's pid and returns; `umount MOUNTPOINT` or `fusermount -u MOUNTPOINT` ends the server.
--eio PATH (repeatable) makes every operation on PATH, or anything under it, fail with EIO, as a
failing device or a kernel file whose show() fails would.
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


def err(code):
    return fuse.FuseOSError(code)


def parse_list(text):
    """Kernel list syntax ("0-3,8"); empty means the empty set. None when malformed."""
    text = text.strip()
    out = set()
    if not text:
        return out
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return None
        lo, hi = int(lo), int(hi) if hi else int(lo)
        if hi < lo:
            return None
        out.update(range(lo, hi + 1))
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


class FakeFS(fuse.Operations):
    file_size = 0  # st_size of every file
    eio = ()  # paths (relative, no leading /) whose every operation fails with EIO

    def __init__(self):
        self.mutex = threading.RLock()

    def node(self, path):
        raise err(errno.ENOENT)

    def entries(self, what):
        """The names in a directory, in readdir's order."""
        return sorted(what)

    def nlink(self, what):
        return 2

    def show(self, path, value):
        """The bytes of a file whose READ gave VALUE."""
        return (value + "\n").encode() if value else b""

    def store(self, path, write, text):
        """One write of TEXT to the file at PATH."""
        write(text)

    def __call__(self, op, *args):
        with self.mutex:
            if args and isinstance(args[0], str):
                path = args[0].strip("/")
                if any(path == p or path.startswith(p + "/") for p in self.eio):
                    raise err(errno.EIO)
            return super().__call__(op, *args)

    def getattr(self, path, fh=None):
        kind, what = self.node(path)
        if kind == "dir":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=self.nlink(what))
        mode = (0o444 if what[0] else 0) | (0o200 if what[1] else 0)
        return dict(st_mode=stat.S_IFREG | mode, st_nlink=1, st_size=self.file_size)

    def readdir(self, path, fh):
        kind, what = self.node(path)
        if kind != "dir":
            raise err(errno.ENOTDIR)
        return [".", ".."] + self.entries(what)

    def open(self, path, flags):
        kind, what = self.node(path)
        if kind == "dir":
            raise err(errno.EISDIR)
        acc = flags & os.O_ACCMODE
        if (acc != os.O_RDONLY and not what[1]) or (acc != os.O_WRONLY and not what[0]):
            raise err(errno.EACCES)
        return 0

    def read(self, path, size, offset, fh):
        kind, what = self.node(path)
        data = self.show(path, what[0]())
        return data[offset:offset + size]

    def write(self, path, data, offset, fh):
        kind, what = self.node(path)
        if not what[1]:
            raise err(errno.EACCES)
        self.store(path, what[1], data.decode(errors="replace"))
        return len(data)

    def truncate(self, path, length, fh=None):
        self.node(path)  # the shell's O_TRUNC; the kernel's files ignore it too
        return 0

    def create(self, path, mode, fi=None):
        raise err(errno.EACCES)

    def unlink(self, path):
        self.node(path)
        raise err(errno.EPERM)


class KernfsFS(FakeFS):
    def rename(self, old, new):
        raise err(errno.EPERM)

    def chmod(self, path, mode):
        raise err(errno.EPERM)

    def chown(self, path, uid, gid):
        raise err(errno.EPERM)


def mounted(mountpoint):
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == mountpoint for line in f)


def arguments(description):
    """An argument parser with the mount point; the fake adds its options, then parse_args()."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("mountpoint")
    return ap


def parse_args(ap):
    """AP's arguments, with --background and --log after the fake's options."""
    ap.add_argument("--background", action="store_true",
                    help="return once mounted, printing the server's pid")
    ap.add_argument("--log", help="with --background: the server's stderr (default /dev/null)")
    ap.add_argument("--eio", action="append", default=[], metavar="PATH",
                    help="every operation on PATH (relative) or under it fails with EIO")
    return ap.parse_args()


def serve(fs, a, name, fsname, subtype):
    """Mount FS at a.mountpoint as FSNAME of type fuse.SUBTYPE and serve it until unmounted; with
    a.background, in a child once mounted. NAME starts the messages. Returns the exit status."""
    mp = os.path.realpath(a.mountpoint)
    fs.eio = tuple(p.strip("/") for p in a.eio)
    if a.background:
        pid = os.fork()
        if pid:
            for _ in range(200):
                if mounted(mp):
                    print(pid)
                    return 0
                if os.waitpid(pid, os.WNOHANG)[0]:
                    sys.exit("%s: the server exited before mounting %s" % (name, mp))
                time.sleep(0.05)
            sys.exit("%s: %s not mounted after 10 seconds" % (name, mp))
        os.setsid()
        fd = os.open(os.devnull, os.O_RDWR)
        os.dup2(fd, 0)
        os.dup2(fd, 1)
        os.dup2(os.open(a.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if a.log else fd, 2)
    # direct_io and no caching: every read and write reaches the server, as with the kernel's
    fuse.FUSE(fs, mp, foreground=True, direct_io=True, attr_timeout=0, entry_timeout=0,
              negative_timeout=0, fsname=fsname, subtype=subtype)
    return 0
