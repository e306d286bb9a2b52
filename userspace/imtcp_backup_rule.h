/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When imtcp-mptcp-backup marks a path backup and when it clears the
 * mark: kept apart from netlink so that the unit tests run it.
 *
 * A path is one local address of this host's MPTCP subflows (the path
 * manager's flags belong to an address, an endpoint). Each round the
 * tool gives every path its latest estimate and whether a new result
 * came since the last round; imtcp_backup_decide() then says, per path:
 *   - mark it backup when its last @count new results were all below
 *     the rate and another active path's fresh estimate is at or above
 *     it (never the last path that fits; never all paths);
 *   - clear the mark when the active paths are known to be thin (each
 *     with a fresh estimate had @count new results below the rate in a
 *     row) and its last estimate was above all of theirs, when a new result of its own reaches the rate plus the
 *     headroom, or @retry_ms after it was marked (a backup path carries
 *     no data, so it cannot be measured: it is let back in to be).
 */
#ifndef _IMTCP_BACKUP_RULE_H
#define _IMTCP_BACKUP_RULE_H

#include <stdbool.h>
#include <stdint.h>

struct imtcp_backup_cfg {
	uint64_t rate_bps;		/* the rate the application needs */
	unsigned int headroom_pct;	/* above the rate to clear a mark */
	unsigned int count;		/* new results below, in a row */
	uint32_t stale_ms;		/* an older estimate does not count */
	uint32_t retry_ms;		/* a mark is cleared after this */
};

enum imtcp_backup_act {
	IMTCP_BACKUP_KEEP,
	IMTCP_BACKUP_MARK,		/* set the endpoint's backup flag */
	IMTCP_BACKUP_CLEAR,		/* clear it */
};

enum imtcp_backup_why {
	IMTCP_WHY_NONE,
	IMTCP_WHY_THIN,			/* MARK: below the rate, another fits */
	IMTCP_WHY_NO_PATH_FITS,		/* CLEAR: the active are thinner */
	IMTCP_WHY_ROOM,			/* CLEAR: its own estimate has room */
	IMTCP_WHY_RETRY,		/* CLEAR: marked retry_ms ago */
};

struct imtcp_backup_path {
	/* filled by the caller each round */
	uint64_t est_bps;		/* latest estimate, 0: none */
	uint32_t age_ms;		/* of that estimate */
	bool new_result;		/* since the previous round */
	bool can_mark;			/* false: the path manager refused */
	/* kept by imtcp_backup_decide() across rounds */
	bool backup;			/* marked now */
	unsigned int thin;		/* new results below the rate in a row */
	int64_t changed_ms;		/* when it was last marked or cleared */
	/* this round's decision */
	enum imtcp_backup_act act;
	enum imtcp_backup_why why;
};

/*
 * Decide for @n paths at time @now_ms; updates each path's act, why and
 * kept state (the caller undoes a mark the path manager refused:
 * imtcp_backup_refused()).
 */
void imtcp_backup_decide(struct imtcp_backup_path *p, int n,
			 const struct imtcp_backup_cfg *cfg, int64_t now_ms);
void imtcp_backup_refused(struct imtcp_backup_path *p);
const char *imtcp_backup_why_name(enum imtcp_backup_why why);

#endif /* _IMTCP_BACKUP_RULE_H */
