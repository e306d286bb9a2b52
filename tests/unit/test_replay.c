// SPDX-License-Identifier: GPL-2.0
/*
 * Replays of measurements the module made in the VM (tests/unit/traces,
 * made by trace2replay.py from a saved imtcp:* trace): the samples each
 * stream had, the range it covered, and what the module concluded. The
 * kernel-independent code must come to the same stream outcomes and the
 * same result from the same input, so the module and the unit tests run
 * one algorithm; and the files are there to try estimator changes on
 * real VM data in milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "core/imtcp_est.h"

#define TRACES	"traces"

struct replay {
	u64 raw;
	u32 edge;
	s32 ceiling;
	u32 k, n;
	u32 outcome[IMTCP_K_MAX];
	struct imtcp_stream st[IMTCP_K_MAX];
};

/* Read the next measurement from @f; false at the end. */
static bool next_measurement(FILE *f, struct replay *r)
{
	char line[4096];
	u32 i = 0;

	while (fgets(line, sizeof(line), f)) {
		if (line[0] == 'M') {
			unsigned long long raw;

			memset(r, 0, sizeof(*r));
			if (sscanf(line, "M %llu %u %d %u %u", &raw, &r->edge,
				   &r->ceiling, &r->k, &r->n) != 5)
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

static void replay_file(struct __test_metadata *_metadata, const char *name,
			double truth_mbit)
{
	const struct imtcp_est_cfg cfg = {
		.n = 10, .k = 4, .noise_us = 500, .gain_shift = 1,
	};
	u32 total = 0, same_outcome = 0, streams = 0, same_raw = 0, nres = 0;
	static u64 res[4096];
	char path[256];
	struct replay r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", TRACES, name);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("cannot open %s", path);
	while (next_measurement(f, &r)) {
		enum imtcp_edge edge;
		u64 raw;
		u32 i;

		ASSERT_EQ(cfg.n, r.n);
		for (i = 0; i < r.k; i++) {
			imtcp_analyse_stream(&r.st[i], &cfg, r.ceiling);
			same_outcome += r.st[i].outcome == r.outcome[i];
			streams++;
		}
		raw = imtcp_combine(r.st, r.k, cfg.n, &edge);
		same_raw += raw == r.raw && (!raw || edge == r.edge);
		if (raw && edge == IMTCP_EDGE_NONE && nres < 4096)
			res[nres++] = raw;
		total++;
	}
	fclose(f);
	ASSERT_GT(total, 50);
	EXPECT_EQ(streams, same_outcome);
	EXPECT_EQ(total, same_raw);
	if (nres) {
		qsort(res, nres, sizeof(res[0]), cmp_u64);
		TH_LOG("%s: %u measurements, %u inside the range, median %.1f Mbit/s (truth %.1f)",
		       name, total, nres, res[nres / 2] / 1e6, truth_mbit);
	}
}

TEST(vm_cbr_a28_same_results_as_module)
{
	replay_file(_metadata, "cbr-a28.replay", 27.94);
}

TEST_HARNESS_MAIN
