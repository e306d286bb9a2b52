/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control unit: ImTCP's STORE / SEND / PASS / EMPTY state machine,
 * as decisions on a view of the connection. The module turns states into
 * actions (hold = departure time pushed ahead, stream = paced release,
 * EMPTY = unpaced release, PASS = Reno's pacing); this file only decides.
 */
#ifndef _IMTCP_CU_H
#define _IMTCP_CU_H

#include "imtcp_types.h"
#include "uapi/imtcp.h"	/* enum imtcp_state */

/* Successful measurements at one m before m shrinks (the paper's F). */
#define IMTCP_GOOD_TO_SHRINK	2
#define IMTCP_M_MIN		2

/*
 * The smallest window, in stream lengths (N), that holds in a slow start
 * the window limits; see imtcp_cu.c.
 */
#define IMTCP_SS_WINDOW	4

/* Segments one ACK frees (a receiver ACKs every second segment). */
#define IMTCP_ACK_SEGS	2

/* hold_budget: 100 % lets the connection measure without pause. */
#define IMTCP_BUDGET_MAX	100

/* free_starts: at most this many measurements start in debt. */
#define IMTCP_FREE_MAX	8

/*
 * After a result off the estimate (imtcp_cu_off) or at the search range's
 * upper edge (imtcp_cu_top), or a measurement that found A below its
 * range (imtcp_cu_below), a measurement may start in debt while the
 * budget would pay the debt off within off_debt_rtts srtt: by default so
 * many, at most IMTCP_OFF_DEBT_MAX.
 */
#define IMTCP_OFF_DEBT_RTTS	32
#define IMTCP_OFF_DEBT_MAX	256

/*
 * After a failed hold no hold begins for srtt << min(failed holds in a
 * row - 1, IMTCP_REST_SHIFT_MAX): 1, 2, 4 ... 64 srtt.
 */
#define IMTCP_REST_SHIFT_MAX	6

/*
 * A write is finished when no byte came for srtt >> this: on loopback a
 * CPU-paced writer's last write before a failed hold came 2 us before
 * it (srtt 1.3-2.1 ms); a 25 frames/s media sender's 10-45 ms before
 * (srtt 40 ms).
 */
#define IMTCP_WRITE_QUIET_SHIFT	3

/* A carried stream (imtcp_cu_carry) serves for so many srtt. */
#define IMTCP_CARRY_RTTS	2

/* So many holds or streams failed since the last result: holds_failing. */
#define IMTCP_HOLDS_FAILING	8

struct imtcp_cu {
	u8 state;	/* enum imtcp_state */
	u8 m;		/* held segments that start a stream */
	u8 good_at_m;	/* successful measurements at this m */
	u8 stream;	/* index of the stream being formed or sent */
	u8 started;	/* last_us is set */
	u8 limited;	/* the window kept data back at the last step */
	u8 free_starts;	/* measurements that may still start in debt */
	u8 slow_start;	/* the measurement began in slow start */
	u8 first_ss;	/* ... in the first, before any loss */
	u8 resting;	/* a hold failed: none begins before rest_until_us */
	u8 failed_holds;/* holds in a row that ended without a stream */
	u8 failures;	/* holds and streams failed since the last result */
	u8 n_full;	/* N, the stream length the connection was given */
	u8 n_writes;	/* streams as long as the writes (0: N) */
	u8 burst_segs;	/* full segments of the last finished write, 0: none */
	u8 burst_bad;	/* the window or the buffer held this write back */
	u8 hold_whole;	/* this hold began with m segments at hand */
	u8 wrote;	/* full segments of a write after a quiet time */
	u8 writes_whole;/* so did the last stream's, without the window */
	u8 writes_short;/* the last two finished writes: < WRITE_SEGS_MIN */
	u8 write_segs;	/* full segments the last write brought at once */
	u8 first_len;	/* no length known: the last write's (0: N) */
	u8 app_paced;	/* writes come after quiet times, none waited */
	u8 carried;	/* stream 0 is the last measurement's newest */
	u8 off;		/* the latest result lay off the estimate */
	u8 prepay;	/* a measurement starts once its cost is saved */
	u8 off_ahead;	/* the off bound counts the latest cost */
	u8 top;		/* the latest result at the range's upper edge */
	u8 below;	/* the latest measurement: A below its range, no result */
	u8 by_gap;	/* holds charged by the window's gap (charge_gap) */
	u8 gap_hold;	/* this hold and its stream: so charged */
	u8 echo;	/* a later hold waits out the ACK gap of the one before */
	u8 frame_hold;	/* a small-write frame's first write begins the hold */
	u8 opened;	/* STORE: this hold began so (imtcp_cu_frame_opens) */
	u16 off_debt_rtts;/* then a start may borrow so many srtt of budget */
	u32 deadline_us;/* STORE: hold no longer than this */
	u32 carried_us;	/* when it was carried over */
	u32 rest_until_us;
	u32 hold_begin_us;	/* when the current hold began */
	u32 prev_begin_us;	/* the measurement's hold before it: began */
	u32 prev_len_us;	/* ... and lasted (0: none) */
	u32 echo_us;	/* of this hold: that hold's ACK gap still to come */
	u32 write_seq;	/* the application's write_seq at the last step */
	u32 write_us;	/* when a step first saw it */
	u32 burst_seq;	/* where the write being made began (seq) */
	u32 budget;	/* percent of time that holds may cost */
	u32 last_us;	/* when the budget was last brought up to date */
	u32 free_us;	/* of this hold and its stream, what the queue pays */
	u32 send_us;	/* time in SEND of the current stream */
	u32 send_charged;/* of which charged so far */
	u32 gap_pm;	/* gap_hold: the window's gap at the last step, permille */
	s64 credit;	/* hold budget, percent-microseconds; < 0: in debt */
	u32 spent_us;	/* hold charged to the latest measurement */
	u64 cost_us;	/* holding time charged so far */
	u64 held_us;	/* time in STORE so far, charged or not */
	u64 stream_us;	/* time in SEND so far */
};

/* The connection as the control unit needs to see it. */
struct imtcp_cu_view {
	u32 now_us;
	u32 held;		/* segments that could leave now */
	u32 unsent;		/* full segments of data not sent yet */
	u32 write_seq;		/* bytes the application has written (seq) */
	u32 snd_nxt;		/* the next byte to send (seq) */
	u32 mss;		/* bytes in a full segment */
	bool writer_waits;	/* the application waits for send buffer */
	u32 cwnd;
	u32 in_flight;
	u32 sent;		/* SEND: segments of the stream sent */
	bool slot_due;		/* SEND: the next segment's time has come */
	u32 due_us;		/* SEND: and came so long ago */
	bool acked;		/* PASS: every stream segment is ACKed */
	bool can_measure;	/* Open state and pacing in effect */
	bool slow_start;	/* cwnd below ssthresh */
	bool first_ss;		/* and ssthresh unset: no loss yet */
	u32 srtt_us;		/* smoothed RTT */
	u32 queue_us;		/* standing queue, beyond RTT noise */
	u32 seg_us;		/* SEND: srtt / cwnd, a segment's time */
	bool opens;		/* EMPTY: a frame begins (imtcp_cu_frame_opens) */
};

/* What imtcp_cu_step() reports besides the new state. */
#define IMTCP_CU_CHANGED	0x1	/* cu->state changed */
#define IMTCP_CU_MEASURED	0x2	/* a measurement's ACKs are in */
/* a stream ran dry (retried), or its hold ended without it (abandoned) */
#define IMTCP_CU_FAILED		0x4
#define IMTCP_CU_STREAM_DONE	0x8	/* a stream was sent in full */

void imtcp_cu_init(struct imtcp_cu *cu, u32 n);
u32 imtcp_cu_stream_len(const struct imtcp_cu *cu);
void imtcp_cu_set_budget(struct imtcp_cu *cu, u32 percent);
void imtcp_cu_set_free_starts(struct imtcp_cu *cu, u32 n);
void imtcp_cu_estimated(struct imtcp_cu *cu);
u32 imtcp_cu_step(struct imtcp_cu *cu, u32 n, u32 k,
		  const struct imtcp_cu_view *v);
u32 imtcp_cu_pause(struct imtcp_cu *cu);
bool imtcp_cu_holds_failing(const struct imtcp_cu *cu);
bool imtcp_cu_writes_short(const struct imtcp_cu *cu);
u8 imtcp_cu_reason(const struct imtcp_cu *cu, u8 reason, bool shown);
bool imtcp_cu_app_sets_pace(const struct imtcp_cu *cu);
void imtcp_cu_result(struct imtcp_cu *cu, bool ok);
void imtcp_cu_off(struct imtcp_cu *cu, bool off);
void imtcp_cu_set_off_debt(struct imtcp_cu *cu, u32 rtts);
void imtcp_cu_set_prepay(struct imtcp_cu *cu, bool on);
void imtcp_cu_set_charge_gap(struct imtcp_cu *cu, bool on);
void imtcp_cu_set_off_ahead(struct imtcp_cu *cu, bool on);
void imtcp_cu_set_echo(struct imtcp_cu *cu, bool on);
void imtcp_cu_set_frame_hold(struct imtcp_cu *cu, bool on);
bool imtcp_cu_frame_opens(const struct imtcp_cu *cu, u32 write_seq,
			  u32 now_us, u32 srtt_us, bool writer_waits);
u32 imtcp_cu_hold_us(const struct imtcp_cu *cu, u32 t, u32 srtt_us);
void imtcp_cu_top(struct imtcp_cu *cu, bool top);
void imtcp_cu_below(struct imtcp_cu *cu, bool below);
s64 imtcp_cu_credit_us(const struct imtcp_cu *cu);
bool imtcp_cu_carry(struct imtcp_cu *cu, u32 k, u32 n, u32 now_us);
u32 imtcp_hold_us(u32 mss, u64 rate_bps, u32 m, u32 cwnd, u32 mdev4_us,
		  u32 srtt_us);

#endif /* _IMTCP_CU_H */
