/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo draw: a picture of the machine as nested boxes, on a terminal or as SVG, like lstopo. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atomicfile.h"
#include "devices.h"
#include "input.h"
#include "msg.h"
#include "rm-topo.h"
#include "size.h"
#include "xmltext.h"
#include "xalloc.h"

/*
 * The layout is drawn by hand: hwloc's own drawing lives in lstopo, not in the library, and
 * libsmartcols draws tables and trees, not nested boxes. One layout in character cells serves
 * both outputs: the terminal prints the cells, the SVG scales them to pixels.
 */

enum { OPT_ASCII = 0x200, OPT_SVG, OPT_NO_DEVICES, OPT_NO_CACHES };

struct draw_args {
	bool ascii, no_devices, no_caches;
	const char *svg;
};

static const struct argp_option draw_options[] = {
	{ "ascii", OPT_ASCII, NULL, 0, "draw the boxes with +, - and | instead of box characters",
	  0 },
	{ "svg", OPT_SVG, "FILE", 0, "write an SVG picture to FILE (- for standard output)", 0 },
	{ "no-devices", OPT_NO_DEVICES, NULL, 0, "leave out the PCI devices", 0 },
	{ "no-caches", OPT_NO_CACHES, NULL, 0, "leave out the caches", 0 },
	{ 0 }
};

static error_t draw_parse(int key, char *arg, struct argp_state *state)
{
	struct draw_args *a = state->input;

	switch (key) {
	case OPT_ASCII:
		a->ascii = true;
		break;
	case OPT_SVG:
		if (!*arg)
			argp_error(state, "empty --svg file name");
		a->svg = arg;
		break;
	case OPT_NO_DEVICES:
		a->no_devices = true;
		break;
	case OPT_NO_CACHES:
		a->no_caches = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->ascii && a->svg)
			argp_error(state, "--ascii and --svg exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* What a box is, for its colour and its SVG class. */
enum kind { K_MACHINE, K_PACKAGE, K_GROUP, K_NODE, K_CACHE, K_CORE, K_PU, K_DEVICE, K_NKINDS };
static const char *const kind_class[K_NKINDS] = { "machine", "package", "group", "node",
						  "cache",   "core",    "pu",    "device" };
/* lstopo's colours: package grey, node green, caches pale, cores grey, PUs white, devices pale. */
static const char *const kind_fill[K_NKINDS] = { "#ffffff", "#dedede", "#efefef", "#d2e7a4",
						 "#f5f5f5", "#bebebe", "#ffffff", "#dde7f4" };

struct box {
	enum kind kind;
	char *label;
	struct box **kid;
	size_t nkids;
	bool newrow;     /* starts a new row of its parent's children */
	bool break_next; /* the next child added starts a new row */
	int x, y, w, h;  /* in cells, relative to the parent's corner */
	int minw;        /* the width of the widest box of its sort (see fit) */
};

static struct box *box_new(enum kind kind, char *label)
{
	struct box *b = xcalloc(1, sizeof(*b));

	b->kind = kind;
	/* Labels come from sysfs (interface names) too: keep them printable ASCII, one cell each. */
	for (char *p = label; *p; p++)
		if (!isprint((unsigned char)*p))
			*p = '?';
	b->label = label;
	return b;
}

static void box_add(struct box *parent, struct box *b)
{
	parent->kid = xrealloc(parent->kid, (parent->nkids + 1) * sizeof(*parent->kid));
	parent->kid[parent->nkids++] = b;
	b->newrow = parent->break_next;
	parent->break_next = false;
}

static void box_free(struct box *b)
{
	for (size_t i = 0; i < b->nkids; i++)
		box_free(b->kid[i]);
	free(b->kid);
	free(b->label);
	free(b);
}

/* ---- what is drawn ---- */

struct draw_ctx {
	struct rm_topo *t;
	const struct draw_args *a;
	struct rm_devices devs;
	bool have_devs;
	bool *placed; /* per device: drawn under its node's parent */
};

/* "WHAT 16GiB", or "WHAT 3.8GiB" where the exact size would be long (rm_size_format's
 * "4018096KiB"): a picture rounds, as lstopo does. */
static char *sized(const char *what, uint64_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	char *size, *s;
	double v = (double)bytes;
	int u = 0;

	if (!bytes)
		return xstrdup(what);
	size = rm_size_format(bytes);
	if (strlen(size) <= 6) {
		s = xasprintf("%s %s", what, size);
	} else {
		while (v >= 1024 && u < 5) {
			v /= 1024;
			u++;
		}
		s = xasprintf(v < 100 ? "%s %.1f%s" : "%s %.0f%s", what, v, unit[u]);
	}
	free(size);
	return s;
}

/* The number people know an object by: the kernel's for packages, nodes and CPUs (P#), hwloc's
 * logical one for the rest, whose kernel ids repeat across packages. */
static unsigned number(hwloc_obj_t o)
{
	long os = rm_topo_os_index(o);

	return os >= 0 ? (unsigned)os : o->logical_index;
}

static const char *const device_kind[RM_DEV_NTYPES] = {
	[RM_DEV_GPU] = "GPU",     [RM_DEV_NIC] = "NIC",   [RM_DEV_IB] = "IB",
	[RM_DEV_FPGA] = "FPGA",   [RM_DEV_ACCEL] = "Accel", [RM_DEV_NVME] = "NVMe",
	[RM_DEV_VFIO] = "VFIO",   [RM_DEV_OTHER] = "PCI",
};

/* "NVMe 0000:41:00.0 nvme0n1": the type, the address, the names people use (interfaces, RDMA
 * devices, block devices, else the first device node). */
static char *device_label(const struct rm_device *d)
{
	char *names = NULL, *s;

	if (d->netdevs || d->rdma)
		names = xasprintf("%s%s%s", d->rdma ? d->rdma : "", d->rdma && d->netdevs ? "," : "",
				  d->netdevs ? d->netdevs : "");
	for (size_t i = 0; i < d->nnodes && !names; i++)
		if (d->nodes[i].kind == 'b')
			names = xstrdup(strrchr(d->nodes[i].path, '/') + 1);
	if (!names && d->nnodes)
		names = xstrdup(strrchr(d->nodes[0].path, '/') + 1);
	s = xasprintf("%s %s%s%s", device_kind[d->type], d->addr, names ? " " : "",
		      names ? names : "");
	free(names);
	return s;
}

/* The devices on the nodes attached to OBJ (or, for the root, those on no node known here),
 * as its last row of children. */
static void add_devices(struct draw_ctx *x, struct box *b, hwloc_obj_t obj)
{
	bool root = !obj->parent;

	if (!x->have_devs)
		return;
	for (size_t i = 0; i < x->devs.n; i++) {
		const struct rm_device *d = &x->devs.dev[i];
		bool here = false;

		if (x->placed[i])
			continue;
		for (hwloc_obj_t m = obj->memory_first_child; m && !here; m = m->next_sibling)
			here = m->type == HWLOC_OBJ_NUMANODE && d->numa >= 0 &&
			       m->os_index == (unsigned)d->numa;
		if (!here && !root)
			continue;
		if (b->nkids && b->kid[b->nkids - 1]->kind != K_DEVICE)
			b->break_next = true;
		x->placed[i] = true;
		box_add(b, box_new(K_DEVICE, device_label(d)));
	}
}

static void add_memory(struct draw_ctx *x, struct box *b, hwloc_obj_t m)
{
	for (; m; m = m->next_sibling) {
		if (m->type == HWLOC_OBJ_NUMANODE) {
			char *what = xasprintf("NUMA %u", m->os_index);

			box_add(b, box_new(K_NODE, sized(what, m->attr->numanode.local_memory)));
			free(what);
		} else {
			add_memory(x, b, m->memory_first_child); /* a memory-side cache */
		}
	}
}

/* The box for OBJ, or NULL when it is not drawn (its children go to its parent's box). */
static struct box *object_box(struct draw_ctx *x, hwloc_obj_t o)
{
	char label[16];

	if (hwloc_obj_type_is_cache(o->type)) {
		/* L1 caches are one per core: drawing them says nothing the core does not. */
		if (x->a->no_caches || hwloc_obj_type_is_icache(o->type) ||
		    o->attr->cache.depth < 2)
			return NULL;
		snprintf(label, sizeof(label), "L%u", o->attr->cache.depth);
		return box_new(K_CACHE, sized(label, o->attr->cache.size));
	}
	switch (o->type) {
	case HWLOC_OBJ_MACHINE:
		return box_new(K_MACHINE, sized("Machine", o->total_memory));
	case HWLOC_OBJ_PACKAGE:
		return box_new(K_PACKAGE, xasprintf("Package %u", number(o)));
	case HWLOC_OBJ_DIE:
		return box_new(K_GROUP, xasprintf("Die %u", number(o)));
	case HWLOC_OBJ_GROUP:
		return box_new(K_GROUP, xasprintf("Group %u", o->logical_index));
	case HWLOC_OBJ_CORE:
		return box_new(K_CORE, xasprintf("Core %u", o->logical_index));
	case HWLOC_OBJ_PU:
		return box_new(K_PU, xasprintf("PU %u", o->os_index));
	default:
		return NULL;
	}
}

/* OBJ and what it holds into PARENT: its NUMA nodes first, then its children, then the
 * devices on its nodes, each part on its own rows. */
static void build(struct draw_ctx *x, struct box *parent, hwloc_obj_t obj)
{
	struct box *b = object_box(x, obj), *to = b ? b : parent;

	if (b)
		box_add(parent, b);
	if (obj->memory_first_child) {
		to->break_next = to->nkids > 0 && !b;
		add_memory(x, to, obj->memory_first_child);
		to->break_next = true;
	}
	for (hwloc_obj_t c = obj->first_child; c; c = c->next_sibling)
		build(x, to, c);
	if (!x->a->no_devices)
		add_devices(x, to, obj);
}

/* ---- layout in cells ---- */

/* Lay B out within MAXW cells: its children in rows, a row wrapped when the next child would
 * pass MAXW, as lstopo's text mode does. */
static void layout(struct box *b, int maxw)
{
	int inner = maxw - 2, len = (int)strlen(b->label);
	int rowx = 0, rowy = 2, rowh = 0, w = 0;
	size_t first = 0;

	if (inner < 1)
		inner = 1;
	if (len > inner)
		b->label[len = inner] = '\0';
	for (size_t i = 0; i <= b->nkids; i++) {
		struct box *k = i < b->nkids ? b->kid[i] : NULL;

		if (k)
			layout(k, inner);
		if (!k || (rowx && (k->newrow || rowx + 1 + k->w > inner))) {
			/* close the row: its boxes as tall as its tallest */
			for (size_t j = first; j < i; j++)
				b->kid[j]->h = rowh;
			rowy += rowh;
			rowx = rowh = 0;
			first = i;
		}
		if (!k)
			break;
		k->x = 1 + rowx + (rowx ? 1 : 0);
		k->y = rowy;
		rowx = k->x - 1 + k->w;
		if (rowx > w)
			w = rowx;
		if (k->h > rowh)
			rowh = k->h;
	}
	b->w = (len > w ? len : w) + 2;
	if (b->w < b->minw)
		b->w = b->minw <= maxw ? b->minw : maxw;
	b->h = rowy + 1;
}

/* The sort of a box for fit: its kind, and a cache's level. */
static int sort_of(const struct box *b)
{
	return b->kind * 10 + (b->kind == K_CACHE ? b->label[1] - '0' : 0);
}

static void widest(struct box *b, int *w, bool set)
{
	int k = sort_of(b);

	if (set)
		b->minw = b->kind == K_DEVICE || b->kind == K_MACHINE ? 0 : w[k];
	else if (b->w > w[k])
		w[k] = b->w;
	for (size_t i = 0; i < b->nkids; i++)
		widest(b->kid[i], w, set);
}

/* Lay ROOT out within MAXW cells, boxes of a sort (all the PUs, all the cores, all the L2s) as
 * wide as the widest of them where the width allows, as lstopo draws them. */
static void fit(struct box *root, int maxw)
{
	int w[K_NKINDS * 10] = { 0 };

	layout(root, maxw);
	widest(root, w, false);
	widest(root, w, true);
	layout(root, maxw);
}

/* ---- the terminal ---- */

enum cell { C_SPACE, C_H, C_V, C_TL, C_TR, C_BL, C_BR, C_NCELLS };
static const char *const cells_utf8[C_NCELLS] = { " ", "─", "│", "┌", "┐", "└", "┘" };
static const char *const cells_ascii[C_NCELLS] = { " ", "-", "|", "+", "+", "+", "+" };

struct grid {
	int w, h;
	int *c; /* a cell: enum cell, or a character + C_NCELLS */
};

static void grid_box(struct grid *g, const struct box *b, int ox, int oy)
{
	int x0 = ox + b->x, y0 = oy + b->y, x1 = x0 + b->w - 1, y1 = y0 + b->h - 1;
	int *c = g->c;

	for (int x = x0 + 1; x < x1; x++)
		c[y0 * g->w + x] = c[y1 * g->w + x] = C_H;
	for (int y = y0 + 1; y < y1; y++)
		c[y * g->w + x0] = c[y * g->w + x1] = C_V;
	c[y0 * g->w + x0] = C_TL;
	c[y0 * g->w + x1] = C_TR;
	c[y1 * g->w + x0] = C_BL;
	c[y1 * g->w + x1] = C_BR;
	for (int i = 0; b->label[i]; i++)
		c[(y0 + 1) * g->w + x0 + 1 + i] = C_NCELLS + (unsigned char)b->label[i];
	for (size_t i = 0; i < b->nkids; i++)
		grid_box(g, b->kid[i], x0, y0);
}

static void draw_terminal(struct box *root, bool ascii, FILE *f)
{
	const char *const *sym = ascii ? cells_ascii : cells_utf8;
	struct grid g = { root->w, root->h, NULL };

	g.c = xcalloc((size_t)g.w * g.h, sizeof(*g.c));
	grid_box(&g, root, 0, 0);
	for (int y = 0; y < g.h; y++) {
		int end = g.w;

		while (end > 0 && g.c[y * g.w + end - 1] == C_SPACE)
			end--;
		for (int x = 0; x < end; x++) {
			int v = g.c[y * g.w + x];

			if (v >= C_NCELLS)
				putc(v - C_NCELLS, f);
			else
				fputs(sym[v], f);
		}
		putc('\n', f);
	}
	free(g.c);
}

/* The width to draw in: COLUMNS, else the terminal's, else 80 (lstopo's default too). */
static int terminal_width(void)
{
	const char *s = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long n;

	if (s && *s) {
		n = strtol(s, &end, 10);
		if (!*end && n > 0 && n <= 100000)
			return (int)n;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 80;
}

/* ---- SVG ---- */

enum { CW = 9, CH = 20, SVG_COLUMNS = 200 };

/* A box's rectangle runs through the middle of its border cells. */
static void svg_box(FILE *f, const struct box *b, int ox, int oy)
{
	int x0 = ox + b->x, y0 = oy + b->y;

	fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#000000\"/>\n",
		kind_class[b->kind], x0 * CW + CW / 2, y0 * CH + CH / 2, (b->w - 1) * CW,
		(b->h - 1) * CH, kind_fill[b->kind]);
	fprintf(f, "<text x=\"%d\" y=\"%d\">", (x0 + 1) * CW, (y0 + 1) * CH + CH * 3 / 4);
	rm_xml_text(f, b->label);
	fputs("</text>\n", f);
	for (size_t i = 0; i < b->nkids; i++)
		svg_box(f, b->kid[i], x0, y0);
}

static void draw_svg(const struct box *root, const char *title, FILE *f)
{
	int w = root->w * CW, h = root->h * CH;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		w, h, w, h);
	fputs("<title>", f);
	rm_xml_text(f, title);
	fputs("</title>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
	fputs("<g font-family=\"monospace\" font-size=\"14\" stroke-width=\"1\">\n", f);
	svg_box(f, root, 0, 0);
	fputs("</g>\n</svg>\n", f);
}

int cmd_draw(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		draw_options, draw_parse, NULL,
		"A picture of the machine, as lstopo draws it: packages, NUMA nodes with their "
		"memory, L3 and L2 caches, cores, PUs (by the kernel's CPU number) and the PCI "
		"devices on each node, as nested boxes fitted to the terminal's width, or as SVG.",
		NULL, NULL, NULL
	};
	struct draw_args a = { 0 };
	struct draw_ctx x = { 0 };
	const struct rm_input *in;
	struct box *root;
	char *title, *msg = NULL;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT);
	if (a.svg && strcmp(a.svg, "-") && rm_atomic_check(a.svg, &msg) < 0)
		rm_usage_errx("%s", msg);
	x.a = &a;
	x.t = rm_topo_load(c, 0);
	in = rm_input();
	if (!a.no_devices && rm_input_sysfs(in)) {
		/* an XML or synthetic topology has no devices to read */
		if (rm_devices_scan(rm_input_root(in), 0, &x.devs, &msg) < 0) {
			rm_warnx("%s", msg);
			free(msg);
		} else {
			x.have_devs = true;
			x.placed = xcalloc(x.devs.n + 1, sizeof(*x.placed));
		}
	}
	root = box_new(K_MACHINE, xstrdup(""));
	build(&x, root, hwloc_get_root_obj(x.t->topo));
	struct box *machine = root->kid[0];
	root->kid[0] = NULL;
	root->nkids = 0;
	box_free(root);
	root = machine;
	machine->x = machine->y = 0;

	if (a.svg) {
		const char *host = hwloc_obj_get_info_by_name(hwloc_get_root_obj(x.t->topo),
							      "HostName");
		const char *of = rm_input_here(in) ? host : rm_input_name(in);
		struct rm_atomic at;

		title = xasprintf("Topology of %s", of ? of : "this machine");
		fit(root, SVG_COLUMNS);
		if (!strcmp(a.svg, "-")) {
			draw_svg(root, title, stdout);
		} else if (rm_atomic_open(&at, a.svg, 0644, &msg) < 0 ||
			   (draw_svg(root, title, at.f), rm_atomic_commit(&at, &msg) < 0)) {
			free(title);
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
		} else {
			rm_committed("wrote '%s'", a.svg);
		}
		free(title);
	} else {
		fit(root, terminal_width());
		draw_terminal(root, a.ascii, stdout);
	}
	box_free(root);
	if (x.have_devs)
		rm_devices_free(&x.devs);
	free(x.placed);
	rm_topo_free(x.t);
	return RM_EXIT_SUCCESS;
}
