// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of imtcp-mptcp-backup's rule (userspace/imtcp_backup_rule.c):
 * when a path is marked backup and when the mark is cleared, on rounds
 * of made-up estimates.
 */
#include "kselftest_harness.h"
#include "imtcp_backup_rule.h"

#define MBIT	1000000ULL

static const struct imtcp_backup_cfg cfg = {
	.rate_bps = 5 * MBIT, .headroom_pct = 20, .count = 2,
	.stale_ms = 5000, .retry_ms = 30000,
};

static void paths(struct imtcp_backup_path *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (struct imtcp_backup_path){ .can_mark = true };
}

/* One round: path i's new result is est[i] Mbit/s (0: no new result). */
static void round_of(struct imtcp_backup_path *p, int n,
		     const unsigned int *est_mbit, int64_t now_ms)
{
	int i;

	for (i = 0; i < n; i++) {
		p[i].new_result = est_mbit[i] != 0;
		if (est_mbit[i]) {
			p[i].est_bps = est_mbit[i] * MBIT;
			p[i].age_ms = 0;
		} else if (p[i].est_bps) {
			p[i].age_ms += 1000;
		}
	}
	imtcp_backup_decide(p, n, &cfg, now_ms);
}

TEST(thin_path_marked_after_count_results)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 };

	paths(p, 2);
	round_of(p, 2, r, 0);
	EXPECT_EQ(IMTCP_BACKUP_KEEP, p[1].act);	/* one result below */
	round_of(p, 2, r, 1000);
	EXPECT_EQ(IMTCP_BACKUP_MARK, p[1].act);
	EXPECT_EQ(IMTCP_WHY_THIN, p[1].why);
	EXPECT_TRUE(p[1].backup);
	EXPECT_EQ(IMTCP_BACKUP_KEEP, p[0].act);
	EXPECT_FALSE(p[0].backup);
}

TEST(one_result_above_restarts_the_count)
{
	struct imtcp_backup_path p[2];
	const unsigned int lo[2] = { 20, 3 }, hi[2] = { 20, 6 };

	paths(p, 2);
	round_of(p, 2, lo, 0);
	round_of(p, 2, hi, 1000);
	round_of(p, 2, lo, 2000);
	EXPECT_FALSE(p[1].backup);
	round_of(p, 2, lo, 3000);
	EXPECT_TRUE(p[1].backup);
}

TEST(rounds_without_new_results_do_not_count)
{
	struct imtcp_backup_path p[2];
	const unsigned int lo[2] = { 20, 3 }, none[2] = { 20, 0 };
	int i;

	paths(p, 2);
	round_of(p, 2, lo, 0);
	for (i = 1; i < 4; i++)
		round_of(p, 2, none, i * 1000);
	EXPECT_FALSE(p[1].backup);
}

TEST(never_the_last_path_that_fits)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 3, 4 };
	int i;

	paths(p, 2);
	for (i = 0; i < 5; i++)
		round_of(p, 2, r, i * 1000);
	EXPECT_FALSE(p[0].backup);
	EXPECT_FALSE(p[1].backup);
}

TEST(other_path_stale_is_not_a_place_to_go)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 0, 3 };

	paths(p, 2);
	p[0].est_bps = 20 * MBIT;
	p[0].age_ms = 6000;		/* older than stale_ms */
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	EXPECT_FALSE(p[1].backup);
}

/* a new result without an estimate (none yet) is not below the rate */
TEST(no_estimate_is_not_thin)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 0 };
	int i;

	paths(p, 2);
	for (i = 0; i < 4; i++) {
		round_of(p, 2, r, i * 1000);
		p[1].new_result = true;		/* results, no estimate */
		imtcp_backup_decide(p, 2, &cfg, i * 1000 + 500);
	}
	EXPECT_EQ(0, p[1].thin);
	EXPECT_FALSE(p[1].backup);
}

TEST(refused_mark_is_not_tried_again)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 };

	paths(p, 2);
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	ASSERT_EQ(IMTCP_BACKUP_MARK, p[1].act);
	imtcp_backup_refused(&p[1]);
	EXPECT_FALSE(p[1].backup);
	round_of(p, 2, r, 2000);
	round_of(p, 2, r, 3000);
	EXPECT_EQ(IMTCP_BACKUP_KEEP, p[1].act);
	EXPECT_FALSE(p[1].backup);
}

TEST(cleared_when_no_active_path_fits)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 }, fall[2] = { 2, 0 };

	paths(p, 2);
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	ASSERT_TRUE(p[1].backup);
	round_of(p, 2, fall, 2000);	/* one result below: not yet */
	EXPECT_EQ(IMTCP_BACKUP_KEEP, p[1].act);
	round_of(p, 2, fall, 3000);
	EXPECT_EQ(IMTCP_BACKUP_CLEAR, p[1].act);
	EXPECT_EQ(IMTCP_WHY_NO_PATH_FITS, p[1].why);
	EXPECT_FALSE(p[1].backup);
}

/* both below the rate, the marked one thinner still: it stays */
TEST(kept_when_the_active_path_is_thin_but_better)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 }, fall[2] = { 4, 0 };
	int i;

	paths(p, 2);
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	ASSERT_TRUE(p[1].backup);
	for (i = 0; i < 5; i++) {
		round_of(p, 2, fall, 2000 + i * 1000);
		EXPECT_EQ(IMTCP_BACKUP_KEEP, p[1].act);
	}
	EXPECT_TRUE(p[1].backup);
}

TEST(kept_when_the_estimates_stop)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 }, none[2] = { 0, 0 };
	int i;

	paths(p, 2);
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	ASSERT_TRUE(p[1].backup);
	/* the connection ends: no estimates, path 0's ages out */
	for (i = 0; i < 10; i++) {
		p[0].est_bps = 0;
		round_of(p, 2, none, 2000 + i * 1000);
		EXPECT_EQ(IMTCP_BACKUP_KEEP, p[1].act);
	}
	EXPECT_TRUE(p[1].backup);
}

TEST(cleared_when_its_own_result_has_room)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 }, just[2] = { 20, 5 },
			   room[2] = { 20, 6 };

	paths(p, 2);
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	ASSERT_TRUE(p[1].backup);
	round_of(p, 2, just, 2000);	/* at the rate: no headroom */
	EXPECT_TRUE(p[1].backup);
	round_of(p, 2, room, 3000);	/* 6 >= 5 * 1.2 */
	EXPECT_EQ(IMTCP_BACKUP_CLEAR, p[1].act);
	EXPECT_EQ(IMTCP_WHY_ROOM, p[1].why);
}

TEST(cleared_after_retry_then_marked_again)
{
	struct imtcp_backup_path p[2];
	const unsigned int r[2] = { 20, 3 }, none[2] = { 20, 0 };

	paths(p, 2);
	round_of(p, 2, r, 0);
	round_of(p, 2, r, 1000);
	ASSERT_TRUE(p[1].backup);
	round_of(p, 2, none, 30999);
	EXPECT_TRUE(p[1].backup);
	round_of(p, 2, none, 31000);
	EXPECT_EQ(IMTCP_BACKUP_CLEAR, p[1].act);
	EXPECT_EQ(IMTCP_WHY_RETRY, p[1].why);
	/* let back in, it needs count new results below to go again */
	round_of(p, 2, r, 32000);
	EXPECT_FALSE(p[1].backup);
	round_of(p, 2, r, 33000);
	EXPECT_TRUE(p[1].backup);
}

TEST(three_paths_two_thin_both_marked)
{
	struct imtcp_backup_path p[3];
	const unsigned int r[3] = { 3, 20, 2 };

	paths(p, 3);
	round_of(p, 3, r, 0);
	round_of(p, 3, r, 1000);
	EXPECT_TRUE(p[0].backup);
	EXPECT_FALSE(p[1].backup);
	EXPECT_TRUE(p[2].backup);
}

TEST(why_names)
{
	EXPECT_STREQ("thin", imtcp_backup_why_name(IMTCP_WHY_THIN));
	EXPECT_STREQ("retry", imtcp_backup_why_name(IMTCP_WHY_RETRY));
	EXPECT_STREQ("?", imtcp_backup_why_name(99));
}

TEST_HARNESS_MAIN
