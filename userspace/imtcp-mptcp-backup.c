// SPDX-License-Identifier: GPL-2.0
/*
 * imtcp-mptcp-backup: keep an MPTCP path whose available bandwidth, as
 * imtcp measures it on the path's own subflows, is below the rate an
 * application needs as a backup path, and let it back when there is room.
 * See imtcp-mptcp-backup.8.
 *
 * Every --interval it lists this network namespace's imtcp sockets
 * (the module's generic netlink family), takes those that are MPTCP
 * subflows, and groups them by local address: a path. The rule (when to
 * mark, when to clear) is imtcp_backup_rule.c's. A mark is the in-kernel
 * path manager's backup flag on the endpoint of that address
 * (MPTCP_PM_CMD_SET_FLAGS, as "ip mptcp endpoint change ... backup"):
 * the 6.1 packet scheduler then sends on that path only when no other is
 * available, and the peer is told with MP_PRIO. The flag belongs to the
 * address, so it applies to every MPTCP connection from it. On exit the
 * marks this tool set are cleared (unless --keep).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/genetlink.h>
#include <linux/mptcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "imtcp_backup_rule.h"
#include "imtcp_fmt.h"
#include "imtcp_genl.h"
#include "uapi/imtcp.h"

#ifndef IMTCP_STAT_VERSION
#define IMTCP_STAT_VERSION "dev"
#endif

#define PROG		"imtcp-mptcp-backup"
#define EXIT_USAGE	2
#define EXIT_NOT_LOADED	3	/* imtcp or MPTCP not there */
#define PATHS_MAX	32
#define RATE_MAX_BPS	100000000000ULL	/* 100 Gbit/s */

struct path {
	char addr[INET6_ADDRSTRLEN];	/* the local address */
	uint64_t results;		/* its subflows' results, summed */
	int endpoint_id;		/* the path manager's, -1: none */
	uint32_t endpoint_flags;	/* before this tool's last change */
	bool marked;			/* by this tool, to clear on exit */
};

static struct {
	struct imtcp_backup_cfg cfg;
	unsigned int interval_ms;
	unsigned int secs;		/* 0: until a signal */
	bool dry_run, keep, json;
} opt = {
	.cfg = { .headroom_pct = 20, .count = 2, .stale_ms = 10000,
		 .retry_ms = 30000 },
	.interval_ms = 500,
};

static struct imtcp_genl imtcp_nl, pm_nl;
/* paths[i]'s state for the rule is rules[i] */
static struct path paths[PATHS_MAX];
static struct imtcp_backup_path rules[PATHS_MAX];
static int npaths;
static int64_t t0_ms;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The index of @addr's path, a new one if needed; -1 if full. */
static int path_of(const char *addr)
{
	int i;

	for (i = 0; i < npaths; i++)
		if (!strcmp(paths[i].addr, addr))
			return i;
	if (npaths == PATHS_MAX)
		return -1;
	i = npaths++;
	memset(&paths[i], 0, sizeof(paths[i]));
	snprintf(paths[i].addr, sizeof(paths[i].addr), "%s", addr);
	paths[i].endpoint_id = -1;
	memset(&rules[i], 0, sizeof(rules[i]));
	rules[i].can_mark = true;
	rules[i].changed_ms = now_ms();
	return i;
}

/* ---- the path manager's endpoints ---- */

struct endpoint_query {
	const char *addr;
	int id;
	uint32_t flags;
};

static void endpoint_addr(const struct nlattr *nest, char *addr, int *id,
			  uint32_t *flags)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case MPTCP_PM_ADDR_ATTR_ID: *id = mnl_attr_get_u8(a); break;
		case MPTCP_PM_ADDR_ATTR_FLAGS:
			*flags = mnl_attr_get_u32(a);
			break;
		case MPTCP_PM_ADDR_ATTR_ADDR4:
			inet_ntop(AF_INET, mnl_attr_get_payload(a), addr,
				  INET6_ADDRSTRLEN);
			break;
		case MPTCP_PM_ADDR_ATTR_ADDR6:
			inet_ntop(AF_INET6, mnl_attr_get_payload(a), addr,
				  INET6_ADDRSTRLEN);
			break;
		}
	}
}

static int cb_endpoint(const struct nlmsghdr *nlh, void *data)
{
	struct endpoint_query *q = data;
	const struct nlattr *a;
	char addr[INET6_ADDRSTRLEN] = "";
	uint32_t flags = 0;
	int id = -1;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == MPTCP_PM_ATTR_ADDR)
			endpoint_addr(a, addr, &id, &flags);
	if (id >= 0 && !strcmp(addr, q->addr)) {
		q->id = id;
		q->flags = flags;
	}
	return MNL_CB_OK;
}

/* The endpoint of @p's address, if the path manager has one. */
static int find_endpoint(struct path *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct endpoint_query q = { .addr = p->addr, .id = -1 };
	struct nlmsghdr *nlh;

	nlh = imtcp_genl_request(&pm_nl, buf, pm_nl.family_id,
				 MPTCP_PM_CMD_GET_ADDR, NLM_F_DUMP,
				 MPTCP_PM_VER);
	if (imtcp_genl_run(&pm_nl, nlh, cb_endpoint, &q) < 0)
		return -1;
	p->endpoint_id = q.id;
	p->endpoint_flags = q.flags;
	return 0;
}

/* Set or clear the backup flag of @p's endpoint, keeping its others. */
static int set_backup(struct path *p, bool backup)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	uint32_t flags;

	if (find_endpoint(p) < 0)
		return -1;
	if (p->endpoint_id < 0) {
		errno = ENOENT;
		return -1;
	}
	flags = p->endpoint_flags & MPTCP_PM_ADDR_FLAG_FULLMESH;
	if (backup)
		flags |= MPTCP_PM_ADDR_FLAG_BACKUP;
	nlh = imtcp_genl_request(&pm_nl, buf, pm_nl.family_id,
				 MPTCP_PM_CMD_SET_FLAGS, NLM_F_ACK,
				 MPTCP_PM_VER);
	nest = mnl_attr_nest_start(nlh, MPTCP_PM_ATTR_ADDR);
	mnl_attr_put_u8(nlh, MPTCP_PM_ADDR_ATTR_ID, p->endpoint_id);
	mnl_attr_put_u32(nlh, MPTCP_PM_ADDR_ATTR_FLAGS, flags);
	mnl_attr_nest_end(nlh, nest);
	return imtcp_genl_run(&pm_nl, nlh, NULL, NULL);
}

/* ---- one round ---- */

/*
 * Fold one subflow into its path: the freshest estimate, the results. A
 * subflow's first result is provisional (measured on its first windows
 * from a guessed range; imtcp-media does not count it either).
 */
static void add_subflow(const struct imtcp_row *r)
{
	int i = path_of(imtcp_unmapped(r->saddr));

	if (i < 0 || r->meas < 2)
		return;
	if (r->est && (!rules[i].est_bps || r->age < rules[i].age_ms)) {
		rules[i].est_bps = r->est;
		rules[i].age_ms = r->age;
	}
	paths[i].results += r->meas;
}

/*
 * This round's figures of every path. A path has a new result when its
 * subflows' results, summed, grew (a subflow that closed lowers the sum:
 * a new result elsewhere on the path in the same round is then missed,
 * and counted with the next one).
 */
static int read_paths(void)
{
	struct imtcp_rows rows = { 0 };
	uint64_t before[PATHS_MAX] = { 0 };
	int i;

	if (imtcp_genl_dump(&imtcp_nl, &rows) < 0) {
		free(rows.r);
		return -1;
	}
	for (i = 0; i < npaths; i++) {
		before[i] = paths[i].results;
		paths[i].results = 0;
		rules[i].est_bps = 0;
		rules[i].age_ms = 0;
	}
	for (i = 0; i < rows.n; i++)
		if (rows.r[i].mptcp)
			add_subflow(&rows.r[i]);
	for (i = 0; i < npaths; i++)
		rules[i].new_result = paths[i].results > before[i];
	free(rows.r);
	return 0;
}

static void report(int i, const char *action, const char *why, bool applied,
		   const char *err)
{
	const struct path *p = &paths[i];
	double t_s = (now_ms() - t0_ms) / 1000.0;
	uint64_t est_bps = rules[i].est_bps;
	char est[32], rate[32];

	if (opt.json) {
		printf("{\"t_s\":%.2f,\"addr\":\"%s\",\"endpoint_id\":%d,"
		       "\"action\":\"%s\",\"why\":\"%s\",\"estimate_bps\":%"
		       PRIu64 ",\"rate_bps\":%" PRIu64 ",\"applied\":%s",
		       t_s, p->addr, p->endpoint_id, action, why, est_bps,
		       opt.cfg.rate_bps, applied ? "true" : "false");
		if (err)
			printf(",\"error\":\"%s\"", err);
		printf("}\n");
	} else {
		printf("%8.2f  %-15s  %-6s  %-12s  %9s  %9s%s%s\n", t_s,
		       p->addr, action, why,
		       est_bps ? imtcp_rate_str(est_bps, est, sizeof(est)) :
		       "-",
		       imtcp_rate_str(opt.cfg.rate_bps, rate, sizeof(rate)),
		       err ? "  " : "", err ? err : "");
	}
	fflush(stdout);
}

static void print_header(void)
{
	if (!opt.json)
		printf("%8s  %-15s  %-6s  %-12s  %9s  %9s\n", "T_S", "ADDRESS",
		       "NOW", "WHY", "ESTIMATE", "RATE");
	fflush(stdout);		/* before any error on stderr */
}

static void fail_permission(void)
{
	fprintf(stderr, PROG ": the path manager says: permission denied; "
		"this needs CAP_NET_ADMIN in this network namespace\n");
	exit(EXIT_FAILURE);
}

/* Apply path i's decision; a refused mark is reported, not tried again. */
static void apply(int i, const char *why)
{
	bool backup = rules[i].act == IMTCP_BACKUP_MARK;
	const char *action = backup ? "backup" : "active";

	if (opt.dry_run) {
		report(i, action, why, false, NULL);
		return;
	}
	if (!set_backup(&paths[i], backup)) {
		/* a flag set before (by hand) is not ours to clear on exit */
		paths[i].marked = backup && !(paths[i].endpoint_flags &
					      MPTCP_PM_ADDR_FLAG_BACKUP);
		report(i, action, why, true, NULL);
		return;
	}
	if (errno == EPERM)
		fail_permission();
	report(i, action, why, false, errno == ENOENT ?
	       "no MPTCP endpoint has this address (the first subflow's has "
	       "none unless added: ip mptcp endpoint add ADDR dev IF)" :
	       strerror(errno));
	if (backup)
		imtcp_backup_refused(&rules[i]);
}

static int one_round(void)
{
	int i;

	if (read_paths() < 0) {
		perror(PROG ": imtcp's netlink dump");
		return -1;
	}
	imtcp_backup_decide(rules, npaths, &opt.cfg, now_ms());
	for (i = 0; i < npaths; i++)
		if (rules[i].act != IMTCP_BACKUP_KEEP)
			apply(i, imtcp_backup_why_name(rules[i].why));
	return 0;
}

/* Leave the endpoints as they were found: clear this tool's marks. */
static void clear_marks(void)
{
	int i;

	for (i = 0; i < npaths; i++) {
		if (!paths[i].marked)
			continue;
		rules[i].act = IMTCP_BACKUP_CLEAR;
		rules[i].backup = false;
		apply(i, "exit");
	}
}

/* ---- options ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " -r MBIT [OPTIONS]\n"
		"Keep an MPTCP path whose available bandwidth (imtcp's estimate on\n"
		"its subflows) is below MBIT as a backup path (the path manager's\n"
		"backup flag on its endpoint); let it back when there is room.\n"
		"\n"
		"  -r, --rate MBIT      the rate the application needs, Mbit/s\n"
		"  -H, --headroom PCT   clear a mark when its own estimate is this\n"
		"                       far above the rate (0-1000, default 20)\n"
		"  -c, --count N        mark after N new results below the rate in\n"
		"                       a row (1-100, default 2)\n"
		"  -s, --stale MS       older estimates do not count (100-600000,\n"
		"                       default 10000)\n"
		"  -R, --retry SECS     let a marked path back after SECS to measure\n"
		"                       it again (1-86400, default 30)\n"
		"  -i, --interval MS    look every MS ms (50-60000, default 500)\n"
		"  -t, --time SECS      stop after SECS s (0: at a signal; default 0)\n"
		"  -n, --dry-run        decide and print, change nothing\n"
		"  -k, --keep           leave the marks set on exit\n"
		"  -j, --json           one JSON object per decision\n"
		"  -h, --help           this text\n"
		"  -V, --version\n"
		"Exit status: 0 done, 1 error, 2 usage, 3 imtcp or MPTCP not\n"
		"available.\n");
}

static void bad_arg(const char *what, const char *val)
{
	fprintf(stderr, PROG ": bad %s: %s\n", what, val);
	exit(EXIT_USAGE);
}

static void parse_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rate", required_argument, NULL, 'r' },
		{ "headroom", required_argument, NULL, 'H' },
		{ "count", required_argument, NULL, 'c' },
		{ "stale", required_argument, NULL, 's' },
		{ "retry", required_argument, NULL, 'R' },
		{ "interval", required_argument, NULL, 'i' },
		{ "time", required_argument, NULL, 't' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "keep", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int v;
	int c;

	while ((c = getopt_long(argc, argv, "r:H:c:s:R:i:t:nkjhV", lo,
				NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!imtcp_parse_mbit(optarg, RATE_MAX_BPS,
					      &opt.cfg.rate_bps))
				bad_arg("--rate (Mbit/s)", optarg);
			break;
		case 'H':
			if (!imtcp_parse_uint(optarg, 0, 1000,
					      &opt.cfg.headroom_pct))
				bad_arg("--headroom (0-1000 %)", optarg);
			break;
		case 'c':
			if (!imtcp_parse_uint(optarg, 1, 100, &opt.cfg.count))
				bad_arg("--count (1-100)", optarg);
			break;
		case 's':
			if (!imtcp_parse_uint(optarg, 100, 600000, &v))
				bad_arg("--stale (100-600000 ms)", optarg);
			opt.cfg.stale_ms = v;
			break;
		case 'R':
			if (!imtcp_parse_uint(optarg, 1, 86400, &v))
				bad_arg("--retry (1-86400 s)", optarg);
			opt.cfg.retry_ms = v * 1000;
			break;
		case 'i':
			if (!imtcp_parse_uint(optarg, 50, 60000,
					      &opt.interval_ms))
				bad_arg("--interval (50-60000 ms)", optarg);
			break;
		case 't':
			if (!imtcp_parse_uint(optarg, 0, 86400, &opt.secs))
				bad_arg("--time (0-86400 s)", optarg);
			break;
		case 'n': opt.dry_run = true; break;
		case 'k': opt.keep = true; break;
		case 'j': opt.json = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V':
			printf(PROG " %s\n", IMTCP_STAT_VERSION);
			exit(0);
		default: usage(stderr); exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		bad_arg("argument", argv[optind]);
	if (!opt.cfg.rate_bps) {
		fprintf(stderr, PROG ": --rate is needed (the rate the application needs, Mbit/s)\n");
		exit(EXIT_USAGE);
	}
}

static void open_families(void)
{
	if (imtcp_genl_open(&imtcp_nl, PROG) < 0) {
		if (errno == ENOENT) {
			fprintf(stderr, "imtcp is not loaded: modprobe imtcp\n");
			exit(EXIT_NOT_LOADED);
		}
		perror(PROG ": generic netlink");
		exit(EXIT_FAILURE);
	}
	if (imtcp_genl_open_family(&pm_nl, PROG, MPTCP_PM_NAME) < 0) {
		if (errno == ENOENT) {
			fprintf(stderr, PROG ": this kernel has no MPTCP path manager (CONFIG_MPTCP)\n");
			exit(EXIT_NOT_LOADED);
		}
		perror(PROG ": generic netlink");
		exit(EXIT_FAILURE);
	}
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
		;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int rc = 0;

	parse_opts(argc, argv);
	open_families();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	t0_ms = now_ms();
	print_header();
	while (!stop && (!opt.secs || now_ms() - t0_ms < opt.secs * 1000LL)) {
		if (one_round() < 0) {
			rc = EXIT_FAILURE;
			break;
		}
		sleep_ms(opt.interval_ms);
	}
	if (!opt.keep)
		clear_marks();
	imtcp_genl_close(&imtcp_nl);
	imtcp_genl_close(&pm_nl);
	return rc;
}
