#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench beside its peers, run alternately on the same CPUs, sizes and threads: memory bandwidth
# against likwid-bench, mbw and perf bench mem; latency against the caches rm-topo reports and an
# independent pointer chase, on 4 KiB and 2 MiB pages; core-to-core latency against a plain
# ping-pong; jitter against cyclictest and stress-ng's cyclic stressor.
#
# As root on Debian: installs the peers it lacks (likwid mbw sysbench stress-ng rt-tests
# linux-perf; those not packaged are skipped), reserves 2 MiB huge pages for the latency curve
# and puts the count back when it ends. The machine may be shared and noisy: every comparison
# runs ROUNDS rounds, the two sides in alternating order, and the figures are medians over the
# rounds. Prints one record per figure, then a summary table.
#   usage: bench/peers.sh [RM_BENCH] [ROUNDS] [CPUS]     (defaults: ./rm-bench 5 the allowed CPUs)
#   PEERS_NO_INSTALL=1 uses what is installed; PEERS_ONLY="mem lat c2c jitter" picks parts.
set -u

rm_bench=${1:-./rm-bench}
rounds=${2:-5}
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY
tmp=$(mktemp -d)
hp=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
hp_saved=
cleanup() {
	[ -n "$hp_saved" ] && echo "$hp_saved" >"$hp"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "peers: $*" >&2; exit 2; }
note() { echo "peers: $*" >&2; }
[ -x "$rm_bench" ] || die "not executable: '$rm_bench'"
case $rm_bench in */*) rm_bench=$(cd "$(dirname "$rm_bench")" && pwd)/${rm_bench##*/} ;; esac
cpus=${3:-$(taskset -pc $$ | sed 's/.*: //')}
first=${cpus%%[,-]*}
last=$(python3 -c 'import sys
s=set()
for p in sys.argv[1].split(","):
    a,_,b=p.partition("-"); s.update(range(int(a), int(b or a)+1))
print(max(s))' "$cpus")
ncpus=$(python3 -c 'import sys
n=0
for p in sys.argv[1].split(","):
    a,_,b=p.partition("-"); n+=int(b or a)-int(a)+1
print(n)' "$cpus")
only=${PEERS_ONLY:-mem lat c2c jitter}

# ---- the peers ----
if [ -z "${PEERS_NO_INSTALL:-}" ]; then
	[ "$(id -u)" -eq 0 ] || die "installing the peers needs root (or PEERS_NO_INSTALL=1)"
	want=""
	for p in likwid mbw sysbench stress-ng rt-tests linux-perf; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && continue
		if apt-cache show "$p" >/dev/null 2>&1; then
			want="$want $p"
		else
			note "not packaged here, skipped: $p"
		fi
	done
	if [ -n "$want" ]; then
		note "installing$want"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $want \
			>"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; die "apt-get failed"; }
	fi
fi
have() { command -v "$1" >/dev/null 2>&1; }

# Two small independent programs: a ping-pong between two CPUs as c2clat does it, and a pointer
# chase through a shuffled array; neither shares code with rm-bench.
cat >"$tmp/pingpong.c" <<'EOF'
/* c2clat's method, in C: two sequence numbers in lines of their own on the stack, one written
 * by each thread; pingpong CPU_A CPU_B ROUND_TRIPS RUNS prints min, median and max per round
 * trip */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
struct shared { _Alignas(64) atomic_int seq1; _Alignas(64) atomic_int seq2; int cpu, n; };
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); sched_setaffinity(0, sizeof s, &s); }
static void *echo(void *x) {
	struct shared *s = x;
	pin(s->cpu);
	for (int m = 0; m < s->n; m++) {
		while (atomic_load_explicit(&s->seq1, memory_order_acquire) != m);
		atomic_store_explicit(&s->seq2, m, memory_order_release);
	}
	return NULL;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
	int a = atoi(argv[1]), n = atoi(argv[3]), runs = atoi(argv[4]), m = 0;
	struct shared s = { .cpu = atoi(argv[2]), .n = n * runs + 1000 };
	double *ns = calloc(runs, sizeof *ns);
	pthread_t t;
	atomic_init(&s.seq1, -1);
	atomic_init(&s.seq2, -1);
	pin(a);
	pthread_create(&t, NULL, echo, &s);
	for (int r = -1; r < runs; r++) {
		int k = r < 0 ? 1000 : n;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < k; i++, m++) {
			atomic_store_explicit(&s.seq1, m, memory_order_release);
			while (atomic_load_explicit(&s.seq2, memory_order_acquire) != m);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (r >= 0)
			ns[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / k;
	}
	pthread_join(t, NULL);
	qsort(ns, runs, sizeof *ns, cmp);
	printf("min=%.1f median=%.1f max=%.1f\n", ns[0], ns[runs / 2], ns[runs - 1]);
	return 0;
}
EOF
cat >"$tmp/chase.c" <<'EOF'
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
/* chase SIZE RUNS: ns per load through a shuffled ring of 64-byte lines, best of RUNS */
int main(int argc, char **argv) {
	size_t size = strtoull(argv[1], NULL, 10), lines = size / 64, *order, loads = 1 << 22;
	int runs = atoi(argv[2]);
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double best = 1e30;
	void **p;
	madvise(buf, size, MADV_NOHUGEPAGE);
	order = malloc(lines * sizeof *order);
	for (size_t i = 0; i < lines; i++) order[i] = i;
	srand48(42);
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)(drand48() * (i + 1)), t = order[i];
		order[i] = order[j]; order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)(buf + order[i] * 64) = buf + order[(i + 1) % lines] * 64;
	p = (void **)(buf + order[0] * 64);
	for (size_t i = 0; i < 2 * lines + 100000 && i < (1u << 23); i++) p = *p;
	for (int r = 0; r < runs; r++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (size_t i = 0; i < loads; i++) p = *p;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / loads;
		if (ns < best) best = ns;
	}
	printf("%.2f %p\n", best, (void *)p);
	return 0;
}
EOF
gcc -O2 -pthread -o "$tmp/pingpong" "$tmp/pingpong.c" || die "cannot build the ping-pong"
gcc -O2 -o "$tmp/chase" "$tmp/chase.c" || die "cannot build the pointer chase"

# ---- helpers ----
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
field() { grep -o "\(^\| \)$1=[^ ]*" | head -n 1 | sed "s/^ *$1=//"; }
record() { echo "$*"; echo "$*" >>"$tmp/records"; }
max_of() { sort -g | tail -n 1; }

# ---- mem: copy and triad, best rate, against the best peer with the same threads and size ----
mem_part() {
	local size bytes mib t r rmc rmt lc lt lcn ltn mb pf best_c best_t
	bytes=$("$rm_bench" mem --cpus "$cpus" --op copy --runs 1 --bytes -o size --raw)
	mib=$((bytes / 1048576))
	for t in 1 "$ncpus"; do
		: >"$tmp/mem.$t"
		for ((r = 0; r < rounds; r++)); do
			rm_side() {
				"$rm_bench" mem --cpus "$cpus" --threads "$t" --size "${mib}M" --op copy,triad \
					--runs 10 -o op,best --raw >"$tmp/rm.out"
				rmc=$(awk '$1 == "copy" { print $2 }' "$tmp/rm.out")
				rmt=$(awk '$1 == "triad" { print $2 }' "$tmp/rm.out")
			}
			peer_side() {
				best_c=0 best_t=0
				# likwid-bench: the size is of all arrays together, in its kB of 10^3 bytes, and
				# its MByte/s count bytes as STREAM does
				if have likwid-bench; then
					for k in copy_mem_avx512 copy_avx512 copy_mem_avx; do
						mb=$(likwid-bench -t "$k" -w "N:$((2 * bytes / 1000))kB:$t" 2>/dev/null |
							awk '/^MByte\/s:/ { print $2 / 1000 }')
						[ -n "$mb" ] && best_c=$(printf '%s\n' "$best_c" "$mb" | max_of) &&
							echo "likwid-bench:$k $mb" >>"$tmp/mem.peers.$t.copy"
					done
					for k in stream_mem_avx512 stream_avx512 stream_mem_avx; do
						mb=$(likwid-bench -t "$k" -w "N:$((3 * bytes / 1000))kB:$t" 2>/dev/null |
							awk '/^MByte\/s:/ { print $2 / 1000 }')
						[ -n "$mb" ] && best_t=$(printf '%s\n' "$best_t" "$mb" | max_of) &&
							echo "likwid-bench:$k $mb" >>"$tmp/mem.peers.$t.triad"
					done
				fi
				if [ "$t" -eq 1 ]; then
					# mbw and perf copy one array into another: count both, as STREAM does
					if have mbw; then
						mb=$(taskset -c "$first" mbw -n 10 -t0 "$mib" 2>/dev/null |
							awk '/^[0-9]/ { v = $9 * 2 * 1.048576 / 1000; if (v > m) m = v } END { print m }')
						[ -n "$mb" ] && best_c=$(printf '%s\n' "$best_c" "$mb" | max_of) &&
							echo "mbw:memcpy $mb" >>"$tmp/mem.peers.$t.copy"
					fi
					if have perf; then
						pf=$(taskset -c "$first" perf bench mem memcpy -s "${mib}MB" -l 10 -f default 2>/dev/null |
							awk '/GB\/sec/ { print $1 * 2 * 1.073741824 }' | max_of)
						[ -n "$pf" ] && best_c=$(printf '%s\n' "$best_c" "$pf" | max_of) &&
							echo "perf-bench:memcpy $pf" >>"$tmp/mem.peers.$t.copy"
					fi
				fi
			}
			if ((r % 2)); then peer_side; rm_side; else rm_side; peer_side; fi
			echo "$rmc $rmt $best_c $best_t" >>"$tmp/mem.$t"
		done
		local rc rt pc pt
		rc=$(awk '{ print $1 }' "$tmp/mem.$t" | median)
		rt=$(awk '{ print $2 }' "$tmp/mem.$t" | median)
		pc=$(awk '{ print $3 }' "$tmp/mem.$t" | median)
		pt=$(awk '{ print $4 }' "$tmp/mem.$t" | median)
		record "peer=mem op=copy threads=$t size=${mib}MiB rm_bench=$rc best_peer=$pc ratio=$(ratio "$rc" "$pc") round_ratio=$(awk '{ if ($3 > 0) print $1 / $3 }' "$tmp/mem.$t" | median) unit=GB/s rounds=$rounds"
		record "peer=mem op=triad threads=$t size=${mib}MiB rm_bench=$rt best_peer=$pt ratio=$(ratio "$rt" "$pt") round_ratio=$(awk '{ if ($4 > 0) print $2 / $4 }' "$tmp/mem.$t" | median) unit=GB/s rounds=$rounds"
		for op in copy triad; do
			[ -f "$tmp/mem.peers.$t.$op" ] || continue
			awk '{ print $1 }' "$tmp/mem.peers.$t.$op" | sort -u | while read -r name; do
				record "peer=mem op=$op threads=$t name=$name median=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/mem.peers.$t.$op" | median) unit=GB/s"
			done
		done
	done
}

# ---- lat: the curve against the caches, 2 MiB pages against 4 KiB, an independent chase ----
lat_part() {
	local l1=0 l2=0 l3=0 to need have r s d v
	# the data and unified caches of the CPU, as the kernel (and rm-topo caches) report them
	for d in /sys/devices/system/cpu/cpu"$first"/cache/index*; do
		[ "$(cat "$d/type")" = Instruction ] && continue
		v=$(cat "$d/size")
		case $v in *K) v=$((${v%K} * 1024)) ;; *M) v=$((${v%M} * 1048576)) ;; esac
		case $(cat "$d/level") in 1) l1=$v ;; 2) l2=$v ;; 3) l3=$v ;; esac
	done
	to=$((8 * l3))
	note "caches of CPU $first: L1d $l1, L2 $l2, L3 $l3 bytes; sweep to $to"
	# the curve on normal pages and on 2 MiB pages reserved for it, each size on both in turn
	local pages=4K
	if [ -w "$hp" ]; then
		hp_saved=$(cat "$hp")
		need=$((to / 2097152 + 8))
		echo $((hp_saved + need)) >"$hp"
		have=$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages)
		note "2 MiB pages on node 0: $hp_saved, now $(cat "$hp") ($have free)"
		pages=4K,2M
	fi
	"$rm_bench" lat --cpu "$first" --sweep-to "$to" --runs 3 --pages "$pages" \
		-o size,pages,best,median --bytes >"$tmp/lat.all" 2>/dev/null
	if [ -n "$hp_saved" ]; then
		echo "$hp_saved" >"$hp"
		hp_saved=
	fi
	grep ' pages=4096 ' "$tmp/lat.all" >"$tmp/lat.4k"
	grep ' pages=2097152 ' "$tmp/lat.all" >"$tmp/lat.2m"
	while read -r line; do
		s=$(echo "$line" | field size)
		record "peer=lat size=$s pages=4KiB best=$(echo "$line" | field best) pages2m_best=$(grep "^size=$s " "$tmp/lat.2m" 2>/dev/null | field best) unit=ns"
	done <"$tmp/lat.4k"
	# plateaus: inside L1, L2, L3 and beyond; steps: the first size past each plateau
	awk -v l1="$l1" -v l2="$l2" -v l3="$l3" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		  s = f["size"]; b = f["best"]
		  if (s <= l1 / 2) p1[++n1] = b; else if (s > l1 && s <= l2 / 2) p2[++n2] = b
		  else if (s > l2 && s <= l3 / 2) p3[++n3] = b; else if (s >= 4 * l3) p4[++n4] = b }
		function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : "-" }
		END { printf "peer=lat_plateaus l1=%s l2=%s l3=%s memory=%s unit=ns\n", med(p1, n1), med(p2, n2), med(p3, n3), med(p4, n4) }' \
		"$tmp/lat.4k" | while read -r line; do record "$line"; done
	# the steps: each size whose latency is over 1.5 times the last plateau's
	for f in 4k 2m; do
		[ -s "$tmp/lat.$f" ] || continue
		record "peer=lat_steps pages=$f l1=$l1 l2=$l2 l3=$l3 at=$(sed 's/size=\([0-9]*\) .* best=\([0-9.]*\).*/\1 \2/' "$tmp/lat.$f" |
			awk '{ if (n && $2 > 1.5 * base) { printf "%s%s", sep, $1; sep = ","; base = $2 } if (!n) base = $2; n++ } END { print "" }')"
	done
	# huge pages beyond the reach of the TLB: 2 MiB against 4 KiB, each size on both in turn
	# (rm-bench lat measures them one after the other), ROUNDS times, medians per size
	if [ -w "$hp" ]; then
		local sizes="16M,32M,64M,128M,256M"
		hp_saved=$(cat "$hp")
		echo $((hp_saved + 136)) >"$hp"
		: >"$tmp/lat.hp"
		for ((r = 0; r < rounds; r++)); do
			"$rm_bench" lat --cpu "$first" --sizes "$sizes" --pages 4K,2M --runs 3 \
				-o size,pages,best --raw --bytes 2>/dev/null >>"$tmp/lat.hp"
		done
		echo "$hp_saved" >"$hp"
		hp_saved=
		for s in 16777216 33554432 67108864 134217728 268435456; do
			a=$(awk -v s="$s" '$1 == s && $2 == 4096 { print $3 }' "$tmp/lat.hp" | median)
			b=$(awk -v s="$s" '$1 == s && $2 == 2097152 && $3 != "-" { print $3 }' "$tmp/lat.hp" | median)
			record "peer=lat_hugepages size=$s pages4k=$a pages2m=$b ratio_2m_4k=$(ratio "$b" "$a") unit=ns rounds=$rounds"
		done
	fi
	# an independent chase at four sizes, alternately
	# inside L1, L2 and L3 (an eighth of it: a virtual machine shares its L3) and in memory
	for s in $((l1 / 2)) $((l2 / 2)) $((l3 / 8)) $((8 * l3)); do
		: >"$tmp/chase.$s"
		for ((r = 0; r < rounds; r++)); do
			a=$("$rm_bench" lat --cpu "$first" --sizes "$s" --runs 3 -o best --raw)
			b=$(taskset -c "$first" "$tmp/chase" "$s" 3 | awk '{ print $1 }')
			echo "$a $b" >>"$tmp/chase.$s"
		done
		a=$(awk '{ print $1 }' "$tmp/chase.$s" | median)
		b=$(awk '{ print $2 }' "$tmp/chase.$s" | median)
		record "peer=lat_chase size=$s rm_bench=$a chase=$b ratio=$(ratio "$a" "$b") unit=ns rounds=$rounds"
	done
}

# ---- c2c: median and spread against a plain ping-pong on the same pair ----
c2c_part() {
	[ "$first" != "$last" ] || { note "one CPU: no c2c"; return; }
	: >"$tmp/c2c"
	for ((r = 0; r < rounds; r++)); do
		a=$("$rm_bench" c2c --cpus "$first,$last" --iterations 20000 --runs 11 -o pair,median,min,max --raw |
			awk '$1 != "all" { print $2, $3, $4 }')
		b=$("$tmp/pingpong" "$first" "$last" 20000 11 | sed 's/[a-z]*=//g')
		echo "$a $b" >>"$tmp/c2c"
	done
	# columns: rm-bench median min max, ping-pong min median max
	record "peer=c2c pair=$first:$last rm_bench_median=$(awk '{ print $1 }' "$tmp/c2c" | median) pingpong_median=$(awk '{ print $5 }' "$tmp/c2c" | median) ratio=$(awk '{ print $1 / $5 }' "$tmp/c2c" | median) rm_bench_best=$(awk '{ print $2 }' "$tmp/c2c" | median) pingpong_best=$(awk '{ print $4 }' "$tmp/c2c" | median) best_ratio=$(awk '{ print $2 / $4 }' "$tmp/c2c" | median) rm_bench_spread=$(awk '{ print ($3 - $2) / $1 * 100 }' "$tmp/c2c" | median) pingpong_spread=$(awk '{ print ($6 - $4) / $5 * 100 }' "$tmp/c2c" | median) unit=ns rounds=$rounds"
}

# ---- jitter: average, median and maximum against cyclictest (and stress-ng) on one CPU ----
# cyclictest holds /dev/cpu_dma_latency at 0 unless given --laptop; rm-bench does with
# --dma-latency 0. Both ways are compared: a virtual machine's CPUs halt to the host without it.
# cyclictest prints every wake-up in nanoseconds (-v --nsecs), for the median and an exact mean:
# the Avg of its summary truncates each wake-up and the mean to whole microseconds, about 1 us
# low. The two sides take turns at going first.
jitter_part() {
	local d=${PEERS_JITTER_SECONDS:-5} r a b c e f
	# avg, median and max of the numbers on stdin
	stats() { sort -g | awk '{ v[NR] = $1; s += $1 } END { if (NR) print s / NR, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }'; }
	rm_jitter() {
		"$rm_bench" jitter --cpus "$last" --duration "${d}s" --interval 1ms --priority 99 \
			--runs 1 "$@" -o avg,median,max --raw
	}
	cyclic() {
		have cyclictest || { echo "- - -"; return; }
		cyclictest -v --nsecs -m -p 99 -i 1000 -D "${d}s" -a "$last" -t 1 "$@" 2>/dev/null |
			awk '$1 == "0:" && NF == 3 { print $3 / 1000 }' | stats
	}
	: >"$tmp/jit"
	for ((r = 0; r < rounds; r++)); do
		c="- -"
		if ((r % 2)); then
			b=$(cyclic --laptop) a=$(rm_jitter)
			e=$(cyclic) f=$(rm_jitter --dma-latency 0)
		else
			a=$(rm_jitter) b=$(cyclic --laptop)
			f=$(rm_jitter --dma-latency 0) e=$(cyclic)
		fi
		have stress-ng && c=$(stress-ng --cyclic 1 --cyclic-policy fifo --cyclic-prio 99 \
			--cyclic-sleep 1000000 --cyclic-method clock_ns --taskset "$last" -t "$d" 2>&1 |
			awk '/cyclic: +mean:/ { m = $6 / 1000 } /cyclic: +min:/ { x = $9 / 1000 } END { print m, x }')
		echo "$a ${b:-- - -} ${c:-- -} $f ${e:-- - -}" >>"$tmp/jit"
	done
	# columns: rm avg median max, cyclictest --laptop avg median max, stress-ng avg max, and
	# with the PM QoS request: rm avg median max, cyclictest avg median max
	col() { awk -v c="$1" '$c != "-" { print $c }' "$tmp/jit" | median; }
	rat() { awk -v a="$1" -v b="$2" '$b > 0 { print $a / $b }' "$tmp/jit" | median; }
	record "peer=jitter cpu=$last seconds=$d dma_latency=none rm_bench_avg=$(col 1) rm_bench_median=$(col 2) rm_bench_max=$(col 3) cyclictest_avg=$(col 4) cyclictest_median=$(col 5) cyclictest_max=$(col 6) stress_ng_avg=$(col 7) stress_ng_max=$(col 8) avg_ratio=$(rat 1 4) median_ratio=$(rat 2 5) max_ratio=$(rat 3 6) unit=us rounds=$rounds"
	record "peer=jitter cpu=$last seconds=$d dma_latency=0 rm_bench_avg=$(col 9) rm_bench_median=$(col 10) rm_bench_max=$(col 11) cyclictest_avg=$(col 12) cyclictest_median=$(col 13) cyclictest_max=$(col 14) avg_ratio=$(rat 9 12) median_ratio=$(rat 10 13) max_ratio=$(rat 11 14) unit=us rounds=$rounds"
}

note "rm-bench $("$rm_bench" --version | cut -d' ' -f2) on CPUs $cpus, $rounds rounds: $only"
: >"$tmp/records"
for part in $only; do
	"${part}_part"
done
echo
column -t <"$tmp/records" 2>/dev/null || cat "$tmp/records"
