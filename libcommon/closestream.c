/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Report write errors on standard output at exit instead of losing them silently. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <unistd.h>

#include "closestream.h"
#include "exitcodes.h"

static int close_stream(FILE *stream)
{
	const int some_pending = (__fpending(stream) != 0);
	const int prev_fail = ferror(stream);
	const int fclose_fail = fclose(stream);

	if (prev_fail || (fclose_fail && (some_pending || errno != EBADF))) {
		if (!fclose_fail && !(errno == EPIPE))
			errno = 0;
		return EOF;
	}
	return 0;
}

void rm_close_stdout(void)
{
	if (close_stream(stdout) != 0 && errno != EPIPE) {
		if (errno)
			fprintf(stderr, "%s: write error: %m\n", program_invocation_short_name);
		else
			fprintf(stderr, "%s: write error\n", program_invocation_short_name);
		_exit(RM_EXIT_FAILURE);
	}
	/* stderr stays open: sanitizers and later atexit handlers still report through it */
	if (fflush(stderr) != 0)
		_exit(RM_EXIT_FAILURE);
}
