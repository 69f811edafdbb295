/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "check.h"
int main(void)
{
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
