// SPDX-License-Identifier: GPL-2.0
/*
 * A measurement's result from its streams' delays (see imtcp_est.h).
 *
 * Why a fit and not the first rising delay: at a link of capacity C a
 * gap at rate r > A adds (L / C)(1 - A / r) of queue, 116 us per segment
 * at most on a 100 Mbit/s link, a few us just above A. A stream's rise
 * is therefore only visible against timer and scheduling noise well
 * above A, and "where the delays leave the floor" lands late: in the
 * unit tests' model it read A = 60 Mbit/s as 85-90. So each stream is
 * only classified (final rise larger than noise_us, or flat), and A comes
 * from all streams together: for each candidate A in [lo_bps, hi_bps)
 * the queue every stream would build (Lindley's recursion over its real
 * gaps, from its first sample on, behind the bottleneck's token bucket
 * as learnt; below) is correlated with the measured delays, with one
 * common slope (the service time of a segment, unknown) and one offset
 * per stream; the best-correlated candidate is the result. The curvature
 * this uses (increments growing as 1 - A / r along the streams) fixes A
 * without knowing C.
 *
 * The Lindley fit assumes the queue may empty, and so used to start each
 * stream at its lowest delay; with ACK jitter of a millisecond that
 * lowest point is often noise, the rest of the stream then "rises" and A
 * reads low (0.6-0.8 A on the VM's recordings). A bulk Reno sender,
 * though, mostly measures on its own standing queue, which never empties
 * during a stream. There the queue simply integrates arrivals minus
 * service, so a sample's delay is o_i + bytes / C - t A / C (bytes sent
 * and time elapsed since the stream's first sample, o_i one offset per
 * stream): linear in the two unknowns, a least-squares fit over all
 * samples of all streams gives A = (A / C) / (1 / C), with no start
 * point to choose and no bias from zero-mean jitter. It is used when
 * every stream's lowest delay stands more than noise_us above the
 * connection's minimum RTT (the delay of an empty queue).
 *
 * A bottleneck that shapes with a token bucket (tbf, a policer, most
 * access links) lets a burst of up to its bucket through without delay
 * once it has been idle. A stream of 10-16 segments at a rate well
 * above A then shows its rise late or not at all (behind tbf's bucket
 * of four 1514-byte frames at MTU 1500 a stream of 6 did not rise at any
 * rate), and starting each stream at its lowest delay only half mends
 * it: an application-limited sender's results in the VM lay at 1.25
 * times A at the median (17.5 Mbit/s for 14; 422 results of 16
 * recorded runs) and scattered widely. So the Lindley fit models the
 * bucket: the recursion starts each stream with a full bucket of b
 * segments, q = -b (a stream back to back with the one before it: where
 * that one left the queue, stream_start), and goes no lower (tokens),
 * and the delay follows max(0, q). The bucket is a property of the
 * path, and one measurement says little about it, so every candidate b
 * of 0 to IMTCP_BUCKET_SEGS_MAX segments is fitted each time, each one's
 * score (its best correlation with the delays, a moving sum over the
 * measurements) is kept per connection, and the result is that of the
 * candidate whose score is highest. On those recordings replayed, the
 * results' median came to 15.0 (1.07 A; 519 results inside their
 * ranges, 422 before) and the estimate's error from 24.2 to 16.1 % of A
 * at the median and 52.5 to 41.4 at p90; the bulk recordings' moved by
 * -0.8 to +0.7 % of A at the median.
 *
 * A standing-queue fit also knows how well it fits: the standard error of
 * its A (standing_rse) goes with the result, and the estimate takes an
 * imprecise result with less weight than the path's usual ones.
 */
#include "imtcp_est.h"

#define IMTCP_FIT_STEPS		32	/* candidate A per stream */
#define IMTCP_BUCKET_DECAY	5	/* bucket scores decay by 1/32 */
/*
 * The joint fit's queue model (fit_stream) counts the queue in
 * 1/IMTCP_Q_UNIT of a segment (a stream's queue, at most IMTCP_N_MAX
 * segments, stays below 2^14 units), and keeps each gap's inverse rate
 * as 2^IMTCP_INV_SHIFT * IMTCP_Q_UNIT / rate_bps = 2^40 / rate_bps:
 * 1.1e7 at IMTCP_RATE_MIN (100 kbit/s), 1100 (10 bits) at 1 Gbit/s, 11
 * (3.5 bits) at 100 Gbit/s. Streams never probe above twice the
 * envelope (imtcp_envelope_bps: 1.29 Gbit/s at MTU 9000 with the
 * defaults, 2.2 with 16-segment streams), where 8.9 bits remain. The
 * product A * inverse rate stays below 2^64 while A / rate is below
 * 2^24: no gap is that much slower than a candidate A.
 */
#define IMTCP_INV_SHIFT		30
#define IMTCP_Q_UNIT		1024
#define IMTCP_STANDING_SPAN_US	1000000	/* longer streams count as 1 s */
/*
 * The standard error's linear fit (rse_stream) counts segments in
 * 1/IMTCP_SEG_UNIT and the queue z = segments - A * time in the same
 * units; z beyond +-IMTCP_RSE_Z_MAX (2^24: 65,536 segments) gives no standard
 * error, which keeps the sums of products of up to IMTCP_N_MAX *
 * IMTCP_K_MAX samples within s64 (2^50 each, at most 2^57 together).
 */
#define IMTCP_SEG_UNIT		256
#define IMTCP_RSE_Z_MAX		16777216

/* Integer square root (Newton), for the fit's correlation score. */
static u64 isqrt64(u64 x)
{
	u64 r = x, y;

	if (x < 2)
		return x;
	y = (r + 1) / 2;
	while (y < r) {
		r = y;
		y = (r + div64_u64(x, r)) / 2;
	}
	return r;
}

/* Sums of the joint least-squares fit, per candidate A. */
struct fit_sums {
	s64 sxx;	/* sum of squared deviations of the model queue */
	s64 sxd;	/* sum of its products with the delay deviations */
	s64 sdd;	/* sum of squared deviations of the delays */
};

/*
 * The queue model of one fit: a link that leaves the streams @a_bps,
 * behind a token bucket of @credit (in 1/IMTCP_Q_UNIT of a segment)
 * that is full when a stream begins; from each stream's first sample,
 * or (@from_lowest, the fit without a bucket) from its lowest delay.
 * @seg_bit_ns: a segment's bits times 10^9, which over the fit's service
 * time of a segment in ns gives the capacity a candidate is held to
 * (fit_capacity_bps, within_capacity; 0: none).
 */
struct fit_model {
	u64 a_bps;
	s64 credit;
	bool from_lowest;
	u64 seg_bit_ns;
};

/* The best candidate's figures (fit_measurement). */
struct fit_best {
	u32 corr;	/* its correlation, 1/1024 */
	u64 cap_bps;	/* the capacity its slope gives (0: none) */
	bool over_cap;	/* a candidate lay above the capacity its fit gave */
};

/*
 * How a stream follows the one before it in its measurement, the same
 * for every candidate (fit_joins): @b2b, back to back (see stream_start);
 * then @segs sent from that one's last sample to this one's first, @dt_us
 * between their departures.
 */
struct fit_join {
	u32 dt_us;
	u32 segs;
	bool b2b;
};

#define IMTCP_B2B_GAPS	1	/* a stream back to back: slack, in gaps */

/* The mean gap between @st's sampled segments, in us (0: one sample). */
static u32 sampled_gap_us(const struct imtcp_stream *st)
{
	const struct imtcp_sample *a = &st->s[0];
	const struct imtcp_sample *b = &st->s[st->nsamples - 1];

	return b->seg > a->seg ? (b->tx_us - a->tx_us) / (b->seg - a->seg) : 0;
}

/* A stream the fits use: analysed as rising or flat. */
static bool usable(const struct imtcp_stream *st)
{
	return st->outcome == IMTCP_OUT_RISE || st->outcome == IMTCP_OUT_FLAT;
}

/*
 * Whether each stream left back to back with the one before it: both
 * analysed, with samples and segment sizes, and its first sample no
 * later than the segments in between take at that stream's mean gap,
 * plus IMTCP_B2B_GAPS gaps (and under a second, which keeps a_bps *
 * dt_us * IMTCP_Q_UNIT below 2^62 in stream_start). Such a stream's
 * model queue starts where the one before it left the queue
 * (stream_start), not with a full bucket.
 *
 * A media sender's frame larger than a stream leaves its streams back
 * to back (10 Mbit/s in frames of 34 segments: two streams of 16, the
 * second 0.1-1.7 ms after the first's last sample). The second then
 * rises from its first segment on, on the first one's queue with the
 * bucket's tokens spent, where a model with a full bucket has it flat
 * for the bucket's worth; fitted so, the results stood at 20.3 Mbit/s
 * for A = 13.9 in the VM (the replay of that run: median error 6.4,
 * with the queue carried 2.8). Only back to back: carried across the
 * 10-35 ms between a 5 Mbit/s sender's streams (one per frame), the
 * replay of its run read further from A (median error 3.8, not 3.4).
 * A cost in the unit tests' model: Poisson cross traffic on an idle
 * link, streams 2 ms apart, where the lowest streams' gaps (1 ms) make
 * them back to back, read A = 40 as 26.9 instead of 34.5 (a known
 * weakness there, poisson_on_an_idle_link_does_not_collapse); the
 * VM's recordings of bulk senders read as before.
 */
static void fit_joins(const struct imtcp_stream *st, u32 k, u32 n,
		      struct fit_join *j)
{
	const struct imtcp_stream *a, *b;
	u32 i;

	for (i = 0; i < k; i++) {
		j[i].b2b = false;
		if (!i)
			continue;
		a = &st[i - 1];
		b = &st[i];
		if (!usable(a) || !usable(b) || !a->nsamples || !b->nsamples ||
		    !a->seg_bytes || !b->seg_bytes)
			continue;
		j[i].segs = n - a->s[a->nsamples - 1].seg + b->s[0].seg;
		j[i].dt_us = b->s[0].tx_us - a->s[a->nsamples - 1].tx_us;
		j[i].b2b = j[i].dt_us < IMTCP_STANDING_SPAN_US &&
			   j[i].dt_us <= (u64)(j[i].segs + IMTCP_B2B_GAPS) *
					 sampled_gap_us(a);
	}
}

/*
 * Where the model queue of a stream begins: with a full bucket (q =
 * -credit), or, back to back (@j), where the stream before it left it
 * (@q_end): plus the segments sent since, less what a link leaving A
 * drained in the time between, down to the full bucket.
 */
static s64 stream_start(const struct imtcp_stream *st,
			const struct fit_model *m, const struct fit_join *j,
			s64 q_end)
{
	s64 q = -m->credit, drain;

	if (!j->b2b)
		return q;
	drain = div64_u64(m->a_bps * j->dt_us * IMTCP_Q_UNIT,
			  (u64)st->seg_bytes * 8 * 1000000);
	return max_t(s64, q, q_end + (s64)j->segs * IMTCP_Q_UNIT - drain);
}

/*
 * Add one stream to the fit of model @m: the queue the stream would
 * build, by Lindley's recursion in 1/IMTCP_Q_UNIT of a segment's service
 * time, q' = max(-credit, q + 1 - a / r) per gap (q below zero: the
 * bucket's tokens, no queue), from where the stream before it left the
 * queue (stream_start, @join, @q_end; set for the next one), against the
 * measured delays. Each stream gets its own offset (deviations from its
 * own means).
 */
static void fit_stream(const struct imtcp_stream *st, u32 n,
		       const struct fit_model *m, const u64 *inv_rate,
		       const struct fit_join *join, s64 *q_end,
		       struct fit_sums *f)
{
	s64 sx = 0, sd = 0, sxx = 0, sxd = 0, sdd = 0, q, x;
	s32 d[IMTCP_N_MAX];
	u32 i, j, first, cnt = 0;

	first = imtcp_rel_delays(st, d);
	q = m->from_lowest ? -m->credit : stream_start(st, m, join, *q_end);
	if (!m->from_lowest)
		first = 0;
	j = st->s[first].seg;
	for (i = first; i < st->nsamples; i++) {
		for (; j < st->s[i].seg && j + 1 < n; j++) {
			q += IMTCP_Q_UNIT -
			     (s64)((m->a_bps * inv_rate[j]) >> IMTCP_INV_SHIFT);
			q = max_t(s64, q, -m->credit);
		}
		x = max_t(s64, q, 0);
		sx += x;
		sd += d[i];
		sxx += x * x;
		sxd += x * d[i];
		sdd += (s64)d[i] * d[i];
		cnt++;
	}
	*q_end = q;
	if (!cnt)
		return;
	f->sxx += sxx - div64_s64(sx * sx, cnt);
	f->sxd += sxd - div64_s64(sx * sd, cnt);
	f->sdd += sdd - div64_s64(sd * sd, cnt);
}

/*
 * The rate a gap really had. Samples give real departure times only for
 * the segments ACKs named (every second one, with delayed ACKs), so each
 * planned rate is scaled by how much longer (or shorter) the interval
 * between the two samples around it really took: the ramp inside the
 * interval is kept, a sender that fell behind its plan is accounted for.
 * Two samples with the same departure time left together, in one skb (a
 * stream catching up, imtcp_pace.c): back to back. Where samples do not
 * tell (before the first, after the last, no segment size known) the
 * planned rate stands.
 */
static u64 real_rate(const struct imtcp_stream *st, u32 n, u32 j)
{
	u64 plan_us = 0;
	u32 i, g;

	if (!st->seg_bytes)
		return imtcp_gap_bps(st, n, j);
	for (i = 1; i < st->nsamples; i++) {
		const struct imtcp_sample *a = &st->s[i - 1], *b = &st->s[i];
		s32 dt = (s32)(b->tx_us - a->tx_us);

		if (j < a->seg || j >= b->seg)
			continue;
		if (dt <= 0)
			return IMTCP_RATE_B2B;
		for (g = a->seg; g < b->seg; g++)
			plan_us += div_u64(imtcp_gap_ns(st, n, g), 1000);
		return div_u64(imtcp_gap_bps(st, n, j) * plan_us, dt);
	}
	return imtcp_gap_bps(st, n, j);
}

/*
 * The rate the stream as a whole really left at: the bytes between its
 * first and last sampled segment over the time between their departures
 * (samples are in segment order). Single gaps are no measure of it: a
 * late pacing timer is followed by segments that catch up tens of us
 * apart, "rates" of hundreds of Mbit/s that the stream as a whole never
 * had and that the path never saw (its queue answers to what arrives
 * over many segments). 0 if the samples do not tell.
 */
static u64 sustained_rate(const struct imtcp_stream *st)
{
	const struct imtcp_sample *a = &st->s[0];
	const struct imtcp_sample *b = &st->s[st->nsamples - 1];
	s32 dt;

	if (st->nsamples < 2 || !st->seg_bytes || b->seg <= a->seg)
		return 0;
	dt = (s32)(b->tx_us - a->tx_us);
	if (dt <= 0)
		return 0;
	return div_u64((u64)(b->seg - a->seg) * st->seg_bytes * 8 * 1000000,
		       dt);
}

/* How high the stream probed: its sustained rate, or its plan if unknown. */
static u64 top_rate(const struct imtcp_stream *st)
{
	u64 r = sustained_rate(st);

	return r ? r : st->hi_bps;
}

/* 2^IMTCP_INV_SHIFT * IMTCP_Q_UNIT / rate for each gap of a stream. */
static void inv_rates(const struct imtcp_stream *st, u32 n, u64 *inv)
{
	u32 j;

	for (j = 0; j + 1 < n; j++)
		inv[j] = div64_u64((u64)IMTCP_Q_UNIT << IMTCP_INV_SHIFT,
				   max_t(u64, real_rate(st, n, j), 1));
}

/* The correlation of a fit's model with the delays, in 1/1024. */
static u32 fit_correlation(const struct fit_sums *f)
{
	u64 rx = isqrt64((u64)f->sxx), rd = isqrt64((u64)f->sdd);

	if (f->sxd <= 0 || !rx || !rd)
		return 0;
	return min_t(u64, div64_u64(div64_u64((u64)f->sxd << 10, rx), rd),
		     1024);
}

/*
 * A segment's bits times 10^9 (fit_model's seg_bit_ns), of the first
 * usable stream that knows its segment size; 0 if none does.
 */
static u64 seg_bit_ns(const struct imtcp_stream *st, u32 k)
{
	u32 i;

	for (i = 0; i < k; i++)
		if (usable(&st[i]) && st[i].seg_bytes)
			return (u64)st[i].seg_bytes * 8 * 1000000000ULL;
	return 0;
}

/*
 * The capacity a fit's slope gives, in bit/s. The model counts the queue
 * in the stream's segments, and the slope that fits it to the delays is
 * the bottleneck's service time of one segment, L / C. 0 where it does
 * not tell: no segment size (@m->seg_bit_ns 0), or an sxd too large
 * (above 2^44: delays of tens of seconds). At least 1 otherwise.
 *
 * Units: sxd / sxx is us of delay per 1/IMTCP_Q_UNIT of a segment, taken
 * in ns per segment.
 */
#define IMTCP_SXD_NS_MAX	(U64_MAX / (IMTCP_Q_UNIT * 1000))

static u64 fit_capacity_bps(const struct fit_sums *f,
			    const struct fit_model *m)
{
	u64 seg_ns;

	if (!m->seg_bit_ns || f->sxx <= 0 || f->sxd <= 0 ||
	    (u64)f->sxd > IMTCP_SXD_NS_MAX)
		return 0;
	seg_ns = div64_u64((u64)f->sxd * IMTCP_Q_UNIT * 1000, (u64)f->sxx);
	return seg_ns ? max_t(u64, div64_u64(m->seg_bit_ns, seg_ns), 1) : 0;
}

/*
 * Whether a fit's candidate @a_bps is within the capacity @cap_bps its
 * own slope gives (fit_capacity_bps); a candidate above it asks the
 * link to leave more than it can carry. Behind a token bucket A and the
 * bucket trade against each other (a smaller bucket starts each rise
 * sooner, a higher A makes it slower), their correlations differ by 1-3
 * %, and a media sender's measurements learnt a bucket of one or two
 * segments where the test bed's is four; those fits read A above their
 * own capacity in 32-87 % of the measurements (two VM runs at 5 Mbit/s, A = 13.9 and
 * 22.8; the capacity of a bucket of 0 was 16-21 Mbit/s at the median, of
 * 2-3 24-28, the link's 28.7). Held to it, those runs replayed read 15.2
 * and 23.5 at the median where they read 17.3 and 26.8. A slope that
 * tells no capacity bounds nothing; nor is the fit without a bucket
 * held, which older modules ran (replays).
 */
static bool within_capacity(u64 a_bps, u64 cap_bps)
{
	return !cap_bps || a_bps <= cap_bps;
}

/*
 * The A in [lo_bps, hi_bps) whose queue model (@model: its bucket, its
 * start and its capacity bound; a_bps is what is tried) explains the
 * delays of all usable streams (@inv: their gaps' inverse rates,
 * inv_rates; @join: how each follows the one before, fit_joins) best,
 * with one common slope (the link's service time per segment) and one
 * offset per stream.
 * Returns the candidate's index, or IMTCP_FIT_STEPS if no candidate
 * explains any rise; @out its correlation (fit_correlation) and the
 * capacity its slope gives (fit_capacity_bps), 0 if none, and whether a
 * candidate was refused because that capacity lay below it.
 */
static u32 fit_measurement(const struct imtcp_stream *st, u32 k, u32 n,
			   u64 (*inv)[IMTCP_N_MAX],
			   const struct fit_join *join, u64 lo_bps,
			   u64 hi_bps, const struct fit_model *model,
			   struct fit_best *out)
{
	struct fit_model m = *model;
	u32 i, c, best_c = IMTCP_FIT_STEPS;
	u64 best = 0, score, cap_bps;

	out->corr = 0;
	out->cap_bps = 0;
	out->over_cap = false;
	for (c = 0; c < IMTCP_FIT_STEPS; c++) {
		struct fit_sums f = { 0, 0, 0 };
		s64 q_end = 0;

		m.a_bps = lo_bps + div_u64((hi_bps - lo_bps) * c,
					   IMTCP_FIT_STEPS);
		for (i = 0; i < k; i++)
			if (usable(&st[i]))
				fit_stream(&st[i], n, &m, inv[i], &join[i],
					   &q_end, &f);
		if (f.sxx <= 0 || f.sxd <= 0)
			continue;
		cap_bps = fit_capacity_bps(&f, &m);
		if (!within_capacity(m.a_bps, cap_bps)) {
			out->over_cap = true;
			continue;
		}
		/* sxd / sqrt(sxx), times 2^16: only compared */
		score = div64_u64((u64)f.sxd << 16, isqrt64((u64)f.sxx));
		if (score > best) {
			best = score;
			best_c = c;
			out->corr = fit_correlation(&f);
			out->cap_bps = cap_bps;
		}
	}
	return best_c;
}

/*
 * The Lindley fit with the bucket the connection has learnt (see the top
 * of this file): every candidate bucket is fitted, each one's moving
 * score takes its correlation, and the result is that of the candidate
 * whose score is highest now. Five fits of IMTCP_FIT_STEPS candidates,
 * once per measurement, over the gaps' inverse rates and the streams'
 * joins computed once. @cap_bps: the capacity the chosen fit's slope
 * gives (0: none); @over_cap: whether the chosen fit refused a candidate
 * for lying above the capacity its slope gave.
 * Without @b, the fit without a bucket from each
 * stream's lowest delay.
 */
static u32 fit_bucket(const struct imtcp_stream *st, u32 k, u32 n,
		      u64 lo_bps, u64 hi_bps, struct imtcp_bucket *b,
		      u64 *cap_bps, bool *over_cap)
{
	u32 c[IMTCP_BUCKET_SEGS_MAX + 1], i, s, best = 0;
	u64 cap[IMTCP_BUCKET_SEGS_MAX + 1];
	bool over[IMTCP_BUCKET_SEGS_MAX + 1];
	u64 inv[IMTCP_K_MAX][IMTCP_N_MAX];
	struct fit_join join[IMTCP_K_MAX];
	struct fit_model m = { 0, 0, true, 0 };
	struct fit_best out;

	for (i = 0; i < k; i++)
		inv_rates(&st[i], n, inv[i]);
	fit_joins(st, k, n, join);
	*cap_bps = 0;
	if (!b) {
		s = fit_measurement(st, k, n, inv, join, lo_bps, hi_bps, &m,
				    &out);
		*over_cap = out.over_cap;
		return s;
	}
	m.from_lowest = false;
	m.seg_bit_ns = seg_bit_ns(st, k);
	for (s = 0; s <= IMTCP_BUCKET_SEGS_MAX; s++) {
		m.credit = (s64)s * IMTCP_Q_UNIT;
		c[s] = fit_measurement(st, k, n, inv, join, lo_bps, hi_bps, &m,
				       &out);
		cap[s] = out.cap_bps;
		over[s] = out.over_cap;
		b->score[s] = b->score[s] - (b->score[s] >> IMTCP_BUCKET_DECAY) +
			      out.corr;
		if (b->score[s] > b->score[best])
			best = s;
	}
	b->segs = best;
	*cap_bps = cap[best];
	*over_cap = over[best];
	return c[best];
}

/* Sums of the standing-queue fit: x1 bytes, x2 us, y delay us. */
struct standing_sums {
	s64 s11, s12, s22;	/* x1 x1, x1 x2, x2 x2 */
	s64 s1y, s2y;		/* x1 y, x2 y */
	u32 samples, streams;
};

/*
 * Add one stream to the standing-queue fit, as deviations from its own
 * means (one offset per stream): x1 the bytes sent since its first
 * sample, x2 the time since that sample left, y the delay.
 */
static void standing_stream(const struct imtcp_stream *st, struct standing_sums *f)
{
	s64 m1 = 0, m2 = 0, my = 0, p11 = 0, p12 = 0, p22 = 0, p1y = 0;
	s64 p2y = 0, x1, x2;
	u32 i, n = st->nsamples;
	s32 d[IMTCP_N_MAX];

	imtcp_rel_delays(st, d);
	for (i = 0; i < n; i++) {
		x1 = (s64)(st->s[i].seg - st->s[0].seg) * st->seg_bytes;
		x2 = clamp_t(s32, (s32)(st->s[i].tx_us - st->s[0].tx_us), 0,
			     IMTCP_STANDING_SPAN_US);
		m1 += x1;
		m2 += x2;
		my += d[i];
		p11 += x1 * x1;
		p12 += x1 * x2;
		p22 += x2 * x2;
		p1y += x1 * d[i];
		p2y += x2 * d[i];
	}
	f->s11 += p11 - div64_s64(m1 * m1, n);
	f->s12 += p12 - div64_s64(m1 * m2, n);
	f->s22 += p22 - div64_s64(m2 * m2, n);
	f->s1y += p1y - div64_s64(m1 * my, n);
	f->s2y += p2y - div64_s64(m2 * my, n);
	f->samples += n;
	f->streams++;
}

static u64 magnitude(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/*
 * Shift that brings the largest of |a|, |b|, |c| below 2^30, so that a
 * difference of two products of such values stays within s64.
 */
static u32 fit_shift(s64 a, s64 b, s64 c)
{
	u64 top = max_t(u64, magnitude(a),
			max_t(u64, magnitude(b), magnitude(c)));
	u32 sh = 0;

	while ((top >> sh) >= (1ULL << 30))
		sh++;
	return sh;
}

/*
 * The capacity a standing-queue fit gives, in bit/s: its coefficient of
 * the bytes sent is 1 / C (us per byte), so C = det / den, det = s11 s22
 * - s12^2 over @f's sums (scaled down by 2^sx in standing_solve) and @den
 * standing_solve's denominator (scaled down by 2^(sx + sy)); @sh = sx -
 * sy puts the scales back. 0 if the fit gives none, or one above
 * IMTCP_RATE_B2B.
 */
static u64 standing_capacity(const struct standing_sums *f, s64 den, s32 sh)
{
	s64 det = f->s11 * f->s22 - f->s12 * f->s12;
	u64 cap_bps;

	if (det <= 0 || den <= 0)
		return 0;
	while (det >= (1LL << 40)) {
		det >>= 1;
		den >>= 1;
	}
	if (!den)
		return 0;
	cap_bps = div64_u64((u64)det * 8 * 1000000, den);
	if (sh <= 0)
		return sh > -64 ? cap_bps >> -sh : 0;
	return sh < 64 && cap_bps <= (IMTCP_RATE_B2B >> sh) ? cap_bps << sh : 0;
}

/*
 * A from streams that all met a standing queue: y = o_i + x1 / C -
 * x2 A / C, least squares with the two common coefficients. The ratio
 * of the solutions is A (bytes per us); the determinant cancels. Both
 * scaled sets of sums keep their ratios, so the products stay in range.
 * 0 if the fit finds no service time (delays that do not grow with the
 * bytes sent) or no positive A; @below set for the latter with a service
 * time (the delays grew with time as well as with the bytes: A <= 0).
 * @cap_bps: the capacity the fit gives (standing_capacity), set with an
 * A.
 */
static u64 standing_solve(struct standing_sums *f, u64 *cap_bps,
			  bool *below)
{
	u32 sx = fit_shift(f->s11, f->s12, f->s22);
	u32 sy = fit_shift(f->s1y, f->s2y, 0);
	s64 num, den;

	f->s11 >>= sx;
	f->s12 >>= sx;
	f->s22 >>= sx;
	f->s1y >>= sy;
	f->s2y >>= sy;
	num = f->s12 * f->s1y - f->s11 * f->s2y;
	den = f->s22 * f->s1y - f->s12 * f->s2y;
	if (den <= 0)
		return 0;
	if (num <= 0) {
		*below = true;
		return 0;
	}
	*cap_bps = standing_capacity(f, den, (s32)sx - (s32)sy);
	while (num >= (1LL << 40)) {
		num >>= 1;
		den >>= 1;
	}
	if (!den)
		return 0;
	return div64_u64((u64)num * 8 * 1000000, den);
}

/*
 * A positive number in scientific notation, mant * 2^exp2, mant in
 * [2^31, 2^32) (mant == 0: zero), for the ratios of large sums the
 * standard error needs: exact enough (31 bits) and free of overflow
 * whatever the sums.
 */
struct sci {
	u64 mant;
	s32 exp2;
};

static struct sci sci_make(u64 mant, s32 exp2)
{
	if (!mant)
		return (struct sci){ 0, 0 };
	while (mant >= (1ULL << 32)) {
		mant >>= 1;
		exp2++;
	}
	while (mant < (1ULL << 31)) {
		mant <<= 1;
		exp2--;
	}
	return (struct sci){ mant, exp2 };
}

static struct sci sci_mul(struct sci a, struct sci b)
{
	return sci_make(a.mant * b.mant, a.exp2 + b.exp2);
}

/* a / b; b == 0 gives zero (callers check their divisors). */
static struct sci sci_div(struct sci a, struct sci b)
{
	if (!b.mant)
		return (struct sci){ 0, 0 };
	return sci_make(div64_u64(a.mant << 31, b.mant), a.exp2 - b.exp2 - 31);
}

/* a - b, zero if b >= a. */
static struct sci sci_sub(struct sci a, struct sci b)
{
	u32 sh;

	if (!b.mant)
		return a;
	if (!a.mant || b.exp2 > a.exp2)
		return (struct sci){ 0, 0 };
	sh = a.exp2 - b.exp2;
	b.mant = sh < 64 ? b.mant >> sh : 0;
	if (a.mant <= b.mant)
		return (struct sci){ 0, 0 };
	return sci_make(a.mant - b.mant, a.exp2);
}

/* a as an integer, at most @max. */
static u64 sci_int(struct sci a, u64 max)
{
	s32 exp2 = a.exp2;

	if (!a.mant || exp2 <= -32)
		return 0;
	if (exp2 < 0)
		return min_t(u64, a.mant >> -exp2, max);
	if (exp2 >= 32 || (a.mant << exp2) > max)
		return max;
	return a.mant << exp2;
}

static struct sci sci_abs(s64 v)
{
	return sci_make(magnitude(v), 0);
}

/* Sums over the samples for standing_rse, deviations per stream. */
struct rse_sums {
	s64 zz, zy, yy;		/* z: queue model at A, y: delay */
	s64 aa, tt, at;		/* a: segments sent, t: time */
	u32 samples, streams;
};

/*
 * Add one stream: with A fixed at the fit's answer (@ap: A in 1/256
 * segment per us, times 2^16), the queue it predicts in 1/256 segment,
 * z = segments sent - A * time, against the delays. False if the model
 * queue runs out of the range the sums are safe for.
 */
static bool rse_stream(const struct imtcp_stream *st, u64 ap,
		       struct rse_sums *f)
{
	s64 a[IMTCP_N_MAX], t[IMTCP_N_MAX], z[IMTCP_N_MAX], ma = 0, mt = 0;
	s64 mz = 0, my = 0, da, dt, dz, dy;
	u32 i, n = st->nsamples;
	s32 d[IMTCP_N_MAX];

	imtcp_rel_delays(st, d);
	for (i = 0; i < n; i++) {
		a[i] = (s64)(st->s[i].seg - st->s[0].seg) * IMTCP_SEG_UNIT;
		t[i] = clamp_t(s32, (s32)(st->s[i].tx_us - st->s[0].tx_us), 0,
			       IMTCP_STANDING_SPAN_US);
		z[i] = a[i] - (s64)((ap * (u64)t[i]) >> 16);
		if (z[i] > IMTCP_RSE_Z_MAX || z[i] < -IMTCP_RSE_Z_MAX)
			return false;
		ma += a[i];
		mt += t[i];
		mz += z[i];
		my += d[i];
	}
	ma = div64_s64(ma, n);
	mt = div64_s64(mt, n);
	mz = div64_s64(mz, n);
	my = div64_s64(my, n);
	for (i = 0; i < n; i++) {
		da = a[i] - ma;
		dt = t[i] - mt;
		dz = z[i] - mz;
		dy = d[i] - my;
		f->zz += dz * dz;
		f->zy += dz * dy;
		f->yy += dy * dy;
		f->aa += da * da;
		f->tt += dt * dt;
		f->at += da * dt;
	}
	f->samples += n;
	f->streams++;
	return true;
}

/*
 * The standard error of a standing-queue fit's answer @a_bps relative to
 * itself, in permille (at most IMTCP_RSE_MAX; 0: not known). The delays
 * are y = o_i + b (a - A t) + noise; at the least-squares answer
 * b = sum z y / sum z z with z = a - A t (the queue the model predicts),
 * and the usual covariance of the two coefficients gives
 *   (se(A) / A)^2 = s^2 * sum z z / ((b A)^2 * det),
 * s^2 the residual variance, det = sum a a * sum t t - (sum a t)^2 (how
 * well the streams' spread of rates pins A down).
 */
static u32 standing_rse(const struct imtcp_stream *st, u32 k, u64 a_bps)
{
	struct rse_sums f = { 0 };
	struct sci sse, det, ba, rse2, zy, zz;
	u64 ap = 0;
	u32 i;

	if (a_bps >= IMTCP_RATE_B2B)	/* keeps a_bps << 21 in range */
		return 0;
	for (i = 0; i < k; i++) {
		if (!usable(&st[i]))
			continue;
		/* A / (8 seg_bytes) segments/s, * 256 / 10^6 per us, * 2^16 */
		if (!ap)
			ap = div64_u64(a_bps << 21,
				       (u64)st[i].seg_bytes * 1000000);
		if (!rse_stream(&st[i], ap, &f))
			return 0;
	}
	if (f.zy <= 0 || f.zz <= 0 || f.samples <= f.streams + 2)
		return IMTCP_RSE_MAX;
	zy = sci_abs(f.zy);
	zz = sci_abs(f.zz);
	sse = sci_sub(sci_abs(f.yy), sci_div(sci_mul(zy, zy), zz));
	det = sci_sub(sci_mul(sci_abs(f.aa), sci_abs(f.tt)),
		      sci_mul(sci_abs(f.at), sci_abs(f.at)));
	ba = sci_div(sci_mul(zy, sci_make(ap, -16)), zz);
	if (!det.mant || !ba.mant)
		return IMTCP_RSE_MAX;
	rse2 = sci_div(sci_mul(sse, zz),
		       sci_mul(sci_mul(ba, ba),
			       sci_mul(det, sci_make(f.samples - f.streams - 2,
						     0))));
	rse2 = sci_mul(rse2, sci_make(1000000, 0));	/* permille^2 */
	return max_t(u32, isqrt64(sci_int(rse2, (u64)IMTCP_RSE_MAX *
					       IMTCP_RSE_MAX)), 1);
}

/*
 * Did every usable stream meet a standing queue: its lowest delay more
 * than noise_us above @base_us (the connection's minimum RTT, the delay
 * of an empty queue; 0 unknown)? Needs two such streams at least, and
 * segment sizes.
 */
static bool standing_queue(const struct imtcp_stream *st, u32 k,
			   const struct imtcp_est_cfg *c, s32 base_us)
{
	u32 i, n = 0;

	if (base_us <= 0)
		return false;
	for (i = 0; i < k; i++) {
		if (!usable(&st[i]))
			continue;
		if (!st[i].seg_bytes ||
		    imtcp_lowest_delay_us(&st[i]) - base_us <= c->noise_us)
			return false;
		n++;
	}
	return n >= 2;
}

/*
 * The standing-queue fit of a measurement (see the top of this file).
 * It measures A directly, not by placing it in the probed range
 * [@lo_bps, @hi_bps], so a result outside the range is no edge: the next range
 * centres on it. Kept within half and twice the range, though: the
 * extrapolation is only as good as the streams' spread of rates, and a
 * result held at those bounds is an edge (@edge) like the Lindley fit's.
 * Streams of a slow start can lie far above A (120-400 Mbit/s for
 * A = 19 at MTU 9000 in the VM, when they probed from the slow start's
 * pace up): the fit's A then sits at lo_bps / 2, which says only that A is
 * lower. A fit that finds A <= 0 (standing_solve's @below: the queue grew
 * faster than the streams' own bytes could make it grow with nothing
 * served) gives no result but the lower edge, as the Lindley fit does
 * for delays that rose too fast for any candidate: the range moves down
 * (imtcp_est_update_bounded). Before, it gave neither, and the range
 * stayed where it was. Traced in the VM (MTU 1500, C = 30, a 10 Mbit/s
 * media sender, A = 6): the slow start's first streams, at 5.3-42.5
 * Mbit/s on a standing queue of 12 ms, rose fast enough for that in two
 * of the first three measurements (the slow start's own segments, sent
 * just before a stream, still reach the bottleneck during it); the range
 * stayed 9.7-42.5 for 3.6 s, and the first estimate came after 62 RTT.
 */
static u64 standing_fit(const struct imtcp_stream *st, u32 k, u64 lo_bps,
			u64 hi_bps, enum imtcp_edge *edge, u32 *rse,
			u64 *cap_bps)
{
	struct standing_sums f = { 0 };
	bool below = false;
	u64 a;
	u32 i;

	for (i = 0; i < k; i++)
		if (usable(&st[i]))
			standing_stream(&st[i], &f);
	if (f.samples < f.streams + 3)	/* two coefficients, one offset each */
		return 0;
	a = standing_solve(&f, cap_bps, &below);
	if (!a) {
		if (below)
			*edge = IMTCP_EDGE_LOW;
		return 0;
	}
	if (a <= lo_bps / 2) {
		*edge = IMTCP_EDGE_LOW;
		return lo_bps / 2;
	}
	if (a >= 2 * hi_bps) {
		*edge = IMTCP_EDGE_HIGH;
		return 2 * hi_bps;
	}
	*rse = standing_rse(st, k, a);
	return a;
}

/*
 * The joint Lindley fit's result (fit_bucket) in [lo_bps, hi_bps): at
 * the lowest candidate A is at or below lo_bps (@edge). 0: no candidate
 * explains any rise; if a candidate was refused for lying above the
 * capacity its fit gave, with @edge low: the streams' delays rose faster
 * than any candidate's queue could at a capacity above it, so A lies
 * below the range, and the range moves down (imtcp_est_update_bounded)
 * though there is no result. Traced in the VM (MTU 1500, C = 30): after
 * A rose from 6 to 17 Mbit/s a range of 34.7-109.7 had every stream
 * rise and gave no result, and the next measurement's the same, for
 * 2.1 s. Rare otherwise: 5 of 2,367 measurements of a bulk flow under
 * steps of A (two runs), 3 of 807 of a media sender's, none of 494
 * beside Poisson cross traffic at 60 % of C.
 */
static u64 lindley_fit(const struct imtcp_stream *st, u32 k, u32 n,
		       u64 lo_bps, u64 hi_bps, struct imtcp_bucket *bucket,
		       enum imtcp_edge *edge, u64 *cap_bps)
{
	bool over_cap;
	u32 c = fit_bucket(st, k, n, lo_bps, hi_bps, bucket, cap_bps,
			   &over_cap);

	if (c >= IMTCP_FIT_STEPS) {
		if (over_cap)
			*edge = IMTCP_EDGE_LOW;
		return 0;
	}
	if (c == 0)
		*edge = IMTCP_EDGE_LOW;
	return lo_bps + div_u64((hi_bps - lo_bps) * c, IMTCP_FIT_STEPS);
}

/*
 * One result from the k analysed streams of a measurement (together
 * covering [lo_bps, hi_bps]; a measurement's own streams rise in rate
 * from one to the next, a carried one may lie above the next). Probed is
 * only what the streams really sustained: above their highest sustained
 * rate no candidate is tried. No stream rising: A is at least that rate
 * (edge). Otherwise, if every stream met a standing queue (@base_us: the
 * delay of an empty one), the standing-queue fit gives A; if not, the
 * joint Lindley fit places it, and at the range's lowest candidate A is
 * at or below lo_bps (edge). Returns 0 when the measurement gave no
 * answer (with @edge low where the fit says A lies below the range).
 * @rse: the result's relative standard error in permille (standing_rse,
 * for the standing-queue fit's answers), 0 if not known. @bucket: what
 * the connection has learnt of the bottleneck's bucket, which the Lindley
 * fit uses and updates (NULL: the fit without a bucket). @cap_bps: the
 * capacity the fit's slope gives (fit_capacity_bps, standing_capacity),
 * with a result that is not at an edge (the fit's A there is only a
 * bound, and its slope no better); otherwise 0. One measurement's is
 * noisy: see imtcp_cap.c.
 */
u64 imtcp_combine(const struct imtcp_stream *st, u32 k,
		  const struct imtcp_est_cfg *cfg, s32 base_us,
		  struct imtcp_bucket *bucket, enum imtcp_edge *edge,
		  u32 *rse, u64 *cap_bps)
{
	u32 i, rising = 0;
	const struct imtcp_stream *fast;
	u64 lo_bps, hi_bps, top = 0, a_bps;

	*edge = IMTCP_EDGE_NONE;
	*rse = 0;
	*cap_bps = 0;
	if (!k)
		return 0;
	lo_bps = st[0].lo_bps;
	for (i = 0; i < k; i++) {
		lo_bps = min_t(u64, lo_bps, st[i].lo_bps);
		rising += st[i].outcome == IMTCP_OUT_RISE;
		if (usable(&st[i]))
			top = max_t(u64, top, top_rate(&st[i]));
	}
	/* a sender slower than planned probed only up to what it sent */
	fast = &st[imtcp_fastest_stream(st, k)];
	hi_bps = min_t(u64, fast->hi_bps, top);
	if (!rising) {
		if (fast->outcome != IMTCP_OUT_FLAT || !hi_bps)
			return 0;
		*edge = IMTCP_EDGE_HIGH;
		return hi_bps;
	}
	if (hi_bps <= lo_bps)
		return 0;
	if (standing_queue(st, k, cfg, base_us))
		a_bps = standing_fit(st, k, lo_bps, hi_bps, edge, rse, cap_bps);
	else
		a_bps = lindley_fit(st, k, cfg->n, lo_bps, hi_bps, bucket, edge,
				    cap_bps);
	if (!a_bps || *edge != IMTCP_EDGE_NONE)
		*cap_bps = 0;
	return a_bps;
}
