// SPDX-License-Identifier: GPL-2.0
/*
 * imtcp-stat: show the available-bandwidth estimates of imtcp connections,
 * read from the module's generic netlink family (kmod/uapi/imtcp.h).
 * See imtcp-stat.8.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "imtcp_fmt.h"
#include "imtcp_genl.h"
#include "uapi/imtcp.h"

#define EXIT_USAGE	2
#define EXIT_NOT_LOADED	3
#define EXIT_NO_SOCKETS	4

#ifndef IMTCP_STAT_VERSION
#define IMTCP_STAT_VERSION "dev"
#endif

struct filter {
	int sport, dport;		/* -1: any */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	uint64_t cookie;
	bool by_cookie;
};

static struct {
	bool json, watch, stats, reset, stamp;
	double interval;
	struct filter f;
} opt = { .f = { .sport = -1, .dport = -1 } };

static struct imtcp_genl g;
static int shown;		/* rows printed in this round */
static bool first_json = true;

static const char *state_name(uint8_t s)
{
	static const char * const names[__IMTCP_STATE_MAX] = {
		[IMTCP_STATE_OFF] = "off",
		[IMTCP_STATE_STORE] = "store",
		[IMTCP_STATE_SEND] = "send",
		[IMTCP_STATE_PASS] = "pass",
		[IMTCP_STATE_EMPTY] = "empty",
	};

	return s < __IMTCP_STATE_MAX && names[s] ? names[s] : "?";
}

/* Why a socket shows no estimate, as the JSON "reason" says it. */
static const char *reason_name(uint8_t r)
{
	switch (r) {
	case IMTCP_REASON_NONE: return NULL;
	case IMTCP_REASON_ENVELOPE: return "above-envelope";
	case IMTCP_REASON_HOLDS_FAILING: return "holds-failing";
	case IMTCP_REASON_WRITES_SHORT: return "writes-short";
	default: return "unknown";
	}
}

static const char *bound_name(uint8_t b)
{
	switch (b) {
	case IMTCP_BOUND_NONE: return "none";
	case IMTCP_BOUND_CAP: return "cap";
	case IMTCP_BOUND_FLOOR: return "floor";
	default: return "unknown";
	}
}


/* Find the family; exits with EXIT_NOT_LOADED if the module is not there. */
static void open_family(void)
{
	if (!imtcp_genl_open(&g, "imtcp-stat"))
		return;
	if (errno == ENOENT) {
		fprintf(stderr, "imtcp is not loaded: modprobe imtcp\n");
		exit(EXIT_NOT_LOADED);
	}
	perror("imtcp-stat: generic netlink");
	exit(EXIT_FAILURE);
}

/* A filter's address matches the socket's, v4-mapped or not. */
static bool same_addr(const char *want, const char *addr)
{
	return !want[0] || !strcmp(imtcp_unmapped(want), imtcp_unmapped(addr));
}

static bool matches(const struct imtcp_row *r)
{
	const struct filter *f = &opt.f;

	return (f->sport < 0 || f->sport == r->sport) &&
	       (f->dport < 0 || f->dport == r->dport) &&
	       same_addr(f->src, r->saddr) && same_addr(f->dst, r->daddr) &&
	       (!f->by_cookie || f->cookie == r->cookie);
}

static void endpoint(char *buf, size_t len, const char *addr, uint16_t port,
		     uint8_t family)
{
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", addr, port);
	else
		snprintf(buf, len, "%s:%u", addr, port);
}

/*
 * With -t, rows begin with the time they were read (wall clock): in the
 * table as ip -ts prints it, in JSON as seconds since the epoch.
 */
static struct timespec now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

static void print_stamp(void)
{
	struct timespec ts = now_wall();
	char buf[32];
	struct tm tm;

	localtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("%s.%06ld ", buf, ts.tv_nsec / 1000);
}

static void print_header(void)
{
	if (opt.stamp)
		printf("%-26s ", "Time");
	printf("%-20s %-23s %-23s %10s %10s %-21s %8s %6s %5s %-6s %3s %9s %6s %10s %-12s %s\n",
	       "Cookie", "Local Address:Port", "Peer Address:Port",
	       "Estimate", "Capacity", "Range", "Age", "Meas", "Fail", "State", "m",
	       "RTT", "Cwnd", "Delivery", "MPTCP", "Note");
}

/*
 * The MPTCP column: "-" for plain TCP, TOKEN/ID (the connection's local
 * token in hex, the local address id) for a subflow, "?" for a subflow
 * whose connection sock_diag did not tell (no CAP_NET_ADMIN).
 */
static void mptcp_str(const struct imtcp_row *r, char *buf, size_t len)
{
	if (!r->mptcp)
		snprintf(buf, len, "-");
	else if (!r->sf_known)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%08x/%u%s", r->sf.token, r->sf.local_id,
			 r->sf.backup ? "b" : "");
}

/* The Note column: why no estimate shows, or what bounded the one that does. */
static void reason_note(const struct imtcp_row *r, char *note, size_t len)
{
	char rate[16];

	if (r->reason == IMTCP_REASON_ENVELOPE)
		snprintf(note, len, "path above %s, see imtcp-stat(8)",
			 imtcp_rate_str(r->envelope, rate, sizeof(rate)));
	else if (r->reason == IMTCP_REASON_HOLDS_FAILING)
		snprintf(note, len,
			 "holds fail: no bottleneck clocks it, see imtcp-stat(8)");
	else if (r->reason == IMTCP_REASON_WRITES_SHORT)
		snprintf(note, len,
			 "writes too short to measure, see imtcp-stat(8)");
	else if (r->reason)
		snprintf(note, len, "reason %u", r->reason);
	else if (r->est && r->bound == IMTCP_BOUND_CAP)
		snprintf(note, len, "capped by busy rate, probe %s",
			 imtcp_rate_str(r->probe_bps, rate, sizeof(rate)));
	else if (r->est && r->bound == IMTCP_BOUND_FLOOR)
		snprintf(note, len, "raised to busy rate, probe %s",
			 imtcp_rate_str(r->probe_bps, rate, sizeof(rate)));
}

static void print_table_row(const struct imtcp_row *r)
{
	char l[64], p[64], e[16], c[16], lo[16], hi[16], rg[40], age[16], d[16];
	char rtt[16], pr[16], why[112] = "", note[128], mp[16];

	endpoint(l, sizeof(l), r->saddr, r->sport, r->family);
	endpoint(p, sizeof(p), r->daddr, r->dport, r->family);
	snprintf(rg, sizeof(rg), "%s-%s",
		 imtcp_rate_str(r->lo, lo, sizeof(lo)),
		 imtcp_rate_str(r->hi, hi, sizeof(hi)));
	if (r->est)
		snprintf(age, sizeof(age), "%ums", r->age);
	else
		snprintf(age, sizeof(age), "-");
	snprintf(rtt, sizeof(rtt), "%.1fms", r->srtt / 1000.0);
	reason_note(r, why, sizeof(why));
	if (r->cmd == IMTCP_CMD_WITHDRAW)
		snprintf(note, sizeof(note), "withdrew %s: %s",
			 imtcp_rate_str(r->withdrawn_bps, pr, sizeof(pr)), why);
	else if (r->cmd == IMTCP_CMD_MOVE)
		snprintf(note, sizeof(note), "moved: %s", *why ? why : "cap lifted");
	else
		snprintf(note, sizeof(note), "%s", why);
	mptcp_str(r, mp, sizeof(mp));
	if (opt.stamp)
		print_stamp();
	printf("%-20" PRIu64 " %-23s %-23s %10s %10s %-21s %8s %6u %5u %-6s %3u %9s %6u %10s %-12s %s\n",
	       r->cookie, l, p,
	       r->est ? imtcp_rate_str(r->est, e, sizeof(e)) : "-",
	       r->capacity_bps ? imtcp_rate_str(r->capacity_bps, c, sizeof(c)) : "-",
	       r->hi ? rg : "-", age, r->meas, r->fail, state_name(r->state),
	       r->m, rtt, r->cwnd, imtcp_rate_str(r->dlv, d, sizeof(d)), mp,
	       note);
}

/*
 * -w -j's "event": what an event from the estimates group says; NULL for
 * a command that is no such event (one a later module may add).
 */
static const char *event_name(uint8_t cmd)
{
	switch (cmd) {
	case IMTCP_CMD_ESTIMATE:
		return "estimate";
	case IMTCP_CMD_WITHDRAW:
		return "withdraw";
	case IMTCP_CMD_MOVE:
		return "move";
	}
	return NULL;
}

static void print_json_row(const struct imtcp_row *r)
{
	printf("{");
	if (opt.stamp) {
		struct timespec ts = now_wall();

		printf("\"time\":%lld.%06ld,", (long long)ts.tv_sec,
		       ts.tv_nsec / 1000);
	}
	if (opt.watch)
		printf("\"event\":\"%s\",", event_name(r->cmd));
	if (r->cmd == IMTCP_CMD_WITHDRAW)
		printf("\"withdrawn_bps\":%" PRIu64 ",", r->withdrawn_bps);
	printf("\"cookie\":%" PRIu64 ",\"family\":\"%s\","
	       "\"local\":{\"addr\":\"%s\",\"port\":%u},"
	       "\"peer\":{\"addr\":\"%s\",\"port\":%u},"
	       "\"estimate_bps\":%" PRIu64 ",\"raw_bps\":%" PRIu64 ","
	       "\"range_bps\":[%" PRIu64 ",%" PRIu64 "],\"age_ms\":%u,"
	       "\"measurements\":%u,\"streams_failed\":%u,\"state\":\"%s\","
	       "\"m\":%u,\"srtt_us\":%u,\"min_rtt_us\":%u,\"cwnd\":%u,"
	       "\"delivery_bps\":%" PRIu64 ",\"hold_us\":%" PRIu64 ",\"stream_us\":%" PRIu64 ","
	       "\"envelope_bps\":%" PRIu64 ",\"probe_bps\":%" PRIu64 ","
	       "\"busy_bps\":%" PRIu64 ",\"bound\":\"%s\","
	       "\"capacity_bps\":%" PRIu64 ",",
	       r->cookie, r->family == AF_INET6 ? "inet6" : "inet",
	       r->saddr, r->sport, r->daddr, r->dport, r->est, r->raw,
	       r->lo, r->hi, r->age, r->meas, r->fail, state_name(r->state),
	       r->m, r->srtt, r->minrtt, r->cwnd, r->dlv, r->hold, r->stream,
	       r->envelope, r->probe_bps, r->busy_bps, bound_name(r->bound),
	       r->capacity_bps);
	if (reason_name(r->reason))
		printf("\"reason\":\"%s\",", reason_name(r->reason));
	else
		printf("\"reason\":null,");
	if (!r->mptcp)
		printf("\"mptcp\":null}");
	else if (!r->sf_known)
		printf("\"mptcp\":{\"token\":null}}");
	else
		printf("\"mptcp\":{\"token\":\"%08x\",\"local_id\":%u,"
		       "\"backup\":%s}}", r->sf.token, r->sf.local_id,
		       r->sf.backup ? "true" : "false");
}

static void show(const struct imtcp_row *r)
{
	if (opt.json) {
		if (!opt.watch && !first_json)
			printf(",");
		if (!opt.watch)
			printf("\n  ");
		print_json_row(r);
		if (opt.watch)
			printf("\n");
		first_json = false;
	} else {
		print_table_row(r);
	}
	shown++;
	fflush(stdout);
}

/*
 * Subflows of one MPTCP connection together, in the place of the first,
 * by local address id; every other row where the module listed it.
 */
static int by_connection(const void *a, const void *b)
{
	const struct imtcp_row *x = a, *y = b;

	if (x->sf_known && y->sf_known && x->sf.token == y->sf.token &&
	    x->sf.local_id != y->sf.local_id)
		return x->sf.local_id < y->sf.local_id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void group_rows(struct imtcp_row *r, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		r[i].order = i;
		for (j = 0; r[i].sf_known && j < i; j++) {
			if (r[j].sf_known && r[i].sf.token == r[j].sf.token) {
				r[i].order = r[j].order;
				break;
			}
		}
	}
	qsort(r, n, sizeof(*r), by_connection);
}

/*
 * An event from the estimates group (an estimate, one withdrawn, or the
 * figure shown moved by the busy cap): show it now. Events a later
 * module may add are skipped.
 */
static int cb_event(const struct nlmsghdr *nlh, void *data)
{
	struct imtcp_row r;

	imtcp_row_parse(nlh, &r);
	if (!event_name(r.cmd) || !r.has_cookie || !matches(&r))
		return MNL_CB_OK;
	imtcp_rows_find_subflows(&r, 1);
	show(&r);
	return MNL_CB_OK;
}

/* One listing of all sockets; returns the number shown. */
static int dump_once(void)
{
	struct imtcp_rows rows = { 0 };
	int i;

	if (imtcp_genl_dump(&g, &rows) < 0) {
		perror("imtcp-stat: dump");
		exit(EXIT_FAILURE);
	}
	imtcp_rows_find_subflows(rows.r, rows.n);
	group_rows(rows.r, rows.n);
	shown = 0;
	first_json = true;
	if (opt.json)
		printf("[");
	else
		print_header();
	for (i = 0; i < rows.n; i++)
		if (matches(&rows.r[i]))
			show(&rows.r[i]);
	if (opt.json)
		printf("%s]\n", shown ? "\n" : "");
	fflush(stdout);
	free(rows.r);
	return shown;
}

static int cb_stats(const struct nlmsghdr *nlh, void *data)
{
	uint64_t v[5] = { 0 };
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IMTCP_A_STAT_SOCKETS: v[0] = mnl_attr_get_u32(a); break;
		case IMTCP_A_STAT_ESTIMATES: v[1] = mnl_attr_get_u64(a); break;
		case IMTCP_A_STAT_STREAMS_FAILED: v[2] = mnl_attr_get_u64(a); break;
		case IMTCP_A_STAT_ALLOC_FAILED: v[3] = mnl_attr_get_u64(a); break;
		case IMTCP_A_STAT_OUT_OF_ENVELOPE: v[4] = mnl_attr_get_u64(a); break;
		}
	}
	if (opt.json)
		printf("{\"sockets\":%" PRIu64 ",\"estimates\":%" PRIu64
		       ",\"streams_failed\":%" PRIu64 ",\"alloc_failed\":%"
		       PRIu64 ",\"out_of_envelope\":%" PRIu64 "}\n",
		       v[0], v[1], v[2], v[3], v[4]);
	else
		printf("sockets %" PRIu64 "\nestimates %" PRIu64
		       "\nstreams_failed %" PRIu64 "\nalloc_failed %" PRIu64
		       "\nout_of_envelope %" PRIu64 "\n",
		       v[0], v[1], v[2], v[3], v[4]);
	return MNL_CB_OK;
}

static int simple_cmd(uint8_t cmd, mnl_cb_t cb)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = imtcp_genl_request(&g, buf, g.family_id, cmd,
						  NLM_F_ACK,
						  IMTCP_GENL_VERSION);

	if (imtcp_genl_run(&g, nlh, cb, NULL) < 0) {
		if (errno == EPERM)
			fprintf(stderr, "imtcp-stat: permission denied: this needs CAP_NET_ADMIN\n");
		else
			perror("imtcp-stat");
		return EXIT_FAILURE;
	}
	return 0;
}

/* Stream every estimate as the module makes it. */
static int watch(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int n;

	if (!g.mcgrp_id ||
	    mnl_socket_setsockopt(g.nl, NETLINK_ADD_MEMBERSHIP, &g.mcgrp_id,
				  sizeof(g.mcgrp_id)) < 0) {
		if (errno == EPERM)
			fprintf(stderr, "imtcp-stat: watching estimates needs CAP_NET_ADMIN in this network namespace; without -w, imtcp-stat shows them as they are now\n");
		else
			perror("imtcp-stat: joining the estimates group");
		return EXIT_FAILURE;
	}
	if (!opt.json)
		print_header();
	for (;;) {
		n = mnl_socket_recvfrom(g.nl, buf, sizeof(buf));
		if (n < 0) {
			if (errno == ENOBUFS) {
				fprintf(stderr, "imtcp-stat: events lost (receive buffer full)\n");
				continue;
			}
			perror("imtcp-stat: receive");
			return EXIT_FAILURE;
		}
		mnl_cb_run(buf, n, 0, 0, cb_event, NULL);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: imtcp-stat [OPTIONS] [FILTER]\n"
		"       imtcp-stat monitor [-j] [-t]\n"
		"Show the available-bandwidth estimates of imtcp connections in this\n"
		"network namespace.\n\n"
		"  -j, --json          JSON: one document; with -w one object per line\n"
		"  -w, --watch         stream each estimate, each withdrawn, each move, as it comes (= monitor)\n"
		"  -i, --interval SEC  list again every SEC seconds\n"
		"  -t, --timestamp     begin each row with the time it was read\n"
		"  -s, --stats         this network namespace's statistics\n"
		"      --reset-stats   zero them (needs CAP_NET_ADMIN over the namespace)\n"
		"  -h, --help          this text\n"
		"  -V, --version       version\n\n"
		"FILTER: any of  sport PORT  dport PORT  src ADDR  dst ADDR  cookie N\n\n"
		"Exit status: 0 shown, 1 error, 2 usage, 3 imtcp not loaded,\n"
		"4 no imtcp socket matched.\n");
}

static long number(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end || v < 0 || v > max) {
		fprintf(stderr, "imtcp-stat: bad number: %s\n", s);
		exit(EXIT_USAGE);
	}
	return v;
}

static void parse_filter(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			fprintf(stderr, "imtcp-stat: %s needs a value\n", k);
			exit(EXIT_USAGE);
		}
		if (*v == ':')
			v++;
		if (!strcmp(k, "sport")) {
			opt.f.sport = number(v, 65535);
		} else if (!strcmp(k, "dport")) {
			opt.f.dport = number(v, 65535);
		} else if (!strcmp(k, "src") || !strcmp(k, "dst")) {
			unsigned char tmp[16];
			char *to = k[0] == 's' ? opt.f.src : opt.f.dst;
			int af = strchr(v, ':') ? AF_INET6 : AF_INET;

			if (inet_pton(af, v, tmp) != 1) {
				fprintf(stderr, "imtcp-stat: bad address: %s\n", v);
				exit(EXIT_USAGE);
			}
			inet_ntop(af, tmp, to, INET6_ADDRSTRLEN);
		} else if (!strcmp(k, "cookie")) {
			opt.f.cookie = strtoull(v, NULL, 0);
			opt.f.by_cookie = true;
		} else {
			fprintf(stderr, "imtcp-stat: unknown filter: %s\n", k);
			exit(EXIT_USAGE);
		}
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", no_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ "timestamp", no_argument, NULL, 't' },
		{ "stats", no_argument, NULL, 's' },
		{ "reset-stats", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	if (argc > 1 && !strcmp(argv[1], "monitor")) {
		opt.watch = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "jwi:tshV", lo, NULL)) != -1) {
		switch (c) {
		case 'j': opt.json = true; break;
		case 'w': opt.watch = true; break;
		case 's': opt.stats = true; break;
		case 't': opt.stamp = true; break;
		case 'R': opt.reset = true; break;
		case 'i':
			opt.interval = strtod(optarg, &end);
			if (*end || opt.interval <= 0) {
				fprintf(stderr, "imtcp-stat: bad interval: %s\n", optarg);
				exit(EXIT_USAGE);
			}
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("imtcp-stat %s\n", IMTCP_STAT_VERSION); exit(0);
		default: usage(stderr); exit(EXIT_USAGE);
		}
	}
	parse_filter(argc - optind, argv + optind);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	open_family();
	if (opt.reset)
		return simple_cmd(IMTCP_CMD_RESET_STATS, NULL);
	if (opt.stats)
		return simple_cmd(IMTCP_CMD_GET_STATS, cb_stats);
	if (opt.watch)
		return watch();
	for (;;) {
		int n = dump_once();

		if (!opt.interval)
			return n ? 0 : EXIT_NO_SOCKETS;
		usleep((useconds_t)(opt.interval * 1e6));
	}
}
