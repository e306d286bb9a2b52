// SPDX-License-Identifier: GPL-2.0
/*
 * Stream plans (see imtcp_est.h): the operating envelope, the rate and
 * length of each gap of a stream, and each stream's part of the search
 * range.
 */
#include "imtcp_est.h"

/*
 * The operating envelope: the highest bottleneck capacity C at which a
 * stream can show anything. n segments of mss bytes, even sent back to
 * back, raise a queue served at C by at most (n - 1) mss 8 / C seconds;
 * a rise below noise_us counts as flat. So above (n - 1) mss 8 / noise_us
 * no stream can rise and every result would only be the top of its
 * search range. At n = 10 and noise_us = 500: 208 Mbit/s with 1448-byte
 * segments, 1.29 Gbit/s with 8948. U64_MAX without a noise threshold.
 */
u64 imtcp_envelope_bps(const struct imtcp_est_cfg *c, u32 mss)
{
	if (c->noise_us <= 0 || c->n < 2)
		return U64_MAX;
	return div_u64((u64)(c->n - 1) * mss * 8 * 1000000, c->noise_us);
}

/* The rate of the gap after segment j (0 .. n - 2) of a stream. */
u64 imtcp_gap_bps(const struct imtcp_stream *st, u32 n, u32 j)
{
	if (n < 3 || j >= n - 2)
		return st->hi_bps;
	return st->lo_bps + div_u64((st->hi_bps - st->lo_bps) * j, n - 2);
}

/* The planned length of that gap: a segment's time at its rate, in ns. */
u64 imtcp_gap_ns(const struct imtcp_stream *st, u32 n, u32 j)
{
	return div64_u64((u64)st->seg_bytes * 8 * IMTCP_NS_PER_S,
			 max_t(u64, imtcp_gap_bps(st, n, j), 1));
}

/* Rates of stream i of a measurement: sub-range i of [lo_bps, hi_bps]. */
void imtcp_plan_stream(const struct imtcp_est *e, const struct imtcp_est_cfg *c,
		       u32 i, struct imtcp_stream *st)
{
	u64 w = e->hi_bps - e->lo_bps;

	st->lo_bps = e->lo_bps + div_u64(w * i, c->k);
	st->hi_bps = e->lo_bps + div_u64(w * (i + 1), c->k);
	st->nsamples = 0;
	st->outcome = IMTCP_OUT_NONE;
	st->part = i;
}

/*
 * Of the @k streams @st (not always in rate order: a carried one may lie
 * above the next), the one planned to the highest rate.
 */
u32 imtcp_fastest_stream(const struct imtcp_stream *st, u32 k)
{
	u32 i, f = 0;

	for (i = 1; i < k; i++)
		if (st[i].hi_bps > st[f].hi_bps)
			f = i;
	return f;
}

/*
 * The part of the search range (of c->k, imtcp_plan_stream) for the
 * stream that joins @carried: the lowest if the carried stream probed a
 * higher part of its range, else the highest. The parts alternate, so
 * that each measurement has a stream of each, as its own two would: one
 * from the range around the last result, where A is, and one above it,
 * which rises. Not from where the carried stream lies in the range as
 * it is now: after a range moved up, a stream of the old one's upper
 * part lay in the new one's lower half, the new stream then probed the
 * upper part as well, and both lay above A (traced in the VM).
 */
u32 imtcp_carry_part(const struct imtcp_est_cfg *c,
		     const struct imtcp_stream *carried)
{
	return carried->part ? 0 : c->k - 1;
}
