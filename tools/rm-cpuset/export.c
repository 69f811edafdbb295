/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset export (kubelet, slurm, systemd): the state as other tools' configuration. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "rm-cpuset.h"
#include "size.h"
#include "slurm.h"
#include "snaparchive.h"
#include "xalloc.h"

/* The kubelet's cpuManagerPolicyOptions that change a placement, as export flags. */
static const char *const kubelet_options[] = {
	"full-pcpus-only", "distribute-cpus-across-numa", "align-by-socket",
	"distribute-cpus-across-cores", "prefer-align-cpus-by-uncorecache",
};
#define NOPTIONS ARRAY_SIZE(kubelet_options)

/* The kubelet releases export kubelet knows: 1.KUBELET_MIN to 1.KUBELET_MAX. */
#define KUBELET_MIN 30
#define KUBELET_MAX 36
#define KUBELET_NVERSIONS (KUBELET_MAX - KUBELET_MIN + 1)

/* An option's stage in a release: unknown (the kubelet refuses to start), alpha, beta, GA. */
enum stage { NO = 0, AL, BE, GA };

/*
 * The CPU Manager (cpu = true) and Topology Manager policy options by release, from the
 * kubelet's policy_options.go sets and the KEPs (the tables of kubelet-options.md): an alpha
 * option needs its manager's *PolicyAlphaOptions gate, a beta one its *PolicyBetaOptions gate.
 */
static const struct policy_option {
	const char *name;
	bool cpu;
	enum stage stage[KUBELET_NVERSIONS]; /* 1.30 ... 1.36 */
} policy_options[] = {
	{ "full-pcpus-only", true, { BE, BE, BE, GA, GA, GA, GA } },
	{ "distribute-cpus-across-numa", true, { AL, AL, AL, BE, BE, BE, BE } },
	{ "align-by-socket", true, { AL, AL, AL, AL, AL, AL, AL } },
	{ "distribute-cpus-across-cores", true, { NO, AL, AL, AL, AL, AL, AL } },
	{ "prefer-align-cpus-by-uncorecache", true, { NO, NO, AL, AL, BE, BE, GA } },
	{ "strict-cpu-reservation", true, { NO, NO, AL, BE, BE, GA, GA } },
	{ "prefer-closest-numa-nodes", false, { BE, BE, GA, GA, GA, GA, GA } },
	{ "max-allowable-numa-nodes", false, { NO, BE, BE, BE, BE, GA, GA } },
};

/* The Topology Manager refuses a machine of more NUMA nodes without max-allowable-numa-nodes. */
#define KUBELET_MAX_NUMA 8

enum { OPT_OPTION0 = 0x400, OPT_POLICY = 0x480, OPT_ROOT, OPT_NODE_NAME, OPT_MEM_SPEC,
       OPT_KUBELET_VERSION, OPT_CLOSEST, OPT_CGROUP_CONF, OPT_OUTPUT_FILE = 'o' };

struct export_args {
	const char *format;
	struct rm_cpualloc_opts opts;
	bool given[NOPTIONS];
	int policy; /* -1: not given */
	int kubelet_minor;        /* kubelet: the release 1.N, 0 when not given */
	bool closest;             /* kubelet: prefer-closest-numa-nodes */
	bool cgroup_conf;         /* slurm: cgroup.conf lines too */
	const char *root;
	const char *node_name;    /* slurm: NULL for the host name */
	uint64_t mem_spec;        /* slurm: MemSpecLimit in MiB, 0 when not given */
	const char *output;       /* slurm: the file, NULL for standard output */
};

static const struct argp_option export_options[] = {
	{ "policy", OPT_POLICY, "POLICY", 0, "kubelet: topologyManagerPolicy", 0 },
	{ "full-pcpus-only", OPT_OPTION0 + 0, NULL, 0, "kubelet: the policy option", 0 },
	{ "distribute-cpus-across-numa", OPT_OPTION0 + 1, NULL, 0, "kubelet: the policy option", 0 },
	{ "align-by-socket", OPT_OPTION0 + 2, NULL, 0, "kubelet: the policy option", 0 },
	{ "distribute-cpus-across-cores", OPT_OPTION0 + 3, NULL, 0, "kubelet: the policy option", 0 },
	{ "prefer-align-cpus-by-uncorecache", OPT_OPTION0 + 4, NULL, 0,
	  "kubelet: the policy option", 0 },
	{ "kubelet-version", OPT_KUBELET_VERSION, "X.Y", 0,
	  "kubelet: the release to configure, 1.30 to 1.36 (default 1.36): only its options, "
	  "with the feature gates they need", 0 },
	{ "prefer-closest-numa-nodes", OPT_CLOSEST, NULL, 0,
	  "kubelet: the Topology Manager policy option", 0 },
	{ "root", OPT_ROOT, "DIR", 0,
	  "systemd: write the drop-in files under DIR (/ for this system) instead of printing them",
	  0 },
	{ "node-name", OPT_NODE_NAME, "NAME", 0,
	  "slurm: the NodeName (default the host name up to its first dot)", 0 },
	{ "mem-spec-limit", OPT_MEM_SPEC, "SIZE", 0,
	  "slurm: add MemSpecLimit=, SIZE (whole MiB, e.g. 8G) withheld from jobs", 0 },
	{ "cgroup-conf", OPT_CGROUP_CONF, NULL, 0,
	  "slurm: add the cgroup.conf lines that make Slurm enforce the node line", 0 },
	{ "output", OPT_OUTPUT_FILE, "FILE", 0,
	  "slurm: write FILE atomically instead of standard output", 0 },
	{ 0 }
};

/* A slurm.conf NodeName: a host name, or a hostlist such as gpu[01-04] */
static bool valid_node_name(const char *s)
{
	if (!*s || strlen(s) > 255 || *s == '-' || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-[],", *s)))
			return false;
	return true;
}

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;
	char *msg = NULL;

	if (key >= OPT_OPTION0 && key < OPT_OPTION0 + (int)NOPTIONS) {
		a->given[key - OPT_OPTION0] = true;
		if (rm_cpualloc_opt_parse(&a->opts, kubelet_options[key - OPT_OPTION0], &msg))
			argp_error(state, "%s", msg);
		return 0;
	}
	switch (key) {
	case OPT_POLICY:
		if ((a->policy = rm_tm_policy_parse(arg)) < 0)
			argp_error(state, "unknown policy: '%s' (none, best-effort, restricted, "
				   "single-numa-node)", arg);
		break;
	case OPT_KUBELET_VERSION: {
		unsigned minor;
		int end = 0;

		if (sscanf(arg, "1.%u%n", &minor, &end) != 1 || arg[end] || !isdigit((unsigned char)arg[2]) ||
		    minor < KUBELET_MIN || minor > KUBELET_MAX)
			argp_error(state, "unknown kubelet version: '%s' (1.%d to 1.%d)", arg,
				   KUBELET_MIN, KUBELET_MAX);
		a->kubelet_minor = (int)minor;
		break;
	}
	case OPT_CLOSEST:
		a->closest = true;
		break;
	case OPT_CGROUP_CONF:
		a->cgroup_conf = true;
		break;
	case OPT_ROOT:
		/* "" would name / by accident, as "$ROOT" unset in a script does */
		if (!*arg)
			argp_error(state, "empty --root directory (--root / names this system)");
		a->root = arg;
		break;
	case OPT_NODE_NAME:
		if (!valid_node_name(arg))
			argp_error(state, "invalid node name: '%s' (letters, digits, '.', '_', '-', "
				   "and a hostlist's '[', ']', ',')", arg);
		a->node_name = arg;
		break;
	case OPT_MEM_SPEC: {
		uint64_t bytes;

		if (rm_size_parse(arg, &bytes, &msg)) {
			char line[256];

			snprintf(line, sizeof(line), "%s", msg);
			free(msg);
			argp_error(state, "%s", line);
		}
		if (!bytes || bytes % (1 << 20))
			argp_error(state, "MemSpecLimit is in whole MiB: '%s' (e.g. 512M or 8G; a "
				   "plain number is bytes)", arg);
		a->mem_spec = bytes >> 20;
		break;
	}
	case OPT_OUTPUT_FILE:
		if (!*arg)
			argp_error(state, "empty --output file name");
		a->output = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->format)
			argp_error(state, "unexpected argument: '%s'", arg);
		if (strcmp(arg, "kubelet") && strcmp(arg, "slurm") && strcmp(arg, "systemd"))
			argp_error(state, "unknown export format: '%s' (kubelet, slurm, systemd)", arg);
		a->format = arg;
		break;
	case ARGP_KEY_END:
		if (!a->format)
			argp_error(state, "missing FORMAT (kubelet, slurm, systemd)");
		if (strcmp(a->format, "systemd") && a->root)
			argp_error(state, "--root is for systemd");
		if (strcmp(a->format, "kubelet") && a->policy >= 0)
			argp_error(state, "--policy is for kubelet");
		if (strcmp(a->format, "kubelet") && (a->kubelet_minor || a->closest))
			argp_error(state, "--%s is for kubelet", a->closest ? "prefer-closest-numa-nodes" :
				   "kubelet-version");
		if (a->closest && (a->policy < 0 || a->policy == RM_TM_NONE))
			argp_error(state, "--prefer-closest-numa-nodes needs a Topology Manager --policy "
				   "other than none");
		for (size_t i = 0; i < NOPTIONS; i++)
			if (strcmp(a->format, "kubelet") && a->given[i])
				argp_error(state, "--%s is for kubelet", kubelet_options[i]);
		if (strcmp(a->format, "slurm") && (a->node_name || a->mem_spec || a->output ||
						     a->cgroup_conf))
			argp_error(state, "--%s is for slurm", a->node_name ? "node-name" :
				   a->mem_spec ? "mem-spec-limit" : a->output ? "output" : "cgroup-conf");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The CPUs rmtools gave out into GIVEN: the reserved pool and every owner's CPUs. With F, a
 * comment line per part saying why, each starting with PREFIX. */
static void given_out(const struct pool *p, hwloc_bitmap_t given, FILE *f, const char *prefix)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	char *list;

	hwloc_bitmap_or(given, p->reserved, p->exclusive);
	if (f && !hwloc_bitmap_iszero(p->reserved)) {
		list = rm_cpulist_format(p->reserved);
		fprintf(f, "%s%s: rm-cpuset's reserved pool\n", prefix, list);
		free(list);
	}
	for (size_t i = 0; f && i < p->st.nrecords; i++) {
		const struct rm_record *r = &p->st.records[i];

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		pool_owner_cpus(r, cpus);
		if (hwloc_bitmap_iszero(cpus)) /* in the shared pool */
			continue;
		list = rm_cpulist_format(cpus);
		fprintf(f, "%s%s: owner %s's exclusive CPUs\n", prefix, list, rm_record_get(r, "owner"));
		free(list);
	}
	hwloc_bitmap_free(cpus);
}

static const struct policy_option *policy_option(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_options); i++)
		if (!strcmp(policy_options[i].name, name))
			return &policy_options[i];
	abort();
}

/* The first release that knows option O, as 1.N. */
static int option_since(const struct policy_option *o)
{
	for (int v = 0; v < KUBELET_NVERSIONS; v++)
		if (o->stage[v] != NO)
			return KUBELET_MIN + v;
	return 0;
}

/*
 * A KubeletConfiguration drop-in for the kubelet's --config-dir keeping the kubelet off every
 * CPU rmtools gave out: reservedSystemCPUs holds them, and strict-cpu-reservation keeps the
 * pods of the shared pool off them too when owners hold some (without it the kubelet runs
 * best-effort and burstable pods on reservedSystemCPUs).
 */
/* The kubelet's default hard eviction threshold for memory (evictionHard memory.available). */
#define KUBELET_EVICTION_HARD (100ULL << 20)

/* The bytes of a memory reserve ("ID:BYTES,..."; NULL or "" for none) in all. */
static uint64_t reserve_sum(const char *reserve)
{
	char *copy, *tok, *save = NULL;
	uint64_t sum = 0;

	if (!reserve)
		return 0;
	copy = xstrdup(reserve);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strchr(tok, ':'))
			sum += strtoull(strchr(tok, ':') + 1, NULL, 10);
	free(copy);
	return sum;
}

/* Whether the memory reserve is too small for the kubelet: no more than the eviction threshold. */
static bool kubelet_memory_short(const char *reserve)
{
	uint64_t sum = reserve_sum(reserve);

	return sum && sum <= KUBELET_EVICTION_HARD;
}

/*
 * The Memory Manager's part: from the memory reserve (reserve --memory; "ID:BYTES,..." or NULL)
 * memoryManagerPolicy Static and reservedMemory, and the systemReserved memory that makes their
 * sum acceptable: the kubelet starts the Memory Manager only when the sum over the nodes equals
 * kubeReserved + systemReserved + evictionHard memory.available (100Mi by default). Huge pages
 * are left out: kubeReserved and systemReserved cannot hold them, so any hugepages-* entry
 * would break that equality. Nothing without a reserve.
 */
static void kubelet_memory(const char *reserve)
{
	char *copy, *tok, *save = NULL, *q;
	uint64_t sum = reserve_sum(reserve);

	if (!sum)
		return;
	q = rm_size_quantity(sum);
	printf("# reservedMemory: the memory reserved per NUMA node (rm-cpuset reserve --memory, "
	       "%s in all);\n# systemReserved memory: that sum less the default evictionHard "
	       "memory.available (100Mi),\n# as the Memory Manager needs them equal (with no "
	       "kubeReserved memory)\n", q);
	free(q);
	puts("memoryManagerPolicy: Static");
	puts("reservedMemory:");
	copy = xstrdup(reserve);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t bytes;

		if (!colon || !(bytes = strtoull(colon + 1, NULL, 10)))
			continue;
		*colon = '\0';
		q = rm_size_quantity(bytes);
		printf("- numaNode: %s\n  limits:\n    memory: %s\n", tok, q);
		free(q);
	}
	free(copy);
	q = rm_size_quantity(sum - KUBELET_EVICTION_HARD);
	printf("systemReserved:\n  memory: %s\n", q);
	free(q);
}

static void export_kubelet(struct pool *p, struct export_args *a)
{
	const char *names[ARRAY_SIZE(policy_options)];
	bool owners = !hwloc_bitmap_iszero(p->exclusive), gates[2][2] = { { false } };
	int minor = a->kubelet_minor ? a->kubelet_minor : KUBELET_MAX, rc;
	int numa = hwloc_get_nbobjs_by_type(p->t->topo, HWLOC_OBJ_NUMANODE);
	hwloc_bitmap_t given = hwloc_bitmap_alloc();
	size_t n = 0;
	char *msg = NULL, *list;
	bool tm_any = false;

	if ((rc = rm_cpualloc_check_opts(p->ct, &a->opts, a->policy < 0 ? RM_TM_NONE : a->policy,
					 &msg))) {
		hwloc_bitmap_free(given);
		pool_close(p);
		pool_fail(rc, msg);
	}
	for (size_t i = 0; i < NOPTIONS; i++)
		if (a->given[i])
			names[n++] = kubelet_options[i];
	if (p->strict || owners)
		names[n++] = "strict-cpu-reservation";
	if (a->closest)
		names[n++] = "prefer-closest-numa-nodes";
	if (numa > KUBELET_MAX_NUMA && a->policy > RM_TM_NONE)
		names[n++] = "max-allowable-numa-nodes";
	/* every option known to the release, before anything is printed */
	for (size_t i = 0; i < n; i++) {
		const struct policy_option *o = policy_option(names[i]);
		enum stage st = o->stage[minor - KUBELET_MIN];

		if (st == NO) {
			msg = xasprintf("kubelet 1.%d does not know the %s Manager policy option '%s' "
					"(kubelet 1.%d and later do%s)", minor, o->cpu ? "CPU" : "Topology",
					o->name, option_since(o),
					!strcmp(o->name, "strict-cpu-reservation") ?
					(owners ? "; it keeps the pods off the owners' CPUs" :
						  "; it keeps the pods off a strict reservation") :
					!strcmp(o->name, "max-allowable-numa-nodes") ?
					"; it lets the Topology Manager run on more than 8 NUMA nodes" : "");
			hwloc_bitmap_free(given);
			pool_close(p);
			pool_fail(RM_CPUALLOC_EINVAL, msg);
		}
		if (st == AL || st == BE)
			gates[!o->cpu][st == BE] = true;
		tm_any |= !o->cpu;
	}
	if (kubelet_memory_short(pool_reserved_memory(p))) {
		hwloc_bitmap_free(given);
		pool_close(p);
		pool_fail(RM_CPUALLOC_EINVAL,
			  xstrdup("the memory reserve (rm-cpuset reserve --memory) must be more than "
				  "the kubelet's default hard eviction threshold for memory (100Mi)"));
	}
	printf("# KubeletConfiguration drop-in from rm-cpuset for kubelet 1.%d: a file of the "
	       "kubelet's\n# --config-dir, e.g. /etc/kubernetes/kubelet.conf.d/50-rmtools-cpuset.conf\n"
	       "# reservedSystemCPUs: the CPUs rmtools gave out, which the kubelet gives no pod:\n",
	       minor);
	given_out(p, given, stdout, "#   ");
	if (owners)
		puts("# strict-cpu-reservation: no pod runs on them, not even in the shared pool");
	puts("apiVersion: kubelet.config.k8s.io/v1beta1\n"
	     "kind: KubeletConfiguration");
	if (gates[0][0] || gates[0][1] || gates[1][0] || gates[1][1]) {
		static const char *const gate_names[2][2] = {
			{ "CPUManagerPolicyAlphaOptions", "CPUManagerPolicyBetaOptions" },
			{ "TopologyManagerPolicyAlphaOptions", "TopologyManagerPolicyBetaOptions" },
		};

		puts("featureGates:");
		for (int m = 0; m < 2; m++)
			for (int b = 0; b < 2; b++)
				if (gates[m][b])
					printf("  %s: true\n", gate_names[m][b]);
	}
	puts("cpuManagerPolicy: static");
	for (size_t i = 0, first = 1; i < n; i++)
		if (policy_option(names[i])->cpu) {
			if (first)
				puts("cpuManagerPolicyOptions:");
			first = 0;
			printf("  %s: \"true\"\n", names[i]);
		}
	list = rm_cpulist_format(given);
	printf("reservedSystemCPUs: \"%s\"\n", list);
	free(list);
	kubelet_memory(pool_reserved_memory(p));
	if (a->policy >= 0)
		printf("topologyManagerPolicy: %s\n", rm_tm_policy_name(a->policy));
	if (tm_any) {
		puts("topologyManagerPolicyOptions:");
		for (size_t i = 0; i < n; i++)
			if (!policy_option(names[i])->cpu) {
				if (!strcmp(names[i], "max-allowable-numa-nodes"))
					printf("  %s: \"%d\"\n", names[i], numa);
				else
					printf("  %s: \"true\"\n", names[i]);
			}
	}
	hwloc_bitmap_free(given);
}

/* The drop-ins of export systemd --root as they were, to put them back when one cannot be
 * written: every file's previous text (NULL: there was none) and the directories made, each a
 * path relative to the root's descriptor. */
struct undo {
	int rootfd;
	const char *root;
	bool root_made;
	char *rel[8], *old[8];
	size_t nfiles;
	char *dirs[32];
	size_t ndirs;
};

/* The directory of REL below ROOTFD, opened without following a link, and REL's last component
 * in *BASE: a descriptor, or -1 with errno. */
static int open_parent(int rootfd, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	char *dir = xasprintf("%.*s", slash ? (int)(slash - rel) : 0, rel);
	int fd = rm_tree_open_dir(rootfd, dir, false), saved = errno;

	*base = slash ? slash + 1 : rel;
	free(dir);
	errno = saved;
	return fd;
}

/* The text of NAME in DIRFD into *TEXT (NULL when it does not exist): 0, or -1 with errno. */
static int read_old(int dirfd, const char *name, char **text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = NULL, *m;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), c, saved;

	*text = NULL;
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(f = fdopen(fd, "r")) || !(m = open_memstream(&buf, &len))) {
		saved = errno;
		f ? fclose(f) : close(fd);
		errno = saved;
		return -1;
	}
	while ((c = getc(f)) != EOF)
		putc(c, m);
	saved = ferror(f) ? errno : 0;
	fclose(f);
	if (fclose(m) || saved) {
		free(buf);
		errno = saved ? saved : ENOMEM;
		return -1;
	}
	*text = buf;
	return 0;
}

/* Write TEXT to the output NAME in DIRFD (PATH in messages): 0, or -1 with *MSG. */
static int put_text(int dirfd, const char *name, const char *path, const char *text, char **msg)
{
	struct rm_atomic a;

	if (rm_atomic_open_output(&a, dirfd, name, path, 0644, msg) < 0)
		return -1;
	fputs(text, a.f);
	return rm_atomic_commit(&a, msg);
}

/* Put back what U recorded; 0, or -1 with *FAILED naming the file left as written. */
static int undo_files(struct undo *u, char **failed)
{
	const char *base;
	int rc = 0, fd;

	for (size_t i = u->nfiles; i-- > 0;) {
		char *msg = NULL, *path = xasprintf("%s/%s", u->root, u->rel[i]);

		fd = open_parent(u->rootfd, u->rel[i], &base);
		if (fd < 0 || (u->old[i] ? put_text(fd, base, path, u->old[i], &msg) != 0 :
				unlinkat(fd, base, 0) != 0 && errno != ENOENT)) {
			if (!rc)
				*failed = xstrdup(path);
			rc = -1;
		}
		if (fd >= 0)
			close(fd);
		free(msg);
		free(path);
	}
	for (size_t i = u->ndirs; i-- > 0;) {
		/* only when empty: what was made for the files */
		if ((fd = open_parent(u->rootfd, u->dirs[i], &base)) >= 0) {
			unlinkat(fd, base, AT_REMOVEDIR);
			close(fd);
		}
	}
	if (u->root_made)
		rmdir(u->root);
	return rc;
}

static void undo_free(struct undo *u)
{
	for (size_t i = 0; i < u->nfiles; i++) {
		free(u->rel[i]);
		free(u->old[i]);
	}
	for (size_t i = 0; i < u->ndirs; i++)
		free(u->dirs[i]);
	close(u->rootfd);
}

/* Exit 1 with MSG after putting back the files written so far, saying so. */
__attribute__((noreturn))
static void undo_fail(struct undo *u, char *msg)
{
	char *failed = NULL;

	if (undo_files(u, &failed))
		rm_errx(RM_EXIT_FAILURE, "%s; '%s' could not be put back as it was, and the drop-ins "
			"written stand", msg, failed);
	rm_errx(RM_EXIT_FAILURE, "%s; the drop-ins written before were put back, nothing was "
		"changed", msg);
}

/* Exit 2 when a component of REL below ROOTFD is a symlink: one found before any is followed,
 * since the components before it are not links. */
static void refuse_links(int rootfd, const char *root, const char *rel)
{
	char *p = xstrdup(rel), *slash = p;
	struct stat st;

	do {
		slash = strchr(slash + 1, '/');
		if (slash)
			*slash = '\0';
		if (fstatat(rootfd, p, &st, AT_SYMLINK_NOFOLLOW) < 0)
			break; /* missing: made below; anything else is said when written */
		if (S_ISLNK(st.st_mode))
			rm_usage_errx("a symlink below --root is not followed: '%s/%s'", root, p);
		if (slash)
			*slash = '/';
	} while (slash);
	free(p);
}

/* Write TEXT to REL below U's root, its directories made as needed (mkdirat, openat with
 * O_NOFOLLOW from the root's descriptor), recording in U how to put it back. */
static void write_file(struct undo *u, const char *rel, const char *text)
{
	char *p = xstrdup(rel), *slash, *full = xasprintf("%s/%s", u->root, rel), *msg, *old;
	const char *base = strrchr(rel, '/') + 1;
	int fd = openat(u->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;

	for (char *s = p; fd >= 0 && (slash = strchr(s, '/')); s = slash + 1) {
		*slash = '\0';
		next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirat(fd, s, 0755) == 0) {
			if (u->ndirs < ARRAY_SIZE(u->dirs))
				u->dirs[u->ndirs++] = xstrdup(p);
			next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		close(fd);
		fd = next;
		if (fd < 0)
			undo_fail(u, xasprintf("cannot create %s/%s: %s", u->root, p,
					       strerror(errno)));
		*slash = '/';
	}
	free(p);
	if (read_old(fd, base, &old))
		undo_fail(u, xasprintf("cannot read %s: %s", full, strerror(errno)));
	/* a dot-file beside it (which watchers ignore), fsynced and renamed into place */
	if (put_text(fd, base, full, text, &msg)) {
		free(old);
		undo_fail(u, msg);
	}
	close(fd);
	free(full);
	u->rel[u->nfiles] = xstrdup(rel);
	u->old[u->nfiles++] = old;
}

static void export_systemd(struct export_args *a, const char *reserved)
{
	static const struct { const char *path, *section, *key; } files[] = {
		{ "etc/systemd/system.conf.d/50-rmtools-cpuset.conf", "Manager", "CPUAffinity" },
		{ "etc/systemd/system/system.slice.d/50-rmtools-cpuset.conf", "Slice", "AllowedCPUs" },
		{ "etc/systemd/system/user.slice.d/50-rmtools-cpuset.conf", "Slice", "AllowedCPUs" },
		{ "etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf", "Scope", "AllowedCPUs" },
	};

	struct undo u = { .rootfd = -1, .root = a->root };

	if (a->root) {
		/* DIR itself as given (made when missing); nothing below it is followed, each
		 * link refused first */
		if ((u.rootfd = open(a->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 &&
		    errno == ENOENT && mkdir(a->root, 0755) == 0) {
			u.root_made = true;
			u.rootfd = open(a->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (u.rootfd < 0)
			rm_err(RM_EXIT_FAILURE, "cannot create %s", a->root);
		for (size_t i = 0; i < ARRAY_SIZE(files); i++)
			refuse_links(u.rootfd, a->root, files[i].path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *text = xasprintf("# from rm-cpuset: system services on the reserved CPUs\n"
				       "[%s]\n%s=%s\n", files[i].section, files[i].key, reserved);

		if (a->root)
			write_file(&u, files[i].path, text);
		else
			printf("%s# /%s\n%s", i ? "\n" : "", files[i].path, text);
		free(text);
	}
	if (!a->root)
		return;
	/* all written: the commit; then the report */
	rm_committed("wrote the systemd drop-ins under '%s'", a->root);
	for (size_t i = 0; i < u.nfiles; i++) {
		char *path = xasprintf("%s/%s", a->root, u.rel[i]);

		fputs("file=", stdout);
		rm_record_write_value(stdout, path);
		putchar('\n');
		free(path);
	}
	undo_free(&u);
}

/* The NodeName: --node-name, or the host name up to its first dot, as slurmd -C prints it. */
static char *node_name(const struct export_args *a)
{
	char host[256] = "", *dot;

	if (a->node_name)
		return xstrdup(a->node_name);
	if (gethostname(host, sizeof(host) - 1))
		rm_err(RM_EXIT_FAILURE, "cannot get the host name");
	if ((dot = strchr(host, '.')))
		*dot = '\0';
	return xstrdup(host);
}

/* RealMemory in MiB: MemTotal (/proc/meminfo) as slurmd computes it on a machine or a snapshot;
 * the NUMA nodes' memory for an XML or synthetic topology. 0 when unknown. */
static uint64_t real_memory(const struct pool *p)
{
	if (rm_input_sysfs(p->t->in))
		return rm_slurm_real_memory(rm_input_root(p->t->in));
	return hwloc_get_root_obj(p->t->topo)->total_memory >> 20;
}

/*
 * The node line slurmd -C prints, with the reservation as CpuSpecList= (Slurm's abstract CPU
 * IDs). Slurm widens CpuSpecList= to whole cores, so a reservation of part of a core is refused:
 * Slurm would keep jobs off CPUs that rm-cpuset hands out.
 */
static char *slurm_text(struct pool *p, const struct export_args *a)
{
	hwloc_topology_t topo = p->t->topo;
	hwloc_bitmap_t whole = hwloc_bitmap_alloc(), ids, given;
	struct rm_slurm_node n;
	char *msg = NULL, *name, *text = NULL, *spec, *linux_cpus;
	size_t len = 0;
	uint64_t real;
	unsigned cpu;
	FILE *f;

	if (rm_slurm_node(topo, &n, &msg)) {
		hwloc_bitmap_free(whole);
		pool_close(p);
		pool_fail(RM_CPUALLOC_EINVAL, msg);
	}
	given = hwloc_bitmap_alloc();
	given_out(p, given, NULL, NULL);
	hwloc_bitmap_foreach_begin(cpu, given) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, cpu);
		hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : NULL;

		if (core)
			hwloc_bitmap_or(whole, whole, core->cpuset);
	}
	hwloc_bitmap_foreach_end();
	if (!hwloc_bitmap_isequal(whole, given)) {
		char *have = rm_cpulist_format(given), *want = rm_cpulist_format(whole);

		if (hwloc_bitmap_iszero(p->exclusive))
			msg = xasprintf("the reserved CPUs are not whole cores, and Slurm widens "
					"CpuSpecList to whole cores: '%s' (reserve the whole cores: "
					"'rm-cpuset reserve %s')", have, want);
		else
			msg = xasprintf("the CPUs reserved and allocated are not whole cores, and Slurm "
					"widens CpuSpecList to whole cores: '%s' (the whole cores are "
					"'%s': reserve them, or allocate with --full-pcpus-only)", have,
					want);
		free(have);
		free(want);
		hwloc_bitmap_free(whole);
		hwloc_bitmap_free(given);
		pool_close(p);
		pool_fail(RM_CPUALLOC_EINVAL, msg);
	}
	hwloc_bitmap_free(whole);
	real = real_memory(p);
	if (a->mem_spec && real && a->mem_spec >= real) {
		msg = xasprintf("MemSpecLimit must be less than RealMemory (%" PRIu64 " MiB): "
				"'%" PRIu64 "MiB'", real, a->mem_spec);
		hwloc_bitmap_free(given);
		pool_close(p);
		pool_fail(RM_CPUALLOC_EINVAL, msg);
	}
	if (!real)
		rm_warnx("the topology states no memory size: RealMemory= left out");

	ids = hwloc_bitmap_alloc();
	rm_slurm_cpus(topo, given, n.threads_per_core, ids);
	name = node_name(a);
	if (!(f = open_memstream(&text, &len)))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	fputs("# slurm.conf NodeName line from rm-cpuset export slurm; CpuSpecList= holds Slurm's "
	      "abstract CPU IDs", f);
	if (!hwloc_bitmap_iszero(ids)) {
		linux_cpus = rm_cpulist_format(given);
		fprintf(f, " (Linux CPUs %s)\n", linux_cpus);
		free(linux_cpus);
		fputs("# CpuSpecList: the CPUs rmtools gave out, on which Slurm runs no job:\n", f);
		given_out(p, given, f, "#   ");
		/* CpuSpecList confines slurmd to those CPUs unless SlurmdOffSpec keeps it off them */
		if (!hwloc_bitmap_iszero(p->exclusive))
			fputs("# TaskPluginParam=SlurmdOffSpec keeps slurmd off them too, "
			      "TaskPlugin=task/cgroup enforces it\n"
			      "TaskPlugin=task/cgroup,task/affinity\n"
			      "TaskPluginParam=SlurmdOffSpec\n", f);
	}
	if (hwloc_bitmap_iszero(ids))
		fputc('\n', f);
	fprintf(f, "NodeName=%s CPUs=%u Boards=%u SocketsPerBoard=%u CoresPerSocket=%u "
		"ThreadsPerCore=%u", name, n.cpus, n.boards, n.sockets, n.cores_per_socket,
		n.threads_per_core);
	if (real)
		fprintf(f, " RealMemory=%" PRIu64, real);
	if (!hwloc_bitmap_iszero(ids)) {
		spec = rm_cpulist_format(ids);
		fprintf(f, " CpuSpecList=%s", spec);
		free(spec);
	}
	if (a->mem_spec)
		fprintf(f, " MemSpecLimit=%" PRIu64, a->mem_spec);
	fputc('\n', f);
	if (a->cgroup_conf)
		fprintf(f, "# cgroup.conf: Slurm's cgroups enforce CpuSpecList=%s and the devices of "
			"gres.conf File=\n"
			"CgroupPlugin=autodetect\n"
			"ConstrainCores=yes\n"
			"ConstrainDevices=yes\n%s",
			a->mem_spec ? ", MemSpecLimit=" : "",
			a->mem_spec ? "ConstrainRAMSpace=yes\n" : "");
	if (fclose(f))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	hwloc_bitmap_free(ids);
	hwloc_bitmap_free(given);
	free(name);
	return text;
}

static void export_slurm(struct pool *p, const struct export_args *a)
{
	char *text = slurm_text(p, a), *msg;

	if (!a->output) {
		fputs(text, stdout);
	} else if (rm_atomic_write(a->output, text, strlen(text), 0644, &msg)) {
		free(text);
		pool_close(p);
		pool_fail(RM_CPUALLOC_EINTERNAL, msg);
	} else {
		rm_committed("wrote '%s'", a->output);
	}
	free(text);
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		export_options, export_parse, "kubelet|slurm|systemd",
		"Print configuration that matches the reservation. kubelet: a KubeletConfiguration "
		"drop-in (static CPU manager policy, reservedSystemCPUs, the policy options given, "
		"strict-cpu-reservation when the reservation is strict, topologyManagerPolicy). "
		"slurm: the slurm.conf NodeName line of slurmd -C with the reserved CPUs as "
		"CpuSpecList= (Slurm's abstract CPU IDs; whole cores only) and MemSpecLimit= when "
		"given. systemd: drop-ins keeping system services on the reserved CPUs (CPUAffinity= "
		"for the manager, AllowedCPUs= for system.slice, user.slice and init.scope).",
		NULL, NULL, NULL
	};
	struct export_args a = { .policy = -1 };
	struct pool p;
	char *reserved, *msg = NULL;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT);
	if (a.output && rm_atomic_check(a.output, &msg) < 0)
		rm_usage_errx("%s", msg);
	pool_open(&p, c, 0);
	if (!strcmp(a.format, "slurm")) {
		/* a node without reserved CPUs is still a node: no CpuSpecList= then */
		export_slurm(&p, &a);
		pool_close(&p);
		return RM_EXIT_SUCCESS;
	}
	if (!strcmp(a.format, "kubelet")) {
		if (hwloc_bitmap_iszero(p.reserved) && hwloc_bitmap_iszero(p.exclusive))
			rm_usage_errx("no CPUs are reserved or allocated: run 'rm-cpuset reserve' "
				      "first (the kubelet's static policy needs reserved CPUs)");
		export_kubelet(&p, &a);
		pool_close(&p);
		return RM_EXIT_SUCCESS;
	}
	if (hwloc_bitmap_iszero(p.reserved))
		rm_usage_errx("no CPUs are reserved: run 'rm-cpuset reserve' first");
	reserved = rm_cpulist_format(p.reserved);
	export_systemd(&a, reserved);
	free(reserved);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}
