#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A FUSE file system laid out as tracefs with the osnoise tracer, as a -rt kernel has it.
"""
fake-tracefs.py MOUNTPOINT [--background [--log FILE]]

Emulates what rm-cpuset noise --measure uses of tracefs:
  - available_tracers, tracing_thresh (rw), osnoise/cpus (rw, a CPU list), osnoise/period_us and
    osnoise/runtime_us (rw, with the kernel's bounds: runtime <= period, else EINVAL);
  - instances/: mkdir makes an instance with buffer_size_kb, tracing_on, current_tracer (nop or
    osnoise), events/osnoise/enable and events/osnoise/{irq,softirq,thread,nmi}_noise/enable, and
    trace; rmdir removes it.
The trace of an instance whose tracer was osnoise holds, per CPU of osnoise/cpus, two samples of
100000 us (noise 25 us, longest 12 us, 3 IRQs and 1 softirq each) and one irq_noise event of
local_timer:236 lasting 1845 ns.
"""
import errno
import sys

import fusefs
from fusefs import err, parse_list

EVENTS = ("irq_noise", "softirq_noise", "thread_noise", "nmi_noise")


class FakeTracefs(fusefs.KernfsFS):
    def __init__(self):
        super().__init__()
        self.top = {"tracing_thresh": "0", "osnoise/cpus": "0-7", "osnoise/period_us": "1000000",
                    "osnoise/runtime_us": "1000000"}
        self.instances = {}

    def top_write(self, name):
        def write(text):
            text = text.strip()
            if name == "osnoise/cpus":
                if parse_list(text) is None:
                    raise err(errno.EINVAL)
            elif not text.isdigit():
                raise err(errno.EINVAL)
            elif name == "osnoise/period_us" and int(text) < int(self.top["osnoise/runtime_us"]):
                raise err(errno.EINVAL)
            elif name == "osnoise/runtime_us" and int(text) > int(self.top["osnoise/period_us"]):
                raise err(errno.EINVAL)
            self.top[name] = text
        return write

    def trace(self, inst):
        if not inst.get("traced"):
            return "# tracer: nop"
        out = ["# tracer: osnoise"]
        for c in sorted(parse_list(self.top["osnoise/cpus"])):
            for t in (81.6, 81.7):
                out.append("     osnoise/%d-100     [%03d] .....  %.6f: 100000         25"
                           "  99.97500      12      0      0      3      1      0" % (c, c, t))
            out.append("          <idle>-0       [%03d] d.h..  81.650000: irq_noise: "
                       "local_timer:236 start 81.649990 duration 1845 ns" % c)
        return "\n".join(out)

    def inst_file(self, inst, name):
        def write(text):
            text = text.strip()
            if name == "current_tracer":
                if text not in ("nop", "osnoise"):
                    raise err(errno.EINVAL)
                if text == "osnoise":
                    inst["traced"] = True
            inst[name] = text
        if name == "trace":
            return ("file", (lambda: self.trace(inst), None))
        return ("file", (lambda: inst.get(name, "0"), write))

    def node(self, path):
        p = path.strip("/")
        if p == "":
            return ("dir", ["available_tracers", "instances", "osnoise", "tracing_thresh"])
        if p == "available_tracers":
            return ("file", (lambda: "osnoise timerlat nop", None))
        if p == "osnoise":
            return ("dir", ["cpus", "period_us", "runtime_us"])
        if p in self.top:
            return ("file", (lambda: self.top[p], self.top_write(p)))
        if p == "instances":
            return ("dir", list(self.instances))
        parts = p.split("/")
        if parts[0] != "instances" or parts[1] not in self.instances:
            raise err(errno.ENOENT)
        inst, rest = self.instances[parts[1]], "/".join(parts[2:])
        if rest == "":
            return ("dir", ["buffer_size_kb", "current_tracer", "events", "trace", "tracing_on"])
        if rest in ("buffer_size_kb", "current_tracer", "trace", "tracing_on"):
            return self.inst_file(inst, rest)
        if rest == "events":
            return ("dir", ["osnoise"])
        if rest == "events/osnoise":
            return ("dir", ["enable"] + list(EVENTS))
        ev = rest.split("/")
        if rest == "events/osnoise/enable" or (
                len(ev) == 4 and ev[:2] == ["events", "osnoise"] and ev[2] in EVENTS and
                ev[3] == "enable"):
            return self.inst_file(inst, rest)
        if len(ev) == 3 and ev[:2] == ["events", "osnoise"] and ev[2] in EVENTS:
            return ("dir", ["enable"])
        raise err(errno.ENOENT)

    def mkdir(self, path, mode):
        parts = path.strip("/").split("/")
        if len(parts) != 2 or parts[0] != "instances":
            raise err(errno.EPERM)
        if parts[1] in self.instances:
            raise err(errno.EEXIST)
        self.instances[parts[1]] = {"current_tracer": "nop", "tracing_on": "1",
                                    "buffer_size_kb": "1410"}

    def rmdir(self, path):
        parts = path.strip("/").split("/")
        if len(parts) != 2 or parts[0] != "instances" or parts[1] not in self.instances:
            raise err(errno.ENOENT)
        del self.instances[parts[1]]


def main():
    ap = fusefs.arguments("Emulate tracefs with the osnoise tracer with FUSE.")
    a = fusefs.parse_args(ap)
    return fusefs.serve(FakeTracefs(), a, "fake-tracefs", "tracefs", "faketracefs")


if __name__ == "__main__":
    sys.exit(main())
