// SPDX-License-Identifier: GPL-2.0
/*
 * Replays of measurements the module made in the VM (tests/unit/traces,
 * made by trace2replay.py from a saved imtcp:* trace): the samples each
 * stream had, the range it covered, and what the module concluded. The
 * kernel-independent code must come to the same stream outcomes (and,
 * for a recording of a module whose fit is ours, the same results, with
 * the fit without a bucket, which every recording's module used) from
 * the same input, so the module and the unit tests run one algorithm;
 * the results, with the bucket learnt as the module learns it, must
 * stay near the truth of the run; and the files are there
 * to try estimator changes on real VM data in milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "kselftest_harness.h"
#include "core/imtcp_est.h"

#define TRACES	"traces"

struct replay {
	u64 raw;
	u32 edge;
	s32 ceiling;
	s32 base;		/* min RTT the module had (0: not recorded) */
	u32 k, n;
	u32 outcome[IMTCP_K_MAX];
	struct imtcp_stream st[IMTCP_K_MAX];
};

/* The recording @name of TRACES, open for reading; NULL if not there. */
static FILE *open_replay(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", TRACES, name);
	return fopen(path, "r");
}

/* Read the next measurement from @f; false at the end. */
static bool next_measurement(FILE *f, struct replay *r)
{
	char line[4096];
	u32 i = 0;

	while (fgets(line, sizeof(line), f)) {
		if (line[0] == 'M') {
			unsigned long long raw;

			memset(r, 0, sizeof(*r));
			if (sscanf(line, "M %llu %u %d %u %u %d", &raw, &r->edge,
				   &r->ceiling, &r->k, &r->n, &r->base) < 5)
				return false;
			r->raw = raw;
			i = 0;
		} else if (line[0] == 'S' && i < r->k) {
			struct imtcp_stream *st = &r->st[i];
			unsigned long long lo, hi;
			char *p;
			int used;

			if (sscanf(line, "S %llu %llu %u %u%n", &lo, &hi,
				   &st->seg_bytes, &r->outcome[i], &used) != 4)
				return false;
			st->lo_bps = lo;
			st->hi_bps = hi;
			for (p = line + used; st->nsamples < IMTCP_N_MAX;) {
				unsigned int seg, tx;
				int d, len;

				if (sscanf(p, " %u:%u:%d%n", &seg, &tx, &d,
					   &len) != 3)
					break;
				st->s[st->nsamples].seg = seg;
				st->s[st->nsamples].tx_us = tx;
				st->s[st->nsamples].delay_us = d;
				st->nsamples++;
				p += len;
			}
			if (++i == r->k)
				return true;
		}
	}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Lowest delay of @st and @low (0: none): for recordings made before the
 * module's min RTT was traced, the delays seen so far stand in for it.
 */
static s32 lowest_delay(const struct imtcp_stream *st, s32 low)
{
	u32 i;

	for (i = 0; i < st->nsamples; i++)
		if (!low || st->s[i].delay_us < low)
			low = st->s[i].delay_us;
	return low;
}

/*
 * A first result at the lower edge, which the module does not report
 * (imtcp_est.c), so the recording has none for it (@nres: results so
 * far).
 */
static bool unreported_first(u64 raw, enum imtcp_edge edge, u64 recorded,
			     u32 nres)
{
	return !nres && raw && edge == IMTCP_EDGE_LOW && !recorded;
}

/* The results' errors over a replay, with and without the served cap. */
struct served_err {
	double median, p90;		/* |result - A|, Mbit/s, held */
	double median_fit, p90_fit;	/* the fit's own */
	double median_one, p90_one;	/* held by each measurement alone */
};

/* The estimate's errors over a replay, with and without the weights. */
struct smoothed_err {
	double median, p90;		/* |estimate - A|, rse weights */
	double median_unw, p90_unw;	/* every result in full */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and p90 of @n errors (sorted in place). */
static void quantiles(double *err, u32 n, double *median, double *p90)
{
	qsort(err, n, sizeof(err[0]), cmp_double);
	*median = n ? err[n / 2] : 0;
	*p90 = n ? err[n * 9 / 10] : 0;
}

/*
 * The relative standard error of the standing-queue fit's answer, in
 * doubles, from the definition: least squares of the delays on bytes
 * sent and time elapsed (one offset per stream), the delta method for
 * the ratio of the two coefficients. The module computes it in integers
 * (standing_rse); this is what it must agree with.
 */
static double rse_double(const struct imtcp_stream *st, u32 k)
{
	double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0, syy = 0;
	double det, b1, b2, a, sse, var;
	u32 i, j, n = 0, streams = 0;

	for (i = 0; i < k; i++) {
		const struct imtcp_stream *x = &st[i];
		double m1 = 0, m2 = 0, my = 0;
		s32 low = x->s[0].delay_us;
		u32 c = x->nsamples;

		if (x->outcome != IMTCP_OUT_RISE && x->outcome != IMTCP_OUT_FLAT)
			continue;
		for (j = 0; j < c; j++)
			low = x->s[j].delay_us < low ? x->s[j].delay_us : low;
		for (j = 0; j < c; j++) {
			m1 += (double)(x->s[j].seg - x->s[0].seg) * x->seg_bytes;
			m2 += (s32)(x->s[j].tx_us - x->s[0].tx_us);
			my += x->s[j].delay_us - low;
		}
		m1 /= c;
		m2 /= c;
		my /= c;
		for (j = 0; j < c; j++) {
			double x1 = (double)(x->s[j].seg - x->s[0].seg) *
				    x->seg_bytes - m1;
			double x2 = (s32)(x->s[j].tx_us - x->s[0].tx_us) - m2;
			double y = x->s[j].delay_us - low - my;

			s11 += x1 * x1;
			s12 += x1 * x2;
			s22 += x2 * x2;
			s1y += x1 * y;
			s2y += x2 * y;
			syy += y * y;
		}
		n += c;
		streams++;
	}
	det = s11 * s22 - s12 * s12;
	b1 = (s22 * s1y - s12 * s2y) / det;
	b2 = (s12 * s1y - s11 * s2y) / det;
	a = b2 / b1;
	sse = syy - b1 * s1y + b2 * s2y;
	var = sse / (n - streams - 2) / (b1 * b1 * det) *
	      (a * a * s22 + s11 - 2 * a * s12);
	return sqrt(var) / a;
}

/*
 * What of a recording's results the replay must reproduce: nothing (an
 * older module's fit: the samples serve as data), the fit's result
 * (recordings of the current combine before the served-rate cap), or
 * the result held at the served rate (recordings since, whose trace
 * gives that).
 */
enum same_as {
	SAME_NONE,
	SAME_FIT,
	SAME_SERVED,
};

/*
 * Replay one file. Stream outcomes must be the module's (the analysis is
 * the same code). The results must be the module's as @same says. The
 * results that count, as in the module, are the fit's held at the served
 * rate (imtcp_served_cap). Either way the results on this real VM
 * data must stay near the truth: median |result - A| at most
 * @max_err_frac of A (a regression guard; the data are fixed, so this
 * cannot fail at random). Every standard error the module computes must
 * agree with rse_double within 1 % (or 2 permille). @sm, if not NULL,
 * gets the errors of the estimate the results make.
 */
static void replay_file(struct __test_metadata *_metadata, const char *name,
			double truth_mbit, enum same_as same,
			double max_err_frac, struct smoothed_err *sm,
			struct served_err *se)
{
	static double esm[4096], eunw[4096], eres[4096], efit[4096];
	static double eone[4096];
	struct imtcp_est e = { 0 }, unw = { 0 };
	struct served_err held;
	u32 rses = 0, rse_agree = 0, nsm = 0;
	struct imtcp_est_cfg cfg = {
		.n = 10, .k = 4, .noise_us = 500, .gain_shift = 1,
	};
	u32 total = 0, same_outcome = 0, streams = 0, same_raw = 0, nres = 0;
	static u64 err[4096];
	s32 low = 0;
	struct replay r;
	FILE *f = open_replay(name);

	ASSERT_NE(NULL, f) TH_LOG("cannot open %s/%s", TRACES, name);
	e.served.across = 1;	/* the module's default (served_across) */
	while (next_measurement(f, &r)) {
		enum imtcp_edge edge, rec_edge, got_edge, one_edge;
		u32 rse, one_rse;
		u64 cap;
		u64 raw, fit, rec, got, one, a = (u64)(truth_mbit * 1e6);
		u32 i;

		/* streams as long as the recording's (a media sender's writes) */
		ASSERT_GE(r.n, 2);
		ASSERT_LE(r.n, IMTCP_N_MAX);
		cfg.n = r.n;
		for (i = 0; i < r.k; i++) {
			low = lowest_delay(&r.st[i], low);
			imtcp_analyse_stream(&r.st[i], &cfg, r.ceiling);
			same_outcome += r.st[i].outcome == r.outcome[i];
			streams++;
		}
		/* the recording's module: no bucket, no served rates kept */
		fit = imtcp_combine(r.st, r.k, &cfg, r.base ? r.base : low,
				    NULL, &edge, &rse, &cap);
		rec_edge = edge;
		rec = imtcp_served_cap(r.st, r.k, 0, fit, NULL, &rec_edge, &rse);
		got = same == SAME_SERVED ? rec : fit;
		got_edge = same == SAME_SERVED ? rec_edge : edge;
		same_raw += (got == r.raw && (!got || got_edge == r.edge)) ||
			    unreported_first(got, got_edge, r.raw, nres);
		/* the results that count: with the bucket and served rates as ours keeps them */
		fit = imtcp_combine(r.st, r.k, &cfg, r.base ? r.base : low,
				    &e.bucket, &edge, &rse, &cap);
		if (rse && rse < IMTCP_RSE_MAX) {
			double want = 1000 * rse_double(r.st, r.k);

			rses++;
			rse_agree += fabs(rse - want) <= 2 ||
				     fabs(rse - want) <= 0.01 * want;
		}
		one_edge = edge;
		one_rse = rse;
		one = imtcp_served_cap(r.st, r.k, 0, fit, NULL, &one_edge, &one_rse);
		/* as the module: flat streams above the rates kept forget them */
		imtcp_served_outrun(&e.served, r.st, r.k, e.cap.median_bps);
		raw = imtcp_served_cap(r.st, r.k, 0, fit, &e.served, &edge, &rse);
		imtcp_cap_add(&e.cap, cap);
		if (imtcp_est_update(&e, &cfg, raw, edge, rse) && nsm < 4096) {
			imtcp_est_update(&unw, &cfg, raw, edge, 0);
			esm[nsm] = fabs(e.estimate_bps / 1e6 - truth_mbit);
			eunw[nsm++] = fabs(unw.estimate_bps / 1e6 - truth_mbit);
		} else {
			imtcp_est_update(&unw, &cfg, raw, edge, 0);
		}
		if (raw && nres < 4096) {
			eres[nres] = fabs(raw / 1e6 - truth_mbit);
			efit[nres] = fabs(fit / 1e6 - truth_mbit);
			eone[nres] = fabs(one / 1e6 - truth_mbit);
			err[nres++] = raw > a ? raw - a : a - raw;
		}
		total++;
	}
	fclose(f);
	ASSERT_GT(total, 50);
	EXPECT_EQ(streams, same_outcome);
	if (same != SAME_NONE)
		EXPECT_EQ(total, same_raw);
	ASSERT_GT(nres, total / 4);
	qsort(err, nres, sizeof(err[0]), cmp_u64);
	TH_LOG("%s: %u measurements, %u results, median |result - A| %.1f Mbit/s, p90 %.1f (A = %.1f)",
	       name, total, nres, err[nres / 2] / 1e6, err[nres * 9 / 10] / 1e6,
	       truth_mbit);
	EXPECT_LE(err[nres / 2] / 1e6, max_err_frac * truth_mbit);
	EXPECT_EQ(rses, rse_agree);
	quantiles(eres, nres, &held.median, &held.p90);
	quantiles(efit, nres, &held.median_fit, &held.p90_fit);
	quantiles(eone, nres, &held.median_one, &held.p90_one);
	TH_LOG("%s: results' |error| median %.1f p90 %.1f Mbit/s (the fit's own: %.1f, %.1f; held by each measurement alone: %.1f, %.1f)",
	       name, held.median, held.p90, held.median_fit, held.p90_fit,
	       held.median_one, held.p90_one);
	if (se)
		*se = held;
	if (sm) {
		quantiles(esm, nsm, &sm->median, &sm->p90);
		quantiles(eunw, nsm, &sm->median_unw, &sm->p90_unw);
		TH_LOG("%s: estimate's |error| median %.1f p90 %.1f Mbit/s (each result in full: %.1f, %.1f); %u standard errors",
		       name, sm->median, sm->p90, sm->median_unw, sm->p90_unw,
		       rses);
	}
}

/*
 * The capacity a recording's measurements give (imtcp_cap.c): each
 * analysed as the module does, the bucket learnt, every result's
 * capacity taken; after each measurement, once one is published, its
 * error from @c_mbit (the bottleneck's payload rate). Its median and
 * p90, relative to C, must stay within @max_median and @max_p90, and
 * one must come by the @by-th measurement.
 */
static void replay_capacity(struct __test_metadata *_metadata,
			    const char *name, double c_mbit, double max_median,
			    double max_p90, u32 by)
{
	struct imtcp_est_cfg cfg = {
		.n = 10, .k = 4, .noise_us = 500, .gain_shift = 1,
	};
	static double err[4096];
	struct imtcp_est e = { 0 };
	u32 n = 0, meas = 0, first = 0;
	double median, p90;
	s32 low = 0;
	struct replay r;
	FILE *f = open_replay(name);

	ASSERT_NE(NULL, f) TH_LOG("cannot open %s/%s", TRACES, name);
	while (next_measurement(f, &r) && n < 4096) {
		enum imtcp_edge edge;
		u64 cap;
		u32 i, rse;

		cfg.n = r.n;
		for (i = 0; i < r.k; i++) {
			low = lowest_delay(&r.st[i], low);
			imtcp_analyse_stream(&r.st[i], &cfg, r.ceiling);
		}
		imtcp_combine(r.st, r.k, &cfg, r.base ? r.base : low, &e.bucket,
			      &edge, &rse, &cap);
		imtcp_cap_add(&e.cap, cap);
		meas++;
		if (!e.cap.median_bps)
			continue;
		if (!first)
			first = meas;
		err[n++] = fabs(e.cap.median_bps / 1e6 - c_mbit) / c_mbit;
	}
	fclose(f);
	quantiles(err, n, &median, &p90);
	TH_LOG("%s: capacity from measurement %u of %u, error median %.3f C, p90 %.3f C",
	       name, first, meas, median, p90);
	ASSERT_GT(n, 0);
	EXPECT_LE(first, by);
	EXPECT_LT(median, max_median);
	EXPECT_LT(p90, max_p90);
}

/*
 * Recorded before results were capped at the streams' sustained rates:
 * then the median error on these data was 52 Mbit/s (1.9 A), now 8.7.
 */
TEST(vm_cbr_a28_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a28.replay", 27.94, SAME_NONE, 0.4, NULL, NULL);
}

/* Recorded before streams kept their schedules (one segment per skb). */
TEST(vm_cbr_a27_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a27.replay", 27.29, SAME_NONE, 0.4, NULL, NULL);
}

/*
 * Recorded with streams on their schedules (overdue segments in one skb,
 * gaps between them back to back), before the standing-queue fit: the
 * module's median error was 11.1 Mbit/s, now 6.0.
 */
TEST(vm_cbr_pace_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a28-pace.replay", 28.12, SAME_NONE, 0.3, NULL, NULL);
}

/*
 * Recorded at the default hold budget, with the guest's TSC as its clock
 * (IMTCP_VM_CMDLINE=tsc=reliable), at two levels of CBR cross traffic,
 * before the standing-queue fit: the module's results sat low (median
 * error 10.0 Mbit/s for A = 27.4, 13.7 for A = 39.7; now 5.4 and 7.9).
 */
TEST(vm_cbr_a27_tsc_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a27-tsc.replay", 27.36, SAME_NONE, 0.3, NULL, NULL);
}

TEST(vm_cbr_a40_tsc_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a40-tsc.replay", 39.71, SAME_NONE, 0.3, NULL, NULL);
}

/*
 * Recorded by module 6f40193 (`make record`, HPET clock, default hold
 * budget, the connection's min RTT traced), whose results were the same
 * as ours until a standing-queue fit held at the bounds of its range
 * became an edge (bbd5f09): median error 6.6 Mbit/s for A = 27.4, but 12.5 for
 * A = 39.7 (the module before read 16.0 on a recording like it): low
 * there, as every estimator read at MTU 1500 under TCG.
 */
TEST(vm_cbr_a27_fluid_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a27-fluid.replay", 27.36, SAME_NONE, 0.3, NULL, NULL);
}

TEST(vm_cbr_a40_fluid_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-a40-fluid.replay", 39.70, SAME_NONE, 0.4, NULL, NULL);
}

/*
 * Recorded by module f8027ec (results the same as ours until bbd5f09)
 * at a 20 Mbit/s bottleneck, which the
 * emulated machine can fill (at 50 it cannot: Documentation/benchmarks.rst),
 * with 5 Mbit/s of CBR cross traffic, 50 s.
 */
TEST(vm_c20_a15_outcomes_and_accuracy)
{
	replay_file(_metadata, "cbr-c20-a15.replay", 14.85, SAME_NONE, 0.3, NULL, NULL);
}

/*
 * Recorded by the current module (`make record` with RECORD_MTU=9000
 * RECORD_IMTCP_PARAMS=hold_budget=100 RECORD_CBRS=30 RECORD_SECS=40):
 * 50 Mbit/s, A = 19.08 Mbit/s of frames, 18.94 of payload; its first
 * measurement, from a slow start's pace (155-372 Mbit/s), is the
 * standing-queue fit's lower edge. Its results must be ours.
 */
TEST(vm_9k_a19_same_results_as_module)
{
	replay_file(_metadata, "cbr-9k-a19.replay", 18.94, SAME_FIT, 0.3, NULL, NULL);
}

/*
 * Recorded by module 1a8113b (`make record` with RECORD_MTU=9000
 * RECORD_C_MBIT=100 RECORD_CBRS="20 40" RECORD_SECS=40, default
 * parameters): A = 78.83 and 58.40 Mbit/s of payload. On these the
 * results' standard errors must make a better estimate than taking each
 * result in full (median |error| 4.2 and 3.5 Mbit/s against 5.1 and
 * 4.2, p90 13.8 and 11.9 against 15.0 and 14.1, when the weights came).
 */
TEST(vm_9k_a79_weights_help)
{
	struct smoothed_err sm;

	replay_file(_metadata, "cbr-9k-a79.replay", 78.83, SAME_FIT, 0.15, &sm, NULL);
	EXPECT_LT(sm.median, sm.median_unw);
	EXPECT_LT(sm.p90, sm.p90_unw);
}

TEST(vm_9k_a58_weights_help)
{
	struct smoothed_err sm;

	replay_file(_metadata, "cbr-9k-a58.replay", 58.40, SAME_FIT, 0.15, &sm, NULL);
	EXPECT_LT(sm.median, sm.median_unw);
	EXPECT_LT(sm.p90, sm.p90_unw);
}

/*
 * Recorded by module 4f93444, whose fit is ours, before the served-rate
 * cap (`make bench-accuracy`, S4 with no cross traffic, BENCH_TRACE_ALL):
 * an application-limited sender on an idle 30 Mbit/s path behind a
 * token bucket of four frames, where the fit read up to 90 Mbit/s (the
 * bucket lets a stream's fast end through; imtcp_served.c). Held at the
 * served rate, the results must lie nearer A, at the median and at p90;
 * held also at the median of the served rates remembered, nearer at the
 * median than held by each measurement's own (3.6 and 2.7 Mbit/s against
 * 6.0 and 4.0 when the memory came).
 */
TEST(vm_s4_idle_5m_served_cap_helps)
{
	struct served_err se;

	replay_file(_metadata, "s4-idle-5m.replay", 28.7, SAME_FIT, 0.3, NULL, &se);
	EXPECT_LT(se.median, se.median_fit);
	EXPECT_LT(se.p90, se.p90_fit);
	EXPECT_LT(se.median, se.median_one);
}

/*
 * At 20 Mbit/s the fit held to the capacity its slope gives (imtcp_fit.c,
 * within_capacity) reads p90 9.4 Mbit/s off by itself (14.5 before), and
 * the cap's 10.2 is no longer below it: the cap must still help at the
 * median and cost at most 1 Mbit/s at p90.
 */
TEST(vm_s4_idle_20m_served_cap_helps)
{
	struct served_err se;

	replay_file(_metadata, "s4-idle-20m.replay", 28.7, SAME_FIT, 0.2, NULL, &se);
	EXPECT_LT(se.median, se.median_fit);
	EXPECT_LT(se.p90, se.p90_fit + 1.0);
	EXPECT_LT(se.median, se.median_one);
}

/*
 * Media senders with cross traffic (`make bench-accuracy`, S4 at 5
 * Mbit/s, BENCH_TRACE_ALL; module 3820357 and 1acf893, whose fit and
 * served-rate cap are ours): A = 50 and 80 % of C = 30 Mbit/s at MTU
 * 1500, 16-segment streams from 25 kB frames, two per measurement. The
 * results scatter widely (median error 5.1 and 6.7 Mbit/s, 0.37 and
 * 0.29 A; p90 10.3 and 15.2); recorded so that changes to the fit for
 * application-limited senders are tried on them.
 */
TEST(vm_s4_media_a50_same_results_as_module)
{
	replay_file(_metadata, "s4-5m-a50.replay", 13.9, SAME_SERVED, 0.4,
		    NULL, NULL);
}

/*
 * Where A is 80 % of C the served rates of one measurement bound A
 * loosely (they lie between A and C); their median over the last
 * streams must hold the results nearer A than each measurement's own
 * bound (3.8 and 10.5 Mbit/s at the median and p90, against 6.3 and 12.0,
 * when the memory came).
 */
TEST(vm_s4_media_a80_same_results_as_module)
{
	struct served_err se;

	replay_file(_metadata, "s4-5m-a80.replay", 22.8, SAME_SERVED, 0.35,
		    NULL, &se);
	EXPECT_LT(se.median, se.median_one);
	EXPECT_LT(se.p90, se.p90_one);
}

/*
 * A 10 Mbit/s media sender (frames of 34 segments, 25 a second; the
 * accuracy benchmark's S4 at A = 50 % of C, 2026-11-29, m10 r1): each
 * measurement's two streams of 16 leave back to back from one frame.
 * Fitted as if the second found the bucket full, the results stood at
 * 20.3 Mbit/s for A = 13.9 (median |result - A| 6.4); with the queue
 * carried from the first stream (imtcp_fit.c, stream_start), 2.8.
 */
TEST(vm_s4_media_10m_back_to_back_streams)
{
	replay_file(_metadata, "s4-10m-a50.replay", 13.9, SAME_NONE, 0.3,
		    NULL, NULL);
}

/*
 * A 5 Mbit/s media sender on the module of 0c202cb (2026-11-30, S4 at
 * A = 50 and 80 % of C, BENCH_TRACE_ALL, run m5 r1): the fit learnt a
 * bucket of one or two segments on the test bed's four, and its results
 * stood above A (median 17.3 Mbit/s for 13.9, 26.8 for 22.8; median
 * error 4.0 and 4.3, 0.29 and 0.19 A). Held to the capacity each fit's
 * slope gives (imtcp_fit.c, within_capacity): 15.2 and 23.5, median
 * error 2.0 and 2.4. The second round of that run (m5 r2, not kept
 * here): 2.2 with and without, and 3.0 against 3.5.
 */
TEST(vm_s4_media_5m_a50_fit_within_capacity)
{
	replay_file(_metadata, "s4-5m-a50-m5.replay", 13.9, SAME_NONE, 0.2,
		    NULL, NULL);
}

TEST(vm_s4_media_5m_a80_fit_within_capacity)
{
	replay_file(_metadata, "s4-5m-a80-m5.replay", 22.8, SAME_NONE, 0.15,
		    NULL, NULL);
}

TEST_HARNESS_MAIN

/*
 * The capacity alongside A (imtcp_cap.c), from the same recordings: a 5
 * Mbit/s media sender at A = 50 and 80 % of C and on the idle path, a
 * 20 Mbit/s one on the idle path, a 10 Mbit/s one at 50 % (Lindley
 * fits; C = 28.7 Mbit/s of payload), and bulk senders on their standing
 * queue (C = 19.1 at 20 Mbit/s and 99.3 at 100 Mbit/s and MTU 9000). Once
 * there, the median of the latest eight was 2.7-11.8 % of C off at the
 * median, where single measurements' of the media senders lay 9-38 %
 * below C at p10 and 17-77 % above it at p90.
 */
TEST(vm_capacity_media_5m_a50)
{
	replay_capacity(_metadata, "s4-5m-a50-m5.replay", 28.7, 0.08, 0.15, 6);
}

TEST(vm_capacity_media_5m_a80)
{
	replay_capacity(_metadata, "s4-5m-a80-m5.replay", 28.7, 0.08, 0.15, 8);
}

TEST(vm_capacity_media_idle)
{
	replay_capacity(_metadata, "s4-idle-5m.replay", 28.7, 0.15, 0.35, 10);
	replay_capacity(_metadata, "s4-idle-20m.replay", 28.7, 0.1, 0.2, 8);
}

TEST(vm_capacity_media_10m_a50)
{
	replay_capacity(_metadata, "s4-10m-a50.replay", 28.7, 0.1, 0.2, 8);
}

TEST(vm_capacity_bulk_standing_queue)
{
	replay_capacity(_metadata, "cbr-c20-a15.replay", 19.1, 0.1, 0.2, 8);
	replay_capacity(_metadata, "cbr-9k-a79.replay", 99.3, 0.1, 0.2, 8);
}

/*
 * The first measurement of the recording @name into @r, its streams
 * analysed with @cfg, each expected to rise; false if there is none.
 */
static bool first_rising(struct __test_metadata *_metadata, const char *name,
			 const struct imtcp_est_cfg *cfg, struct replay *r)
{
	FILE *f = open_replay(name);
	bool ok;
	u32 i;

	if (!f)
		return false;
	ok = next_measurement(f, r);
	fclose(f);
	if (!ok)
		return false;
	for (i = 0; i < r->k; i++) {
		imtcp_analyse_stream(&r->st[i], cfg, r->ceiling);
		EXPECT_EQ(IMTCP_OUT_RISE, r->st[i].outcome);
	}
	return true;
}

/*
 * A range wholly above A: the module's measurement 0.4 s after A rose
 * from 5.7 to 17.0 Mbit/s (C = 30), streams at 34.7-72.2 and 72.2-109.7
 * Mbit/s, both rising. No candidate in the range explains delays that
 * rose that fast at a capacity above it, so there is no result, but A
 * lies below the range: the range moves down past its lower edge to
 * cover A (the module before had no result and kept the range, and the
 * next measurement the same, 2.1 s without an estimate).
 */
TEST(vm_range_above_a_moves_down)
{
	struct imtcp_est_cfg cfg = {
		.n = 10, .k = 2, .noise_us = 500, .gain_shift = 1,
	};
	struct imtcp_est e = { .lo_bps = 34678907, .hi_bps = 109712396,
			       .seen = 1 };
	enum imtcp_edge edge;
	struct replay r;
	u32 rse;
	u64 cap;

	ASSERT_TRUE(first_rising(_metadata, "s1-range-above-a.replay", &cfg,
				 &r));
	EXPECT_EQ(0, imtcp_combine(r.st, r.k, &cfg, r.base, &e.bucket,
				   &edge, &rse, &cap));
	EXPECT_EQ(IMTCP_EDGE_LOW, edge);
	EXPECT_FALSE(imtcp_est_update_bounded(&e, &cfg, 0, edge, rse, NULL));
	EXPECT_EQ(0, e.estimate_bps);
	EXPECT_LE(e.lo_bps, 17000000);
	EXPECT_GE(e.hi_bps, 17000000);
	EXPECT_LT(e.hi_bps, 109712396);
	/* no result and no edge: the range stays */
	e.lo_bps = 34678907;
	e.hi_bps = 109712396;
	EXPECT_FALSE(imtcp_est_update_bounded(&e, &cfg, 0, IMTCP_EDGE_NONE, 0,
					      NULL));
	EXPECT_EQ(34678907, e.lo_bps);
	EXPECT_EQ(109712396, e.hi_bps);
}

/*
 * The same on a standing queue: a 10 Mbit/s media sender's first
 * measurement, in slow start (A = 6 Mbit/s, C = 30), streams of 16 at
 * 5.3-23.9 and 23.9-42.5 Mbit/s on a queue of 12 ms, both rising. Their
 * delays grew faster than their own bytes could raise them with nothing
 * served, so the standing-queue fit finds A <= 0: no result, but the
 * lower edge, and the range moves down to cover A (the module before
 * kept the range, 9.7-42.5 once its floor lifted it, for 3.6 s).
 */
TEST(vm_standing_queue_below_range_moves_down)
{
	struct imtcp_est_cfg cfg = {
		.n = 16, .k = 2, .noise_us = 500, .gain_shift = 1,
	};
	struct imtcp_est e = { .lo_bps = 5318428, .hi_bps = 42547428 };
	enum imtcp_edge edge;
	struct replay r;
	u32 rse;
	u64 cap;

	ASSERT_TRUE(first_rising(_metadata, "s4-10m-a20-first.replay", &cfg,
				 &r));
	ASSERT_EQ(16, r.n);	/* the streams cfg.n analysed */
	EXPECT_EQ(0, imtcp_combine(r.st, r.k, &cfg, r.base, &e.bucket,
				   &edge, &rse, &cap));
	EXPECT_EQ(IMTCP_EDGE_LOW, edge);
	EXPECT_EQ(0, cap);
	EXPECT_FALSE(imtcp_est_update_bounded(&e, &cfg, 0, edge, rse, NULL));
	EXPECT_EQ(0, e.estimate_bps);
	EXPECT_LE(e.lo_bps, 5700000);
	EXPECT_LT(e.hi_bps, 42547428);
	EXPECT_GT(e.hi_bps, 5700000);
}
