/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that writes sk_pacing_rate (imtcp_pacing.c): the rates
 * of holds and streams, and the rate the kernel gives a Reno flow.
 */
#ifndef _IMTCP_PACING_H
#define _IMTCP_PACING_H

#include <net/sock.h>

void imtcp_set_pacing_Bps(struct sock *sk, u64 pacing_Bps);
void imtcp_set_reno_pacing(struct sock *sk);

#endif /* _IMTCP_PACING_H */
