/* SPDX-License-Identifier: GPL-2.0 */
/*
 * imtcp's measurement on a real socket: the glue between the TCP stack
 * and the kernel-independent control and measurement units in core/.
 */
#ifndef _IMTCP_MEAS_H
#define _IMTCP_MEAS_H

#include <net/tcp.h>

#include "core/imtcp_cu.h"
#include "core/imtcp_est.h"
#include "core/imtcp_busy.h"

/*
 * What readers outside the socket (netlink) see of it: written with
 * WRITE_ONCE by the socket's owner, read under RCU with READ_ONCE, so a
 * reader never touches the socket itself.
 */
struct imtcp_pub {
	u64 estimate_bps;	/* 0: none yet */
	u64 raw_bps;		/* the latest result */
	u64 probe_bps;		/* the latest result before the busy bounds */
	u64 busy_bps;		/* busy-link delivery rate at that result */
	u64 range_lo_bps;
	u64 range_hi_bps;
	u32 dlv_segs;		/* delivery rate: segments delivered .. */
	u32 dlv_us;		/* .. over this many us (tp->rate_*) */
	u32 mss;
	unsigned long est_jiffies;	/* when the latest result came */
	u32 measurements;
	u32 streams_failed;
	u64 hold_us;		/* time spent holding (STORE) */
	u64 stream_us;		/* time spent sending streams (SEND) */
	u32 srtt_us;
	u32 min_rtt_us;
	u32 cwnd;
	u64 envelope_bps;	/* see imtcp_envelope_bps */
	u8 state;
	u8 m;
	u8 reason;		/* IMTCP_REASON_*: why no estimate */
	u8 bound;		/* IMTCP_BOUND_* of the latest result */
};

/*
 * What getsockopt(TCP_CC_INFO) reports, kept in the socket's private
 * area (struct imtcp in imtcp_main.c), never behind a pointer: get_info
 * runs without the socket lock, and a setsockopt(TCP_CONGESTION) on the
 * same socket may meanwhile free the measurement state and hand the area
 * to another congestion control. Read so, these are at worst stale or
 * another module's bytes, never an address. Written with WRITE_ONCE by
 * the socket's owner.
 */
struct imtcp_info {
	u64 estimate_bps;		/* 0: none yet */
	unsigned long est_jiffies;	/* when the latest result came */
	u32 measurements;
	u8 measuring;			/* measurement state was allocated */
	u8 state;
	u8 m;
};

/* Per-socket measurement state, allocated in init (may be absent). */
struct imtcp_meas {
	struct list_head node;		/* in the registry (imtcp_nl.c) */
	struct rcu_head rcu;
	struct net *net;		/* the socket's; used only while it lives */
	u64 id;				/* registry order, for resumable dumps */
	struct imtcp_pub pub;
	struct imtcp_info *info;	/* in the socket's private area */
	u8 family;			/* AF_INET, AF_INET6 */
	bool mptcp;			/* a subflow of an MPTCP connection */
	__be16 sport, dport;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	struct imtcp_cu cu;
	struct imtcp_est est;
	struct imtcp_est_cfg cfg;
	struct imtcp_stream st[IMTCP_K_MAX];
	u32 stream_seq[IMTCP_K_MAX];	/* first sequence number of stream */
	u32 stream_end;			/* snd_nxt after the last stream */
	u64 cookie;			/* socket cookie, as ss shows it */
	u32 mss;			/* segment size of the streams */
	u64 dlv_max_bps;		/* highest recent delivery rate */
	struct imtcp_busy busy;		/* .. and while the link was busy */
	s32 delay_max[2];		/* top sample delay, this and last */
	s32 delay_min[2];		/* lowest, this and last (0: none) */
	u32 streams_failed;
	u64 stream_t0_ns;		/* first departure of the stream */
	u16 saved_gso_max_segs;		/* while a stream goes out */
	u16 gso_segs;			/* what we set it to meanwhile */
	bool shaped;			/* gso_max_segs is ours */
};

int imtcp_meas_init(void);
void imtcp_meas_exit(void);
struct imtcp_meas *imtcp_meas_alloc(struct sock *sk, struct imtcp_info *info);
void imtcp_meas_free(struct sock *sk, struct imtcp_meas *m);
void imtcp_meas_on_ack(struct sock *sk, struct imtcp_meas *m,
		       const struct rate_sample *rs);
u32 imtcp_meas_on_send(struct sock *sk, struct imtcp_meas *m);
void imtcp_meas_pause(struct sock *sk, struct imtcp_meas *m);
bool imtcp_meas_owns_pacing(const struct imtcp_meas *m);

/* imtcp_nl.c: the registry of measuring sockets and the netlink family */
int imtcp_nl_init(void);
void imtcp_nl_exit(void);
void imtcp_registry_add(struct imtcp_meas *m);
void imtcp_registry_del(struct imtcp_meas *m);
void imtcp_nl_estimate_event(const struct imtcp_meas *m);
void imtcp_stat_alloc_failed(const struct net *net);
void imtcp_stat_estimate(const struct net *net);
void imtcp_stat_stream_failed(const struct net *net);
void imtcp_stat_out_of_envelope(const struct net *net);

#endif /* _IMTCP_MEAS_H */
