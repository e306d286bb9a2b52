/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * imtcp's userspace interface: the generic netlink family "imtcp" and the
 * layout getsockopt(TCP_CC_INFO) returns on an imtcp socket. Shared by
 * the module and the tools (userspace/), and described in
 * Documentation/netlink/imtcp.yaml.
 */
#ifndef _UAPI_IMTCP_H
#define _UAPI_IMTCP_H

#include <linux/types.h>

#define IMTCP_GENL_NAME		"imtcp"
#define IMTCP_GENL_VERSION	1
#define IMTCP_MCGRP_ESTIMATES	"estimates"

/*
 * The shortest write, in full segments, that sets an application-limited
 * sender's stream length; writes of fewer never refresh its estimate.
 * Behind the benchmark's token bucket of four packets, streams of 6
 * (2 Mbit/s at 25 frames a second, MTU 1500) did not rise at any rate
 * and read 50-115 Mbit/s for A = 11, above C = 30: shorter writes give
 * no estimate rather than a wrong one.
 */
#define IMTCP_WRITE_SEGS_MIN	8

enum {
	IMTCP_CMD_UNSPEC,
	IMTCP_CMD_GET_SOCK,	/* do: one socket (cookie or tuple); dump: all */
	IMTCP_CMD_GET_STATS,	/* counters of the caller's netns */
	IMTCP_CMD_RESET_STATS,	/* zero them; CAP_NET_ADMIN over the netns */
	IMTCP_CMD_ESTIMATE,	/* event on IMTCP_MCGRP_ESTIMATES */
	IMTCP_CMD_WITHDRAW,	/* event: an estimate shown was taken back */
	IMTCP_CMD_MOVE,		/* event: the busy cap moved the one shown */

	__IMTCP_CMD_MAX,
	IMTCP_CMD_MAX = __IMTCP_CMD_MAX - 1
};

/* Attributes; one socket per message. */
enum {
	IMTCP_A_UNSPEC,
	IMTCP_A_PAD,
	IMTCP_A_COOKIE,		/* u64: socket cookie (as ss -e's sk:) */
	IMTCP_A_FAMILY,		/* u8: AF_INET or AF_INET6 */
	IMTCP_A_SADDR4,		/* be32: local address */
	IMTCP_A_DADDR4,		/* be32: peer address */
	IMTCP_A_SADDR6,		/* 16 bytes */
	IMTCP_A_DADDR6,		/* 16 bytes */
	IMTCP_A_SPORT,		/* u16, host order: local port */
	IMTCP_A_DPORT,		/* u16, host order: peer port */
	IMTCP_A_ESTIMATE,	/* u64: available bandwidth, bit/s (0: none) */
	IMTCP_A_RAW,		/* u64: latest result taken, bit/s */
	IMTCP_A_RANGE_LO,	/* u64: search range, bit/s */
	IMTCP_A_RANGE_HI,	/* u64 */
	IMTCP_A_AGE_MS,		/* u32: since the latest result */
	IMTCP_A_MEASUREMENTS,	/* u32: results so far */
	IMTCP_A_STREAMS_FAILED,	/* u32: streams that ran dry */
	IMTCP_A_STATE,		/* u8: enum imtcp_cu_state */
	IMTCP_A_M,		/* u8: held segments that start a stream */
	IMTCP_A_SRTT_US,	/* u32 */
	IMTCP_A_MIN_RTT_US,	/* u32 */
	IMTCP_A_CWND,		/* u32: segments */
	IMTCP_A_DELIVERY,	/* u64: delivery rate, bit/s */
	IMTCP_A_STAT_SOCKETS,	/* u32: imtcp sockets measuring now */
	IMTCP_A_STAT_ESTIMATES,	/* u64: results made */
	IMTCP_A_STAT_STREAMS_FAILED,	/* u64 */
	IMTCP_A_STAT_ALLOC_FAILED,	/* u64: sockets left without measurement */
	IMTCP_A_HOLD_US,	/* u64: time spent holding segments (STORE), us */
	IMTCP_A_STREAM_US,	/* u64: time spent sending streams (SEND), us */
	IMTCP_A_REASON,		/* u8: IMTCP_REASON_*, why no estimate is shown */
	IMTCP_A_ENVELOPE,	/* u64: highest capacity it can measure, bit/s */
	IMTCP_A_STAT_OUT_OF_ENVELOPE,	/* u64: results dropped, path too fast */
	IMTCP_A_PROBE,		/* u64: latest result before the bounds, bit/s */
	IMTCP_A_BUSY,		/* u64: busy-link delivery rate, bit/s (0: none) */
	IMTCP_A_BOUND,		/* u8: IMTCP_BOUND_*, did IMTCP_A_BUSY move it */
	IMTCP_A_MPTCP,		/* u8: 1 if a subflow of an MPTCP connection */
	IMTCP_A_WITHDRAWN,	/* u64: the estimate taken back, bit/s (WITHDRAW) */
	IMTCP_A_CAPACITY,	/* u64: the path's capacity, bit/s (0: none yet) */

	__IMTCP_A_MAX,
	IMTCP_A_MAX = __IMTCP_A_MAX - 1
};

/*
 * The control unit's states (IMTCP_A_STATE); the module's state machine
 * (kmod/core/imtcp_cu.c) uses these values itself.
 */
enum imtcp_state {
	IMTCP_STATE_OFF,	/* measurement paused: loss recovery, CWR, start */
	IMTCP_STATE_STORE,	/* holding segments until m are ready */
	IMTCP_STATE_SEND,	/* a measurement stream is leaving */
	IMTCP_STATE_PASS,	/* all streams sent; waiting for their ACKs */
	IMTCP_STATE_EMPTY,	/* not holding (released; window, budget wait) */

	__IMTCP_STATE_MAX
};

/*
 * Why a socket shows no estimate (IMTCP_A_REASON). ENVELOPE: the path's
 * capacity is above what a stream can measure (IMTCP_A_ENVELOPE: a
 * stream's N segments, even back to back, raise the bottleneck's queue
 * less than the noise threshold); nothing is published while it is.
 * HOLDS_FAILING: no estimate yet, and 8 or more holds or streams failed
 * (a hold ended before a stream's segments gathered, a stream ran dry)
 * since the last result: the sending is not clocked by a bottleneck
 * (loopback, a CPU-bound sender) or the window is too thin; the module
 * backs off (up to 64 RTT between failed holds in a row).
 * WRITES_SHORT: the application's last two finished writes were each
 * shorter than IMTCP_WRITE_SEGS_MIN full segments, too short for a
 * stream; an estimate from the connection's first result alone is
 * withdrawn then, and the next result is taken as a first one.
 * An estimate shown that is taken back (ENVELOPE or WRITES_SHORT) is
 * told to the estimates group as IMTCP_CMD_WITHDRAW: the socket's
 * attributes as they are now (IMTCP_A_ESTIMATE 0, IMTCP_A_REASON why)
 * and IMTCP_A_WITHDRAWN, the estimate that was shown.
 */
enum {
	IMTCP_REASON_NONE,
	IMTCP_REASON_ENVELOPE,
	IMTCP_REASON_HOLDS_FAILING,
	IMTCP_REASON_WRITES_SHORT,
};

/*
 * What the busy-link bounds did to the latest update (IMTCP_A_BOUND).
 * The estimate is held within busy_floor_pct (97) percent of the lower
 * and busy_margin (0) percent above the higher delivery rate the
 * connection had while the bottleneck kept a queue (module parameters;
 * IMTCP_A_BUSY; with own_floor the floor also takes the rate it had
 * while its window limited it, queue or not, and the cap lies no lower
 * than that floor): CAP, the estimate (or, if
 * it was not moved, the latest result) was held down to that; FLOOR,
 * raised to that. Then the figure shown is the delivery rate's, not the
 * probe's (IMTCP_A_PROBE). Between results the figure shown follows the
 * cap (and with own_floor the floor) as it is at each ACK (and back to
 * the estimate). Where that takes it more
 * than an eighth away from what the estimates group last heard of the
 * socket, and an srtt has passed since, the group hears IMTCP_CMD_MOVE:
 * the socket's attributes as they are now (IMTCP_A_ESTIMATE the figure
 * shown, IMTCP_A_BOUND and IMTCP_A_BUSY why).
 */
enum {
	IMTCP_BOUND_NONE,
	IMTCP_BOUND_CAP,
	IMTCP_BOUND_FLOOR,
};

/*
 * getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &info, &len) on an imtcp
 * socket: 20 bytes (union tcp_cc_info's size).
 */
struct imtcp_cc_info {
	__u32	version;	/* IMTCP_CC_INFO_VERSION */
	__u32	estimate_lo;	/* available bandwidth, bit/s, low 32 bits */
	__u32	estimate_hi;	/* high 32 bits; 0 and 0: no estimate yet */
	__u32	age_ms;		/* since the latest result */
	__u16	measurements;	/* results so far, saturating */
	__u8	state;		/* IMTCP_STATE_* */
	__u8	m;
};

#define IMTCP_CC_INFO_VERSION	1

#endif /* _UAPI_IMTCP_H */
