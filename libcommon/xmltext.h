/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text as XML character data or attribute values, for the tools' SVG pictures. */
#ifndef RM_XMLTEXT_H
#define RM_XMLTEXT_H

#include <stdio.h>

/* Write S to F with markup characters as entities, and control characters and bytes that are
 * not UTF-8 as '?', so that the document stays well-formed whatever S holds. */
void rm_xml_text(FILE *f, const char *s);

#endif
