// SPDX-License-Identifier: GPL-2.0
/*
 * When a path is marked backup and when the mark is cleared: see
 * imtcp_backup_rule.h.
 */
#include "imtcp_backup_rule.h"

static bool fresh(const struct imtcp_backup_path *p,
		  const struct imtcp_backup_cfg *cfg)
{
	return p->est_bps && p->age_ms <= cfg->stale_ms;
}

/* An active path whose fresh estimate is at or above the rate. */
static bool fits(const struct imtcp_backup_path *p,
		 const struct imtcp_backup_cfg *cfg)
{
	return !p->backup && fresh(p, cfg) && p->est_bps >= cfg->rate_bps;
}

static bool has_room(const struct imtcp_backup_path *p,
		     const struct imtcp_backup_cfg *cfg)
{
	return p->new_result && fresh(p, cfg) &&
	       p->est_bps * 100 >= cfg->rate_bps * (100 + cfg->headroom_pct);
}

static void count_thin(struct imtcp_backup_path *p,
		       const struct imtcp_backup_cfg *cfg)
{
	if (p->backup || !p->new_result || !p->est_bps)
		return;
	p->thin = p->est_bps < cfg->rate_bps ? p->thin + 1 : 0;
}

/* Whether a path other than @i fits. */
static bool other_fits(const struct imtcp_backup_path *p, int n, int i,
		       const struct imtcp_backup_cfg *cfg)
{
	int j;

	for (j = 0; j < n; j++)
		if (j != i && fits(&p[j], cfg))
			return true;
	return false;
}

static void set(struct imtcp_backup_path *p, enum imtcp_backup_act act,
		enum imtcp_backup_why why, int64_t now_ms)
{
	p->act = act;
	p->why = why;
	p->backup = act == IMTCP_BACKUP_MARK;
	p->thin = 0;
	p->changed_ms = now_ms;
}

/*
 * A marked path's last estimate, fresh or not (it carries no data), is
 * what it had when last measured: it comes back when the active paths
 * are thin and it was better than all of them.
 */
static void decide_marked(struct imtcp_backup_path *p, uint64_t thin_bps,
			  const struct imtcp_backup_cfg *cfg, int64_t now_ms)
{
	if (thin_bps && p->est_bps > thin_bps)
		set(p, IMTCP_BACKUP_CLEAR, IMTCP_WHY_NO_PATH_FITS, now_ms);
	else if (has_room(p, cfg))
		set(p, IMTCP_BACKUP_CLEAR, IMTCP_WHY_ROOM, now_ms);
	else if (now_ms - p->changed_ms >= cfg->retry_ms)
		set(p, IMTCP_BACKUP_CLEAR, IMTCP_WHY_RETRY, now_ms);
}

/*
 * If the active paths are known to be thin, the highest of their fresh
 * estimates; else 0. Known thin: at least one has a fresh estimate, and
 * each that has one had @count new results below the rate in a row, as
 * a mark needs. (No estimate at all, as when the connections have
 * ended, is not known to be thin.)
 */
static uint64_t thin_active_bps(const struct imtcp_backup_path *p, int n,
				const struct imtcp_backup_cfg *cfg)
{
	uint64_t best_bps = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (p[i].backup || !fresh(&p[i], cfg))
			continue;
		if (p[i].thin < cfg->count)
			return 0;
		if (p[i].est_bps > best_bps)
			best_bps = p[i].est_bps;
	}
	return best_bps;
}

void imtcp_backup_decide(struct imtcp_backup_path *p, int n,
			 const struct imtcp_backup_cfg *cfg, int64_t now_ms)
{
	uint64_t thin_bps;
	int i;

	for (i = 0; i < n; i++) {
		p[i].act = IMTCP_BACKUP_KEEP;
		p[i].why = IMTCP_WHY_NONE;
		count_thin(&p[i], cfg);
	}
	thin_bps = thin_active_bps(p, n, cfg);
	for (i = 0; i < n; i++) {
		if (p[i].backup)
			decide_marked(&p[i], thin_bps, cfg, now_ms);
		else if (p[i].can_mark && p[i].thin >= cfg->count &&
			 other_fits(p, n, i, cfg))
			set(&p[i], IMTCP_BACKUP_MARK, IMTCP_WHY_THIN, now_ms);
	}
}

void imtcp_backup_refused(struct imtcp_backup_path *p)
{
	p->backup = false;
	p->can_mark = false;
	p->act = IMTCP_BACKUP_KEEP;
}

const char *imtcp_backup_why_name(enum imtcp_backup_why why)
{
	static const char * const names[] = {
		[IMTCP_WHY_NONE] = "none",
		[IMTCP_WHY_THIN] = "thin",
		[IMTCP_WHY_NO_PATH_FITS] = "no_path_fits",
		[IMTCP_WHY_ROOM] = "room",
		[IMTCP_WHY_RETRY] = "retry",
	};

	return why <= IMTCP_WHY_RETRY ? names[why] : "?";
}
