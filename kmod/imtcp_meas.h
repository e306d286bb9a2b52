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

/* Per-socket measurement state, allocated in init (may be absent). */
struct imtcp_meas {
	struct imtcp_cu cu;
	struct imtcp_est est;
	struct imtcp_est_cfg cfg;
	struct imtcp_stream st[IMTCP_K_MAX];
	u32 stream_seq[IMTCP_K_MAX];	/* first sequence number of stream */
	u32 stream_end;			/* snd_nxt after the last stream */
	u64 cookie;			/* socket cookie, as ss shows it */
	u32 mss;			/* segment size of the streams */
	u64 dlv_max;			/* highest recent delivery rate, bit/s */
	s32 delay_max[2];		/* top sample delay, this and last */
	u32 streams_failed;
	u16 saved_gso_max_segs;		/* while a stream goes out */
	bool shaped;			/* gso_max_segs is ours */
};

struct imtcp_meas *imtcp_meas_alloc(struct sock *sk);
void imtcp_meas_free(struct sock *sk, struct imtcp_meas *m);
void imtcp_meas_on_ack(struct sock *sk, struct imtcp_meas *m,
		       const struct rate_sample *rs);
u32 imtcp_meas_on_send(struct sock *sk, struct imtcp_meas *m);
void imtcp_meas_pause(struct sock *sk, struct imtcp_meas *m);
bool imtcp_meas_owns_pacing(const struct imtcp_meas *m);

/* imtcp_main.c */
void imtcp_set_reno_pacing_rate(struct sock *sk);

#endif /* _IMTCP_MEAS_H */
