/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reno arithmetic that the kernel keeps inside tcp_input.c and tcp_output.c
 * for congestion controls without .cong_control, restated for a module that
 * has one. Pure functions: inputs in, new values out.
 */
#ifndef _IMTCP_RENO_H
#define _IMTCP_RENO_H

#include "imtcp_types.h"

/* State of one Proportional Rate Reduction step (RFC 6937). */
struct imtcp_prr {
	u32 ssthresh;		/* target window, packets */
	u32 prior_cwnd;		/* cwnd when the reduction began */
	u32 in_flight;		/* packets in flight now */
	u32 prr_delivered;	/* delivered since the reduction began */
	u32 prr_out;		/* sent since the reduction began */
};

u32 imtcp_prr_cwnd(struct imtcp_prr *prr, u32 newly_acked_sacked,
		   u32 newly_lost, bool una_advanced);

u32 imtcp_app_limited_cwnd(u32 cwnd, u32 win_used);

u64 imtcp_reno_pacing_Bps(u32 mss, u32 cwnd, u32 packets_out,
			  u32 srtt_us8, u32 ratio_pct);

#endif /* _IMTCP_RENO_H */
