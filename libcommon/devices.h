/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCI devices from sysfs: what they are, where they sit, their device nodes; device hints. */
#ifndef RM_DEVICES_H
#define RM_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "cpualloc.h"
#include "output.h"
#include "record.h"

/* Device types, by class code (and vendor, driver and InfiniBand link layer where the class
 * alone does not tell). The order is the one of rm_devices_type_name's names. */
enum rm_device_type {
	RM_DEV_GPU,
	RM_DEV_NIC,
	RM_DEV_IB,
	RM_DEV_FPGA,
	RM_DEV_ACCEL,
	RM_DEV_NVME,
	RM_DEV_VFIO, /* any function bound to vfio-pci, for a guest or a user-space driver */
	RM_DEV_OTHER,
	RM_DEV_NTYPES
};

/* "gpu", "nic", "ib", "fpga", "accel", "nvme", "vfio", "other". */
const char *rm_devices_type_name(enum rm_device_type type);
/* The type for NAME, or -1. */
int rm_devices_type_parse(const char *name);

/* The vendor domain of device resource names DOMAIN/TYPE (CDI kinds, device plugin resources)
 * when none is given. */
#define RM_DEVICES_VENDOR_DEFAULT "rmtools.io"
/* Whether D is a vendor domain as CDI and Kubernetes take it: a DNS subdomain, labels of
 * [a-z0-9-], alphanumeric at both ends, a letter first. */
bool rm_devices_domain_valid(const char *d);

/* A device node a process needs to use a device. */
struct rm_devnode {
	char *path;    /* /dev/nvidia0, /dev/dri/renderD128, /dev/infiniband/uverbs0 */
	char kind;     /* 'c' or 'b' */
	char *devfile; /* sysfs file holding "MAJOR:MINOR" (relative to the sysroot), or NULL */
	int major, minor; /* when devfile is NULL: fixed numbers, or -1 (dynamic, unknown) */
};

enum rm_sriov { RM_SRIOV_NONE, RM_SRIOV_PF, RM_SRIOV_VF };

/* One PCI function. Strings are NULL when unknown; numbers -1 (sizes 0). */
struct rm_device {
	char addr[24];               /* 0000:3b:00.0 */
	enum rm_device_type type;
	unsigned class_code;         /* 0xCCSSPP */
	int vendor, product, subvendor, subproduct;
	char *vendor_name, *product_name; /* from pci.ids (rm_devices_names) */
	char *driver;
	int numa;                    /* -1: the kernel says none */
	hwloc_bitmap_t cpus;         /* local_cpulist; NULL when unknown */
	char *root;                  /* the PCI root (host bridge) "0000:17" */
	char *path;                  /* the bridges from the root down: "0000:17:00.0/0000:18:00.0" */
	char *sw;                    /* the upstream port of the switch just above it */
	int iommu_group;
	char *link_speed;            /* "16.0GT/s" */
	int link_width;
	enum rm_sriov sriov;
	int numvfs, totalvfs;        /* PF */
	char *pf;                    /* VF: its PF's address */
	struct rm_devnode *nodes;    /* its own device nodes */
	size_t nnodes;
	struct rm_devnode *shared;   /* nodes its driver's users all need (/dev/nvidiactl) */
	size_t nshared;
	char *netdevs;               /* "ib0,ib1" */
	char *rdma;                  /* "mlx5_0" */
	char *ib_state, *link_layer; /* per port: "active,down", "infiniband,ethernet" */
	uint64_t memory;             /* GPU memory: sysfs (amdgpu), NVML (nvidia); 0 unknown */
	uint64_t bar;                /* the largest memory BAR; 0 unknown */
	int index;                   /* its position among the devices of its type, by address */
	uint64_t key;                /* the address as one number, for sorting */
};

struct rm_devices {
	struct rm_device *dev; /* sorted by address */
	size_t n;
	void *pci;             /* libpci's access, for names */
};

enum rm_devices_flags {
	RM_DEVICES_ALL = 1 << 0,   /* every PCI function, not only those of a known type */
	RM_DEVICES_NAMES = 1 << 1, /* vendor and product names from pci.ids */
	RM_DEVICES_MEMORY = 1 << 2, /* this machine's NVIDIA GPUs' memory, from NVML */
};

/*
 * Read the PCI functions under SYSROOT/sys/bus/pci/devices (SYSROOT NULL for this machine).
 * Without RM_DEVICES_ALL, functions of type "other" are left out. A missing directory is a
 * machine without PCI devices. With RM_DEVICES_MEMORY and SYSROOT NULL, the memory of GPUs bound
 * to the nvidia driver is asked of NVML (libnvidia-ml.so.1, loaded for the scan and unloaded
 * after): without the library it stays unknown; when NVML fails it stays unknown and one warning
 * names NVML's error. Returns 0, or -1 with *ERRMSG when SYSROOT is not a directory.
 */
int rm_devices_scan(const char *sysroot, unsigned flags, struct rm_devices *devs, char **errmsg);
void rm_devices_free(struct rm_devices *devs);

/* Normalise a PCI address ("3b:00.0", "0000:3B:00.0") into BUF (24 bytes); -1 when malformed. */
int rm_devices_addr_parse(const char *s, char *buf);

/* The device at ADDR (normalised), or NULL. */
struct rm_device *rm_devices_find(const struct rm_devices *devs, const char *addr);

/* The device's name for people and CDI: its type and index, "gpu0". Allocated. */
char *rm_devices_name(const struct rm_device *d);

/* The connection between two devices, as nvidia-smi topo -m names it: "X" (itself), "PIX" (at
 * most one PCIe switch), "PXB" (several switches, not the host bridge), "PHB" (through the host
 * bridge: one PCI root), "NODE" (several roots of one NUMA node), "SYS" (across NUMA nodes). */
const char *rm_devices_link(const struct rm_device *a, const struct rm_device *b);

/* The MAJOR:MINOR of a device node; -1 when unknown. */
int rm_devices_node_number(const char *sysroot, const struct rm_devnode *n, int *maj,
			   int *min);

/* The fields of device records, in order, and those shown by default. */
extern const struct rm_column rm_devices_columns[];
extern const size_t rm_devices_ncolumns;
extern const char rm_devices_defaults[];

/* One device record into OUT (a listing of rm_devices_columns). */
void rm_devices_out(struct rm_out *out, const struct rm_device *d);

/* The device as a record with every field (what rm-class matches). REC is emptied first. */
void rm_devices_record(const struct rm_device *d, struct rm_record *rec);

/* Return values of the choosing functions below (as cpualloc's). */
enum {
	RM_DEVICES_EINVAL = RM_CPUALLOC_EINVAL,
	RM_DEVICES_ENOSPC = RM_CPUALLOC_ENOSPC,
};

/*
 * The NUMA affinity the kubelet's Topology Manager gives a request for COUNT devices, the device
 * manager being one hint provider (generateDeviceTopologyHints: every set of NUMA nodes whose
 * free devices can hold COUNT, preferred when it has as few nodes as the devices of the type,
 * free or not, could need; no hints when no device has a NUMA node) and PROVIDER (NULL or empty
 * for none) a second one that needs those nodes (the owner's CPUs; its hints are every node set
 * holding them, preferred when exactly them). ALL and FREE are the devices of the type; NODES the
 * machine's NUMA nodes. HINT receives the nodes chosen, empty for no preference. Under
 * restricted and single-numa-node an unacceptable affinity is ENOSPC with a message naming the
 * free devices per node; NAME names the devices in it and their provider in the decision shown
 * ("gpu": "gpu devices"). TM (NULL: defaults) holds the Topology Manager's options (with
 * TM->explain, the decision is written there), DISTANCE (NULL: unknown) the distances between
 * NODES; the hints are merged by topomgr.
 */
int rm_devices_hint(struct rm_device *const *all, size_t nall, struct rm_device *const *free_devs,
		    size_t nfree, hwloc_const_bitmap_t nodes, unsigned count,
		    hwloc_const_bitmap_t provider, enum rm_tm_policy policy,
		    const struct rm_tm_config *tm, const unsigned *distance, const char *name,
		    hwloc_bitmap_t hint, char **errmsg);

/*
 * Choose COUNT of the N devices CAND into PICK (indexes into CAND, in address order): those on
 * the HINT nodes first (none: no preference), the rest after, devices without a NUMA node last;
 * within each, the smallest PCI switch, else PCI root, else NUMA node that holds what is needed,
 * else the largest ones first. SAME_ROOT: all on one PCI root, else ENOSPC. Not enough: ENOSPC
 * ("not enough free WHAT: requested N, available M").
 */
int rm_devices_choose(struct rm_device *const *cand, size_t n, unsigned count,
		      hwloc_const_bitmap_t hint, bool same_root, const char *what, size_t *pick,
		      char **errmsg);

/*
 * What rm-devices reads below a sysroot, for rm-topo snapshot. Globs relative to the root;
 * RM_DEVICES_SNAP_LINK entries are symbolic links to copy as links (their targets' last
 * components are what is read), RM_DEVICES_SNAP_FILE entries regular files. The list ends with a
 * NULL glob.
 */
enum rm_devices_snap_kind { RM_DEVICES_SNAP_FILE, RM_DEVICES_SNAP_LINK };
struct rm_devices_snap_path {
	const char *glob;
	enum rm_devices_snap_kind kind;
};
extern const struct rm_devices_snap_path rm_devices_snapshot_paths[];

/*
 * Copy what rm-devices reads from ROOT (NULL: this machine) into DIR, keeping the layout the
 * kernel gives: each function's directory where sys/bus/pci/devices/ADDR points (below
 * sys/devices/pci*), that link, and the driver, iommu_group, physfn and virtfn links. Unreadable
 * files are left out. Returns the number of files and links copied, or -1 with *ERRMSG.
 */
int rm_devices_snapshot(const char *root, const char *dir, char **errmsg);
/* The same into the directory open at DIRFD (named DIR in messages): every directory, file and
 * link made relative to its parent's fd through no link, so none can land outside it. */
int rm_devices_snapshot_at(const char *root, int dirfd, const char *dir, char **errmsg);

#endif
