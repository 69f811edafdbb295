/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sizes: parse "2MiB", "1G", "4096"; print with the largest binary unit that is exact. */
#ifndef RM_SIZE_H
#define RM_SIZE_H

#include <stdint.h>

/*
 * Accepts an unsigned integer followed by nothing or B (bytes), KiB/MiB/GiB/TiB/PiB/EiB, or the
 * binary shorthands K/M/G/T/P/E (also KB, MB, ... read as binary, as the kernel does). Returns 0,
 * or -1 with *ERRMSG allocated ("invalid size: '12X'", "size too large: '...'").
 */
int rm_size_parse(const char *str, uint64_t *bytes, char **errmsg);

/* "512B", "1536KiB", "2MiB", "64GiB": the largest unit that divides exactly. Allocated. */
char *rm_size_format(uint64_t bytes);

/* A Kubernetes quantity: "512", "1536Ki", "2Mi", "64Gi" (the largest binary suffix that divides
 * exactly). Allocated. */
char *rm_size_quantity(uint64_t bytes);

#endif
