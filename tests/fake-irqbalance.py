#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# fake-irqbalance.py SOCKET LOG: irqbalance's socket as 1.9 keeps it (one message a connection,
# acted on only with SCM_CREDENTIALS; "setup" answered with "SLEEP 10 BANNED ..."); each message
# is logged as "uid=UID MESSAGE". Serves until killed, or 60 s.
import os, socket, struct, sys, time

path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.listen(1)
s.settimeout(60)
open(log + ".ready", "w").close()
end = time.time() + 60
banned = "00000000"
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        break
    data, anc, _, _ = c.recvmsg(500, socket.CMSG_SPACE(12))
    uid = "-"
    for level, kind, value in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            uid = str(struct.unpack("iII", value[:12])[1])
    with open(log, "a") as f:
        f.write("uid=%s %s\n" % (uid, data.decode()))
    if data.startswith(b"setup"):
        c.sendall(("SLEEP 10 BANNED %s" % banned).encode())
    c.close()
