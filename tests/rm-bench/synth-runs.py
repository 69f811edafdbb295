#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Seeded synthetic results of repeated runs for rm-bench compare's tests: RUNS result files in
# DIR, each with COUNT lat measurements (best in ns, 100 times a factor of noise that only ever
# makes a run slower: 1 + an exponential of mean 2%, now and then a 30% outlier), all scaled by
# SHIFT.   usage: synth-runs.py DIR RUNS COUNT SEED [SHIFT]
import os
import random
import sys

d, runs, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
shift = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
rng = random.Random(seed)
os.makedirs(d, exist_ok=True)
for r in range(runs):
    with open(os.path.join(d, "run-%03d.rec" % r), "w") as f:
        f.write("machine=ci model=synthetic kernel=6.1.0 topology=0\n")
        for i in range(count):
            v = 100 * (1 + rng.expovariate(50)) * (1.3 if rng.random() < 0.05 else 1) * shift
            f.write("bench=lat size=%dKiB pages=4KiB cpu=0 mem_node=0 best=%.2f median=%.2f "
                    "unit=ns runs=5 spread=3.0 status=ok reason=-\n" % (i + 1, v, v * 1.01))
