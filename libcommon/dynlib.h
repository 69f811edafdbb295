/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Libraries loaded on first use (dlopen) rather than linked, for what few commands need. */
#ifndef RM_DYNLIB_H
#define RM_DYNLIB_H

/* Open SONAME (RTLD_NOW | RTLD_LOCAL), or exit 1 saying why. */
void *rm_dl_open(const char *soname);

/* The same with dlopen's MODE: RTLD_GLOBAL for a library whose plugins find its symbols in the
 * global scope, as hwloc's do. */
void *rm_dl_open_mode(const char *soname, int mode);

/* The symbol NAME of the library H (opened as SONAME), or exit 1 naming it. */
void *rm_dl_sym(void *h, const char *soname, const char *name);

/*
 * Fill the structure S of function pointers named as the functions of LIST (an X-macro list,
 * X(function) each) from SONAME, once; later calls find it filled.
 */
#define RM_DL_LOAD(s, soname, LIST)                                                    \
	do {                                                                           \
		static void *handle_;                                                  \
		if (!handle_) {                                                        \
			__typeof__(s) *s_ = &(s);                                      \
			const char *soname_ = (soname);                                \
			void *h_ = rm_dl_open(soname_);                                \
			LIST(RM_DL_SYM_)                                               \
			handle_ = h_;                                                  \
		}                                                                      \
	} while (0)
#define RM_DL_SYM_(f) s_->f = (__typeof__(f) *)rm_dl_sym(h_, soname_, #f);

#endif
