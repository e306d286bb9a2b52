// SPDX-License-Identifier: GPL-2.0
/*
 * The control unit (see imtcp_cu.h).
 *
 * The paper's rules, and the ones a Linux sender adds:
 *   STORE  held >= m                        -> SEND
 *          window <= N (4 N in a window-limited
 *          slow start), nothing in flight,
 *          or the hold time T is over       -> EMPTY, a failed stream:
 *          (a later hold's T also spans        the measurement is
 *          the echo of the hold before:        abandoned and no hold
 *          echo_due_us)                        begins for one srtt
 *                                              (doubling while they fail),
 *                                              but an application-limited
 *                                              write of m starts its
 *                                              stream at once
 *          but a later stream's hold, of an
 *          application-limited sender, with
 *          no full segment after a finished
 *          write                            -> EMPTY, not failed: the
 *                                              stream waits for a write
 *   SEND   N segments sent: last stream     -> PASS, else -> EMPTY
 *          a segment due and none ready, or
 *          a write that comes after the slot
 *          was due srtt / 8 with all sent   -> EMPTY, m + 1 (max N), the
 *                                              same stream again
 *   PASS   every stream segment ACKed       -> STORE (or EMPTY if it may
 *                                              not hold, or if all that
 *                                              waits is the tail of a
 *                                              finished write whose
 *                                              frames come whole);
 *                                              m - 1 (min 2) after F
 *                                              good measurements
 *   EMPTY  may hold again                   -> STORE
 *   any    measurement not possible (loss recovery, CWR, RTO, fewer
 *          than 10 segments sent so far)    -> OFF; from PASS the
 *                                              measurement is analysed
 *                                              on the ACKs so far,
 *                                              unless it began in slow
 *                                              start
 *   OFF    measurement possible again       -> STORE, or EMPTY if it may
 *                                              not hold yet (OFF means
 *                                              paused, not waiting)
 * "May hold" means window > N and something in flight (an ACK will come
 * to end the hold), or m segments ready (the stream can start at once).
 * A hold does not begin (EMPTY, OFF, PASS) while all that waits is the
 * partial segment of an application-limited sender's finished write and
 * its last stream started whole from a write: it would gather nothing
 * and keep that segment from its frame (tail_waits).
 *
 * The hold budget (not in the paper). A hold costs a window-limited
 * connection the time it holds: its ACK clock moves back by that much.
 * The paper's windows are large, so holds are short; a loss-limited
 * Reno window of 10-30 segments is held for most of an RTT per stream,
 * and measuring without pause cost such a connection a third of its
 * goodput. So holds are paid from a budget: it fills at hold_budget
 * percent of the time, up to one RTT's worth. With charge_gap (the
 * default) a hold begun on a window of 4 m or more, and its stream, are
 * charged for the share of the window they keep out of flight over
 * their time (gap_charge): a window-limited sender delivers its flight
 * per RTT, so that share is what it loses. Otherwise every microsecond
 * in STORE takes 100 percent-microseconds from the budget, and a
 * stream (SEND) is
 * charged only for the time it takes beyond what its segments would
 * have taken at the window's own rate, srtt / cwnd per segment: a
 * stream at rates around A usually goes faster than that, and under a
 * software-emulated clock a stream took four times as long as the hold
 * before it, which charged in full left almost no measurements. A
 * measurement (its first stream) starts only while the budget is not
 * in debt; its other streams follow without asking, and the debt they
 * leave is paid off before the next (with prepay, the budget saves what
 * the latest measurement cost first: paid). Until a connection's first
 * estimate, up to free_starts measurements may start in debt (each
 * start that needs it uses one, a hold that fails too): the first
 * estimate is what a new connection most needs, and a slow start's
 * measurement often only finds A below its range, where its result is
 * dropped (traced at MTU 9000: the next measurement then waited 2-3 s
 * for the budget). They are charged as any, so the debt is paid off
 * later and over time holds still cost at most hold_budget percent.
 * So do the measurements that a result off the estimate (imtcp_cu_off)
 * or at the range's upper edge (imtcp_cu_top) lets start in debt, or a
 * measurement that found A below its range (imtcp_cu_below): a
 * change of A is likely then, or A is known only to lie outside, and the
 * next results decide whether the estimate follows; they borrow at most
 * off_debt_rtts srtt of the budget (with off_ahead, counting what the
 * latest measurement cost), so the debt stays bounded.
 * The first queue_us of each hold and of its stream's lateness are free
 * (the standing queue: srtt - min_rtt, less the RTT's variation, which is
 * noise and not queue): while a standing queue drains, the bottleneck
 * stays busy, and holding the ACK clock back, whether by a hold or by a
 * stream slower than the window, costs nothing. Nor does a hold or a
 * stream cost anything while the window is not what limits the sender:
 * while all its unsent data could leave at once (an application-limited
 * sender, whose writes fit in the window). Its goodput is the
 * application's whatever the ACK clock does; what it pays is latency: a
 * write's segments wait at most the hold time T (at most one srtt) and
 * leave at the stream's rates. Such a sender's streams form from its
 * writes. So on a full bottleneck the connection measures as the paper
 * does, on a thin window it measures less often instead of sending less,
 * and an application-limited one measures on its writes, with streams
 * as long as its writes (imtcp_cu_stream_len).
 */
#include "imtcp_cu.h"

void imtcp_cu_init(struct imtcp_cu *cu, u32 n)
{
	cu->state = IMTCP_STATE_OFF;
	cu->m = n;
	cu->good_at_m = 0;
	cu->stream = 0;
	cu->deadline_us = 0;
	cu->budget = IMTCP_BUDGET_MAX;
	cu->started = 0;
	cu->limited = 1;
	cu->free_starts = 0;
	cu->slow_start = 0;
	cu->first_ss = 0;
	cu->resting = 0;
	cu->failed_holds = 0;
	cu->failures = 0;
	cu->n_full = n;
	cu->n_writes = 0;
	cu->burst_segs = 0;
	cu->burst_bad = 0;
	cu->hold_whole = 0;
	cu->wrote = 0;
	cu->writes_whole = 0;
	cu->writes_short = 0;
	cu->write_segs = 0;
	cu->first_len = 0;
	cu->app_paced = 0;
	cu->carried = 0;
	cu->off = 0;
	cu->prepay = 0;
	cu->off_ahead = 0;
	cu->top = 0;
	cu->below = 0;
	cu->off_debt_rtts = IMTCP_OFF_DEBT_RTTS;
	cu->carried_us = 0;
	cu->burst_seq = 0;
	cu->rest_until_us = 0;
	cu->write_seq = 0;
	cu->write_us = 0;
	cu->last_us = 0;
	cu->free_us = 0;
	cu->send_us = 0;
	cu->send_charged = 0;
	cu->by_gap = 0;
	cu->gap_hold = 0;
	cu->gap_pm = 0;
	cu->echo = 0;
	cu->frame_hold = 0;
	cu->opened = 0;
	cu->hold_begin_us = 0;
	cu->prev_begin_us = 0;
	cu->prev_len_us = 0;
	cu->echo_us = 0;
	cu->credit = 0;
	cu->spent_us = 0;
	cu->cost_us = 0;
	cu->held_us = 0;
	cu->stream_us = 0;
}

/*
 * The length of the connection's next measurement's streams: N for a
 * sender its window limits; as long as its writes (IMTCP_WRITE_SEGS_MIN
 * to IMTCP_N_MAX full segments) for an application-limited one, whose
 * streams form from its writes (see the top of this file).
 *
 * Shorter: a write of fewer than N segments never makes a stream of N;
 * its hold ends with the write's segments held and nothing more coming,
 * or its stream runs dry after them, every time (a 2.5 Mbit/s sender of
 * 25 frames a second writes 8.6 segments of 1448 bytes a frame, and got
 * no estimate at all).
 *
 * Longer: an application-limited sender's queue empties between writes,
 * and a bottleneck shaped by a token bucket refills its bucket meanwhile;
 * the first bucket's worth of a stream then passes as if A were higher,
 * and a short stream rises less than the fluid model says or not at all
 * (at A = 11 Mbit/s, C = 30 and a bucket of four 1514-byte frames, a
 * stream of 10 segments stays flat up to 18 Mbit/s; in the accuracy
 * benchmark's S4, streams at 1.5-2 A rose by 47 us a segment where the
 * model says 173, while a bulk flow's at the same A rose by 181). A
 * stream as long as the write (17 segments at 5 Mbit/s in 40 ms writes)
 * rises past the bucket.
 *
 * The length is read from the writes themselves (write_ended): what
 * the application wrote between two quiet times, in full segments, the
 * shorter of the last two. Not from what holds gathered: a hold that
 * begins with one frame's last partial segment and gathers the next
 * frame holds 10 for frames of 9 (traced: streams of N formed so every
 * other time, the failures between them never came two in a row, and
 * the estimate froze for 9 s); nor from where streams ran dry, which a
 * segment that Nagle keeps back moves. Until two writes tell it, from
 * the last write alone (first_len_from).
 */
u32 imtcp_cu_stream_len(const struct imtcp_cu *cu)
{
	if (cu->n_writes)
		return cu->n_writes;
	return cu->first_len ? cu->first_len : cu->n_full;
}

/*
 * Before two finished writes tell the writes' length (writes_are), the
 * connection's first measurement: as long as the last write that came
 * after a quiet time, if that brought more than N at once (at most
 * IMTCP_N_MAX), else N. A media sender's first frames leave in slow
 * start, where the window keeps part of each back, so two finished
 * writes tell the length only from the sixth frame on, after the first
 * measurement; that one's streams of N = 10 (frames of 17 segments)
 * left behind the benchmark's bucket of four packets five or six
 * samples that rose. With the first range of an application-limited
 * sender (imtcp_range.c) and such streams of 16, three first results
 * read 7.9, 9.2 and 10.4 Mbit/s for A = 11 (streams of 10: 4.9-14.6 in
 * five runs, none in a sixth). The length holds until the measurement
 * ends (step_pass, imtcp_cu_pause), even if the window makes its
 * streams: at 10 Mbit/s (frames of 34 segments) the window limited the
 * sender as its first stream of 16 began, a length forgotten there made
 * the next stream shorter than the first, and the measurement began
 * anew with streams of 10 (first estimate after 7.3 RTT, not 4.5).
 *
 * Not from a write that finds the window limiting the sender outside
 * slow start: its data waited meanwhile, so the quiet time was the
 * writer's, not a frame's, and such a sender's streams come from the
 * window (N). A bulk writer that woke late had such a write after its
 * slow start's loss (traced, S2 at A = 10 % of C in the VM, a window of
 * 16): its first measurement's streams, longer than 14 segments behind
 * a hold of m = 10, ran dry three times, were charged 127 ms, and the
 * first estimate came after 129 RTT (3.7 and 3.8 RTT in two runs of
 * that cell where no such write came).
 */
static void first_len_from(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	if (cu->n_writes || cu->burst_segs)	/* writes_are will tell */
		return;
	if (cu->limited && !v->slow_start) {	/* the window's, not a frame */
		cu->first_len = 0;
		return;
	}
	cu->first_len = cu->wrote > cu->n_full ?
			min_t(u32, cu->wrote, IMTCP_N_MAX) : 0;
}

/*
 * The application has written nothing for srtt >> IMTCP_WRITE_QUIET_SHIFT
 * and does not wait for room in its send buffer: its write is finished,
 * and what it left is all a stream can have. A writer that its buffer
 * holds back (loopback: a window larger than the buffer) writes again
 * as soon as ACKs make room, however long that took.
 */
static bool write_finished(const struct imtcp_cu *cu,
			   const struct imtcp_cu_view *v)
{
	return !v->writer_waits &&
	       v->now_us - cu->write_us >= v->srtt_us >> IMTCP_WRITE_QUIET_SHIFT;
}

/*
 * An application-limited sender between writes: its last write is
 * finished and no full segment of it waits; what comes next is the next
 * write's.
 */
static bool between_writes(const struct imtcp_cu *cu,
			   const struct imtcp_cu_view *v)
{
	return !cu->limited && !v->unsent && write_finished(cu, v);
}

/*
 * Two finished writes in a row of @prev and @segs full segments: the next
 * measurement's streams are as long as the shorter (N if that is N), and
 * m no longer. Writes shorter than IMTCP_WRITE_SEGS_MIN make no stream
 * that shows A (see uapi/imtcp.h) and change nothing; where both are,
 * the writes are short (imtcp_cu_writes_short).
 */
static void writes_are(struct imtcp_cu *cu, u32 prev, u32 segs)
{
	u32 len = min_t(u32, prev, segs);

	cu->writes_short = max_t(u32, prev, segs) < IMTCP_WRITE_SEGS_MIN;
	if (len < IMTCP_WRITE_SEGS_MIN)
		return;
	cu->first_len = 0;
	cu->n_writes = len == cu->n_full ? 0 : min_t(u32, len, IMTCP_N_MAX);
	cu->m = min_t(u32, cu->m, imtcp_cu_stream_len(cu));
}

/*
 * A write comes after a quiet time: the one before it (all bytes from
 * burst_seq on) was finished. It tells the writes' length only if
 * neither the window (the sender was window-limited) nor the send buffer
 * (the writer waited: loopback, where the window outgrows the buffer)
 * cut it: those writes are the window's or the buffer's, not the
 * application's. Called before the step notes the new write.
 */
static void write_ended(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	u32 segs = v->mss ? (cu->write_seq - cu->burst_seq) / v->mss : 0;

	if (!cu->burst_bad && cu->burst_segs)
		writes_are(cu, cu->burst_segs, segs);
	cu->burst_segs = cu->burst_bad ? 0 : min_t(u32, segs, U8_MAX);
	cu->burst_seq = cu->write_seq;
	cu->burst_bad = 0;
}

/* The share of time (1-100 percent) that holds may cost. */
void imtcp_cu_set_budget(struct imtcp_cu *cu, u32 percent)
{
	cu->budget = clamp_t(u32, percent, 1, IMTCP_BUDGET_MAX);
}

/*
 * The hold budget's credit in microseconds of charged hold (negative: in
 * debt; 0 where holds are not budgeted), for the imtcp_state tracepoint.
 */
s64 imtcp_cu_credit_us(const struct imtcp_cu *cu)
{
	if (cu->budget >= IMTCP_BUDGET_MAX)
		return 0;
	return div64_s64(cu->credit, IMTCP_BUDGET_MAX);
}

/* Measurements (0-IMTCP_FREE_MAX) that may start in debt. */
void imtcp_cu_set_free_starts(struct imtcp_cu *cu, u32 n)
{
	cu->free_starts = min_t(u32, n, IMTCP_FREE_MAX);
}

/* The connection has an estimate: from now on measurements wait. */
void imtcp_cu_estimated(struct imtcp_cu *cu)
{
	cu->free_starts = 0;
	cu->failures = 0;
}

/* A hold or a stream failed (saturating count since the last result). */
static void count_failure(struct imtcp_cu *cu)
{
	if (cu->failures < U8_MAX)
		cu->failures++;
}

/*
 * Of @t that holds the ACK clock back, the part the standing queue does
 * not pay for: what is left of the queue since the hold began (the
 * bottleneck stays busy while it drains). Returns the rest.
 */
static u32 queue_pays(struct imtcp_cu *cu, u32 t)
{
	u32 free = min_t(u32, t, cu->free_us);

	cu->free_us -= free;
	return t - free;
}

/*
 * A stream is charged only for the time it takes beyond what its
 * segments would have taken at the window's own rate (a stream paced
 * slower than the ACK clock holds the rest back), only while the window
 * limits the sender, and only for what the standing queue left after
 * the hold before it does not pay.
 */
static u32 send_charge(struct imtcp_cu *cu, const struct imtcp_cu_view *v,
		       u32 dt)
{
	u64 due = (u64)v->sent * v->seg_us;
	u32 excess, charge;

	cu->send_us += dt;
	excess = cu->send_us > due ? cu->send_us - (u32)due : 0;
	if (excess <= cu->send_charged)
		return 0;
	charge = cu->limited ? queue_pays(cu, excess - cu->send_charged) : 0;
	cu->send_charged = excess;
	return v->srtt_us ? min_t(u32, charge, v->srtt_us) : charge;
}

/*
 * The part of @dt in STORE that costs: none if the window did not limit
 * the sender at the last step (all its data could have left; the
 * application sets its pace), none for the first part that the standing
 * queue pays for, and at most an RTT (a longer hold was an idle socket).
 */
static u32 hold_charge(struct imtcp_cu *cu, const struct imtcp_cu_view *v,
		       u32 dt)
{
	u32 rest = queue_pays(cu, dt), charge;	/* the queue drains anyway */

	if (!cu->limited)
		rest = 0;
	charge = v->srtt_us ? min_t(u32, rest, v->srtt_us) : rest;
	cu->held_us += dt - rest + charge;
	return charge;
}

/*
 * The part of the window not in flight (permille of it): what a hold or a
 * stream slower than the ACK clock keeps out of the network.
 */
static u32 window_gap_pm(const struct imtcp_cu_view *v)
{
	if (!v->cwnd || v->in_flight >= v->cwnd)
		return 0;
	return (u32)div_u64((u64)(v->cwnd - v->in_flight) * 1000, v->cwnd);
}

/*
 * With by_gap (the module's charge_gap), a hold that begins on a window
 * of at least IMTCP_SS_WINDOW m segments (gap_hold), and its stream, are
 * charged for the share of the window they keep out of flight over @dt, the
 * mean of the gaps at the last step and now: a window-limited sender
 * delivers in-flight / RTT, so what it loses is that share of the time,
 * not all of it. A hold of m of a window of W segments lasts about
 * m / W of an RTT, and the gap grows from 0 to m meanwhile, so it costs
 * m / 2 W of its time (and the stream that follows, until the window is
 * in flight again, as much again where it runs at the window's rate),
 * where the rules above charge the hold in full; a gap over the whole
 * window (nothing in flight) is charged in full. In the unit tests'
 * closed loop (test_cu_path.c: MTU 1500, A = 20 Mbit/s, a window of one
 * BDP, 2 % budget) charged in full the holds cost 0.7 % of the goodput
 * for 140 measurements in 20 s; charged by the gap, 1.4 % for 359. In
 * the VM (MTU 1500, C = 30, S2, one boot each way) a bulk flow at
 * A = 30 and 50 % of C had 0.54 and 0.69 results per RTT against 0.43
 * and 0.56, goodput 0.994 and 1.000 of reno's.
 *
 * Not below IMTCP_SS_WINDOW m: there a hold keeps most of the window
 * back, a loss meanwhile finds too few segments in flight behind it for
 * three duplicate ACKs, and Reno's growth waits on the held ACK clock,
 * costs that the share of the window does not count. Charged by the gap
 * on every window, eight flows at 1 % loss (windows of 10-20) kept
 * 0.948 of reno's goodput (five pairs, 0.916-1.001) against 0.986
 * (0.940-1.031) charged in full, in one boot.
 */
static u32 gap_charge(struct imtcp_cu *cu, const struct imtcp_cu_view *v,
		      u32 dt)
{
	u32 now_pm = window_gap_pm(v);
	u64 t = div_u64((u64)dt * (cu->gap_pm + now_pm), 2000);
	u32 rest = queue_pays(cu, (u32)t), charge;

	cu->gap_pm = now_pm;

	if (!cu->limited)
		rest = 0;
	charge = v->srtt_us ? min_t(u32, rest, v->srtt_us) : rest;
	if (cu->state == IMTCP_STATE_STORE)
		cu->held_us += dt;
	return charge;
}

/* More data waits than may leave now: the window paces the sender. */
static bool window_limited(const struct imtcp_cu_view *v)
{
	return v->unsent > v->held;
}

/* Time since the last step: fill the budget, charge a hold for it. */
static void account(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	s64 cap = (s64)v->srtt_us * IMTCP_BUDGET_MAX;
	u32 dt, charge = 0;

	dt = v->now_us - cu->last_us;
	cu->last_us = v->now_us;
	cu->wrote = 0;
	if (cu->started && v->write_seq != cu->write_seq) {
		if (v->mss)
			cu->write_segs = min_t(u32, (v->write_seq - cu->write_seq) /
					       v->mss, U8_MAX);
		if (write_finished(cu, v)) {	/* a write after a quiet time */
			cu->app_paced = 1;
			cu->wrote = v->mss ? cu->write_segs : 0;
			write_ended(cu, v);
			first_len_from(cu, v);
		}
	}
	if (!cu->started || v->write_seq != cu->write_seq) {
		cu->write_seq = v->write_seq;
		cu->write_us = v->now_us;
	}
	if (!cu->started) {
		cu->started = 1;
		cu->burst_seq = v->write_seq;
		cu->limited = window_limited(v);
		cu->burst_bad = cu->limited;
		return;
	}
	if (cu->state == IMTCP_STATE_SEND)
		cu->stream_us += dt;
	if (cu->gap_hold && (cu->state == IMTCP_STATE_SEND ||
			     cu->state == IMTCP_STATE_STORE))
		charge = gap_charge(cu, v, dt);
	else if (cu->state == IMTCP_STATE_SEND)
		charge = send_charge(cu, v, dt);
	else if (cu->state == IMTCP_STATE_STORE)
		charge = hold_charge(cu, v, dt);
	cu->limited = window_limited(v);
	if (v->writer_waits)
		cu->app_paced = 0;	/* its send buffer paces the writer */
	if (cu->limited || v->writer_waits) {
		cu->burst_bad = 1;
		cu->writes_short = 0;	/* the window's or the buffer's */
	}
	cu->cost_us += charge;
	cu->spent_us += charge;
	if (cu->budget >= IMTCP_BUDGET_MAX)
		return;
	cu->credit += (s64)dt * cu->budget - (s64)charge * IMTCP_BUDGET_MAX;
	if (cu->credit > cap)
		cu->credit = cap;
}

/* The budget is spent: a new measurement must wait (or a free start). */
static bool in_debt(const struct imtcp_cu *cu)
{
	return cu->budget < IMTCP_BUDGET_MAX && cu->credit < 0;
}

static bool time_reached(u32 now, u32 t)
{
	return (s32)(now - t) >= 0;
}

/* After a failed hold, the ACK clock's gap has not passed yet. */
static bool resting(const struct imtcp_cu *cu, u32 now_us)
{
	return cu->resting && !time_reached(now_us, cu->rest_until_us);
}

/*
 * No stream of the measurement has left yet: it starts now, and pays for
 * its hold from the budget. So does one whose first stream was carried
 * over from the measurement before (imtcp_cu_carry).
 */
static bool measurement_new(const struct imtcp_cu *cu)
{
	return !cu->stream || cu->carried;
}

/* The next hold begins a measurement with no stream of its own. */
static void anew(struct imtcp_cu *cu)
{
	cu->stream = 0;
	cu->carried = 0;
	cu->prev_len_us = 0;
}

/*
 * A whole stream is at hand for an application-limited sender: a write
 * brought m segments that may all leave, so its stream starts at once
 * and holds nothing back. The rest after a failed hold (hold_failed)
 * guards against an ACK gap that such a start does not wait on, and the
 * window paces nothing. Traced (a media sender, 25 frames a second, srtt
 * 42 ms): after each measurement a hold began at the last ACK with the
 * last frame's partial segment, failed before the next frame, and its
 * rest then let that frame leave unmeasured; a measurement took four
 * frames where three would do.
 */
static bool stream_at_hand(const struct imtcp_cu *cu,
			   const struct imtcp_cu_view *v)
{
	return !cu->limited && v->held >= cu->m;
}

/* What the latest measurement was charged, in the credit's units. */
static s64 latest_cost(const struct imtcp_cu *cu)
{
	return (s64)cu->spent_us * IMTCP_BUDGET_MAX;
}

/*
 * The latest result lay off the estimate (imtcp_cu_off) or at the search
 * range's upper edge (imtcp_cu_top: A lies above it, and the estimate is
 * only a lower bound), and the debt is one the budget pays off within
 * cu->off_debt_rtts srtt; with off_ahead, the debt once the new
 * measurement costs what the latest one did (spent_us), so that the bound
 * holds for the debt a start leaves, not only for the one it starts in.
 * Traced (S6 of the accuracy benchmark, its 20 % phase, srtt 58 ms, so a
 * bound of 36.8 ms): results of 5.4-6.6 Mbit/s lay more than a quarter
 * off an estimate of 3.5-5.0, a start 13.6 ms in debt after a measurement
 * that cost 40 ms ended 44.6 ms in debt, and when A rose 0.63 s later the
 * first measurement, its stream at hand, waited 1.6 s to repay it.
 */
static bool off_may_borrow(const struct imtcp_cu *cu,
			   const struct imtcp_cu_view *v)
{
	s64 after = cu->credit;

	if (!(cu->off || cu->top || cu->below) || !cu->off_debt_rtts)
		return false;
	if (cu->off_ahead)
		after -= latest_cost(cu);
	return after >= -(s64)cu->budget * v->srtt_us * cu->off_debt_rtts;
}

/*
 * The budget has what a new measurement will likely cost: not in debt,
 * and with prepay, the credit holds what the latest measurement was
 * charged (up to 3/4 of the srtt that the credit holds at most), unless
 * the stream is at hand, which costs nothing.
 *
 * Why prepay: a measurement that starts as soon as the debt is paid
 * leaves a debt as large as its cost, so where measurements cost much
 * (a sender the window limits) the budget is in debt most of the time,
 * and when the sender stops being limited (A rose), its next, free
 * measurement waits for that debt. Traced (S6 of the accuracy
 * benchmark, a 5 Mbit/s media sender, A from 20 to 60 % of C): the last
 * measurement before the rise cost 34.5 ms, and the first after it came
 * 1.73 s later, at 2 %. Saved before instead, the same measurements cost
 * the same over time, but the budget is in credit between them. What is
 * saved is spent once the latest result lay off the estimate or at the
 * search range's upper edge (top): A has likely changed, and the next
 * measurement needs only to be out of debt. Traced (S6, prepay alone):
 * the first result after the rise, an upper edge at 13.2 Mbit/s, was
 * followed 0.70 s later, the budget saving that first one's cost again.
 * Nor is the cost of a measurement begun in the connection's first slow
 * start (cu->first_ss) saved again: it was charged at a window still
 * doubling, often until the slow start's own loss, and says nothing of
 * what one costs after it. Traced (S2 at A = 80 % of C, a bulk flow):
 * the first measurement's carried stream, its hold cut at a window of
 * 100 by that loss, was charged 30.6 ms; out of debt after the
 * recovery, 1.89 s after the start, the next waited until 3.41 s to
 * save that again, and the first result, 14.6 Mbit/s for A = 22.8,
 * stood until then. A later slow start (a recovery that ended below
 * ssthresh, an idle restart after a loss) is no such thing: its window
 * is the one the next measurements meet (S6: a recovery from a window of
 * 36 left 11, and a measurement begun there cost 34.5 ms).
 * A bulk sender's measurements never become free, and saving first
 * only delays them (S1: the measurement that saw a rise held 0.75 s,
 * 47.6 RTT to follow it against 3.3); but neither app_paced nor a count
 * of writes after quiet times tells it from a media sender that its
 * window limits for a while: in S6's 20 % phase such a sender's writer
 * waited on its send buffer from 62-71 s until the rise, while in the
 * VM a bulk writer woke late enough for writes after quiet times (two
 * within its first 0.2 s). So the rule is the connection's, on or off.
 */
static bool paid(const struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	s64 want;

	if (in_debt(cu))
		return false;
	if (!cu->prepay || cu->off || cu->top || cu->below || cu->first_ss ||
	    cu->budget >= IMTCP_BUDGET_MAX || stream_at_hand(cu, v))
		return true;
	want = min_t(s64, latest_cost(cu),
		     (s64)v->srtt_us * IMTCP_BUDGET_MAX * 3 / 4);
	return cu->credit >= want;
}

/*
 * A new measurement may start; a started one goes on regardless. Neither
 * holds while resting after a failed hold, unless its stream is at hand.
 * None starts while the writes are short (imtcp_cu_writes_short): no
 * stream of theirs shows A, so a hold would only delay a frame. In the
 * VM a 2 Mbit/s sender (frames of 6 full segments, 25 a second) never
 * had a result and held 12-13 times in each 20 s run; with this 3-10,
 * where its writes stopped being short for a moment.
 */
static bool may_start(const struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	bool fresh = measurement_new(cu);

	if (fresh && cu->writes_short)
		return false;
	if (resting(cu, v->now_us) && !stream_at_hand(cu, v))
		return false;
	return !fresh || paid(cu, v) || cu->free_starts ||
	       off_may_borrow(cu, v);
}

/*
 * A sender that paces its own writes (app_paced) whose window already
 * exceeds the write it is sending: the window keeps part of that write
 * back only for the moment (the slow start's first windows are smaller
 * than a frame and the frame before it), and what a hold keeps back
 * delays no doubling that such a sender needs. Traced (a media sender,
 * 5 Mbit/s in frames of 17 segments, 25 a second, srtt 41 ms): frame 3
 * came while frame 2's last segments waited for a window of 22, the
 * 4 N rule ended its hold at once, and the first measurement began with
 * frame 4, its estimate 5.0-6.4 RTT after the connection began; with
 * this, frames 3 and 4 (4.2-4.5 RTT at A = 50 and 80 % of C). A
 * 10 Mbit/s sender's frames of 34 segments outgrow such windows, and
 * the rule still keeps its first holds off.
 */
static bool write_fits_window(const struct imtcp_cu *cu,
			      const struct imtcp_cu_view *v)
{
	return cu->app_paced && v->cwnd > cu->write_segs;
}

/*
 * An application-limited sender whose frames come in small writes
 * (frame_hold): its writes come after quiet times, its last finished
 * frame brought m full segments or more, and its streams were not
 * written whole (writes_whole: those start from the write that brings
 * them). Such a sender's stream is a frame that a hold gathers.
 */
static bool frames_open(const struct imtcp_cu *cu)
{
	return cu->frame_hold && cu->app_paced && !cu->limited &&
	       !cu->writes_whole && cu->burst_segs >= cu->m;
}

/*
 * A write at @write_seq comes, @now_us, to such a sender (frames_open)
 * in EMPTY after a quiet time: the first write of its next frame. A hold
 * begun now gathers that frame as the writes after it come, within a
 * millisecond, where a hold begun at an ACK between frames (with the
 * last frame's partial segment) waited for it and most often ran out
 * first. Traced (5 Mbit/s in writes of 1,200 bytes, 25 frames a second,
 * A = 80 % of C): 155 of 330 holds ended without their stream, 108 of
 * them holding one or two segments, and 0.12 estimates per RTT against
 * 0.34 for the same sender writing each frame at once.
 */
bool imtcp_cu_frame_opens(const struct imtcp_cu *cu, u32 write_seq,
			  u32 now_us, u32 srtt_us, bool writer_waits)
{
	return cu->state == IMTCP_STATE_EMPTY && cu->started &&
	       frames_open(cu) && !writer_waits && write_seq != cu->write_seq &&
	       now_us - cu->write_us >= srtt_us >> IMTCP_WRITE_QUIET_SHIFT;
}

/*
 * The window at or below which the connection does not hold: the paper's
 * N, and 4 N in a slow start that the window limits. Slow start sends
 * two segments for each one delivered, in bursts, and what a hold or a
 * stream keeps back delays the doubling of the window; a connection that
 * measured on the first windows of its slow start (12-40 segments, whose
 * streams and holds each took a quarter of an RTT and more) left slow
 * start on about half of the window of a reno flow started beside it at
 * the same moment, and kept less than its share for most of a transfer.
 * From 4 N on, a stream from half the window's rate up (the range's
 * floor) keeps back a small part of the flight. An application-limited
 * sender's window keeps nothing back, and it measures from N on.
 *
 * 4 N of the connection's N, not of the measurement's stream length: a
 * media sender whose frames the slow-start window cuts (10 Mbit/s in
 * frames of 34 segments) measures first with streams as long as its
 * last write (first_len_from); counted from 16, the rule kept its first
 * hold off up to a window of 64, and its first estimate came after 6.4
 * RTT where streams of N gave one after 4.5. The hold gathers m (N at
 * first) either way.
 */
static u32 min_window(const struct imtcp_cu *cu, u32 n,
		      const struct imtcp_cu_view *v)
{
	return v->slow_start && cu->limited && !write_fits_window(cu, v) ?
	       max_t(u32, IMTCP_SS_WINDOW * cu->n_full, n) : n;
}

/*
 * Nothing in flight and less than m at hand: no ACK will make room for
 * more, so a hold would only wait; unless a frame's first write began it
 * (imtcp_cu_frame_opens), whose next writes come at once.
 */
static bool may_hold(const struct imtcp_cu *cu, u32 n,
		     const struct imtcp_cu_view *v)
{
	if (v->cwnd <= min_window(cu, n, v))
		return false;
	return v->in_flight > 0 || v->held >= cu->m || v->opens || cu->opened;
}

/*
 * The writes since the last quiet time brought a whole stream of @n: the
 * frame came whole, so it is finished, even before the quiet time that
 * would say so has passed.
 */
static bool burst_whole(const struct imtcp_cu *cu, u32 n,
			const struct imtcp_cu_view *v)
{
	return v->mss && v->write_seq - cu->burst_seq >= n * v->mss;
}

/*
 * All that waits is the tail of an application-limited sender's finished
 * write: less than a segment (Nagle keeps it until the ACKs come), and
 * nothing more until the next write, which brings its stream whole (the
 * last stream came so: writes_whole). A hold begun now gathers nothing:
 * it keeps that tail from its frame until the hold's deadline and then
 * fails. Traced (a media sender, 25 frames a second, srtt 42 ms): after
 * every measurement a hold began at its last ACK with the frame's
 * partial segment and failed 7-26 ms before the next frame, the frame
 * waiting as long. No hold begins then; once the tail has left, one
 * that holds nothing may wait for the next write. A sender whose frames
 * come in small writes (streams gathered by holds) holds as before: the
 * hold may gather its next frame (without this exception, two runs of
 * such a sender gave 0.09 and 0.12 estimates per RTT; 0.11-0.15 in four
 * with it).
 *
 * Finished also when the write came whole less than the quiet time ago
 * (burst_whole): traced, a measurement's last ACK came 2.5 ms after a
 * frame's write, whose 17 segments had all left unheld; its partial
 * segment was held for the next frame, 32 ms, and the frame took 62 ms
 * where the ones around it took 34-37.
 */
static bool tail_waits(const struct imtcp_cu *cu, u32 n,
		       const struct imtcp_cu_view *v)
{
	if (!cu->writes_whole || !v->held || cu->limited || v->unsent)
		return false;
	return write_finished(cu, v) ||
	       (!v->writer_waits && burst_whole(cu, n, v));
}

/*
 * While the last stream did not come whole from a write (so before the
 * first): all that waits (less than m) is the rest of a write that
 * brought a whole stream at once, which the window kept back. A hold
 * begun now gathers nothing until the next write and keeps that rest
 * from its frame. Traced (a media sender in slow start, three runs): the
 * connection's first hold began 3.8 ms after frame 2's write with its
 * last two segments, failed 22-25 ms later, and frame 2 and, through
 * Minshall's rule, the frames after it took 47-54 ms where reno's took
 * 31-36. A sender that writes a stream's worth in small writes never
 * brings one at once, and holds as before.
 */
static bool rest_of_whole_write(const struct imtcp_cu *cu, u32 n,
				const struct imtcp_cu_view *v)
{
	return !cu->writes_whole && !cu->stream && !cu->limited &&
	       !v->writer_waits && v->held && v->held < cu->m &&
	       cu->write_segs >= n;
}

/*
 * A sender whose frames a hold gathers from small writes (frames_open)
 * holds only from a frame's first write on, or with m at hand: a hold
 * begun at an ACK between frames, with the last frame's partial segment
 * or nothing, waits for the next frame and most often runs out first.
 */
static bool awaits_frame(const struct imtcp_cu *cu,
			 const struct imtcp_cu_view *v)
{
	return frames_open(cu) && !v->opens && v->held < cu->m;
}

/* A hold (for a new measurement or a started one's next stream) begins. */
static bool may_begin(const struct imtcp_cu *cu, u32 n,
		      const struct imtcp_cu_view *v)
{
	return may_hold(cu, n, v) && may_start(cu, v) && !tail_waits(cu, n, v) &&
	       !rest_of_whole_write(cu, n, v) && !awaits_frame(cu, v);
}

static u32 goto_state(struct imtcp_cu *cu, u32 state)
{
	if (cu->state == state)
		return 0;
	if (state != IMTCP_STATE_STORE)
		cu->opened = 0;
	cu->state = state;
	return IMTCP_CU_CHANGED;
}

/*
 * Of the ACK gap that the measurement's hold before this one made, what
 * is still to come (hold_echo): a window-limited sender sends nothing
 * while it holds, so the ACKs of what it would have sent are missing one
 * srtt later, for as long as that hold lasted. A later stream's hold
 * begins soon after the stream before, often before or within that gap,
 * and nothing frees a held segment until it has passed: timed as if ACKs
 * came at the window's rate throughout, it ends first. Traced (a media
 * sender at 5 Mbit/s, A = 6, so its window of 22-29 segments limited it,
 * srtt 65 ms): the first stream's hold lasted 28 ms, the second's began
 * 25 ms after it and ended at its deadline of 35 ms with 2-8 of 11
 * segments held, six measurements in a row; each such failure left
 * 30 ms of debt, and the connection had three results in 20 s, the
 * first after 15 s. Only while the window limits the sender: an
 * application-limited one gathers from its writes.
 */
static u32 echo_due_us(const struct imtcp_cu *cu,
		       const struct imtcp_cu_view *v)
{
	u32 since, end;

	if (!cu->echo || !cu->limited || !cu->prev_len_us)
		return 0;
	since = v->now_us - cu->prev_begin_us;
	end = v->srtt_us + cu->prev_len_us;
	if (since >= end)
		return 0;
	return end - max_t(u32, since, v->srtt_us);
}

/*
 * Begin a hold; the standing queue pays for its first part, and so does
 * the echo of the hold before it (echo_due_us): the sender would send
 * nothing then either. A new measurement that starts in debt uses a free
 * start.
 */
static u32 hold(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	bool fresh = measurement_new(cu);

	if (fresh && !paid(cu, v) && cu->free_starts)
		cu->free_starts--;
	if (fresh) {
		cu->slow_start = v->slow_start;
		cu->first_ss = v->first_ss;
		cu->spent_us = 0;
	}
	cu->hold_begin_us = v->now_us;
	cu->echo_us = fresh ? 0 : echo_due_us(cu, v);
	cu->free_us = v->queue_us + cu->echo_us;
	cu->gap_hold = cu->by_gap && v->cwnd >= IMTCP_SS_WINDOW * cu->m;
	if (cu->gap_hold)
		cu->gap_pm = window_gap_pm(v);	/* the gap as the hold begins */
	cu->hold_whole = v->held >= cu->m;
	cu->opened = v->opens;
	return goto_state(cu, IMTCP_STATE_STORE);
}

/*
 * A hold ended without its stream. What it held leaves at once, and one
 * RTT later the ACKs of that burst come as a burst too, after a gap as
 * long as the hold: a hold begun then would gather as little again, and
 * each failure would set up the next (in a closed-loop model of a window
 * of one BDP, 500 failed holds in a row). So no new hold starts for one
 * srtt, and a measurement whose later stream failed so is abandoned (its
 * first stream's samples alone do not make a result); the caller counts
 * it as a failed stream (IMTCP_CU_FAILED). Where holds fail again and
 * again (a connection that a CPU, not its window, paces, as on loopback:
 * 1,900 failed holds in 6 s, 13 % of its time held, no stream), the
 * rest doubles with each failure in a row, up to 64 srtt, until a
 * stream leaves.
 */
static u32 hold_failed(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	u32 shift = min_t(u32, cu->failed_holds, IMTCP_REST_SHIFT_MAX);

	if (cu->failed_holds < U8_MAX)
		cu->failed_holds++;
	count_failure(cu);
	cu->resting = 1;
	cu->rest_until_us = v->now_us + (v->srtt_us << shift);
	cu->good_at_m = 0;
	anew(cu);
	return IMTCP_CU_FAILED | goto_state(cu, IMTCP_STATE_EMPTY);
}

/*
 * A measurement's later stream's hold, of an application-limited sender,
 * that ends with no full segment held, its last write finished: it began
 * between writes and the next has not come. Nothing it held leaves late
 * in a burst, and the window does not pace such a sender, so no ACK gap
 * follows it: no rest, no failure, and the measurement keeps its stream
 * for the next write, which starts it (a write that brings m,
 * imtcp_meas.c) or a hold at the next ACK gathers. Traced before: such
 * holds ended at their deadline 10-25 ms before a media sender's next
 * frame, each a failure that doubled the rest, up to 64 srtt without an
 * estimate. A first stream's hold fails as any: no measurement waits,
 * and a sender that a CPU paces (loopback) would otherwise hold again at
 * every ACK.
 */
static u32 waited_for_write(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	if (!cu->stream || !between_writes(cu, v))
		return 0;
	return goto_state(cu, IMTCP_STATE_EMPTY);
}

/*
 * The stream about to leave came whole from one write: the hold began
 * with it at hand, or the write that ends the hold, after a quiet time,
 * brought a stream of @n at once. Not a stream that a hold gathered from
 * small writes or from ACKs, nor writes that come without a pause (a
 * writer its send buffer paces, as on loopback). Traced (a media sender,
 * frames of 17 segments, streams of 16): nearly every hold began with
 * nothing held, waiting for the next frame, so a hold that began with m
 * at hand almost never came; after each measurement's first stream a
 * hold then began with the frame's partial segment and kept it to its
 * deadline or the next frame, and that frame's last bytes came 57-62 ms
 * after its write (imtcp's frame p99), 25 ms after its other bytes.
 */
static bool whole_from_write(const struct imtcp_cu *cu, u32 n)
{
	return cu->hold_whole || cu->wrote >= n;
}

/* The hold gathered its stream: it leaves now. */
static u32 hold_done(struct imtcp_cu *cu, u32 n, const struct imtcp_cu_view *v)
{
	cu->send_us = 0;
	cu->send_charged = 0;
	if (cu->limited)	/* the window, not writes, makes streams */
		cu->n_writes = 0;
	cu->writes_whole = whole_from_write(cu, n) && !cu->limited;
	cu->carried = 0;	/* a stream of its own leaves */
	cu->prev_begin_us = cu->hold_begin_us;
	cu->prev_len_us = v->now_us - cu->hold_begin_us;
	return goto_state(cu, IMTCP_STATE_SEND);
}

/*
 * What a hold gathers before its stream leaves: m; a hold that a frame's
 * first write began (opened) the whole stream, or the whole frame if
 * shorter, as the frame's writes bring it within a millisecond or two.
 * A stream that left at m ran ahead of the writes, and its last segments
 * left at the writer's pace, not the plan's: traced (5 Mbit/s in writes
 * of 1,200 bytes, A = 80 % of C, streams planned at 30-50 Mbit/s), 15-16
 * % of the streams took over 1.3 times their planned time, against 6-10
 * % where holds began at ACKs, and the results read 1.0-2.8 Mbit/s high
 * at the median.
 */
static u32 gather_segs(const struct imtcp_cu *cu, u32 n)
{
	if (!cu->opened)
		return cu->m;
	return max_t(u32, cu->m, min_t(u32, n, cu->burst_segs));
}

static u32 step_store(struct imtcp_cu *cu, u32 n,
		      const struct imtcp_cu_view *v)
{
	u32 flags;

	if (v->held >= gather_segs(cu, n) && v->cwnd > n)
		return hold_done(cu, n, v);
	if (may_hold(cu, n, v) && !time_reached(v->now_us, cu->deadline_us))
		return 0;
	/* a frame's writes that stopped short of the stream: what came */
	if (cu->opened && v->held >= cu->m && v->cwnd > n)
		return hold_done(cu, n, v);
	flags = waited_for_write(cu, v);
	return flags ? flags : hold_failed(cu, v);
}

/*
 * A write came to a stream that had nothing to send for the quiet
 * time: every full segment written before it had left, and the stream's
 * next slot had been due for srtt >> IMTCP_WRITE_QUIET_SHIFT. Nothing
 * runs the control unit when a slot comes with nothing to send (no
 * segment waits for the pacing timer), so the stream that a finished
 * write left dry is seen at the next event, and if that is the next
 * write, the stream would go on with it, one write later: traced, a
 * media sender's streams of 16 segments over frames of 9 never ran dry,
 * each spanned two frames, and the next stream's hold failed before the
 * frame after. Called before the step notes the write.
 */
static bool ran_dry_before_write(const struct imtcp_cu *cu,
				 const struct imtcp_cu_view *v)
{
	s32 unsent_before = (s32)(cu->write_seq - v->snd_nxt);

	return cu->started && cu->state == IMTCP_STATE_SEND &&
	       v->write_seq != cu->write_seq && v->slot_due &&
	       v->due_us >= v->srtt_us >> IMTCP_WRITE_QUIET_SHIFT &&
	       unsent_before < (s32)v->mss;
}

static u32 step_send(struct imtcp_cu *cu, u32 n, u32 k,
		     const struct imtcp_cu_view *v, bool dry)
{
	if (v->sent >= n) {
		cu->failed_holds = 0;
		cu->stream++;
		return IMTCP_CU_STREAM_DONE |
		       goto_state(cu, cu->stream >= k ? IMTCP_STATE_PASS : IMTCP_STATE_EMPTY);
	}
	if (v->slot_due && (!v->held || dry)) {
		if (cu->m < n)
			cu->m++;
		count_failure(cu);
		cu->good_at_m = 0;
		return IMTCP_CU_FAILED | goto_state(cu, IMTCP_STATE_EMPTY);
	}
	return 0;
}

static u32 step_pass(struct imtcp_cu *cu, u32 n, const struct imtcp_cu_view *v)
{
	if (!v->acked)
		return 0;
	anew(cu);
	cu->first_len = 0;
	if (may_begin(cu, n, v))
		return IMTCP_CU_MEASURED | hold(cu, v);
	return IMTCP_CU_MEASURED | goto_state(cu, IMTCP_STATE_EMPTY);
}

/*
 * Measurement is not possible now (loss recovery, CWR, RTO, ...): OFF. A
 * measurement whose streams had all left (PASS) in congestion avoidance
 * is analysed on what its ACKs brought so far (IMTCP_CU_MEASURED): the
 * delays came before the pause, and a loss most often cuts a
 * measurement there. Over five transfers at MTU 9000 (C = 100, 40-80 %
 * CBR) 13 were cut in PASS: four had samples and gave results 4.3-17.0
 * Mbit/s from A, nine had none yet (the loss showed on segments sent
 * before the streams). Not one that began in slow start: the loss that
 * ends it comes from an overload the window's doubling made, and in 24
 * short connections the two such results read 31 and 97 Mbit/s for
 * A = 20 (windows of 99 and 219 segments), while the four cut in
 * congestion avoidance were within 1.5-18.3 of A. A measurement cut
 * earlier (a hold, a stream) has too little to show.
 */
u32 imtcp_cu_pause(struct imtcp_cu *cu)
{
	u32 flags = cu->state == IMTCP_STATE_PASS && !cu->slow_start ?
		    IMTCP_CU_MEASURED : 0;

	anew(cu);
	cu->first_len = 0;
	return flags | goto_state(cu, IMTCP_STATE_OFF);
}

/*
 * A stream carried over (imtcp_cu_carry) that no stream of this
 * measurement has joined within IMTCP_CARRY_RTTS srtt says too little of
 * the path now: the measurement starts anew.
 */
static void drop_stale_carry(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	if (cu->carried &&
	    v->now_us - cu->carried_us > IMTCP_CARRY_RTTS * v->srtt_us)
		anew(cu);
}

/*
 * Advance the state machine by at most one transition for what @v shows.
 * Returns IMTCP_CU_* flags. On entering STORE the caller sets
 * cu->deadline_us.
 */
u32 imtcp_cu_step(struct imtcp_cu *cu, u32 n, u32 k,
		  const struct imtcp_cu_view *v)
{
	bool dry = ran_dry_before_write(cu, v);

	account(cu, v);
	drop_stale_carry(cu, v);
	if (!v->can_measure)
		return imtcp_cu_pause(cu);
	switch (cu->state) {
	case IMTCP_STATE_STORE:
		return step_store(cu, n, v);
	case IMTCP_STATE_SEND:
		return step_send(cu, n, k, v, dry);
	case IMTCP_STATE_PASS:
		return step_pass(cu, n, v);
	default:	/* OFF, EMPTY */
		if (cu->stream && imtcp_cu_stream_len(cu) < n)
			anew(cu);	/* the writes are shorter */
		if (may_begin(cu, n, v))
			return hold(cu, v);
		return goto_state(cu, IMTCP_STATE_EMPTY);
	}
}

/*
 * Holds keep ending before their m segments gather, or streams run dry,
 * and no result came in between: the connection cannot measure as it
 * runs now. Not the rest's row (failed_holds), which a stream that leaves
 * ends: on loopback a first stream sometimes gathered and the second's
 * hold failed, so that row never grew while no result came (one run in
 * ten, 139 failed streams and neither an estimate nor a reason); and
 * a rest that grew over such rows cut an application-limited sender's
 * results from 25 to 8 in 20 s.
 */
bool imtcp_cu_holds_failing(const struct imtcp_cu *cu)
{
	return cu->failures >= IMTCP_HOLDS_FAILING;
}

/*
 * An application-limited sender whose last two finished writes were each
 * shorter than IMTCP_WRITE_SEGS_MIN full segments: none of its streams
 * can show A (uapi/imtcp.h), and a stream that a hold gathered from
 * several of them before they were known (its first, at the start) is no
 * better: behind the benchmark's bucket of four packets, a 2 Mbit/s
 * sender's (frames of 7 segments) first hold gathered two frames, its
 * two streams of 10 read flat up to 83 Mbit/s, and that result, 2.9 C,
 * stood as the estimate for the whole run (traced). Ends when a write
 * of IMTCP_WRITE_SEGS_MIN or more is finished, or when the window or
 * the send buffer holds a write back.
 */
bool imtcp_cu_writes_short(const struct imtcp_cu *cu)
{
	return cu->writes_short;
}

/*
 * The reason a socket gives for showing no estimate (uapi/imtcp.h), from
 * @reason, the one it gives now, and whether an estimate is @shown:
 * writes-short while the writes are short, else holds-failing while
 * holds fail; each ends when its cause does, also under an estimate
 * shown, which neither replaces. The envelope's reason is the
 * envelope's own to set and clear (imtcp_meas.c). Decided in one place,
 * in this order: asked as two steps, holds-failing before writes-short,
 * a step where the writes stopped being short ended writes-short after
 * holds-failing had been asked, and the socket said nothing until its
 * next ACK; a CI run on loopback read it so at 7 s (86 failed streams,
 * no estimate, no reason); in 12 such runs in the VM writes-short ended
 * 9-143 times each.
 */
u8 imtcp_cu_reason(const struct imtcp_cu *cu, u8 reason, bool shown)
{
	if (reason == IMTCP_REASON_ENVELOPE)
		return reason;
	if (reason == IMTCP_REASON_WRITES_SHORT && !cu->writes_short)
		reason = IMTCP_REASON_NONE;
	if (reason == IMTCP_REASON_HOLDS_FAILING && !imtcp_cu_holds_failing(cu))
		reason = IMTCP_REASON_NONE;
	if (shown)
		return reason;
	if (cu->writes_short)
		return IMTCP_REASON_WRITES_SHORT;
	if (imtcp_cu_holds_failing(cu))
		return IMTCP_REASON_HOLDS_FAILING;
	return reason;
}

/*
 * The application, not the window, sets the sender's pace: the window
 * held nothing back at the last step, or the writes come after quiet
 * times (app_paced: one came after a quiet time, and the writer has not
 * waited for room in its send buffer since; a bulk writer waits on its
 * buffer and never has a quiet time). Slow start's first windows hold
 * back part of a frame for the moment, and the sender is still a media
 * sender. Such a sender's first search range is the application-limited
 * one (imtcp_first_range).
 */
bool imtcp_cu_app_sets_pace(const struct imtcp_cu *cu)
{
	return !cu->limited || cu->app_paced;
}

/* A measurement ended with (@ok) or without a result. */
void imtcp_cu_result(struct imtcp_cu *cu, bool ok)
{
	if (!ok) {
		cu->good_at_m = 0;
		return;
	}
	if (++cu->good_at_m >= IMTCP_GOOD_TO_SHRINK) {
		cu->good_at_m = 0;
		if (cu->m > IMTCP_M_MIN)
			cu->m--;
	}
}

/* off_debt_rtts: 0 (never borrow) to IMTCP_OFF_DEBT_MAX srtt. */
void imtcp_cu_set_off_debt(struct imtcp_cu *cu, u32 rtts)
{
	cu->off_debt_rtts = min_t(u32, rtts, IMTCP_OFF_DEBT_MAX);
}

/*
 * The latest result lay at the search range's upper edge (A at or above
 * it): with prepay, the next measurement need not save first (paid), and
 * it may start in debt as after a result off the estimate
 * (off_may_borrow). Traced (S1 of the accuracy benchmark, A from 20 to
 * 60 % of C): the first result after the rise, at the upper edge, read
 * 13.4 Mbit/s for A = 17.0 and began the estimate anew (the results
 * before were stale), so it lay off nothing; the next measurement waited
 * 1.26 s to repay a debt of 24.9 ms, and the estimate came within 10 %
 * of C after 40 RTT.
 */
void imtcp_cu_top(struct imtcp_cu *cu, bool top)
{
	cu->top = top;
}

/*
 * The latest measurement found A below its search range and gave no
 * result (every stream rose: imtcp_est_update_bounded moved the range
 * down past its lower edge), or it did not (@below false). As after a
 * result at the upper edge, the next measurement, which probes the range
 * moved there, may start in debt within off_debt_rtts srtt (and with
 * prepay need not save first). Traced (the VM, MTU 1500, C = 30, S2 at
 * A = 10 % of C): the slow start's streams left the range at 8.5-85.1
 * Mbit/s for A = 2.1; two measurements found A below it, each moving
 * the range down, and each waited about 2 s for the budget, so the
 * first result came after 78 RTT. Such measurements are few (replayed:
 * 0-5 of a 20 s run's 8-246 measurements, 27 of S1's 1,317), and one
 * that ends otherwise ends the grant.
 */
void imtcp_cu_below(struct imtcp_cu *cu, bool below)
{
	cu->below = below;
}

/* off_ahead: the off_debt_rtts bound counts the latest measurement's cost. */
void imtcp_cu_set_off_ahead(struct imtcp_cu *cu, bool on)
{
	cu->off_ahead = on;
}

/* charge_gap: holds and streams cost the window's gap (gap_charge). */
void imtcp_cu_set_charge_gap(struct imtcp_cu *cu, bool on)
{
	cu->by_gap = on;
}

/* hold_echo: a later hold also waits out its echo (echo_due_us). */
void imtcp_cu_set_echo(struct imtcp_cu *cu, bool on)
{
	cu->echo = on;
}

/* frame_hold: a small-write frame's first write begins its hold. */
void imtcp_cu_set_frame_hold(struct imtcp_cu *cu, bool on)
{
	cu->frame_hold = on;
}

/*
 * The hold just begun lasts at most @t (imtcp_hold_us) and the echo still
 * to come of the hold before it, within one srtt as @t is. A hold that a
 * frame's first write began (opened) lasts no longer than the quiet time
 * that says a write is finished: its frame's writes came by then or not
 * at all (in the VM at srtt 40-65 ms such holds gathered in 0.7 ms at
 * the median, 3 ms at most, of a quiet time of 5-8 ms). Held to @t alone,
 * a CPU-paced sender on loopback (srtt 1.5 ms) held 4.1 % of its time in
 * one run of imtcp_load.sh, 1.0-1.9 % in two, against 0.4-1.1 % before
 * frame_hold.
 */
u32 imtcp_cu_hold_us(const struct imtcp_cu *cu, u32 t, u32 srtt_us)
{
	if (cu->opened)
		return min_t(u32, t, srtt_us >> IMTCP_WRITE_QUIET_SHIFT);
	if (!cu->echo_us || t >= srtt_us)
		return t;
	return min_t(u32, t + cu->echo_us, srtt_us);
}

/* prepay: a new measurement waits until its likely cost is saved (paid). */
void imtcp_cu_set_prepay(struct imtcp_cu *cu, bool on)
{
	cu->prepay = on;
}

/*
 * Whether the estimate's latest result lay off it (imtcp_est.c's
 * lies_off): A has likely changed, and the estimate follows only once
 * more results say so. Until a result that does not lie off, a new
 * measurement may start in debt, as long as the budget would pay that
 * off within cu->off_debt_rtts srtt (the module's off_debt_rtts): the
 * debt stays bounded, so over time holds still cost at most hold_budget
 * percent, and the measurements it buys come where they count, after a
 * change, and are paid for by fewer after it. Traced before (the VM,
 * MTU 1500, C = 30, a bulk flow): after A rose from 20 to 60 % of C,
 * the first result read the rise within a few RTT, and the next two
 * came 0.6 and 0.75 s later, the budget in debt from holds on the thin
 * window the fall before had left; the estimate followed after 30 RTT.
 */
void imtcp_cu_off(struct imtcp_cu *cu, bool off)
{
	cu->off = off;
}

/*
 * A measurement's result is in, and its newest stream (the last of @k)
 * may serve as the first stream of the next one, which then needs a
 * single stream of its own: a result per hold after the first, not per
 * k holds. Where the window paces the sender a hold costs throughput and
 * the hold budget bounds how often it measures (where A is 20 % of C,
 * one result per 4-20 RTT in the VM): so the same budget buys up to
 * twice the results. The measurement still counts as new
 * (measurement_new): its hold pays from the budget. Only for k = 2
 * (with more, the streams carried would outnumber the new ones), only
 * before the next measurement's own stream has left (EMPTY, or the hold
 * that step_pass began), and not for a sender that paces its own
 * writes (app_paced, or not window-limited): a media sender's holds cost
 * nothing, and its results from carried streams were twice as far from
 * A (median 9.6 % of C against 4.1 beside 50 % of C in cross traffic,
 * in one boot; Documentation/benchmarks.rst). Nor when the next
 * measurement's streams would not be @n long, as the carried one is (a
 * measurement's streams share their length, which a carried one would
 * otherwise keep for as long as measurements carry: in a CI run a bulk
 * sender's streams stayed 14 segments long, the length of its first
 * measurement's, and the envelope shown 30.1 Mbit/s, not N's 20.9).
 * At @now_us. Returns whether it was carried; the caller moves the
 * stream.
 */
bool imtcp_cu_carry(struct imtcp_cu *cu, u32 k, u32 n, u32 now_us)
{
	if (k != 2 || cu->stream || !cu->limited || cu->app_paced ||
	    (cu->state != IMTCP_STATE_EMPTY && cu->state != IMTCP_STATE_STORE) ||
	    imtcp_cu_stream_len(cu) != n)
		return false;
	cu->stream = 1;
	cu->carried = 1;
	cu->carried_us = now_us;
	return true;
}

/*
 * The longest hold, T = (M / R) (m - 1) + (M / W) ACK_SEGS + 4 D_RTT:
 * long enough to gather the m segments a stream starts with at rate R,
 * plus one ACK interval, plus the RTT variation (the kernel's mdev_us is
 * already four times the mean deviation). The paper's is
 * (M / A) (N - 1) + 4 D_RTT with R = A. Here R is the lower of A and the
 * window's rate W = cwnd * M / srtt: held segments are freed by ACKs, at
 * the window's rate, and where that is the lower (a window-limited
 * sender below A, or a guess of A still too high) a hold timed by A ends
 * before it has gathered m. The ACK interval: ACKs free segments
 * ACK_SEGS at a time (a receiver ACKs every second one), so the last
 * ones come that much after the fluid rate says. m, not N: a stream
 * starts with m held. Never longer than one smoothed RTT: a longer hold
 * would stall the ACK clock.
 */
u32 imtcp_hold_us(u32 mss, u64 rate_bps, u32 m, u32 cwnd, u32 mdev4_us,
		  u32 srtt_us)
{
	u64 t = mdev4_us, window_bps = imtcp_rate_bps(cwnd, mss, srtt_us);

	if (window_bps && (!rate_bps || window_bps < rate_bps))
		rate_bps = window_bps;
	if (rate_bps && m > 1)
		t += div64_u64((u64)mss * 8 * 1000000 * (m - 1), rate_bps);
	if (window_bps)
		t += div64_u64((u64)mss * 8 * 1000000 * IMTCP_ACK_SEGS,
			       window_bps);
	if (srtt_us && t > srtt_us)
		t = srtt_us;
	return (u32)t;
}
