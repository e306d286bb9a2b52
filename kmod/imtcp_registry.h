/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry of measuring sockets (imtcp_registry.c): what readers
 * outside a socket (netlink) may see of it, and the counters of each
 * network namespace.
 */
#ifndef _IMTCP_REGISTRY_H
#define _IMTCP_REGISTRY_H

#include <linux/in6.h>
#include <linux/list.h>
#include <net/net_namespace.h>

/*
 * What readers outside the socket (netlink) see of it: written with
 * WRITE_ONCE by the socket's owner, read under RCU with READ_ONCE, so a
 * reader never touches the socket itself.
 */
struct imtcp_pub {
	u64 estimate_bps;	/* 0: none yet */
	u64 capacity_bps;	/* the path's (imtcp_cap.c); 0: none yet */
	u64 raw_bps;		/* the latest result */
	u64 probe_bps;		/* the latest result before the busy bounds */
	u64 busy_bps;		/* busy-link rate of the bound shown */
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

/* A socket on the registry: who it is and its published figures. */
struct imtcp_entry {
	struct list_head node;		/* in the registry */
	struct net *net;		/* the socket's; used only while it lives */
	u64 id;				/* registry order, for resumable dumps */
	u64 cookie;			/* socket cookie, as ss shows it */
	u8 family;			/* AF_INET, AF_INET6 */
	bool mptcp;			/* a subflow of an MPTCP connection */
	__be16 sport, dport;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	struct imtcp_pub pub;
};

/* A network namespace's counters. */
struct imtcp_counts {
	u32 sockets;			/* on the registry now */
	u64 estimates;
	u64 streams_failed;
	u64 alloc_failed;
	u64 out_of_envelope;
};

int imtcp_registry_init(void);
void imtcp_registry_exit(void);
void imtcp_registry_add(struct imtcp_entry *e);
void imtcp_registry_del(struct imtcp_entry *e);
u64 imtcp_registry_walk(const struct net *net, u64 from_id,
			int (*fn)(const struct imtcp_entry *e, void *arg),
			void *arg);
void imtcp_counts_read(const struct net *net, struct imtcp_counts *c);
void imtcp_counts_reset(const struct net *net);
void imtcp_count_alloc_failed(const struct net *net);
void imtcp_count_estimate(const struct net *net);
void imtcp_count_stream_failed(const struct net *net);
void imtcp_count_out_of_envelope(const struct net *net);

#endif /* _IMTCP_REGISTRY_H */
