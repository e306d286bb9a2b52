/* SPDX-License-Identifier: GPL-2.0 */
/* Clocks in seconds, for the test programs (xfer, poisson). */
#ifndef _IMTCP_MONOCLOCK_H
#define _IMTCP_MONOCLOCK_H

#include <errno.h>
#include <time.h>

/* Clock @clk in seconds. */
static inline double now_on(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double now(void)
{
	return now_on(CLOCK_MONOTONIC);
}

/* Sleep until time @t (seconds) of clock @clk; at once if it has passed. */
static inline void sleep_until_on(clockid_t clk, double t)
{
	struct timespec ts = { .tv_sec = (time_t)t,
			       .tv_nsec = (long)((t - (time_t)t) * 1e9) };

	/* clock_nanosleep returns the error number itself */
	while (clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static inline void sleep_until(double t)
{
	sleep_until_on(CLOCK_MONOTONIC, t);
}

#endif /* _IMTCP_MONOCLOCK_H */
