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
#include "imtcp_registry.h"

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
	struct imtcp_entry entry;	/* on the registry (imtcp_registry.c) */
	struct rcu_head rcu;
	struct imtcp_info *info;	/* in the socket's private area */
	struct imtcp_cu cu;
	struct imtcp_est est;
	struct imtcp_est_cfg cfg;
	struct imtcp_stream st[IMTCP_K_MAX];
	u32 stream_seq[IMTCP_K_MAX];	/* first sequence number of stream */
	u32 stream_end;			/* snd_nxt after the last stream */
	u32 mss;			/* segment size of the streams */
	u64 dlv_max_bps;		/* highest recent delivery rate */
	struct imtcp_busy busy;		/* .. and while the link was busy */
	s32 delay_max_us[2];		/* top sample delay, this and last */
	s32 delay_min_us[2];		/* lowest, this and last (0: none) */
	u32 streams_failed;
	u64 stream_t0_ns;		/* first departure of the stream */
	u64 held_until_ns;		/* tcp_wstamp_ns as a hold set it */
	u64 unheld_ns;			/* .. and as the stack had it before */
	u16 saved_gso_max_segs;		/* while a stream goes out */
	u16 gso_segs;			/* what we set it to meanwhile */
	bool shaped;			/* gso_max_segs is ours */
	bool hidden;			/* unpublished until an estimate is taken */
	bool carry;			/* the module parameter, as read */
	bool outrun;			/* the module parameter, as read */
	bool carried;			/* st[0] is the last measurement's */
	u64 told_bps;			/* the figure listeners last heard */
	u64 told_us;			/* .. when (tcp_mstamp) */
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

/*
 * The application waits for room in the send buffer: tcp_sendmsg sets
 * SOCK_NOSPACE before it sleeps, and the ACK that makes room clears it
 * after the congestion control has seen that ACK. Never on an orphaned
 * socket, nor on an MPTCP subflow (its socket is the kernel's: the
 * application writes to the MPTCP socket above it).
 */
static inline bool imtcp_writer_waits(const struct sock *sk)
{
	const struct socket *sock = READ_ONCE(sk->sk_socket);

	return sock && test_bit(SOCK_NOSPACE, &sock->flags);
}

#endif /* _IMTCP_MEAS_H */
