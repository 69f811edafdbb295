/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text as XML character data or attribute values, for the tools' SVG pictures. */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>

#include "xmltext.h"

void rm_xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			     (*p & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && (len > 1 || *p >= 0x20 || *p == '\t');

		for (size_t i = 1; ok && i < len; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			putc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(p, 1, len, f);
		}
		p += len;
	}
}
