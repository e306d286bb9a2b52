// SPDX-License-Identifier: GPL-2.0
/*
 * The path's capacity C, estimated alongside A (see imtcp_est.h).
 *
 * Every fit that places A also says what the bottleneck's service time
 * of a segment is: the Lindley fit's slope (delay per segment of model
 * queue, L / C) and the standing-queue fit's coefficient of the bytes
 * sent (1 / C); imtcp_combine gives the C of each result that is not at
 * an edge. One measurement's is noisy: a stream of 10-16 segments rises
 * by a few ms at most, and on the VM's recordings at MTU 1500 (C = 28.7
 * Mbit/s of payload) a 5 Mbit/s media sender's lay between 18-26 (p10)
 * and 34-51 Mbit/s (p90). Their median is steadier: 24.5-31.1 in every
 * media recording at 5 and 10 Mbit/s. So the published capacity is the
 * median of the latest IMTCP_CAP_HIST, and nothing until IMTCP_CAP_MIN
 * have come. A window and not a moving average: one fit's outlier (a
 * slope fitted to ACK noise read up to twice C) moves a median by one
 * rank only, and a new capacity (a route change, a Wi-Fi rate) takes
 * over after half the window.
 *
 * Linux's own figures do not give C to an application-limited sender:
 * its delivery rate is its own rate, and BBR's bandwidth filter is its
 * own maximum delivery rate, which reaches C only where it fills the
 * link. A media sender needs C to know what it may grow to once the
 * cross traffic leaves, A for what it may send now.
 */
#include "imtcp_est.h"

/*
 * The median of @n rates @bps (the upper one of an even count); 0 if
 * none; of the first IMTCP_MEDIAN_MAX at most. The capacities' and the
 * served rates' (imtcp_served.c).
 */
u64 imtcp_median_bps(const u64 *bps, u32 n)
{
	u64 v[IMTCP_MEDIAN_MAX], x;
	u32 i, j;

	n = min_t(u32, n, IMTCP_MEDIAN_MAX);
	for (i = 0; i < n; i++) {
		x = bps[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n ? v[n / 2] : 0;
}

/*
 * Take one measurement's capacity @sample_bps (imtcp_combine; 0: it gave
 * none, and nothing changes) and publish the median of the latest
 * IMTCP_CAP_HIST once IMTCP_CAP_MIN have come.
 */
void imtcp_cap_add(struct imtcp_cap *cap, u64 sample_bps)
{
	if (!sample_bps)
		return;
	cap->bps[cap->pos] = sample_bps;
	cap->pos = (cap->pos + 1) % IMTCP_CAP_HIST;
	if (cap->n < IMTCP_CAP_HIST)
		cap->n++;
	cap->median_bps = cap->n >= IMTCP_CAP_MIN ?
			  imtcp_median_bps(cap->bps, cap->n) : 0;
}
