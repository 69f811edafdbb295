/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Libraries loaded on first use: open and resolve, or exit 1 saying what is missing. */
#include "config.h"

#include <dlfcn.h>

#include "dynlib.h"
#include "exitcodes.h"
#include "msg.h"

void *rm_dl_open_mode(const char *soname, int mode)
{
	void *h = dlopen(soname, mode);

	if (!h)
		rm_errx(RM_EXIT_FAILURE, "cannot load %s: %s", soname, dlerror());
	return h;
}

void *rm_dl_open(const char *soname)
{
	return rm_dl_open_mode(soname, RTLD_NOW | RTLD_LOCAL);
}

void *rm_dl_sym(void *h, const char *soname, const char *name)
{
	void *f = dlsym(h, name);

	if (!f)
		rm_errx(RM_EXIT_FAILURE, "cannot load %s: no %s in it", soname, name);
	return f;
}
