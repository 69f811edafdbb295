/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Report write errors on standard output at exit instead of losing them silently. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <unistd.h>

#include "closestream.h"
#include "exitcodes.h"
#include "msg.h"

/*
 * As fclose, but the stream's buffer is not freed: the descriptor is closed after the flush.
 * Freeing that buffer at the end of a run that destroyed a large topology makes malloc
 * consolidate every freed chunk, which costs more than the rest of a short run's output; the
 * exit that follows frees the buffer anyway, and nothing is left in it to write.
 */
static int close_stream(FILE *stream)
{
	const int some_pending = (__fpending(stream) != 0);
	const int prev_fail = ferror(stream);
	const int fclose_fail = fflush(stream) == EOF || close(fileno(stream)) != 0;

	if (prev_fail || (fclose_fail && (some_pending || errno != EBADF))) {
		if (!fclose_fail && !(errno == EPIPE))
			errno = 0;
		return EOF;
	}
	return 0;
}

/* The reason of the first failed rm_flush_stdout: stdio keeps only an error flag, and
 * close_stream cannot tell the reason afterwards. */
static int flush_errno;

bool rm_flush_stdout(void)
{
	if (fflush(stdout) != EOF)
		return true;
	if (!flush_errno)
		flush_errno = errno;
	return false;
}

void rm_close_stdout(void)
{
	int errnum = close_stream(stdout) != 0 ? (errno ? errno : flush_errno) : -1;

	if (errnum >= 0 && errnum != EPIPE) {
		/* a copy: the message below says it, once, so the commit is cleared first */
		char *change = rm_committed_change() ? strdup(rm_committed_change()) : NULL;
		bool committed = rm_committed_change() != NULL;

		rm_committed_clear();
		if (committed && !change)
			change = (char *)"the change";
		errno = errnum;
		if (change && errnum)
			rm_warn("%s stands, but its report could not be written", change);
		else if (change)
			rm_warnx("%s stands, but its report could not be written", change);
		else if (errnum)
			rm_warn("write error");
		else
			rm_warnx("write error");
		_exit(committed ? RM_EXIT_REPORT : RM_EXIT_FAILURE);
	}
	/* stderr stays open: sanitizers and later atexit handlers still report through it */
	if (fflush(stderr) != 0)
		_exit(RM_EXIT_FAILURE);
}

void rm_guard_std_fds(void)
{
	/* A descriptor 0-2 closed by the caller (`>&-`) would be reused by the first file the tool
	 * opens, and the report would be written into a state or lock file. Fill each gap with
	 * /dev/null opened for the other direction, so that writes to it fail (EBADF) and are
	 * reported instead of vanishing. */
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int nfd = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (nfd < 0)
			_exit(RM_EXIT_FAILURE);
		if (nfd != fd) {
			if (dup2(nfd, fd) < 0)
				_exit(RM_EXIT_FAILURE);
			close(nfd);
		}
	}
}
