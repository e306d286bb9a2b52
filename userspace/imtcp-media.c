// SPDX-License-Identifier: GPL-2.0
/*
 * imtcp-media: a media sender that picks its bitrate from a ladder by the
 * available bandwidth imtcp measures on its own socket, and a receiver
 * that counts the frames that arrive too late to be played.
 * See imtcp-media.1.
 *
 *   imtcp-media send [OPTIONS] HOST PORT
 *   imtcp-media recv [OPTIONS] PORT
 *
 * The sender writes one frame every 1/fps s over one TCP connection,
 * frame size = rung rate / fps, and every --interval picks the highest
 * rung at or below --margin percent of a figure of its socket: imtcp's
 * estimate (getsockopt TCP_CC_INFO, struct imtcp_cc_info), the kernel's
 * tcpi_delivery_rate (to compare with), or none (a fixed rung). Without
 * a figure (no estimate yet) the rung stays.
 *
 * Each frame starts with a header (struct frame_hdr, network order). The
 * receiver plays frame i at (arrival of frame 0) + i / fps + playout; a
 * frame whose last byte arrives after that is late.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "imtcp_fmt.h"
#include "uapi/imtcp.h"

#ifndef IMTCP_STAT_VERSION
#define IMTCP_STAT_VERSION "dev"
#endif

#define EXIT_USAGE	2
#define EXIT_NO_IMTCP	3	/* imtcp asked for and not available */

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif

#define FRAME_MAGIC	0x494d544dU	/* "IMTM" */
#define RUNGS_MAX	16
#define FPS_MAX		120
#define RATE_MAX_BPS	10000000000ULL	/* 10 Gbit/s: a frame fits in RAM */
#define FRAMES_MAX	1000000		/* the receiver's per-frame record */
#define NS_PER_S	1000000000LL
#define STALE_PICKS	3	/* an estimate older than this many picks */

/* At the start of every frame, network byte order. */
struct frame_hdr {
	uint32_t magic;
	uint32_t seq;
	uint32_t bytes;		/* the whole frame, header included */
	uint32_t rate_kbps;	/* the rung it was sent at */
	uint32_t fps;
};

enum pick_by { PICK_IMTCP, PICK_DELIVERY, PICK_FIXED };

static const char * const pick_names[] = {
	[PICK_IMTCP] = "imtcp", [PICK_DELIVERY] = "delivery",
	[PICK_FIXED] = "fixed",
};

static struct {
	double secs;			/* run time, s; 0: until interrupted */
	unsigned int fps;
	uint64_t ladder_bps[RUNGS_MAX];
	unsigned int rungs;
	enum pick_by pick;
	uint64_t start_bps;		/* 0: the lowest rung */
	unsigned int margin_pct;
	unsigned int interval_ms;
	unsigned int writes;		/* per frame */
	const char *cc;			/* NULL: imtcp */
	unsigned int playout_ms;
	const char *bind;
	int proto;			/* --mptcp: IPPROTO_MPTCP, else 0 */
	bool json;
} opt = {
	.secs = 10, .fps = 25, .pick = PICK_IMTCP, .margin_pct = 80,
	.interval_ms = 1000, .writes = 1, .playout_ms = 200,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void sleep_until_ns(int64_t t_ns)
{
	struct timespec ts = { t_ns / NS_PER_S, t_ns % NS_PER_S };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR && !stop)
		;
}

/* tcpi_delivery_rate and the like are bytes/s; everything here is bit/s. */
static uint64_t Bps_to_bps(uint64_t rate_Bps)
{
	return rate_Bps * 8;
}

/* A rate as ss prints it; "-" for none (0). */
static const char *rate_str(uint64_t bps, char *buf, size_t len)
{
	if (!bps) {
		snprintf(buf, len, "-");
		return buf;
	}
	return imtcp_rate_str(bps, buf, len);
}

static bool parse_mbit(const char *s, uint64_t *bps)
{
	return imtcp_parse_mbit(s, RATE_MAX_BPS, bps);
}

/* "1,2.5,5": rungs in Mbit/s, rising. */
static bool parse_ladder(const char *s)
{
	char buf[512], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	opt.rungs = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (opt.rungs == RUNGS_MAX ||
		    !parse_mbit(tok, &opt.ladder_bps[opt.rungs]) ||
		    (opt.rungs &&
		     opt.ladder_bps[opt.rungs] <= opt.ladder_bps[opt.rungs - 1]))
			return false;
		opt.rungs++;
	}
	return opt.rungs > 0;
}

/* ---- sender ---- */

struct figures {
	uint64_t estimate_bps;		/* imtcp's, 0: none */
	uint32_t age_ms;		/* since imtcp's latest result */
	uint64_t delivery_bps;		/* tcpi_delivery_rate */
	bool app_limited;		/* tcpi_delivery_rate_app_limited */
	uint32_t srtt_us;
};

/* imtcp's estimate of the socket (0 if none yet, or not imtcp). */
static uint64_t imtcp_estimate_bps(int fd, uint32_t *age_ms)
{
	struct imtcp_cc_info ci;
	socklen_t len = sizeof(ci);

	memset(&ci, 0, sizeof(ci));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &ci, &len) ||
	    len < sizeof(ci) || ci.version != IMTCP_CC_INFO_VERSION)
		return 0;
	*age_ms = ci.age_ms;
	/*
	 * A connection's first result is provisional: measured on the first
	 * windows, from a guessed range, and replaced by the next one (it
	 * read 25 Mbit/s where A was 6 in the selftest's first run, and the
	 * sender's frames were late for 3 s after it moved up on that).
	 */
	if (ci.measurements < 2)
		return 0;
	return (uint64_t)ci.estimate_hi << 32 | ci.estimate_lo;
}

static void read_figures(int fd, struct figures *f)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(f, 0, sizeof(*f));
	f->estimate_bps = imtcp_estimate_bps(fd, &f->age_ms);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return;
	f->delivery_bps = Bps_to_bps(ti.tcpi_delivery_rate);
	f->app_limited = ti.tcpi_delivery_rate_app_limited;
	f->srtt_us = ti.tcpi_rtt;
}

/* The highest rung at or below margin % of @figure_bps; @cur if none. */
static unsigned int pick_rung(uint64_t figure_bps, unsigned int cur)
{
	unsigned int i, best = 0;

	if (!figure_bps)
		return cur;
	for (i = 0; i < opt.rungs; i++)
		if (opt.ladder_bps[i] * 100 <= figure_bps * opt.margin_pct)
			best = i;
	return best;
}

/* Full segments of @mss bytes in a frame of rung @i. */
static uint64_t frame_segs(unsigned int i, uint32_t mss)
{
	return mss ? opt.ladder_bps[i] / 8 / opt.fps / mss : 0;
}

/* The lowest rung whose frames imtcp measures (the top one if none). */
static unsigned int lowest_measured(uint32_t mss)
{
	unsigned int i;

	for (i = 0; i + 1 < opt.rungs; i++)
		if (frame_segs(i, mss) >= IMTCP_WRITE_SEGS_MIN)
			break;
	return i;
}

/*
 * The first rung: the highest at or below --start; without it, with
 * --pick imtcp, the lowest whose frames imtcp measures, else the lowest.
 */
static unsigned int start_rung(uint32_t mss)
{
	unsigned int i, best = 0;

	if (!opt.start_bps)
		return opt.pick == PICK_IMTCP ? lowest_measured(mss) : 0;
	for (i = 0; i < opt.rungs; i++)
		if (opt.ladder_bps[i] <= opt.start_bps)
			best = i;
	return best;
}

/*
 * With --pick imtcp, an estimate that has aged STALE_PICKS picks
 * describes the past. On a rung whose frames imtcp cannot measure it
 * would never be renewed: go to the lowest measured rung, and stay there
 * (not lower) until the estimate is fresh again. (Back for one pick
 * only, the sender fell again on the old estimate before a new one came:
 * after failed holds on the small frames the module rests for up to 64
 * srtt before it holds again.) The same with no estimate at all: the
 * module withdraws a first estimate once the frames are known too short
 * (reason writes-short), and on such a rung none would come.
 */
static bool refresh_needed(const struct figures *f, unsigned int rung,
			   uint32_t mss)
{
	return opt.pick == PICK_IMTCP && rung <= lowest_measured(mss) &&
	       (!f->estimate_bps ||
		f->age_ms > STALE_PICKS * opt.interval_ms);
}

/* The socket's MSS, 0 if unknown. */
static uint32_t mss_of(int fd)
{
	socklen_t len = sizeof(int);
	int mss = 0;

	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) || mss < 0)
		return 0;
	return mss;
}

/*
 * A stream socket, MPTCP with --mptcp. MPTCP needs net.mptcp.enabled=1
 * and a kernel built with it: say so instead of falling back to TCP.
 */
static int open_socket(int family)
{
	int fd = socket(family, SOCK_STREAM, opt.proto);

	if (fd < 0 && opt.proto == IPPROTO_MPTCP)
		fprintf(stderr, "imtcp-media: MPTCP socket: %s%s\n",
			strerror(errno),
			errno == EPROTONOSUPPORT || errno == ENOPROTOOPT ?
			" (sysctl net.mptcp.enabled=1?)" : "");
	return fd;
}

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	const char *cc = opt.cc ? opt.cc : "imtcp";
	int fd = -1, err;

	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "imtcp-media: %s port %s: %s\n", host, port,
			gai_strerror(err));
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = open_socket(a->ai_family);
		if (fd < 0)
			continue;
		if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
			fprintf(stderr,
				"imtcp-media: congestion control %s: %s%s\n", cc,
				strerror(errno), errno == ENOENT ?
				" (is the module loaded? modprobe imtcp)" : "");
			close(fd);
			freeaddrinfo(ai);
			return -EXIT_NO_IMTCP;
		}
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		fprintf(stderr, "imtcp-media: connect to %s port %s: %s\n",
			host, port, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}

/* Write all of @len bytes; false on error or when told to stop. */
static bool write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR && !stop)
			continue;
		if (n <= 0) {
			if (!stop)
				perror("imtcp-media: write");
			return false;
		}
		buf += n;
		len -= n;
	}
	return true;
}

/* One frame of @bytes (at least the header), in opt.writes writes. */
static bool send_frame(int fd, char *buf, uint32_t seq, uint32_t bytes,
		       uint64_t rate_bps)
{
	struct frame_hdr h = {
		.magic = htonl(FRAME_MAGIC), .seq = htonl(seq),
		.bytes = htonl(bytes), .rate_kbps = htonl(rate_bps / 1000),
		.fps = htonl(opt.fps),
	};
	uint32_t off = 0, part = bytes / opt.writes, i;

	memcpy(buf, &h, sizeof(h));
	for (i = 0; i < opt.writes; i++) {
		uint32_t len = i + 1 < opt.writes ? part : bytes - off;

		if (len && !write_all(fd, buf + off, len))
			return false;
		off += len;
	}
	return true;
}

struct send_stats {
	uint64_t frames, behind, bytes, switches;
	double secs_on[RUNGS_MAX];
};

static void print_pick(double t_s, const struct figures *f, unsigned int rung,
		       bool refresh, const struct send_stats *s, bool first)
{
	char a[32], b[32], c[32];

	if (opt.json) {
		printf("{\"event\":\"pick\",\"t_s\":%.3f,\"mono_s\":%.3f"
		       ",\"estimate_bps\":%" PRIu64
		       ",\"estimate_age_ms\":%u,\"delivery_bps\":%" PRIu64
		       ",\"app_limited\":%s,\"srtt_us\":%u,\"by\":\"%s\""
		       ",\"rung\":%u,\"rate_bps\":%" PRIu64 ",\"refresh\":%s"
		       ",\"frames\":%" PRIu64 ",\"behind\":%" PRIu64 "}\n",
		       t_s, now_ns() / 1e9, f->estimate_bps, f->age_ms,
		       f->delivery_bps,
		       f->app_limited ? "true" : "false", f->srtt_us,
		       pick_names[opt.pick], rung, opt.ladder_bps[rung],
		       refresh ? "true" : "false", s->frames, s->behind);
	} else {
		if (first)
			printf("%-8s %-10s %-8s %-10s %-8s %-10s %-8s %s\n",
			       "Time", "Estimate", "Age", "Delivery", "Srtt",
			       "Rate", "Frames", "Behind");
		printf("%-8.1f %-10s %-8.1f %-10s %-8.1f %-10s %-8" PRIu64 " %"
		       PRIu64 "%s\n", t_s,
		       rate_str(f->estimate_bps, a, sizeof(a)),
		       f->age_ms / 1000.0,
		       rate_str(f->delivery_bps, b, sizeof(b)),
		       f->srtt_us / 1000.0,
		       rate_str(opt.ladder_bps[rung], c, sizeof(c)),
		       s->frames, s->behind, refresh ? " refresh" : "");
	}
	fflush(stdout);
}

static void print_send_end(double t_s, const struct send_stats *s)
{
	unsigned int i;

	if (opt.json) {
		printf("{\"event\":\"end\",\"t_s\":%.3f,\"frames\":%" PRIu64
		       ",\"behind\":%" PRIu64 ",\"bytes\":%" PRIu64
		       ",\"switches\":%" PRIu64 ",\"secs_on_rung\":[", t_s,
		       s->frames, s->behind, s->bytes, s->switches);
		for (i = 0; i < opt.rungs; i++)
			printf("%s%.3f", i ? "," : "", s->secs_on[i]);
		printf("]}\n");
	} else {
		printf("sent %" PRIu64 " frames (%" PRIu64
		       " written behind their time) in %.1f s, %.2f Mbit/s, %"
		       PRIu64 " rate changes\n", s->frames, s->behind, t_s,
		       t_s > 0 ? s->bytes * 8 / t_s / 1e6 : 0.0, s->switches);
	}
	fflush(stdout);
}

static uint64_t figure_for_pick(const struct figures *f)
{
	switch (opt.pick) {
	case PICK_IMTCP:
		return f->estimate_bps;
	case PICK_DELIVERY:
		return f->delivery_bps;
	default:
		return 0;
	}
}

static int run_send(const char *host, const char *port)
{
	uint64_t max_frame_bytes = opt.ladder_bps[opt.rungs - 1] / 8 / opt.fps;
	int64_t t0_ns, frame_ns = NS_PER_S / opt.fps, next_frame_ns;
	int64_t pick_ns = (int64_t)opt.interval_ms * 1000000, next_pick_ns;
	int64_t t_ns, last_ns;
	struct send_stats s = { 0 };
	unsigned int rung;
	struct figures f;
	uint32_t mss;
	uint32_t seq = 0;
	bool first = true;
	char *buf;
	int fd;

	buf = calloc(1, max_frame_bytes + sizeof(struct frame_hdr));
	if (!buf) {
		fprintf(stderr, "imtcp-media: no memory for a frame of %" PRIu64
			" bytes\n", max_frame_bytes);
		return 1;
	}
	fd = dial(host, port);
	if (fd < 0) {
		free(buf);
		return fd == -EXIT_NO_IMTCP ? EXIT_NO_IMTCP : 1;
	}
	mss = mss_of(fd);
	rung = start_rung(mss);
	t0_ns = now_ns();
	last_ns = t0_ns;
	next_frame_ns = t0_ns;
	next_pick_ns = t0_ns + pick_ns;
	while (!stop &&
	       (!opt.secs || now_ns() - t0_ns < opt.secs * NS_PER_S)) {
		uint64_t bytes = opt.ladder_bps[rung] / 8 / opt.fps;

		if (bytes < sizeof(struct frame_hdr))
			bytes = sizeof(struct frame_hdr);
		if (!send_frame(fd, buf, seq++, bytes, opt.ladder_bps[rung]))
			break;
		s.frames++;
		s.bytes += bytes;
		next_frame_ns += frame_ns;
		t_ns = now_ns();
		if (t_ns > next_frame_ns)
			s.behind++;	/* the write took past the next slot */
		if (t_ns >= next_pick_ns) {
			unsigned int was = rung;
			bool refresh;

			s.secs_on[rung] += (t_ns - last_ns) / 1e9;
			last_ns = t_ns;
			read_figures(fd, &f);
			refresh = refresh_needed(&f, rung, mss);
			if (refresh)
				rung = lowest_measured(mss);
			else if (opt.pick != PICK_FIXED)
				rung = pick_rung(figure_for_pick(&f), rung);
			s.switches += rung != was;
			print_pick((t_ns - t0_ns) / 1e9, &f, rung, refresh, &s,
				   first);
			first = false;
			while (next_pick_ns <= t_ns)
				next_pick_ns += pick_ns;
		}
		sleep_until_ns(next_frame_ns);
	}
	t_ns = now_ns();
	s.secs_on[rung] += (t_ns - last_ns) / 1e9;
	print_send_end((t_ns - t0_ns) / 1e9, &s);
	close(fd);
	free(buf);
	return 0;
}

/* ---- receiver ---- */

struct recv_stats {
	uint64_t frames, late, bytes, bad;
	int64_t first_ns;		/* arrival of frame 0's last byte */
	uint32_t fps;
	int64_t *delay_ns;		/* per frame: behind its schedule */
	uint64_t ndelay;
	uint64_t sec_frames, sec_late, sec_bytes;
	uint32_t last_rate_kbps;
};

static int listen_on(const char *port)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE,
		.ai_family = opt.bind ? AF_UNSPEC : AF_INET6,
	}, *ai;
	int fd, one = 1, err;

	err = getaddrinfo(opt.bind, port, &hints, &ai);
	if (err && !opt.bind) {		/* no IPv6: any IPv4 address */
		hints.ai_family = AF_INET;
		err = getaddrinfo(NULL, port, &hints, &ai);
	}
	if (err) {
		fprintf(stderr, "imtcp-media: port %s: %s\n", port,
			gai_strerror(err));
		return -1;
	}
	fd = open_socket(ai->ai_family);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1)) {
		fprintf(stderr, "imtcp-media: listen on port %s: %s\n", port,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* Read exactly @len bytes; 0 at a clean end before any, -1 on error. */
static int read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR && !stop)
			continue;
		if (n < 0) {
			if (!stop)
				perror("imtcp-media: read");
			return -1;
		}
		if (!n)
			return got ? -1 : 0;
		got += n;
	}
	return 1;
}

/* Frame @seq's last byte came at @t_ns: late against the schedule? */
static void account_frame(struct recv_stats *r, uint32_t seq, int64_t t_ns)
{
	int64_t due_ns, behind_ns;

	if (!r->frames) {
		r->first_ns = t_ns - (int64_t)seq * NS_PER_S / r->fps;
	}
	due_ns = r->first_ns + (int64_t)seq * NS_PER_S / r->fps;
	behind_ns = t_ns - due_ns;
	if (behind_ns > (int64_t)opt.playout_ms * 1000000) {
		r->late++;
		r->sec_late++;
	}
	if (r->ndelay < FRAMES_MAX)
		r->delay_ns[r->ndelay++] = behind_ns;
	r->frames++;
	r->sec_frames++;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static double delay_pct_ms(const struct recv_stats *r, unsigned int pct)
{
	uint64_t i;

	if (!r->ndelay)
		return 0;
	i = (r->ndelay - 1) * pct / 100;
	return r->delay_ns[i] / 1e6;
}

static void print_recv_second(double t_s, struct recv_stats *r, bool first)
{
	if (opt.json) {
		printf("{\"event\":\"second\",\"t_s\":%.3f,\"frames\":%" PRIu64
		       ",\"late\":%" PRIu64 ",\"goodput_bps\":%" PRIu64
		       ",\"rate_bps\":%" PRIu64 "}\n", t_s, r->sec_frames,
		       r->sec_late, r->sec_bytes * 8,
		       (uint64_t)r->last_rate_kbps * 1000);
	} else {
		char a[32], b[32];

		if (first)
			printf("%-8s %-8s %-6s %-10s %s\n", "Time", "Frames",
			       "Late", "Goodput", "Rate");
		printf("%-8.1f %-8" PRIu64 " %-6" PRIu64 " %-10s %s\n", t_s,
		       r->sec_frames, r->sec_late,
		       rate_str(r->sec_bytes * 8, a, sizeof(a)),
		       rate_str((uint64_t)r->last_rate_kbps * 1000, b,
				sizeof(b)));
	}
	fflush(stdout);
	r->sec_frames = 0;
	r->sec_late = 0;
	r->sec_bytes = 0;
}

static void print_recv_end(double t_s, struct recv_stats *r)
{
	qsort(r->delay_ns, r->ndelay, sizeof(r->delay_ns[0]), cmp_i64);
	if (opt.json) {
		printf("{\"event\":\"end\",\"t_s\":%.3f,\"frames\":%" PRIu64
		       ",\"late\":%" PRIu64 ",\"bad\":%" PRIu64 ",\"bytes\":%"
		       PRIu64 ",\"playout_ms\":%u,\"behind_p50_ms\":%.3f"
		       ",\"behind_p99_ms\":%.3f}\n", t_s, r->frames, r->late,
		       r->bad, r->bytes, opt.playout_ms, delay_pct_ms(r, 50),
		       delay_pct_ms(r, 99));
	} else {
		printf("received %" PRIu64 " frames, %" PRIu64
		       " late (playout delay %u ms), behind schedule p50 %.1f ms p99 %.1f ms, %.2f Mbit/s\n",
		       r->frames, r->late, opt.playout_ms, delay_pct_ms(r, 50),
		       delay_pct_ms(r, 99),
		       t_s > 0 ? r->bytes * 8 / t_s / 1e6 : 0.0);
	}
	fflush(stdout);
}

/* Frames from @fd until it closes; 0 for a clean end, 1 for an error. */
static int receive(int fd, struct recv_stats *r)
{
	int64_t t0_ns = now_ns(), next_sec_ns = t0_ns + NS_PER_S;
	static char buf[1 << 16];
	struct frame_hdr h;
	bool first = true;
	int rc = 0, got;

	while (!stop) {
		uint32_t left;

		got = read_full(fd, (char *)&h, sizeof(h));
		if (got <= 0) {
			rc = got < 0 && !stop;
			break;
		}
		left = ntohl(h.bytes);
		if (ntohl(h.magic) != FRAME_MAGIC || left < sizeof(h) ||
		    !ntohl(h.fps) || ntohl(h.fps) > FPS_MAX) {
			fprintf(stderr, "imtcp-media: not an imtcp-media stream\n");
			r->bad++;
			rc = 1;
			break;
		}
		if (r->frames && ntohl(h.fps) != r->fps)
			r->bad++;
		r->fps = ntohl(h.fps);
		r->last_rate_kbps = ntohl(h.rate_kbps);
		left -= sizeof(h);
		while (left) {
			uint32_t n = left < sizeof(buf) ? left : sizeof(buf);

			if (read_full(fd, buf, n) <= 0) {
				rc = !stop;
				goto out;
			}
			left -= n;
		}
		account_frame(r, ntohl(h.seq), now_ns());
		r->bytes += ntohl(h.bytes);
		r->sec_bytes += ntohl(h.bytes);
		while (now_ns() >= next_sec_ns) {
			print_recv_second((next_sec_ns - t0_ns) / 1e9, r, first);
			first = false;
			next_sec_ns += NS_PER_S;
		}
	}
out:
	print_recv_end((now_ns() - t0_ns) / 1e9, r);
	return rc;
}

static int run_recv(const char *port)
{
	struct recv_stats r = { 0 };
	int lfd, fd, rc;

	r.delay_ns = calloc(FRAMES_MAX, sizeof(*r.delay_ns));
	if (!r.delay_ns) {
		fprintf(stderr, "imtcp-media: no memory\n");
		return 1;
	}
	lfd = listen_on(port);
	if (lfd < 0) {
		free(r.delay_ns);
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		if (!stop)
			perror("imtcp-media: accept");
		close(lfd);
		free(r.delay_ns);
		return 1;
	}
	/* MPTCP: the peer's further subflows join through the listener */
	if (opt.proto != IPPROTO_MPTCP) {
		close(lfd);
		lfd = -1;
	}
	rc = receive(fd, &r);
	close(fd);
	if (lfd >= 0)
		close(lfd);
	free(r.delay_ns);
	return rc;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: imtcp-media send [OPTIONS] HOST PORT\n"
		"       imtcp-media recv [OPTIONS] PORT\n"
		"\n"
		"send: stream frames over TCP, picking the bitrate from a ladder\n"
		"  -p, --pick BY        imtcp (its estimate, default), delivery\n"
		"                       (tcpi_delivery_rate) or fixed\n"
		"  -L, --ladder LIST    rungs in Mbit/s, rising (default\n"
		"                       1,2.5,5,8,12,20)\n"
		"  -s, --start MBIT     start at the highest rung <= MBIT (default:\n"
		"                       the lowest, with --pick imtcp the lowest\n"
		"                       whose frames imtcp measures); with --pick\n"
		"                       fixed, stay there\n"
		"  -m, --margin PCT     highest rung <= PCT %% of the figure (1-100,\n"
		"                       default 80)\n"
		"  -i, --interval MS    pick every MS ms (10-60000, default 1000)\n"
		"  -f, --fps N          frames per second (1-%d, default 25)\n"
		"  -w, --writes N       writes per frame (1-64, default 1)\n"
		"  -t, --time SECS      stop after SECS s (0: at a signal; default 10)\n"
		"  -C, --cc NAME        congestion control (default imtcp)\n"
		"recv: receive one connection's frames, count the late ones\n"
		"  -l, --playout MS     playout delay (0-60000, default 200)\n"
		"  -B, --bind ADDR      listen on ADDR (default: any)\n"
		"both:\n"
		"  -M, --mptcp          an MPTCP socket (the path manager adds\n"
		"                       subflows; they inherit --cc)\n"
		"  -j, --json           one JSON object per line\n"
		"  -h, --help           this text\n"
		"  -V, --version\n"
		"Exit status: 0 done, 1 error, 2 usage, 3 imtcp not available.\n",
		FPS_MAX);
}

static void bad_arg(const char *what, const char *val)
{
	fprintf(stderr, "imtcp-media: bad %s: %s\n", what, val);
	exit(EXIT_USAGE);
}

static void parse_pick(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(pick_names) / sizeof(pick_names[0]); i++)
		if (!strcmp(s, pick_names[i])) {
			opt.pick = i;
			return;
		}
	bad_arg("--pick (imtcp, delivery or fixed)", s);
}

static void parse_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "pick", required_argument, NULL, 'p' },
		{ "ladder", required_argument, NULL, 'L' },
		{ "start", required_argument, NULL, 's' },
		{ "margin", required_argument, NULL, 'm' },
		{ "interval", required_argument, NULL, 'i' },
		{ "fps", required_argument, NULL, 'f' },
		{ "writes", required_argument, NULL, 'w' },
		{ "time", required_argument, NULL, 't' },
		{ "cc", required_argument, NULL, 'C' },
		{ "playout", required_argument, NULL, 'l' },
		{ "bind", required_argument, NULL, 'B' },
		{ "mptcp", no_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int secs;
	int c;

	while ((c = getopt_long(argc, argv, "p:L:s:m:i:f:w:t:C:l:B:MjhV", lo,
				NULL)) != -1) {
		switch (c) {
		case 'p': parse_pick(optarg); break;
		case 'L':
			if (!parse_ladder(optarg))
				bad_arg("--ladder (rising Mbit/s, comma separated, up to 16)",
					optarg);
			break;
		case 's':
			if (!parse_mbit(optarg, &opt.start_bps))
				bad_arg("--start (Mbit/s)", optarg);
			break;
		case 'm':
			if (!imtcp_parse_uint(optarg, 1, 100, &opt.margin_pct))
				bad_arg("--margin (1-100)", optarg);
			break;
		case 'i':
			if (!imtcp_parse_uint(optarg, 10, 60000, &opt.interval_ms))
				bad_arg("--interval (10-60000 ms)", optarg);
			break;
		case 'f':
			if (!imtcp_parse_uint(optarg, 1, FPS_MAX, &opt.fps))
				bad_arg("--fps", optarg);
			break;
		case 'w':
			if (!imtcp_parse_uint(optarg, 1, 64, &opt.writes))
				bad_arg("--writes (1-64)", optarg);
			break;
		case 't':
			if (!imtcp_parse_uint(optarg, 0, 86400, &secs))
				bad_arg("--time (0-86400 s)", optarg);
			opt.secs = secs;
			break;
		case 'C':
			if (!*optarg || strlen(optarg) >= 16)
				bad_arg("--cc", optarg);
			opt.cc = optarg;
			break;
		case 'l':
			if (!imtcp_parse_uint(optarg, 0, 60000, &opt.playout_ms))
				bad_arg("--playout (0-60000 ms)", optarg);
			break;
		case 'B': opt.bind = optarg; break;
		case 'M': opt.proto = IPPROTO_MPTCP; break;
		case 'j': opt.json = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V':
			printf("imtcp-media %s\n", IMTCP_STAT_VERSION);
			exit(0);
		default: usage(stderr); exit(EXIT_USAGE);
		}
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("imtcp-media %s\n", IMTCP_STAT_VERSION);
		return 0;
	}
	if (!parse_ladder("1,2.5,5,8,12,20"))
		return 1;
	parse_opts(argc - 1, argv + 1);
	argc -= optind + 1;
	argv += optind + 1;
	if (opt.pick == PICK_IMTCP && opt.cc && strcmp(opt.cc, "imtcp")) {
		fprintf(stderr, "imtcp-media: --pick imtcp needs --cc imtcp\n");
		return EXIT_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(cmd, "send") && argc == 2)
		return run_send(argv[0], argv[1]);
	if (!strcmp(cmd, "recv") && argc == 1)
		return run_recv(argv[0]);
	usage(stderr);
	return EXIT_USAGE;
}
