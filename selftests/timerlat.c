// SPDX-License-Identifier: GPL-2.0
/*
 * timerlat: how late the machine's timers fire, for imtcp's benchmarks.
 *
 *   timerlat [-i INTERVAL_US] [-d SECONDS]
 *
 * Sleeps to absolute CLOCK_MONOTONIC deadlines INTERVAL_US apart (default
 * 2000) and records how late each wakeup came, until SECONDS have passed
 * (default: until SIGTERM or SIGINT). Then prints one line of key=value
 * fields: wakeups, interval_us, late_p50_us, late_p90_us, late_p99_us,
 * late_max_us, late_over_1ms (wakeups more than 1 ms late).
 *
 * Why: under QEMU's software emulation the guest's timers fire late
 * whenever its virtual CPU does not run (the host busy elsewhere). The
 * pacing timer then sends a stream's segments in bursts, netem and tbf
 * release packets late, and ACK delays jump by milliseconds that no
 * queue made: the measurement streams' signal (a rise of 1-3 ms) drowns.
 * A path check before a run cannot vouch for the minutes after it;
 * this runs beside each transfer. A process's wakeup is later than a
 * kernel timer's by its scheduling delay, so this bounds the kernel
 * timers' lateness from above.
 *
 * Exit codes: 0 done, 2 usage.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monoclock.h"

#define BIN_US		10		/* histogram resolution */
#define NBINS		100000		/* up to 1 s late; beyond in the last */
#define LATE_US		1000		/* late_over_1ms */

static volatile sig_atomic_t stop;
static unsigned int hist[NBINS];

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: timerlat [-i INTERVAL_US] [-d SECONDS]\n"
		"  -i  sleep to deadlines this far apart, 100-1000000 us "
		"(default 2000)\n"
		"  -d  stop after this long, seconds (default: at SIGTERM "
		"or SIGINT)\n");
	exit(2);
}

/* @s as a number in [@lo, @hi], else usage. */
static double number(const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi))
		usage();
	return v;
}

/* The wakeup lateness below which a share @q of the @n wakeups lie, us. */
static unsigned long quantile_us(unsigned long n, double q)
{
	unsigned long want = (unsigned long)(q * n), seen = 0;
	unsigned int i;

	for (i = 0; i < NBINS; i++) {
		seen += hist[i];
		if (seen > want)
			return (unsigned long)i * BIN_US;
	}
	return (unsigned long)(NBINS - 1) * BIN_US;
}

static void record(double late_s, unsigned long *max_us, unsigned long *over)
{
	unsigned long us = late_s > 0 ? (unsigned long)(late_s * 1e6) : 0;
	unsigned long bin = us / BIN_US;

	hist[bin < NBINS ? bin : NBINS - 1]++;
	if (us > *max_us)
		*max_us = us;
	*over += us > LATE_US;
}

int main(int argc, char **argv)
{
	double interval_s = 0.002, secs = 0, deadline, end = 0, t;
	unsigned long n = 0, max_us = 0, over = 0;
	struct sigaction sa;
	int opt;

	while ((opt = getopt(argc, argv, "i:d:")) != -1) {
		switch (opt) {
		case 'i':
			interval_s = number(optarg, 100, 1000000) / 1e6;
			break;
		case 'd':
			secs = number(optarg, 0.001, 86400);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the sleep ends */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	deadline = now() + interval_s;
	if (secs)
		end = deadline + secs;
	while (!stop && (!end || deadline < end)) {
		struct timespec ts = {
			.tv_sec = (time_t)deadline,
			.tv_nsec = (long)((deadline - (time_t)deadline) * 1e9),
		};

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			continue;	/* a signal: stop is set */
		t = now();
		record(t - deadline, &max_us, &over);
		n++;
		/*
		 * After a long stall, the next deadline from now: one late
		 * wakeup is one sample, not a run of catch-up ones.
		 */
		deadline += interval_s;
		if (deadline < t)
			deadline = t + interval_s;
	}
	printf("wakeups=%lu interval_us=%.0f late_p50_us=%lu late_p90_us=%lu "
	       "late_p99_us=%lu late_max_us=%lu late_over_1ms=%lu\n", n,
	       interval_s * 1e6, n ? quantile_us(n, 0.5) : 0,
	       n ? quantile_us(n, 0.9) : 0, n ? quantile_us(n, 0.99) : 0,
	       max_us, over);
	return 0;
}
