/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libhwloc opened at the first call that needs a topology, for a tool whose common commands
 * read sysfs alone (rm-topo's listings). Linked, libhwloc costs every run the loading of
 * libhwloc, libudev and libm, more than such a command's own work; these commands still use
 * hwloc's bitmaps, though, so the tool is linked as follows (configure's HWLOC_LAZY):
 *  - hwloc's bitmap comes from libhwloc.a: statically linked, and exported from the program
 *    (libcommon/hwloc-lazy.list), so that libhwloc.so and its plugins, once opened, use the
 *    same bitmap code on the same bitmaps rather than a second copy of it;
 *  - every other hwloc function the tool calls is defined here: on its first call, it opens
 *    libhwloc.so.15 (hwloc 2.x, as configure requires) and calls the library's. RTLD_GLOBAL
 *    because hwloc's plugins (PCI, libxml2) look up hwloc's symbols in the global scope; lazy
 *    binding as a linked library has. Not thread-safe before the first call (rm-topo runs one
 *    thread).
 * The header's inline helpers call exported functions too (hwloc_get_nbobjs_by_type calls
 * hwloc_get_type_depth): the list holds what `nm -u` of the tool shows. A function missing from
 * it fails the link (it would pull the rest of libhwloc.a, which defines these again and needs
 * libudev): add it here. This file is built into such a tool alone, never into libcommon.a,
 * whose other tools link libhwloc.so.
 */
#include "config.h"

#include <dlfcn.h>
#include <hwloc.h>

#include "dynlib.h"

#define HWLOC_SONAME "libhwloc.so.15"

/* R(return type, function, parameters, arguments); V(...) for a function returning void */
#define HWLOC_LAZY_FUNCTIONS(R, V)                                                              \
	R(int, hwloc_topology_init, (hwloc_topology_t * t), (t))                                \
	R(int, hwloc_topology_set_components, (hwloc_topology_t t, unsigned long f, const char *n), \
	  (t, f, n))                                                                            \
	R(int, hwloc_topology_set_flags, (hwloc_topology_t t, unsigned long f), (t, f))        \
	R(int, hwloc_topology_set_icache_types_filter,                                          \
	  (hwloc_topology_t t, enum hwloc_type_filter_e f), (t, f))                             \
	R(int, hwloc_topology_set_io_types_filter, (hwloc_topology_t t, enum hwloc_type_filter_e f), \
	  (t, f))                                                                               \
	R(int, hwloc_topology_set_synthetic, (hwloc_topology_t t, const char *d), (t, d))      \
	R(int, hwloc_topology_set_xmlbuffer, (hwloc_topology_t t, const char *b, int n), (t, b, n)) \
	R(int, hwloc_topology_load, (hwloc_topology_t t), (t))                                  \
	V(hwloc_topology_destroy, (hwloc_topology_t t), (t))                                    \
	R(hwloc_const_cpuset_t, hwloc_topology_get_allowed_cpuset, (hwloc_topology_t t), (t))  \
	R(hwloc_const_cpuset_t, hwloc_topology_get_complete_cpuset, (hwloc_topology_t t), (t)) \
	R(hwloc_const_cpuset_t, hwloc_topology_get_topology_cpuset, (hwloc_topology_t t), (t)) \
	R(int, hwloc_get_type_depth, (hwloc_topology_t t, hwloc_obj_type_t y), (t, y))         \
	R(unsigned, hwloc_get_nbobjs_by_depth, (hwloc_topology_t t, int d), (t, d))            \
	R(hwloc_obj_t, hwloc_get_obj_by_depth, (hwloc_topology_t t, int d, unsigned i), (t, d, i)) \
	R(const char *, hwloc_obj_type_string, (hwloc_obj_type_t y), (y))                       \
	R(int, hwloc_obj_type_is_cache, (hwloc_obj_type_t y), (y))                              \
	R(int, hwloc_obj_type_is_icache, (hwloc_obj_type_t y), (y))                             \
	R(int, hwloc_get_proc_cpubind, (hwloc_topology_t t, hwloc_pid_t p, hwloc_cpuset_t s, int f), \
	  (t, p, s, f))                                                                         \
	R(int, hwloc_cpukinds_get_nr, (hwloc_topology_t t, unsigned long f), (t, f))           \
	R(int, hwloc_cpukinds_get_by_cpuset,                                                    \
	  (hwloc_topology_t t, hwloc_const_bitmap_t s, unsigned long f), (t, s, f))             \
	R(int, hwloc_cpukinds_get_info,                                                         \
	  (hwloc_topology_t t, unsigned k, hwloc_bitmap_t s, int *e, unsigned *n,               \
	   struct hwloc_info_s **i, unsigned long f),                                           \
	  (t, k, s, e, n, i, f))                                                                \
	R(int, hwloc_distances_get_by_name,                                                     \
	  (hwloc_topology_t t, const char *m, unsigned *n, struct hwloc_distances_s **d,        \
	   unsigned long f),                                                                    \
	  (t, m, n, d, f))                                                                      \
	R(int, hwloc_distances_get_by_type,                                                     \
	  (hwloc_topology_t t, hwloc_obj_type_t y, unsigned *n, struct hwloc_distances_s **d,   \
	   unsigned long k, unsigned long f),                                                   \
	  (t, y, n, d, k, f))                                                                   \
	V(hwloc_distances_release, (hwloc_topology_t t, struct hwloc_distances_s *d), (t, d))

/* The function NAME of libhwloc, the library opened at the first call. */
static void *hwloc_lazy_sym(const char *name)
{
	static void *h;

	if (!h)
		h = rm_dl_open_mode(HWLOC_SONAME, RTLD_LAZY | RTLD_GLOBAL);
	return rm_dl_sym(h, HWLOC_SONAME, name);
}

/* each function resolved at its own first call, as the dynamic linker's lazy binding does */
#define HWLOC_LAZY_FN_(f)                                                                       \
	static __typeof__(f) *fn_;                                                             \
	if (!fn_)                                                                               \
		fn_ = (__typeof__(f) *)hwloc_lazy_sym(#f)
#define HWLOC_LAZY_R_(ret, f, params, args)                                                     \
	ret f params                                                                            \
	{                                                                                       \
		HWLOC_LAZY_FN_(f);                                                              \
		return fn_ args;                                                                \
	}
#define HWLOC_LAZY_V_(f, params, args)                                                          \
	void f params                                                                           \
	{                                                                                       \
		HWLOC_LAZY_FN_(f);                                                              \
		fn_ args;                                                                       \
	}
HWLOC_LAZY_FUNCTIONS(HWLOC_LAZY_R_, HWLOC_LAZY_V_)
