// SPDX-License-Identifier: GPL-2.0
/*
 * xfer: one bulk TCP transfer, for imtcp's tests and benchmarks.
 *
 *   xfer recv [-m] [-p PORT] [-P SECS] [-o FILE|-] [-L FILE]
 *       Accept one connection, write what arrives to FILE ('-' = stdout,
 *       default: discard), exit when the peer closes. -P waits SECS
 *       (at most 60) after the accept before reading: the receive window
 *       fills and closes. -L writes one line "MONOTONIC_SECONDS BYTES" to
 *       FILE after every read, BYTES being all read so far (when each of
 *       a media sender's frames arrived whole).
 *   xfer send [-m] -c ADDR [-p PORT] [-C CC] [-H SECS] [-N]
 *             [-r MBIT [-F MS] [-w BYTES]] [-S EPOCH] [-T FILE] [-M MBIT]
 *             (-i FILE | -n BYTES | -t SECONDS)
 *       Connect (retrying for 10 s while nothing listens), send FILE, BYTES
 *       bytes or for SECONDS seconds, wait until the receiver has read all
 *       of it and closed, then print one line of key=value results:
 *       cc, bytes, secs, goodput_mbps (bytes / time from the first byte
 *       to the receiver's close), retrans, segs_out, rtt_us, cwnd,
 *       delivery_mbps, cookie (SO_COOKIE) and, on an imtcp socket,
 *       cc_est_bps (its TCP_CC_INFO estimate). -H keeps the socket open
 *       SECS seconds after printing (for a reader to compare). -r makes
 *       the sender application-limited: it writes MBIT Mbit/s in one
 *       chunk every 40 ms, as a 25 frames/s video sender does, or every
 *       -F MS milliseconds (1-10000: a sender of whole groups of
 *       pictures or media segments writes larger chunks less often).
 *       -w writes each frame in write() calls of at most BYTES (one after
 *       the other, at once), as a sender that writes a frame packet by
 *       packet does. With -r the result line also carries frame_t0_s (the
 *       CLOCK_MONOTONIC second the first frame was due; frame j is due
 *       j x frame_ms later) and frame_bytes (a frame's length;
 *       frame j ends at byte (j + 1) x frame_bytes, rounded down).
 *       -T writes, every 100 ms while sending, one line "MONOTONIC_SECONDS
 *       DELIVERY_RATE_BPS CC_BW_BPS BYTES_ACKED" to FILE:
 *       tcpi_delivery_rate, and the congestion control's own bandwidth
 *       figure from TCP_CC_INFO (imtcp's estimate, BBR's bw; 0 for
 *       others), both in bit/s, and tcpi_bytes_acked (the throughput
 *       over time, from one line to the next).
 *       -M caps the socket's pacing rate at MBIT Mbit/s
 *       (SO_MAX_PACING_RATE).
 *       -N sets TCP_NODELAY, as interactive and real-time media senders
 *       do: a frame's last partial segment leaves at once instead of
 *       waiting (Nagle) for the ACK of an earlier one.
 *       -S connects at once but sends the first byte at EPOCH (seconds
 *       since 1970, CLOCK_REALTIME, fractions allowed), so that flows
 *       started one after the other begin together: under emulation
 *       starting a process takes 0.1 s, some RTTs of a slow start.
 *
 *   -m, on either side, uses an MPTCP socket (IPPROTO_MPTCP): the path
 *   manager adds subflows, which inherit -C; the result line's TCP
 *   figures are the first subflow's.
 *
 * Exit codes: 0 done, 1 transfer or socket error, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <linux/inet_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "monoclock.h"

#define BUF_SIZE (128 * 1024)

static char buf[BUF_SIZE];

struct opts {
	const char *addr;
	const char *port;
	const char *cc;
	const char *in;
	const char *out;
	unsigned long long bytes;
	double secs;
	double hold;
	double rate_mbit;
	double frame_secs;	/* -r: one chunk per frame_secs */
	unsigned long write_bytes;	/* -w: at most this per write(), 0: any */
	const char *arrivals;	/* recv -L: a line per read */
	double start_at;
	const char *trace;
	double max_pacing_mbit;	/* -M: SO_MAX_PACING_RATE, 0: none */
	double pause;		/* recv -P: seconds before the first read */
	int proto;		/* -m: IPPROTO_MPTCP, else 0 (TCP) */
	int nodelay;		/* -N: TCP_NODELAY */
};

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define FRAME_SECS 0.04	/* -F's default: 25 frames/s */
#define SAMPLE_USECS 100000

static void usage(void)
{
	fprintf(stderr,
		"usage: xfer recv [-m] [-p PORT] [-P SECS] [-o FILE|-] [-L FILE]\n"
		"       xfer send [-m] -c ADDR [-p PORT] [-C CC] [-H SECS] [-N]\n"
		"                 [-r MBIT [-F MS] [-w BYTES]] [-S EPOCH] [-T FILE] [-M MBIT]\n"
		"                 (-i FILE | -n BYTES | -t SECONDS)\n");
	exit(2);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int do_recv(const struct opts *o)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int one = 1, lfd, fd, out = -1, err;
	unsigned long long total = 0;
	FILE *arr = NULL;
	ssize_t n;

	err = getaddrinfo(NULL, o->port, &hints, &ai);
	if (err) {
		fprintf(stderr, "xfer: %s\n", gai_strerror(err));
		return 1;
	}
	/* Prefer IPv6 wildcard (dual stack) when there is one. */
	for (struct addrinfo *a = ai; a; a = a->ai_next)
		if (a->ai_family == AF_INET6) {
			ai = a;
			break;
		}
	lfd = socket(ai->ai_family, SOCK_STREAM, o->proto);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 1)) {
		perror("xfer: listen");
		return 1;
	}
	if (o->out && strcmp(o->out, "-") == 0)
		out = STDOUT_FILENO;
	else if (o->out)
		out = open(o->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o->out && out < 0) {
		perror("xfer: open output");
		return 1;
	}
	if (o->arrivals) {
		arr = fopen(o->arrivals, "w");
		if (!arr) {
			perror("xfer: open arrivals file");
			return 1;
		}
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("xfer: accept");
		return 1;
	}
	if (o->pause > 0)	/* the receive window fills and closes */
		usleep((useconds_t)(o->pause * 1e6));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("xfer: read");
			return 1;
		}
		total += n;
		if (arr)
			fprintf(arr, "%.6f %llu\n", now(), total);
		if (out >= 0 && write_all(out, buf, n)) {
			perror("xfer: write output");
			return 1;
		}
	}
	close(fd);
	if (arr && fclose(arr)) {
		perror("xfer: write arrivals file");
		return 1;
	}
	fprintf(stderr, "xfer: received %llu bytes\n", total);
	return 0;
}

static int connect_retry(const struct opts *o)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	double deadline = now() + 10;
	struct addrinfo *ai;
	int fd, err;

	err = getaddrinfo(o->addr, o->port, &hints, &ai);
	if (err) {
		fprintf(stderr, "xfer: %s: %s\n", o->addr, gai_strerror(err));
		return -1;
	}
	for (;;) {
		fd = socket(ai->ai_family, SOCK_STREAM, o->proto);
		if (fd < 0) {
			perror("xfer: socket");
			return -1;
		}
		if (o->cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION,
					o->cc, strlen(o->cc))) {
			fprintf(stderr, "xfer: TCP_CONGESTION %s: %s\n",
				o->cc, strerror(errno));
			return -1;
		}
		if (o->max_pacing_mbit > 0) {
			/* the socket option takes bytes per second */
			unsigned int max_Bps = o->max_pacing_mbit * 1e6 / 8;

			if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE,
				       &max_Bps, sizeof(max_Bps))) {
				perror("xfer: SO_MAX_PACING_RATE");
				return -1;
			}
		}
		if (o->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY,
					     &o->nodelay, sizeof(o->nodelay))) {
			perror("xfer: TCP_NODELAY");
			return -1;
		}
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			return fd;
		close(fd);
		if ((errno != ECONNREFUSED && errno != ENETUNREACH) ||
		    now() > deadline) {
			perror("xfer: connect");
			return -1;
		}
		usleep(50000);
	}
}

/*
 * Application-limited sending: the bytes of the frame that is due, at
 * rate_mbit, one frame per frame_secs; waits for the frame's time. A
 * sender that fell behind catches up at once, as a video encoder's
 * queue would.
 */
static double frame_t0_s;	/* when the first frame was due (monotonic s) */

static ssize_t next_frame(unsigned long long sent, const struct opts *o,
			  double t_end)
{
	double frame_bytes = o->rate_mbit * 1e6 / 8 * o->frame_secs;
	size_t most = sizeof(buf);
	double t = now(), due;
	long j;

	if (!frame_t0_s)
		frame_t0_s = t;
	for (;;) {
		if (t >= t_end)
			return 0;
		j = (long)((t - frame_t0_s) / o->frame_secs);
		due = (j + 1) * frame_bytes;
		if (due - sent >= 1)
			break;
		sleep_until(frame_t0_s + (j + 1) * o->frame_secs);
		t = now();
	}
	due -= sent;
	if (o->write_bytes && o->write_bytes < most)
		most = o->write_bytes;
	return due < most ? (ssize_t)due : (ssize_t)most;
}

/* Fill buf from the input file; returns bytes read, 0 at its end. */
static ssize_t next_chunk(int in, unsigned long long sent,
			  const struct opts *o, double t_end)
{
	ssize_t n;

	if (in >= 0) {
		do {
			n = read(in, buf, sizeof(buf));
		} while (n < 0 && errno == EINTR);
		return n;
	}
	if (o->rate_mbit > 0)
		return next_frame(sent, o, t_end);
	if (o->bytes) {
		unsigned long long left = o->bytes - sent;

		return left < sizeof(buf) ? (ssize_t)left : (ssize_t)sizeof(buf);
	}
	return now() < t_end ? (ssize_t)sizeof(buf) : 0;
}

struct sampler {
	pthread_t thread;
	int fd;
	FILE *out;
	atomic_bool stop;
};

/* The congestion control's own bandwidth figure in bit/s, 0 if none. */
static unsigned long long cc_bw_bps(int fd, const char *cc)
{
	union tcp_cc_info info;
	socklen_t len = sizeof(info);
	uint32_t *w = (uint32_t *)&info;

	memset(&info, 0, sizeof(info));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &info, &len))
		return 0;
	if (!strcmp(cc, "bbr") && len >= sizeof(info.bbr))
		return ((unsigned long long)info.bbr.bbr_bw_hi << 32 |
			info.bbr.bbr_bw_lo) * 8;
	/* struct imtcp_cc_info: version 1, estimate low, estimate high */
	if (!strcmp(cc, "imtcp") && len >= 12 && w[0] == 1)
		return (unsigned long long)w[2] << 32 | w[1];
	return 0;
}

static void *sample_loop(void *arg)
{
	struct sampler *s = arg;
	char cc[16] = "";
	socklen_t cclen = sizeof(cc) - 1;

	getsockopt(s->fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cclen);
	while (!atomic_load(&s->stop)) {
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
		fprintf(s->out, "%.6f %llu %llu %llu\n", now(),
			(unsigned long long)ti.tcpi_delivery_rate * 8,
			cc_bw_bps(s->fd, cc),
			(unsigned long long)ti.tcpi_bytes_acked);
		usleep(SAMPLE_USECS);
	}
	return NULL;
}

static int sampler_start(struct sampler *s, int fd, const char *path)
{
	s->fd = fd;
	atomic_init(&s->stop, false);
	s->out = fopen(path, "w");
	if (!s->out) {
		perror("xfer: open trace file");
		return -1;
	}
	if (pthread_create(&s->thread, NULL, sample_loop, s)) {
		fprintf(stderr, "xfer: cannot start the sampler\n");
		fclose(s->out);
		return -1;
	}
	return 0;
}

static void sampler_stop(struct sampler *s)
{
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	fclose(s->out);
}

static void print_result(int fd, const struct opts *o,
			 unsigned long long sent, double secs)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	char cc[16] = "";
	socklen_t cclen = sizeof(cc) - 1;
	uint32_t ccinfo[5] = { 0 };
	socklen_t cilen = sizeof(ccinfo);
	uint64_t cookie = 0;
	socklen_t cklen = sizeof(cookie);

	memset(&ti, 0, sizeof(ti));
	getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
	getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cclen);
	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &cklen);
	printf("cc=%s bytes=%llu secs=%.3f goodput_mbps=%.3f retrans=%u "
	       "segs_out=%u rtt_us=%u cwnd=%u delivery_mbps=%.3f cookie=%llu",
	       cc, sent, secs, sent * 8 / secs / 1e6, ti.tcpi_total_retrans,
	       ti.tcpi_segs_out, ti.tcpi_rtt, ti.tcpi_snd_cwnd,
	       ti.tcpi_delivery_rate * 8 / 1e6, (unsigned long long)cookie);
	/* struct imtcp_cc_info: version, estimate low, estimate high, ... */
	if (!strcmp(cc, "imtcp") &&
	    !getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, ccinfo, &cilen) &&
	    cilen >= 12 && ccinfo[0] == 1)
		printf(" cc_est_bps=%llu",
		       (unsigned long long)ccinfo[2] << 32 | ccinfo[1]);
	if (o->rate_mbit > 0)
		printf(" frame_t0_s=%.6f frame_bytes=%.3f frame_ms=%.3f",
		       frame_t0_s, o->rate_mbit * 1e6 / 8 * o->frame_secs,
		       o->frame_secs * 1000);
	printf("\n");
	fflush(stdout);
}

/* Sleep until @epoch (CLOCK_REALTIME seconds); say so if it has passed. */
static void wait_for_start(double epoch)
{
	double late = now_on(CLOCK_REALTIME) - epoch;

	if (late > 0)
		fprintf(stderr, "xfer: start time passed %.3f s ago\n", late);
	else
		sleep_until_on(CLOCK_REALTIME, epoch);
}

static int do_send(const struct opts *o)
{
	unsigned long long sent = 0;
	struct sampler smp;
	double t0, t_end;
	int fd, in = -1;
	ssize_t n;

	if (o->in) {
		in = open(o->in, O_RDONLY);
		if (in < 0) {
			perror("xfer: open input");
			return 1;
		}
	}
	memset(buf, 'i', sizeof(buf));
	fd = connect_retry(o);
	if (fd < 0)
		return 1;
	if (o->start_at > 0)
		wait_for_start(o->start_at);
	if (o->trace && sampler_start(&smp, fd, o->trace))
		return 1;
	t0 = now();
	t_end = o->secs > 0 ? t0 + o->secs : 1e300;
	while ((n = next_chunk(in, sent, o, t_end)) > 0) {
		if (write_all(fd, buf, n)) {
			perror("xfer: send");
			return 1;
		}
		sent += n;
	}
	if (n < 0) {
		perror("xfer: read input");
		return 1;
	}
	/* All sent: wait until the receiver has read it all and closed. */
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0 ||
	       (n < 0 && errno == EINTR))
		;
	if (n < 0) {
		perror("xfer: waiting for the receiver");
		return 1;
	}
	if (o->trace)
		sampler_stop(&smp);
	print_result(fd, o, sent, now() - t0);
	if (o->hold > 0)
		usleep((useconds_t)(o->hold * 1e6));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = "5201", .frame_secs = FRAME_SECS };
	int c;

	if (argc < 2)
		usage();
	while ((c = getopt(argc - 1, argv + 1, "c:p:C:i:o:n:t:H:r:F:T:S:M:P:L:w:mN")) != -1) {
		switch (c) {
		case 'c': o.addr = optarg; break;
		case 'p': o.port = optarg; break;
		case 'C': o.cc = optarg; break;
		case 'i': o.in = optarg; break;
		case 'o': o.out = optarg; break;
		case 'n': o.bytes = strtoull(optarg, NULL, 0); break;
		case 't': o.secs = atof(optarg); break;
		case 'H': o.hold = atof(optarg); break;
		case 'r': o.rate_mbit = atof(optarg); break;
		case 'F': o.frame_secs = atof(optarg) / 1000; break;
		case 'T': o.trace = optarg; break;
		case 'S': o.start_at = atof(optarg); break;
		case 'M': o.max_pacing_mbit = atof(optarg); break;
		case 'P': o.pause = atof(optarg); break;
		case 'L': o.arrivals = optarg; break;
		case 'w': o.write_bytes = strtoul(optarg, NULL, 0); break;
		case 'm': o.proto = IPPROTO_MPTCP; break;
		case 'N': o.nodelay = 1; break;
		default: usage();
		}
	}
	if (!strcmp(argv[1], "recv")) {
		if (!(o.pause >= 0 && o.pause <= 60))
			usage();
		return do_recv(&o);
	}
	if (strcmp(argv[1], "send") || !o.addr ||
	    (!o.in && !o.bytes && o.secs <= 0) || o.rate_mbit < 0 ||
	    o.max_pacing_mbit < 0 || o.max_pacing_mbit > 30000 ||
	    o.start_at < 0 || !(o.frame_secs >= 0.001 && o.frame_secs <= 10) ||
	    (o.rate_mbit > 0 && (o.in || o.bytes)) ||
	    (o.write_bytes && (!o.rate_mbit || o.write_bytes > BUF_SIZE)))
		usage();
	return do_send(&o);
}
