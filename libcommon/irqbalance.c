/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A running irqbalance told its banned CPUs through its socket, without a restart. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "irqbalance.h"
#include "sysfs.h"
#include "xalloc.h"

/* irqbalance (ui/irqbalance-ui.c, irqbalance.c sock_handle) reads one message of at most 500
 * bytes per connection and acts only on one carrying SCM_CREDENTIALS of uid 0. */
#define MSG_MAX 500
#define TIMEOUT_MS 2000

/* A connected socket to irqbalance PID: 1.8 and later bind ROOT/run/irqbalance/irqbalancePID.sock
 * and fall back to the abstract address of all zero bytes; 1.4 to 1.7 bind the abstract
 * irqbalancePID.sock. The abstract ones are this machine's only. -1 when none answers. */
static int connect_daemon(const char *root, int pid)
{
	struct timeval tv = { TIMEOUT_MS / 1000, (TIMEOUT_MS % 1000) * 1000 };
	char rel[64], *path;
	bool live = !root || !*root || !strcmp(root, "/");

	snprintf(rel, sizeof(rel), "run/irqbalance/irqbalance%d.sock", pid);
	path = rm_sysfs_path(root, rel);
	for (int how = 0; how < (live ? 3 : 1); how++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		socklen_t len = sizeof(a);
		int fd;

		if (how == 0) {
			if (strlen(path) >= sizeof(a.sun_path))
				continue;
			strcpy(a.sun_path, path);
		} else if (how == 1) {
			len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
					  (size_t)snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
							   "irqbalance%d.sock", pid));
		}
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			break;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&a, len) == 0) {
			free(path);
			return fd;
		}
		close(fd);
	}
	free(path);
	return -1;
}

/* Send TEXT with this process's credentials; with REPLY, read the answer (up to SIZE-1 bytes)
 * until irqbalance closes the connection. 0, or -1 with errno. */
static int exchange(const char *root, int pid, const char *text, char *reply, size_t size)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl = { 0 };
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	struct ucred cred = { getpid(), geteuid(), getegid() };
	int fd = connect_daemon(root, pid), saved;
	size_t got = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		goto fail;
	if (reply) {
		/* bounded: the receive timeout and the buffer's size */
		while (got + 1 < size && (n = recv(fd, reply + got, size - 1 - got, 0)) > 0)
			got += (size_t)n;
		if (n < 0 && !got)
			goto fail;
		reply[got] = '\0';
	}
	close(fd);
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int rm_irqbalance_ban(const char *root, int pid, const char *list, char **errmsg)
{
	char text[MSG_MAX + 1], reply[512];

	if (snprintf(text, sizeof(text), "settings cpus %s", list && *list ? list : "NULL") >=
	    MSG_MAX) {
		*errmsg = xasprintf("the banned CPUs %s do not fit in irqbalance's message", list);
		return -1;
	}
	if (exchange(root, pid, text, NULL, 0)) {
		*errmsg = xasprintf("irqbalance (pid %d) has no socket that answers: %s", pid,
				    strerror(errno));
		return 1;
	}
	/* irqbalance answers "setup" once it has handled the connections before it: the new
	 * banned CPUs then count from its next pass on */
	if (exchange(root, pid, "setup", reply, sizeof(reply)) || strncmp(reply, "SLEEP ", 6)) {
		*errmsg = xasprintf("irqbalance (pid %d) did not confirm its banned CPUs", pid);
		return -1;
	}
	return 0;
}
