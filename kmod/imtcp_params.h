/* SPDX-License-Identifier: GPL-2.0 */
/* The module parameters, as a new connection reads them (imtcp_params.c). */
#ifndef _IMTCP_PARAMS_H
#define _IMTCP_PARAMS_H

#include "core/imtcp_est.h"

struct imtcp_params {
	struct imtcp_est_cfg est;	/* stream_len ... stale_rtts */
	u32 hold_budget;		/* percent */
	u32 free_starts;
	u32 off_debt_rtts;		/* srtt of budget an off result lends */
	u32 busy_margin;			/* percent over the busy rate */
	u32 busy_window_rtts;		/* a window of the busy maximum */
	u32 busy_floor_pct;		/* the floor, percent of the busy rate */
	bool carry;			/* carry a measurement's newest stream */
	bool outrun;			/* flat streams above it forget served rates */
	bool served_across;		/* a rise counted over measurements */
	bool up_wide;			/* past the top: as wide as around */
	bool cap_range;			/* range's top bound by the capacity */
	bool prepay;			/* a measurement's cost saved first */
	bool charge_gap;		/* holds cost the window's gap */
	bool off_ahead;			/* off bound counts the latest cost */
	bool own_floor;			/* floor from any own delivery rate */
	bool hold_echo;			/* a later hold waits out its echo */
	bool frame_hold;		/* a frame's first write begins the hold */
};

bool imtcp_params_measure(void);
bool imtcp_params_fail_alloc(void);
void imtcp_params_read(struct imtcp_params *p);

#endif /* _IMTCP_PARAMS_H */
