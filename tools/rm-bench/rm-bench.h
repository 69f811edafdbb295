/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench's commands and what they share: the CPUs and nodes, pinning, memory, statistics. */
#ifndef RM_BENCH_TOOL_H
#define RM_BENCH_TOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "options.h"
#include "output.h"
#include "record.h"
#include "topology.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int cmd_mem(int argc, char **argv, struct rm_common *c);
int cmd_lat(int argc, char **argv, struct rm_common *c);
int cmd_c2c(int argc, char **argv, struct rm_common *c);
int cmd_jitter(int argc, char **argv, struct rm_common *c);
int cmd_run(int argc, char **argv, struct rm_common *c);
int cmd_compare(int argc, char **argv, struct rm_common *c);
int cmd_plot(int argc, char **argv, struct rm_common *c);
int cmd_weights(int argc, char **argv, struct rm_common *c);

/* ---- the machine as the measurements see it (common.c) ---- */

struct bench {
	struct rm_topo *t;
	hwloc_bitmap_t allowed;   /* online CPUs this process may be pinned to (its cpuset) */
	hwloc_bitmap_t deflt;     /* the CPUs measured by default: the affinity mask, allowed */
	hwloc_bitmap_t nodes;     /* online NUMA nodes */
	hwloc_bitmap_t mem_nodes; /* NUMA nodes with memory */
	bool numa;                /* libnuma works: memory can be bound */
	size_t page;              /* the base page size */
};

/* Load this machine; exits 2 when --topology or --sysroot asks for another one. */
void bench_open(struct bench *b, const struct rm_common *c);
void bench_close(struct bench *b);

/* Parse a CPU set for OPT and check it against the allowed CPUs; exits 2 with one line. */
void bench_cpus(const struct bench *b, const char *opt, const char *arg, hwloc_bitmap_t set);
/* Parse a NUMA node number for OPT; exits 2 unless online (and with memory when NEED_MEMORY). */
int bench_node(const struct bench *b, const char *opt, const char *arg, bool need_memory);
/* The online CPUs of NODE (kernel view), and its allowed ones among them into SET. */
void bench_node_cpus(const struct bench *b, int node, hwloc_bitmap_t set);
/* For NODE without CPUs (memory only: CXL memory, HBM): the allowed CPUs of the node nearest to
 * it by distance (ties to the lowest id) into SET, and true; exits 2 when no node has allowed
 * CPUs. False (SET unchanged) when NODE has CPUs. */
bool bench_near_cpus(const struct bench *b, int node, hwloc_bitmap_t set);
/* The node ARG of --mem-node (with memory); NODE_MEM is the memory node --node set (-1: none),
 * which another one contradicts (exit 2). */
int bench_mem_node_arg(const struct bench *b, const char *arg, int node_mem);
/* The allowed CPUs of the node ARG of --node into SET, *MEM_NODE -1; for a node without CPUs,
 * those of its nearest CPU node (bench_near_cpus), *MEM_NODE the node itself, whose memory is
 * measured. Exits 2 (SET freed) when the node has CPUs but none allowed, or neither CPUs nor
 * memory. */
void bench_node_arg_cpus(const struct bench *b, const char *arg, hwloc_bitmap_t set,
			 int *mem_node);
/* The NUMA node of CPU; -1 when unknown. */
int bench_cpu_node(const struct bench *b, int cpu);
/* The memory node for a thread on CPU: its own when it has memory, else -1 (the kernel's pick). */
int bench_local_mem_node(const struct bench *b, int cpu);
/* N CPUs of SET, one per core first (spread over cores before using their other threads),
 * in ascending order, into CPUS[]. */
void bench_pick_cpus(const struct bench *b, hwloc_const_bitmap_t set, int n, int *cpus);
/* The size of the last-level caches covering SET, each counted once; 0 when unknown. */
uint64_t bench_llc_size(const struct bench *b, hwloc_const_bitmap_t set);
/* The default array size of a memory measurement of CPUS: 4 x their last-level caches, at
 * least 16 MiB, MiB-rounded. */
uint64_t mem_default_size(const struct bench *b, hwloc_const_bitmap_t cpus);
/* The size of the data or unified cache of LEVEL (1-3) of CPU; 0 when unknown. */
uint64_t bench_cache_size(const struct bench *b, int cpu, int level);
/* Free memory of NODE in bytes (-1: all nodes); 0 when unknown. */
uint64_t bench_node_free(const struct bench *b, int node);
/* Free huge pages of size PAGE on NODE (-1: all nodes). */
long bench_free_hugepages(uint64_t page, int node);
/* Whether the machine has pages of PAGE bytes: the base page or a huge page size. */
bool bench_has_page(const struct bench *b, uint64_t page);
/* Refuse (exit 2) a page size the machine lacks; OPT names the option. */
void bench_check_page(const struct bench *b, const char *opt, uint64_t page);

/* Refuse measuring another machine than this one (exit 2). */
void bench_live_only(const struct rm_common *c);

/* ---- threads ---- */

/* Pin the calling thread to CPU, and return once it runs there. Returns 0 or an errno value. */
int bench_pin(int cpu);
/* Start a thread running FN(ARG); exits 1 on failure. */
void bench_thread(pthread_t *tid, void *(*fn)(void *), void *arg);
/* Exit 1 with the message, and ERRNUM's text when it is not 0. */
__attribute__((noreturn, format(printf, 2, 3)))
void bench_fail(int errnum, const char *fmt, ...);

/* A barrier that spins: threads pinned one per CPU leave it within a few hundred nanoseconds,
 * where a futex wake-up (pthread_barrier) costs tens of microseconds and skews short timings. */
struct spin_barrier {
	atomic_uint count;
	atomic_uint phase;
	unsigned n;
};
void spin_barrier_init(struct spin_barrier *b, unsigned n);
void spin_barrier_wait(struct spin_barrier *b);

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t bench_now(void);

/* ---- memory ---- */

/* Memory from mmap: normal pages (transparent huge pages off) or huge pages of PAGE bytes,
 * bound to NODE (-1: not bound). */
struct region {
	void *base;
	size_t len;  /* mapped length */
	size_t page; /* page size */
};

/* Map SIZE bytes and write one byte per page, so that every page is in place (the caller's
 * first touch). Returns 0; 1 when huge pages of PAGE are too few, or ran out while touched
 * (another process took them): the measurement is skipped; -1 on any other failure. *WHY is
 * allocated with the reason ("not enough 2MiB huge pages free on node 0") and nothing stays
 * mapped unless it returns 0. */
int region_get(struct region *r, size_t size, size_t page, int node, char **why);
void region_unmap(struct region *r);
/* The NUMA nodes that hold pages of R (a sample of them) ORed into NODES. */
void region_nodes(const struct region *r, hwloc_bitmap_t nodes);

/* ---- resctrl monitoring (monitor.c) ---- */

/* The counters of L3_MON that measurements report. */
enum mon_event { MON_OCCUPANCY, MON_TOTAL, MON_LOCAL, MON_NEVENTS };

struct mon_sample {
	uint64_t at;                  /* bench_now() */
	uint64_t value[MON_NEVENTS];  /* bytes: held in L3, moved to and from memory */
	bool have[MON_NEVENTS];
};

/* resctrl as this process sees it. Where it is not mounted or has no monitoring, every call
 * below does nothing and the samples have no values; other failures are warned about once. */
struct bench_mon;
struct bench_mon *bench_mon_open(void);
void bench_mon_close(struct bench_mon *m);
/* Give the calling thread a monitoring group of its own, inside the control group it is in,
 * so that it and the threads it starts next are counted apart. Returns false when not. */
bool bench_mon_begin(struct bench_mon *m);
/* The group's counters now, summed over the L3 domains. */
void bench_mon_sample(struct bench_mon *m, struct mon_sample *s);
/* Remove the group; its threads go back to the control group. */
void bench_mon_end(struct bench_mon *m);
/* Bytes per nanosecond (GB/s) of event E between samples A and B; -1 when unknown. */
double mon_rate(const struct mon_sample *a, const struct mon_sample *b, enum mon_event e);

/* ---- a noisy neighbour (neighbour.c) ---- */

/* Threads, one pinned to each of its CPUs, copying memory (STREAM's copy kernel with streaming
 * stores) until stopped. */
struct hog;
struct neighbour {
	struct hog *hogs;
	int n;
	atomic_bool stop;
	atomic_int ready, failed;
	_Atomic uint64_t bytes; /* moved so far, STREAM's count */
	_Atomic uint64_t delay; /* ns each thread waits, busy, after each chunk: 0 flat out */
};
/* The neighbour's CPUs for --neighbour[=ARG] beside a measurement of CPUS; exits 2 when
 * there are none or they share one with CPUS. */
hwloc_bitmap_t neighbour_cpus(const struct bench *b, const char *arg, hwloc_const_bitmap_t cpus);
/* Start the threads on CPUS, their arrays on MEM_NODE (-1: each CPU's own node), and return
 * once all of them copy. Exits 1 when one cannot be started. */
void neighbour_start(const struct bench *b, struct neighbour *nb, hwloc_const_bitmap_t cpus,
		     int mem_node);
uint64_t neighbour_bytes(struct neighbour *nb);
void neighbour_stop(struct neighbour *nb);

/* ---- what runs beside a measurement (beside.c) ---- */

/* The neighbour of a measurement and its own resctrl monitoring group, sampled when the timed
 * runs begin (0) and end (1). */
struct beside {
	struct neighbour nb;
	bool running;            /* the neighbour copies */
	struct bench_mon *mon;   /* NULL: no group of its own, no counters */
	struct mon_sample at[2];
	uint64_t nb_bytes[2];    /* the neighbour's bytes then */
};
/* Start the neighbour on NEIGHBOUR (NULL: none) and give the calling thread a monitoring group
 * of MON (NULL: none), before the measurement's threads start. */
void beside_start(const struct bench *b, struct beside *x, struct bench_mon *mon,
		  hwloc_const_bitmap_t neighbour, int mem_node);
void beside_sample(struct beside *x, int i);
void beside_stop(struct beside *x);
/* The neighbour's rate and the counters into the record's columns (-1: not in the record). */
void beside_fields(struct rm_out *out, const struct beside *x, int rate_col, int occupancy_col,
		   int total_col, int local_col);

/* ---- statistics (stats.c) ---- */

/* Figures over runs: BEST is the highest value for rates and the lowest for times. */
struct summary {
	double best, median, min, max;
	double spread; /* (max - min) / median, in percent: the runs' own noise */
};
void summarize(const double *v, size_t n, bool higher_better, struct summary *s);
/* The median of V (N > 0); V is sorted in place. */
double stat_median(double *v, size_t n);
/* The Q quantile (0..1) of sorted V, by linear interpolation between ranks. */
double stat_quantile(const double *sorted, size_t n, double q);
int cmp_double(const void *a, const void *b);
/* Up to this many values in all, stat_mann_whitney_less is exact; above, approximated. */
enum { STAT_EXACT_MAX = 40 };
/* The one-sided p-value of the Mann-Whitney U (Wilcoxon rank-sum) test that X (NX values) is
 * stochastically smaller than Y (NY): the probability, were both drawn from one distribution,
 * of a rank sum of X this low or lower. Ties take mid-ranks. Exact (the permutation
 * distribution of the tied ranks) up to STAT_EXACT_MAX values, else the normal approximation
 * with tie and continuity corrections. 1 when either is empty. */
double stat_mann_whitney_less(const double *x, size_t nx, const double *y, size_t ny);

/* The columns of the figures in a measurement record, from its best on. */
enum { FIG_BEST, FIG_MEDIAN, FIG_MIN, FIG_MAX, FIG_UNIT, FIG_RUNS, FIG_SPREAD };
/* S (NULL: none, a skipped measurement), UNIT and RUNS into the columns from COL (best) on. */
void out_figures(struct rm_out *out, int col, const struct summary *s, int decimals,
		 const char *unit, int runs);

/* ---- commands (common.c) ---- */

/* Parse a measuring command's arguments; true when --list-columns printed COLS instead. */
struct argp;
bool bench_parse(const struct argp *argp, int argc, char **argv, struct rm_common *c,
		 void *input, const struct rm_column *cols, size_t ncols);
/* The same for a listing that shows DEFAULTS (a comma list; NULL: all) unless -o says. */
bool bench_parse_defaults(const struct argp *argp, int argc, char **argv, struct rm_common *c,
			  void *input, const struct rm_column *cols, size_t ncols,
			  const char *defaults);
/* A listing other than the command's main one: every column, -o not applied. */
struct rm_out *bench_listing(const struct rm_outopts *opts, const char *name,
			     const struct rm_column *cols, size_t ncols);

/* ---- parsing (parse.c) ---- */

/* A positive integer in [MIN, MAX] for OPT; argp_error otherwise. */
struct argp_state;
long parse_long(struct argp_state *state, const char *opt, const char *arg, long min, long max);
/* --runs: 1 to 1000. */
int parse_runs(struct argp_state *state, const char *arg);
/* A duration with a unit: "10s", "200ms", "1ms", "50us", "1m", "1h"; in nanoseconds. */
int parse_duration(const char *arg, uint64_t *ns);
/* A size for OPT ("64M", "1GiB"); argp_error when invalid or zero. */
uint64_t parse_size(struct argp_state *state, const char *opt, const char *arg);
/* A comma list of sizes; *N entries allocated into *SIZES. */
void parse_size_list(struct argp_state *state, const char *opt, const char *arg,
		     uint64_t **sizes, size_t *n);
/* A percentage: "5%", "5", "0.5%". -1 when invalid. */
double parse_percent(const char *arg);

/* ---- measurements, so that run can call them ---- */

/* Defaults of --runs. */
enum { MEM_RUNS = 10, LAT_RUNS = 5, C2C_RUNS = 5, JITTER_RUNS = 5 };

enum mem_op { OP_COPY, OP_SCALE, OP_ADD, OP_TRIAD, NOPS };
extern const char *const mem_op_names[NOPS];

struct mem_params {
	hwloc_bitmap_t cpus;     /* the CPUs: one thread per CPU */
	int threads;             /* 0: one per CPU of cpus */
	int mem_node;            /* -1: each thread's own node */
	uint64_t size;           /* bytes per array; 0: 4 x the last-level caches */
	uint64_t page;           /* page size */
	unsigned ops;            /* bit per enum mem_op */
	bool normal_stores;      /* no streaming stores */
	int runs;
	hwloc_bitmap_t neighbour; /* CPUs of a noisy neighbour during the runs; NULL: none */
	struct bench_mon *mon;   /* resctrl's counters beside the runs; NULL: none */
};
extern const struct rm_column mem_cols[];
extern const size_t mem_ncols;
/* Measure and print one record per op. Returns false when skipped (no huge pages). */
bool mem_measure(const struct bench *b, const struct mem_params *p, struct rm_out *out);
/* The instruction set the kernels use here ("avx512", "avx2", "sse2", "generic"). */
const char *mem_isa(void);

struct lat_params {
	int cpu;
	int mem_node;            /* -1: the CPU's node */
	uint64_t *sizes;
	size_t nsizes;
	uint64_t *pages;
	size_t npages;
	int runs;
	hwloc_bitmap_t neighbour; /* CPUs of a noisy neighbour during the runs; NULL: none */
	struct bench_mon *mon;   /* resctrl's counters beside the runs; NULL: none */
	bool loaded;             /* --loaded: load_delay in the records */
	uint64_t load_delay;     /* the neighbour's delay (struct neighbour), ns */
};
extern const struct rm_column lat_cols[];
extern const size_t lat_ncols;
void lat_measure(const struct bench *b, const struct lat_params *p, struct rm_out *out);
/* Default sizes for CPU: inside L1, L2 and L3 (half of each), and 4 x L3 (memory). */
size_t lat_default_sizes(const struct bench *b, int cpu, uint64_t **sizes);

struct c2c_params {
	hwloc_bitmap_t cpus;
	int pairs;               /* 0: every pair */
	long iterations;         /* round trips per run */
	int runs;
};
extern const struct rm_column c2c_cols[];
extern const size_t c2c_ncols;
void c2c_measure(const struct bench *b, const struct c2c_params *p, struct rm_out *out);

struct jitter_params {
	hwloc_bitmap_t cpus;
	int shared_cpu;          /* -1: none; else measured too, as the shared CPU */
	uint64_t duration;       /* ns */
	uint64_t interval;       /* ns */
	int priority;            /* 0: SCHED_OTHER */
	int runs;
	int dma_latency;         /* /dev/cpu_dma_latency to hold, in us; -1: none */
	bool histogram;          /* print the histogram records (always in JSON) */
};
extern const struct rm_column jitter_cols[];
extern const size_t jitter_ncols;
/* Measure and print one record per CPU; the samples are kept for the histogram. */
struct jitter_hist;
struct jitter_hist *jitter_measure(const struct bench *b, const struct jitter_params *p,
				   struct rm_out *out);
/* Print the histogram listing when PRINT or in JSON (after the jitter listing is closed), and
 * free H. */
void jitter_histogram(struct jitter_hist *h, const struct rm_outopts *opts, bool print);

/* The machine record of run. */
extern const struct rm_column machine_cols[];
extern const size_t machine_ncols;
void machine_record(const struct bench *b, struct rm_out *out);

/* ---- result files, as compare and plot read them (compare.c) ---- */

struct result {
	struct rm_record rec;
	char *key;     /* bench, then the parameters sorted, values normalized */
	char *params;  /* the parameters as a record, in their order */
	bool matched;
};

struct results {
	const char *file;
	struct result *r;
	size_t n;
	struct rm_record machine; /* nfields 0: none */
};

/* The measurements (bench records) and the first machine record of RS->file ("-": standard
 * input), records or JSON, keyed without the parameters in IGNORE (a comma list, or NULL);
 * exits 2 when it holds none or cannot be read. */
void read_results(struct results *rs, const char *ignore);
void free_results(struct results *rs);
/* The metric compared by default for a matched pair: best, p99 or median; NULL: none. */
const char *default_metric(const struct rm_record *b, const struct rm_record *n);
/* What N's values are multiplied by to be in B's unit (MB/s to GB/s: 0.001); 1 when the units
 * are the same or either has none, 0 when they are not of one dimension. */
double unit_factor(const struct rm_record *b, const struct rm_record *n);
/* How METRIC changed from B (in BASE) to N (in NEW, converted to B's unit), as compare decides
 * it: "same" within THRESHOLD percent, "noise" within the runs' spread, else "regressed" or
 * "improved" by the unit's direction, with *DELTA and *NOISE in percent; "skipped" when the base
 * is 0 or the units cannot be converted; NULL when either lacks the metric. Exits 2 when a value
 * is not a number. */
const char *compare_decide(const struct results *base, const struct results *new,
			   const struct result *b, const struct result *n, const char *metric,
			   double threshold, double *delta, double *noise);

#endif
