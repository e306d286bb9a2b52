// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stream trend tests (kmod/core/imtcp_trend.c) on
 * synthetic delay sequences with known answers: a queue that builds, a
 * flat path, noise, a single outlier (compressed or delayed ACK).
 */
#include "kselftest_harness.h"
#include "core/imtcp_trend.h"

/* Deterministic noise in [-amp, amp]. */
static s32 noise(u32 *state, s32 amp)
{
	*state = *state * 1103515245u + 12345u;
	return (s32)((*state >> 8) % (2 * amp + 1)) - amp;
}

TEST(too_short_is_unclear)
{
	s32 d[2] = { 1, 100 };

	EXPECT_EQ(IMTCP_TREND_UNCLEAR, imtcp_trend_test(d, 2, 150, NULL));
}

TEST(monotone_rise_is_up)
{
	s32 d[20];
	struct imtcp_trend_stats st;
	u32 i;

	for (i = 0; i < 20; i++)
		d[i] = 1000 + 150 * i;
	EXPECT_EQ(IMTCP_TREND_UP, imtcp_trend_test(d, 20, 150, &st));
	EXPECT_EQ(1000, st.pct);
	EXPECT_EQ(1000, st.pdt);
}

TEST(flat_with_noise_is_flat)
{
	u32 seed = 1, i, flat = 0, up = 0, runs;
	s32 d[20];

	for (runs = 0; runs < 200; runs++) {
		for (i = 0; i < 20; i++)
			d[i] = 5000 + noise(&seed, 100);
		switch (imtcp_trend_test(d, 20, 150, NULL)) {
		case IMTCP_TREND_FLAT:
			flat++;
			break;
		case IMTCP_TREND_UP:
			up++;
			break;
		default:
			break;
		}
	}
	/* Noise alone (+-100 us, floor 150 us) must not look like a queue. */
	EXPECT_GT(flat, 190);
	EXPECT_EQ(0, up);
}

/* Without the noise floor, pathload's statistics on 4 groups are fooled. */
TEST(noise_fools_pct_without_floor)
{
	u32 seed = 1, i, up = 0, runs;
	s32 d[20];

	for (runs = 0; runs < 200; runs++) {
		for (i = 0; i < 20; i++)
			d[i] = 5000 + noise(&seed, 100);
		up += imtcp_trend_test(d, 20, 0, NULL) == IMTCP_TREND_UP;
	}
	EXPECT_GT(up, 20);
}

TEST(noisy_rise_is_up)
{
	u32 seed = 7, i, up = 0, runs;
	s32 d[20];

	for (runs = 0; runs < 200; runs++) {
		for (i = 0; i < 20; i++)
			d[i] = 5000 + 120 * i + noise(&seed, 100);
		up += imtcp_trend_test(d, 20, 150, NULL) == IMTCP_TREND_UP;
	}
	EXPECT_GT(up, 190);
}

/* One compressed ACK (a single low delay) does not hide a rise. */
TEST(outlier_in_rise)
{
	s32 d[16];
	u32 i;

	for (i = 0; i < 16; i++)
		d[i] = 2000 + 200 * i;
	d[10] = 0;
	EXPECT_EQ(IMTCP_TREND_UP, imtcp_trend_test(d, 16, 150, NULL));
}

/* A queue that drains (falling delays) is not a rise. */
TEST(falling_is_flat)
{
	s32 d[16];
	u32 i;

	for (i = 0; i < 16; i++)
		d[i] = 9000 - 300 * i;
	EXPECT_EQ(IMTCP_TREND_FLAT, imtcp_trend_test(d, 16, 150, NULL));
}

TEST(onset_of_a_knee)
{
	/* Flat until index 6, then +400 us per segment. */
	s32 d[12] = { 500, 480, 510, 495, 505, 490, 500,
		      900, 1300, 1700, 2100, 2500 };

	EXPECT_EQ(6, imtcp_rise_onset(d, 12, 50));
}

TEST(onset_none_when_flat_or_rising_from_start)
{
	s32 flat[8] = { 500, 510, 490, 505, 495, 500, 510, 500 };
	s32 up[8] = { 100, 500, 900, 1300, 1700, 2100, 2500, 2900 };

	EXPECT_EQ(-1, imtcp_rise_onset(flat, 8, 50));
	/* Rising from the first segment: onset at 0, A below the stream. */
	EXPECT_EQ(0, imtcp_rise_onset(up, 8, 50));
	EXPECT_EQ(-1, imtcp_rise_onset(up, 0, 50));
}

/* A transient bump that drains again is not a final rise. */
TEST(onset_ignores_drained_bump)
{
	s32 d[10] = { 500, 500, 1500, 2500, 1500, 500, 500, 505, 495, 500 };

	EXPECT_EQ(-1, imtcp_rise_onset(d, 10, 50));
}

TEST_HARNESS_MAIN
