/* SPDX-License-Identifier: GPL-2.0 */
/* CLOCK_MONOTONIC in seconds, for the test programs (xfer, poisson). */
#ifndef _IMTCP_MONOCLOCK_H
#define _IMTCP_MONOCLOCK_H

#include <errno.h>
#include <time.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep until monotonic time @t (seconds); at once if it has passed. */
static inline void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t,
			       .tv_nsec = (long)((t - (time_t)t) * 1e9) };

	/* clock_nanosleep returns the error number itself */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

#endif /* _IMTCP_MONOCLOCK_H */
