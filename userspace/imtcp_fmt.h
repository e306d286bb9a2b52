/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output helpers shared by imtcp's tools (imtcp-stat, imtcp-media).
 */
#ifndef _IMTCP_FMT_H
#define _IMTCP_FMT_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

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

#endif /* _IMTCP_FMT_H */
