/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of imtcp: control-unit state changes, delay samples,
 * streams, estimates and their withdrawal.
 * bpftrace: tracepoint:imtcp:imtcp_estimate { ... args->bps }
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM imtcp

#if !defined(_IMTCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IMTCP_TRACE_H

#include <linux/tracepoint.h>
#include "core/imtcp_est.h"
#include "uapi/imtcp.h"

TRACE_DEFINE_ENUM(IMTCP_STATE_OFF);
TRACE_DEFINE_ENUM(IMTCP_STATE_STORE);
TRACE_DEFINE_ENUM(IMTCP_STATE_SEND);
TRACE_DEFINE_ENUM(IMTCP_STATE_PASS);
TRACE_DEFINE_ENUM(IMTCP_STATE_EMPTY);

#define imtcp_show_state(s)						\
	__print_symbolic(s, { IMTCP_STATE_OFF, "off" },			\
			 { IMTCP_STATE_STORE, "store" },		\
			 { IMTCP_STATE_SEND, "send" },			\
			 { IMTCP_STATE_PASS, "pass" },			\
			 { IMTCP_STATE_EMPTY, "empty" })

TRACE_EVENT(imtcp_state,
	    TP_PROTO(u64 cookie, u32 from, u32 to, u32 m, u32 stream, u32 cwnd,
		     u32 held, s64 credit_us, u32 paced, u32 srtt_us,
		     u32 queue_us),
	    TP_ARGS(cookie, from, to, m, stream, cwnd, held, credit_us, paced,
		    srtt_us, queue_us),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u32, from)
			     __field(u32, to)
			     __field(u32, m)
			     __field(u32, stream)
			     __field(u32, cwnd)
			     __field(u32, held)
			     __field(s64, credit_us)
			     __field(u32, paced)
			     __field(u32, srtt_us)
			     __field(u32, queue_us)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->from = from;
			   __entry->to = to;
			   __entry->m = m;
			   __entry->stream = stream;
			   __entry->cwnd = cwnd;
			   __entry->held = held;
			   __entry->credit_us = credit_us;
			   __entry->paced = paced;
			   __entry->srtt_us = srtt_us;
			   __entry->queue_us = queue_us;
	    ),
	    TP_printk("cookie=%llu %s->%s m=%u stream=%u cwnd=%u held=%u credit_us=%lld paced=%u srtt_us=%u queue_us=%u",
		      __entry->cookie,
		      imtcp_show_state(__entry->from),
		      imtcp_show_state(__entry->to),
		      __entry->m, __entry->stream, __entry->cwnd, __entry->held,
		      __entry->credit_us, __entry->paced, __entry->srtt_us,
		      __entry->queue_us)
);

/*
 * A stream begins: its first segment starts at sequence number @seq, and
 * its N segments of @mss bytes are planned to leave over @plan_ns (from
 * the first departure to the last) at rates rising from @lo_bps to
 * @hi_bps. A capture on the sender's link can check the real departures
 * against the plan (selftests/imtcp_pacing.sh).
 */
TRACE_EVENT(imtcp_stream_start,
	    TP_PROTO(u64 cookie, u32 index, u32 seq, u64 lo_bps, u64 hi_bps,
		     u32 segs, u32 mss, u64 plan_ns),
	    TP_ARGS(cookie, index, seq, lo_bps, hi_bps, segs, mss, plan_ns),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u64, lo_bps)
			     __field(u64, hi_bps)
			     __field(u64, plan_ns)
			     __field(u32, index)
			     __field(u32, seq)
			     __field(u32, segs)
			     __field(u32, mss)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->lo_bps = lo_bps;
			   __entry->hi_bps = hi_bps;
			   __entry->plan_ns = plan_ns;
			   __entry->index = index;
			   __entry->seq = seq;
			   __entry->segs = segs;
			   __entry->mss = mss;
	    ),
	    TP_printk("cookie=%llu stream=%u seq=%u rate=%llu-%llu segs=%u mss=%u plan_ns=%llu",
		      __entry->cookie, __entry->index, __entry->seq,
		      __entry->lo_bps, __entry->hi_bps, __entry->segs,
		      __entry->mss, __entry->plan_ns)
);

/*
 * A stream analysed (or failed: outcome dry). carried: 1 for a
 * measurement's first stream carried over from the measurement before
 * (the module parameter carry), which traced it already as its newest:
 * it is analysed again here, and readers that count streams skip it.
 */
TRACE_EVENT(imtcp_stream,
	    TP_PROTO(u64 cookie, u32 index, u64 lo_bps, u64 hi_bps, u32 segs,
		     u32 mss, u32 samples, u32 outcome, u32 min_rtt_us,
		     bool carried),
	    TP_ARGS(cookie, index, lo_bps, hi_bps, segs, mss, samples, outcome,
		    min_rtt_us, carried),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u64, lo_bps)
			     __field(u64, hi_bps)
			     __field(u32, index)
			     __field(u32, segs)
			     __field(u32, mss)
			     __field(u32, samples)
			     __field(u32, outcome)
			     __field(u32, min_rtt_us)
			     __field(u32, carried)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->lo_bps = lo_bps;
			   __entry->hi_bps = hi_bps;
			   __entry->index = index;
			   __entry->segs = segs;
			   __entry->mss = mss;
			   __entry->samples = samples;
			   __entry->outcome = outcome;
			   __entry->min_rtt_us = min_rtt_us;
			   __entry->carried = carried;
	    ),
	    TP_printk("cookie=%llu stream=%u rate=%llu-%llu segs=%u mss=%u samples=%u outcome=%s min_rtt_us=%u carried=%u",
		      __entry->cookie, __entry->index, __entry->lo_bps,
		      __entry->hi_bps, __entry->segs, __entry->mss,
		      __entry->samples,
		      __print_symbolic(__entry->outcome, { 0, "dry" },
				       { 1, "flat" }, { 2, "rise" },
				       { 3, "unclear" }),
		      __entry->min_rtt_us, __entry->carried)
);

TRACE_EVENT(imtcp_sample,
	    TP_PROTO(u64 cookie, u32 stream, u32 seg, u32 tx_us, s32 delay_us),
	    TP_ARGS(cookie, stream, seg, tx_us, delay_us),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u32, stream)
			     __field(u32, seg)
			     __field(u32, tx_us)
			     __field(s32, delay_us)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->stream = stream;
			   __entry->seg = seg;
			   __entry->tx_us = tx_us;
			   __entry->delay_us = delay_us;
	    ),
	    TP_printk("cookie=%llu stream=%u seg=%u tx_us=%u delay_us=%d",
		      __entry->cookie, __entry->stream, __entry->seg,
		      __entry->tx_us, __entry->delay_us)
);

TRACE_EVENT(imtcp_estimate,
	    TP_PROTO(u64 cookie, const struct imtcp_est *e, u64 raw_bps,
		     u64 busy_bps, u64 floor_bps, u32 edge, u32 srtt_us,
		     u32 cwnd, u32 m, u32 rse),
	    TP_ARGS(cookie, e, raw_bps, busy_bps, floor_bps, edge, srtt_us,
		    cwnd, m, rse),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u64, bps)
			     __field(u64, raw_bps)
			     __field(u64, busy_bps)
			     __field(u64, floor_bps)
			     __field(u64, lo_bps)
			     __field(u64, hi_bps)
			     __field(u32, edge)
			     __field(u32, srtt_us)
			     __field(u32, cwnd)
			     __field(u32, m)
			     __field(u32, count)
			     __field(u32, rse)
			     __field(u32, held)
			     __field(u32, bucket)
			     __field(u64, cap_bps)
			     __field(u32, off)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->bps = e->estimate_bps;
			   __entry->raw_bps = raw_bps;
			   __entry->busy_bps = busy_bps;
			   __entry->floor_bps = floor_bps;
			   __entry->lo_bps = e->lo_bps;
			   __entry->hi_bps = e->hi_bps;
			   __entry->edge = edge;
			   __entry->srtt_us = srtt_us;
			   __entry->cwnd = cwnd;
			   __entry->m = m;
			   __entry->count = e->count;
			   __entry->rse = rse;
			   __entry->held = e->held;
			   __entry->bucket = e->bucket.segs;
			   __entry->cap_bps = e->cap.median_bps;
			   __entry->off = e->off;
	    ),
	    TP_printk("cookie=%llu bps=%llu raw=%llu busy=%llu floor=%llu range=%llu-%llu edge=%u srtt_us=%u cwnd=%u m=%u count=%u rse=%u held=%u bucket=%u cap=%llu off=%u",
		      __entry->cookie, __entry->bps, __entry->raw_bps,
		      __entry->busy_bps, __entry->floor_bps, __entry->lo_bps,
		      __entry->hi_bps, __entry->edge, __entry->srtt_us,
		      __entry->cwnd, __entry->m, __entry->count, __entry->rse,
		      __entry->held, __entry->bucket, __entry->cap_bps,
		      __entry->off)
);

TRACE_DEFINE_ENUM(IMTCP_REASON_NONE);
TRACE_DEFINE_ENUM(IMTCP_REASON_ENVELOPE);
TRACE_DEFINE_ENUM(IMTCP_REASON_HOLDS_FAILING);
TRACE_DEFINE_ENUM(IMTCP_REASON_WRITES_SHORT);

/*
 * An estimate is withdrawn: the socket shows none from now on. @bps is
 * the estimate withdrawn, @shown whether it had been published (0: the
 * measurement that made it was found wanting before it was), @reason
 * why (IMTCP_REASON_*, the socket's reason from now on).
 */
TRACE_EVENT(imtcp_withdraw,
	    TP_PROTO(u64 cookie, u64 bps, u32 shown, u32 reason),
	    TP_ARGS(cookie, bps, shown, reason),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u64, bps)
			     __field(u32, shown)
			     __field(u32, reason)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->bps = bps;
			   __entry->shown = shown;
			   __entry->reason = reason;
	    ),
	    TP_printk("cookie=%llu bps=%llu shown=%u reason=%s",
		      __entry->cookie, __entry->bps, __entry->shown,
		      __print_symbolic(__entry->reason,
				       { IMTCP_REASON_NONE, "none" },
				       { IMTCP_REASON_ENVELOPE, "above-envelope" },
				       { IMTCP_REASON_HOLDS_FAILING, "holds-failing" },
				       { IMTCP_REASON_WRITES_SHORT, "writes-short" }))
);

/*
 * The figure shown moved between results (the busy cap) far enough from
 * what netlink listeners last heard to tell them (imtcp_busy_move_news):
 * @bps shown now, @told_bps what they had heard, @busy_bps the busy rate
 * the cap comes from. Fired whether or not anyone listens.
 */
TRACE_EVENT(imtcp_move,
	    TP_PROTO(u64 cookie, u64 bps, u64 told_bps, u64 busy_bps),
	    TP_ARGS(cookie, bps, told_bps, busy_bps),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u64, bps)
			     __field(u64, told_bps)
			     __field(u64, busy_bps)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   __entry->bps = bps;
			   __entry->told_bps = told_bps;
			   __entry->busy_bps = busy_bps;
	    ),
	    TP_printk("cookie=%llu bps=%llu told_bps=%llu busy_bps=%llu",
		      __entry->cookie, __entry->bps, __entry->told_bps,
		      __entry->busy_bps)
);

#endif /* _IMTCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE imtcp_trace
#include <trace/define_trace.h>
