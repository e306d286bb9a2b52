// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Reno arithmetic imtcp restates from the stack
 * (kmod/core/imtcp_reno.c). Expected values are worked by hand from
 * RFC 6937 and the kernel's tcp_cwnd_reduction().
 */
#include "kselftest_harness.h"
#include "core/imtcp_reno.h"

/* Above ssthresh: reduce in proportion, ssthresh/prior_cwnd per delivery. */
TEST(prr_proportional_above_ssthresh)
{
	struct imtcp_prr prr = {
		.ssthresh = 50, .prior_cwnd = 100, .in_flight = 90,
		.prr_delivered = 0, .prr_out = 0,
	};

	/* 4 delivered: ceil(50 * 4 / 100) = 2 may be sent. */
	EXPECT_EQ(92, imtcp_prr_cwnd(&prr, 4, 0, true));
	EXPECT_EQ(4, prr.prr_delivered);

	/* 2 were sent; 2 more delivered: ceil(50 * 6 / 100) - 2 = 1. */
	prr.prr_out = 2;
	prr.in_flight = 89;
	EXPECT_EQ(90, imtcp_prr_cwnd(&prr, 2, 0, true));
}

/* The first step always releases the fast retransmit. */
TEST(prr_first_step_sends_one)
{
	struct imtcp_prr prr = {
		.ssthresh = 50, .prior_cwnd = 100, .in_flight = 99,
	};

	/* ceil(50 * 1 / 100) = 1 anyway; with a huge prior_cwnd it is 0+1. */
	EXPECT_EQ(100, imtcp_prr_cwnd(&prr, 1, 1, false));
	prr.prior_cwnd = 1000;
	prr.prr_delivered = 0;
	prr.ssthresh = 1;
	EXPECT_EQ(100, imtcp_prr_cwnd(&prr, 1, 1, false));
}

/* At or below ssthresh: conservation, +1 when snd_una advances cleanly. */
TEST(prr_conservation_below_ssthresh)
{
	struct imtcp_prr prr = {
		.ssthresh = 50, .prior_cwnd = 100, .in_flight = 40,
		.prr_delivered = 60, .prr_out = 62,
	};

	/* max(62 - 62, 2) = 2, +1 (una advanced, no loss) = 3 <= 10. */
	EXPECT_EQ(43, imtcp_prr_cwnd(&prr, 2, 0, true));
	/* With new loss: no slow-start bonus. */
	prr.prr_delivered = 60;
	EXPECT_EQ(42, imtcp_prr_cwnd(&prr, 2, 1, true));
	/* Capped by the distance to ssthresh. */
	prr.prr_delivered = 60;
	prr.in_flight = 49;
	EXPECT_EQ(50, imtcp_prr_cwnd(&prr, 2, 0, true));
}

/* Over-sending earlier makes the count negative: cwnd below in_flight. */
TEST(prr_negative_count)
{
	struct imtcp_prr prr = {
		.ssthresh = 50, .prior_cwnd = 100, .in_flight = 80,
		.prr_delivered = 0, .prr_out = 10,
	};

	/* ceil(50 * 2 / 100) - 10 = -9. */
	EXPECT_EQ(71, imtcp_prr_cwnd(&prr, 2, 0, true));
	/* Never below one packet: ceil(1 * 2 / 100) - 10 = -9, 3 - 9 < 1. */
	prr.prr_delivered = 0;
	prr.ssthresh = 1;
	prr.in_flight = 3;
	EXPECT_EQ(1, imtcp_prr_cwnd(&prr, 2, 0, true));
}

TEST(prr_nothing_delivered_keeps_cwnd)
{
	struct imtcp_prr prr = {
		.ssthresh = 50, .prior_cwnd = 100, .in_flight = 80,
	};

	EXPECT_EQ(0, imtcp_prr_cwnd(&prr, 0, 0, true));
	EXPECT_EQ(0, prr.prr_delivered);
	prr.prior_cwnd = 0;
	EXPECT_EQ(0, imtcp_prr_cwnd(&prr, 3, 0, true));
}

TEST(app_limited_decay)
{
	EXPECT_EQ(60, imtcp_app_limited_cwnd(100, 20));
	EXPECT_EQ(100, imtcp_app_limited_cwnd(100, 100));
	EXPECT_EQ(100, imtcp_app_limited_cwnd(100, 150));
	EXPECT_EQ(10, imtcp_app_limited_cwnd(11, 10));
}

TEST(pacing_rate_matches_kernel_formula)
{
	/* 1448 B * 10 pkts / 40 ms = 362000 B/s; 120 % = 434400 B/s. */
	EXPECT_EQ(434400ULL,
		  imtcp_reno_pacing_Bps(1448, 10, 4, 40000 << 3, 120));
	/* packets_out above cwnd counts (after a reduction). */
	EXPECT_EQ(868800ULL,
		  imtcp_reno_pacing_Bps(1448, 10, 20, 40000 << 3, 120));
	/* 200 % in slow start. */
	EXPECT_EQ(724000ULL,
		  imtcp_reno_pacing_Bps(1448, 10, 0, 40000 << 3, 200));
	/* No srtt: undivided (huge), as the kernel leaves it. */
	EXPECT_EQ(1448ULL * 80000 * 120 * 10,
		  imtcp_reno_pacing_Bps(1448, 10, 0, 0, 120));
}

TEST_HARNESS_MAIN
