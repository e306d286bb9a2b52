/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output and argument helpers shared by imtcp's tools (imtcp-stat,
 * imtcp-media, imtcp-mptcp-backup).
 */
#ifndef _IMTCP_FMT_H
#define _IMTCP_FMT_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* 28100000 -> "28.1Mbps", as ss prints rates. */
static inline const char *imtcp_rate_str(uint64_t bps, char *buf, size_t len)
{
	if (bps >= 1000000000ULL)
		snprintf(buf, len, "%.2fGbps", bps / 1e9);
	else if (bps >= 1000000)
		snprintf(buf, len, "%.1fMbps", bps / 1e6);
	else if (bps >= 1000)
		snprintf(buf, len, "%.1fKbps", bps / 1e3);
	else
		snprintf(buf, len, "%" PRIu64 "bps", bps);
	return buf;
}

/* A decimal number in [lo, hi]. */
static inline bool imtcp_parse_uint(const char *s, unsigned int lo,
				    unsigned int hi, unsigned int *v)
{
	unsigned long x;
	char *end;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* "2.5" (Mbit/s) -> 2500000; false unless a rate in [1 kbit/s, max_bps]. */
static inline bool imtcp_parse_mbit(const char *s, uint64_t max_bps,
				    uint64_t *bps)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v * 1e6 > max_bps)
		return false;
	*bps = (uint64_t)llround(v * 1e6);
	return *bps >= 1000;
}

#endif /* _IMTCP_FMT_H */
