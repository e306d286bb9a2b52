// SPDX-License-Identifier: GPL-2.0
/*
 * poisson: UDP cross traffic for imtcp's accuracy benchmark: packets
 * that leave as a Poisson process (scenario S3) or, with -C, at constant
 * gaps (CBR: S1, S2), at one rate or along a profile of rates.
 *
 *   poisson -c ADDR [-p PORT] {-b MBIT -t SECONDS | -r PROFILE} [-C]
 *           [-l BYTES] [-s SEED]
 *
 * Sends datagrams of BYTES (default 1448) payload to ADDR:PORT (default
 * 9; nobody needs to listen: the benchmark counts the traffic at the
 * router) with exponentially distributed gaps (or constant ones, -C)
 * whose mean gives MBIT Mbit/s of payload. PROFILE is "MBIT:SECONDS"
 * steps separated by spaces or commas, one after another; a step of 0
 * Mbit/s is silence. Departure times are drawn in advance on one
 * absolute schedule for the whole profile, so steps follow each other
 * without a gap (one sender process per step, as iperf3 needs, left the
 * bottleneck empty for 1-2 s at every step under TCG); a sender that
 * fell behind (a late timer) sends at once, so the mean rate holds.
 * Prints one line: packets, seconds, payload Mbit/s.
 *
 * Exit codes: 0 done, 1 socket error, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "monoclock.h"

#define MAX_LEN 65000
#define MAX_STEPS 64

static char payload[MAX_LEN];

struct step {
	double mbit;	/* 0: silent */
	double secs;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: poisson -c ADDR [-p PORT] {-b MBIT -t SECONDS | -r PROFILE} [-C]\n"
		"               [-l BYTES] [-s SEED]\n"
		"  PROFILE: MBIT:SECONDS steps, separated by spaces or commas\n");
	exit(2);
}

/* A number >= 0 that is all of @s. */
static int parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || *v < 0 || *v > 1e6 ? -1 : 0;
}

/* A number > 0 from an option's argument; usage() if it is not one. */
static double positive(const char *s)
{
	double v;

	if (parse_num(s, &v) || v == 0)
		usage();
	return v;
}

/* "MBIT:SECONDS ..." into @steps; returns how many, -1 if malformed. */
static int parse_profile(char *text, struct step *steps)
{
	char *tok, *colon, *save;
	int n = 0;

	for (tok = strtok_r(text, " ,", &save); tok;
	     tok = strtok_r(NULL, " ,", &save)) {
		colon = strchr(tok, ':');
		if (!colon || n == MAX_STEPS)
			return -1;
		*colon = 0;
		if (parse_num(tok, &steps[n].mbit) ||
		    parse_num(colon + 1, &steps[n].secs) || steps[n].secs <= 0)
			return -1;
		n++;
	}
	return n;
}

/* The gap before the next packet at @mbit: exponential, or constant. */
static double next_gap(double mbit, long len, int constant)
{
	double mean = len * 8 / (mbit * 1e6);

	return constant ? mean : -mean * log(1 - drand48());
}

/*
 * One step of the schedule, from @t (the next departure, absolute) to
 * @t_end. Returns the first departure after the step, or -1 on error.
 */
static double send_step(int fd, const struct sockaddr_storage *to,
			socklen_t tolen, const struct step *st, long len,
			int constant, double t, double t_end,
			unsigned long long *pkts)
{
	if (st->mbit == 0)
		return t_end;
	for (; t < t_end; t += next_gap(st->mbit, len, constant)) {
		if (now() < t)
			sleep_until(t);
		/* no listener: ICMP errors come back as ECONNREFUSED; ignore */
		if (sendto(fd, payload, len, 0, (const struct sockaddr *)to,
			   tolen) < 0 && errno != ECONNREFUSED &&
		    errno != ENOBUFS) {
			perror("poisson: send");
			return -1;
		}
		(*pkts)++;
	}
	return t;
}

static int open_socket(const char *addr, const char *port,
		       struct sockaddr_storage *to, socklen_t *tolen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai;
	int fd, err;

	err = getaddrinfo(addr, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "poisson: %s: %s\n", addr, gai_strerror(err));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("poisson: socket");
		freeaddrinfo(ai);
		return -1;
	}
	memcpy(to, ai->ai_addr, ai->ai_addrlen);
	*tolen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return fd;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "9";
	struct step steps[MAX_STEPS] = { { 0 } };
	int c, fd, i, n = 1, constant = 0, have_b = 0, have_t = 0, have_r = 0;
	unsigned long long pkts = 0;
	long len = 1448, seed = 1;
	struct sockaddr_storage to;
	double t0, t, t_end;
	socklen_t tolen;

	while ((c = getopt(argc, argv, "c:p:b:t:r:Cl:s:")) != -1) {
		switch (c) {
		case 'c': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'b': steps[0].mbit = positive(optarg); have_b = 1; break;
		case 't': steps[0].secs = positive(optarg); have_t = 1; break;
		case 'r': have_r = 1; n = parse_profile(optarg, steps); break;
		case 'C': constant = 1; break;
		case 'l': len = atol(optarg); break;
		case 's': seed = atol(optarg); break;
		default: usage();
		}
	}
	/* one rate (-b and -t) or a profile (-r), not both */
	if (!addr || len < 1 || len > MAX_LEN ||
	    (have_r ? have_b || have_t || n < 1 : !(have_b && have_t)))
		usage();
	fd = open_socket(addr, port, &to, &tolen);
	if (fd < 0)
		return 1;
	srand48(seed);
	t0 = now();
	t = t0;
	t_end = t0;
	for (i = 0; i < n; i++) {
		t_end += steps[i].secs;
		t = send_step(fd, &to, tolen, &steps[i], len, constant, t,
			      t_end, &pkts);
		if (t < 0)
			return 1;
	}
	if (now() < t_end)
		sleep_until(t_end);	/* a profile may end in silence */
	t = now() - t0;
	printf("packets=%llu secs=%.3f mbps=%.3f\n", pkts, t,
	       pkts * len * 8 / t / 1e6);
	return 0;
}
