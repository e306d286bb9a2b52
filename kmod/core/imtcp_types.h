/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types for the kernel-independent parts of imtcp.
 *
 * Everything under kmod/core/ is plain C that builds both into the module
 * and into the userspace unit tests (tests/unit). This header is the only
 * place that knows which of the two it is being built for, and holds the
 * unit helpers both the module and the core need.
 *
 * Units: a rate named _bps is in bits per second, _Bps in bytes per
 * second (what sk_pacing_rate holds); times carry _us or _ns.
 */
#ifndef _IMTCP_TYPES_H
#define _IMTCP_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#define U8_MAX ((u8)~0U)
#define U64_MAX ((u64)~0ULL)

#define min_t(type, a, b) ({ type _a = (a); type _b = (b); _a < _b ? _a : _b; })
#define max_t(type, a, b) ({ type _a = (a); type _b = (b); _a > _b ? _a : _b; })
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}
#endif /* __KERNEL__ */

/* @segs segments of @mss bytes in @us microseconds, in bit/s (0 if @us is 0). */
static inline u64 imtcp_rate_bps(u32 segs, u32 mss, u32 us)
{
	return us ? div_u64((u64)segs * mss * 8 * 1000000, us) : 0;
}

/*
 * What sk_pacing_rate takes (bytes per second) for a rate in bits per
 * second: the one place where the module's bit rates meet the kernel's
 * byte rate (tcp_update_skb_after_send: len * NSEC_PER_SEC / rate).
 */
static inline u64 imtcp_pacing_Bps(u64 rate_bps)
{
	return rate_bps / 8;
}

/*
 * The rate in bits per second of a kernel byte rate (an application's
 * SO_MAX_PACING_RATE), saturating where it would overflow.
 */
static inline u64 imtcp_bps_of_pacing_Bps(u64 pacing_Bps)
{
	return pacing_Bps > U64_MAX / 8 ? U64_MAX : pacing_Bps * 8;
}

/*
 * Where a measurement's result lies in the search range it probed
 * (imtcp_fit.c); the busy-link bounds (imtcp_busy.c) move it too.
 */
enum imtcp_edge {
	IMTCP_EDGE_NONE,
	IMTCP_EDGE_LOW,		/* A at or below the range's low end */
	IMTCP_EDGE_HIGH,	/* A at or above its high end */
};

/* Segments per stream (the paper's N): the range of stream_len. */
#define IMTCP_N_MIN		5
#define IMTCP_N_MAX		16

#endif /* _IMTCP_TYPES_H */
