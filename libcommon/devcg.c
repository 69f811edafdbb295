/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device access of a cgroup v2: an allow-list BPF_PROG_TYPE_CGROUP_DEVICE program, replaced. */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "devcg.h"
#include "xalloc.h"

/*
 * The program is written out instruction by instruction, as runc and crun write theirs: libbpf
 * would need the same instructions (or a BPF compiler at build time) for a dozen compares.
 */
#define NAME "rmtools_grant" /* how a later grant finds the program it replaces */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	return (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src, .off = off,
				  .imm = imm };
}

/* r2 = type, r3 = major, r4 = minor; per rule: a match returns 1; no match returns 0. */
static struct bpf_insn *program(const struct rm_devcg_rule *r, size_t n, size_t *len)
{
	struct bpf_insn *p = xcalloc(5 + 5 * n + 2, sizeof(*p));
	size_t k = 0;

	/* struct bpf_cgroup_dev_ctx: access_type (access << 16 | type), major, minor */
	p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0);
	p[k++] = insn(BPF_ALU | BPF_AND | BPF_K, 2, 0, 0, 0xffff);
	p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, 3, 1, 4, 0);
	p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, 4, 1, 8, 0);
	for (size_t i = 0; i < n; i++) {
		int16_t skip = r[i].minor < 0 ? 3 : 4; /* to the next rule */

		p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, 2, 0, skip--,
			      r[i].kind == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR);
		p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, 3, 0, skip--, r[i].major);
		if (r[i].minor >= 0)
			p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, 4, 0, skip--, r[i].minor);
		p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
		p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	*len = k;
	return p;
}

static int load(const struct rm_devcg_rule *rules, size_t n)
{
	size_t len;
	struct bpf_insn *p = program(rules, n, &len);
	union bpf_attr a;
	int fd, e;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = (uint32_t)len;
	a.license = (uint64_t)(uintptr_t) "GPL";
	memcpy(a.prog_name, NAME, sizeof(NAME));
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	e = errno;
	free(p);
	errno = e;
	return fd;
}

static uint32_t prog_id(int fd, char name[BPF_OBJ_NAME_LEN])
{
	struct bpf_prog_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return 0;
	if (name)
		memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	return info.id;
}

static int attach(int cgfd, int fd, int cmd)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)cgfd;
	a.attach_bpf_fd = (uint32_t)fd;
	a.attach_type = BPF_CGROUP_DEVICE;
	a.attach_flags = cmd == BPF_PROG_ATTACH ? BPF_F_ALLOW_MULTI : 0;
	return sys_bpf(cmd, &a);
}

/* Detach the programs named NAME attached to CGFD, but KEEP's; their number, or -1. */
static int detach_others(int cgfd, uint32_t keep)
{
	uint32_t ids[64];
	union bpf_attr a;
	int detached = 0;

	memset(&a, 0, sizeof(a));
	a.query.target_fd = (uint32_t)cgfd;
	a.query.attach_type = BPF_CGROUP_DEVICE;
	a.query.prog_ids = (uint64_t)(uintptr_t)ids;
	a.query.prog_cnt = 64;
	if (sys_bpf(BPF_PROG_QUERY, &a) < 0)
		return -1;
	for (uint32_t i = 0; i < a.query.prog_cnt && i < 64; i++) {
		union bpf_attr g;
		char name[BPF_OBJ_NAME_LEN];
		int fd;

		if (ids[i] == keep)
			continue;
		memset(&g, 0, sizeof(g));
		g.prog_id = ids[i];
		if ((fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &g)) < 0)
			return -1;
		if (prog_id(fd, name) && !strncmp(name, NAME, sizeof(name)) &&
		    attach(cgfd, fd, BPF_PROG_DETACH) == 0)
			detached++;
		close(fd);
	}
	return detached;
}

int rm_devcg_replace(int cgfd, const struct rm_devcg_rule *rules, size_t n, uint32_t *id,
		     char **errmsg)
{
	int fd = load(rules, n);
	uint32_t new_id;

	if (fd < 0) {
		*errmsg = xasprintf("cannot load the device program (BPF_PROG_LOAD): %s%s",
				    strerror(errno), errno == EPERM ? "; granting needs root" : "");
		return -1;
	}
	new_id = prog_id(fd, NULL);
	/* the new program first, then the old ones off: no moment without one */
	if (attach(cgfd, fd, BPF_PROG_ATTACH) < 0) {
		*errmsg = xasprintf("cannot attach the device program (BPF_PROG_ATTACH): %s",
				    strerror(errno));
		close(fd);
		return -1;
	}
	if (detach_others(cgfd, new_id) < 0) {
		*errmsg = xasprintf("cannot detach the earlier device program: %s", strerror(errno));
		attach(cgfd, fd, BPF_PROG_DETACH);
		close(fd);
		return -1;
	}
	close(fd); /* the cgroup holds the program now */
	if (id)
		*id = new_id;
	return 0;
}

int rm_devcg_remove(int cgfd, char **errmsg)
{
	if (detach_others(cgfd, 0) < 0) {
		*errmsg = xasprintf("cannot detach the device program: %s", strerror(errno));
		return -1;
	}
	return 0;
}
