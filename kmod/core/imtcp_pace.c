// SPDX-License-Identifier: GPL-2.0
/*
 * A stream's schedule (see imtcp_pace.h).
 *
 * The stack, after sending an skb of len bytes with sk_pacing_rate r
 * (bytes per second), moves the next departure to now + len / r -
 * min(len / (2 r), late), where late is how far behind its previous
 * departure time this send came (tcp_update_skb_after_send). For the
 * next departure to land at time g from now, len / r is therefore
 * g + late if late < g, else 2 g. g is never zero: at g = 0 the stack
 * would send the next skb in the same pass, without asking us for its
 * size or rate.
 */
#include "imtcp_pace.h"

/* The planned departure of each segment, from the first's, in @t. */
static void plan_times(const struct imtcp_stream *st, u32 n, u64 *t)
{
	u32 j;

	t[0] = 0;
	for (j = 1; j < n; j++)
		t[j] = t[j - 1] + imtcp_gap_ns(st, n, j - 1);
}

/* The planned time from a stream's first departure to its last, in ns. */
u64 imtcp_pace_plan_ns(const struct imtcp_stream *st, u32 n)
{
	u64 t[IMTCP_N_MAX];

	if (n < 2 || n > IMTCP_N_MAX || !st->seg_bytes)
		return 0;
	plan_times(st, n, t);
	return t[n - 1];
}

/*
 * The sk_pacing_rate (bytes per second) that makes the stack's next
 * departure come @gap_ns from now, after @bytes leave @late_ns behind the
 * stack's own departure time.
 */
static u64 pacing_Bps_for_gap(u64 bytes, u64 gap_ns, u64 late_ns)
{
	u64 len_ns = late_ns < gap_ns ? gap_ns + late_ns : 2 * gap_ns;

	return max_t(u64, div64_u64(bytes * IMTCP_NS_PER_S, len_ns), 1);
}

/*
 * What to send now, with @sent segments of the stream gone, @elapsed_ns
 * after its first departure, @late_ns behind the stack's own departure
 * time, and @room segments allowed by window and data: every overdue
 * segment (at least one, at most @room), at a pacing rate that puts the
 * next departure on the schedule. Before anything is due, nothing may
 * leave: @p->wait_ns says how long until the next segment's time (the
 * caller holds the stack's departure time back that long; the stack's
 * own may be earlier, after it gave back credit for a late send).
 */
void imtcp_pace_next(const struct imtcp_stream *st, u32 n, u32 sent,
		     u64 elapsed_ns, u64 late_ns, u32 room,
		     struct imtcp_pace *p)
{
	u64 t[IMTCP_N_MAX], next;
	u32 due = 0;

	p->segs = 1;
	p->wait_ns = 0;
	p->pacing_Bps = imtcp_pacing_Bps(imtcp_gap_bps(st, n,
						       min_t(u32, sent, n - 1)));
	if (sent >= n || !st->seg_bytes)
		return;
	plan_times(st, n, t);
	while (due < n && t[due] <= elapsed_ns)
		due++;
	if (due <= sent) {
		p->wait_ns = t[sent] - elapsed_ns;
		return;
	}
	p->segs = clamp_t(u32, due - sent, 1, max_t(u32, room, 1));
	if (sent + p->segs >= n)
		return;
	next = t[sent + p->segs];
	next = next > elapsed_ns ? next - elapsed_ns : 0;
	p->pacing_Bps = pacing_Bps_for_gap((u64)p->segs * st->seg_bytes,
					   max_t(u64, next, IMTCP_PACE_MIN_NS),
					   late_ns);
}
