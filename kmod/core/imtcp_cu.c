// SPDX-License-Identifier: GPL-2.0
/*
 * The control unit (see imtcp_cu.h).
 *
 * The paper's rules, and the ones a Linux sender adds:
 *   STORE  held >= m                        -> SEND
 *          window <= N, nothing in flight,
 *          or the hold time T is over       -> EMPTY
 *   SEND   N segments sent: last stream     -> PASS, else -> EMPTY
 *          a segment due and none ready     -> EMPTY, m + 1 (max N), the
 *                                              same stream again
 *   PASS   every stream segment ACKed       -> STORE (or EMPTY if it may
 *                                              not hold); m - 1 (min 2)
 *                                              after F good measurements
 *   EMPTY  may hold again                   -> STORE
 *   any    measurement not possible (loss recovery, CWR, RTO, fewer
 *          than 10 segments sent so far)    -> OFF; back to STORE after.
 * "May hold" means window > N and something in flight (an ACK will come
 * to end the hold), or m segments ready (the stream can start at once).
 */
#include "imtcp_cu.h"

static const char * const state_names[IMTCP_NSTATES] = {
	[IMTCP_OFF] = "off",
	[IMTCP_STORE] = "store",
	[IMTCP_SEND] = "send",
	[IMTCP_PASS] = "pass",
	[IMTCP_EMPTY] = "empty",
};

const char *imtcp_state_name(u32 state)
{
	return state < IMTCP_NSTATES ? state_names[state] : "?";
}

void imtcp_cu_init(struct imtcp_cu *cu, u32 n)
{
	cu->state = IMTCP_OFF;
	cu->m = n;
	cu->good = 0;
	cu->stream = 0;
	cu->deadline_us = 0;
}

static bool may_hold(const struct imtcp_cu *cu, u32 n,
		     const struct imtcp_cu_view *v)
{
	if (v->cwnd <= n)
		return false;
	return v->in_flight > 0 || v->held >= cu->m;
}

static bool time_reached(u32 now, u32 t)
{
	return (s32)(now - t) >= 0;
}

static u32 goto_state(struct imtcp_cu *cu, u32 state)
{
	if (cu->state == state)
		return 0;
	cu->state = state;
	return IMTCP_CU_CHANGED;
}

static u32 step_store(struct imtcp_cu *cu, u32 n,
		      const struct imtcp_cu_view *v)
{
	if (v->held >= cu->m && v->cwnd > n)
		return goto_state(cu, IMTCP_SEND);
	if (!may_hold(cu, n, v) || time_reached(v->now_us, cu->deadline_us))
		return goto_state(cu, IMTCP_EMPTY);
	return 0;
}

static u32 step_send(struct imtcp_cu *cu, u32 n, u32 k,
		     const struct imtcp_cu_view *v)
{
	if (v->sent >= n) {
		cu->stream++;
		return IMTCP_CU_STREAM_DONE |
		       goto_state(cu, cu->stream >= k ? IMTCP_PASS : IMTCP_EMPTY);
	}
	if (v->slot_due && !v->held) {
		if (cu->m < n)
			cu->m++;
		cu->good = 0;
		return IMTCP_CU_FAILED | goto_state(cu, IMTCP_EMPTY);
	}
	return 0;
}

static u32 step_pass(struct imtcp_cu *cu, u32 n, const struct imtcp_cu_view *v)
{
	if (!v->acked)
		return 0;
	cu->stream = 0;
	return IMTCP_CU_MEASURED |
	       goto_state(cu, may_hold(cu, n, v) ? IMTCP_STORE : IMTCP_EMPTY);
}

/*
 * Advance the state machine by at most one transition for what @v shows.
 * Returns IMTCP_CU_* flags. On entering STORE the caller sets
 * cu->deadline_us.
 */
u32 imtcp_cu_step(struct imtcp_cu *cu, u32 n, u32 k,
		  const struct imtcp_cu_view *v)
{
	if (!v->can_measure) {
		cu->stream = 0;
		return goto_state(cu, IMTCP_OFF);
	}
	switch (cu->state) {
	case IMTCP_STORE:
		return step_store(cu, n, v);
	case IMTCP_SEND:
		return step_send(cu, n, k, v);
	case IMTCP_PASS:
		return step_pass(cu, n, v);
	default:	/* OFF, EMPTY */
		return may_hold(cu, n, v) ? goto_state(cu, IMTCP_STORE) : 0;
	}
}

/* A measurement ended with (@ok) or without a result. */
void imtcp_cu_result(struct imtcp_cu *cu, bool ok)
{
	if (!ok) {
		cu->good = 0;
		return;
	}
	if (++cu->good >= IMTCP_F) {
		cu->good = 0;
		if (cu->m > IMTCP_M_MIN)
			cu->m--;
	}
}

/*
 * The longest hold, T = (M / A) (N - 1) + 4 D_RTT: long enough to gather
 * a stream at rate A, plus the RTT variation (the kernel's mdev_us is
 * already four times the mean deviation). Never longer than one smoothed
 * RTT: a longer hold would stall the ACK clock.
 */
u32 imtcp_hold_us(u32 mss, u64 rate_bps, u32 n, u32 mdev4_us, u32 srtt_us)
{
	u64 t = mdev4_us;

	if (rate_bps)
		t += div64_u64((u64)mss * 8 * 1000000 * (n - 1), rate_bps);
	if (srtt_us && t > srtt_us)
		t = srtt_us;
	return (u32)t;
}
