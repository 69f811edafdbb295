#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The QEMU monitor of a lab boot, from the host (tests/vm/lab.sh and system.sh use it).
#
#   monitor.py command QMP-SOCKET COMMAND   one human monitor command ("info pci",
#                                           "set_link nic0 off"); prints its answer, exit 1
#                                           when QEMU refuses it
#   monitor.py serve CHANNEL QMP-SOCKET     answer a guest's requests: CHANNEL is the socket of
#                                           the guest's third serial port (ttyS2); each line the
#                                           guest writes there is one human monitor command,
#                                           answered with its output as lines "| TEXT", then
#                                           "done" or "error MESSAGE"; ends when QEMU closes
#                                           CHANNEL (the guest powered off)
#
# Every wait is bounded: CHANNEL to appear (30 s), each command's answer (20 s).
import json
import socket
import sys
import time

CONNECT_S = 30
ANSWER_S = 20


def connect(path, wait=0):
    """A connection to the UNIX socket PATH, waiting up to WAIT seconds for QEMU to create it."""
    end = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


class MonitorError(Exception):
    pass


def command(qmp, line):
    """The output of LINE, run by the monitor of the QEMU at QMP; MonitorError when the monitor
    cannot be reached or refuses the command itself (QMP's error)."""
    try:
        s = connect(qmp)
    except OSError as e:
        raise MonitorError("cannot reach the monitor: %s" % e)
    with s:
        s.settimeout(ANSWER_S)
        f = s.makefile("rw")

        def reply():  # skips QEMU's events (DEVICE_DELETED, ...)
            while True:
                text = f.readline()
                if not text:
                    raise EOFError("the monitor closed the connection")
                m = json.loads(text)
                if "return" in m or "error" in m:
                    return m

        try:
            json.loads(f.readline())  # the greeting
            for cmd in ({"execute": "qmp_capabilities"},
                        {"execute": "human-monitor-command",
                         "arguments": {"command-line": line}}):
                f.write(json.dumps(cmd) + "\n")
                f.flush()
                m = reply()
        except (OSError, EOFError, ValueError) as e:
            raise MonitorError(str(e))
    if "error" in m:
        raise MonitorError(m["error"]["desc"])
    return m["return"]


def refused(out):
    """Whether a human monitor command's output says it failed."""
    return out.startswith("Error: ")


def serve(channel, qmp):
    try:
        s = connect(channel, CONNECT_S)
    except OSError as e:
        sys.exit("monitor: %s: %s" % (channel, e))
    with s:
        for raw in s.makefile("rb"):  # until QEMU exits
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                out = command(qmp, line)
                answer = "error " + " ".join(out.split()) if refused(out) else \
                    "".join("| %s\n" % t for t in out.splitlines()) + "done"
            except MonitorError as e:
                answer = "error monitor: %s" % e
            # the log of the requests: stderr
            print("%s -> %s" % (line, answer.replace("\n", " / ")), file=sys.stderr, flush=True)
            try:
                s.sendall((answer + "\n").encode())
            except OSError:
                break


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "command":
        try:
            out = command(sys.argv[2], sys.argv[3])
        except MonitorError as e:
            sys.exit("monitor: %s" % e)
        sys.stdout.write(out)
        sys.exit(1 if refused(out) else 0)
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
        return
    sys.exit("usage: monitor.py command QMP-SOCKET COMMAND | serve CHANNEL QMP-SOCKET")


if __name__ == "__main__":
    main()
