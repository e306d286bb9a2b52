// SPDX-License-Identifier: GPL-2.0
/*
 * poisson: UDP cross traffic whose packets leave as a Poisson process,
 * for imtcp's accuracy benchmark (scenario S3).
 *
 *   poisson -c ADDR [-p PORT] -b MBIT -t SECONDS [-l BYTES] [-s SEED]
 *
 * Sends datagrams of BYTES (default 1448) payload to ADDR:PORT (default
 * 9; nobody needs to listen: the benchmark counts the traffic at the
 * router) with exponentially distributed gaps whose mean gives MBIT
 * Mbit/s of payload. Departure times are drawn in advance on an absolute
 * schedule; a sender that fell behind (a late timer) sends at once, so the
 * mean rate holds. Prints one line: packets, seconds, payload Mbit/s.
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

static char payload[MAX_LEN];

static void usage(void)
{
	fprintf(stderr,
		"usage: poisson -c ADDR [-p PORT] -b MBIT -t SECONDS [-l BYTES] [-s SEED]\n");
	exit(2);
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
	double mbit = 0, secs = 0, mean, t0, t_end, t;
	unsigned long long pkts = 0;
	long len = 1448, seed = 1;
	struct sockaddr_storage to;
	socklen_t tolen;
	int c, fd;

	while ((c = getopt(argc, argv, "c:p:b:t:l:s:")) != -1) {
		switch (c) {
		case 'c': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'b': mbit = atof(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'l': len = atol(optarg); break;
		case 's': seed = atol(optarg); break;
		default: usage();
		}
	}
	if (!addr || mbit <= 0 || secs <= 0 || len < 1 || len > MAX_LEN)
		usage();
	fd = open_socket(addr, port, &to, &tolen);
	if (fd < 0)
		return 1;
	srand48(seed);
	mean = len * 8 / (mbit * 1e6);
	t0 = now();
	t_end = t0 + secs;
	for (t = t0; t < t_end; t += -mean * log(1 - drand48())) {
		if (now() < t)
			sleep_until(t);
		/* no listener: ICMP errors come back as ECONNREFUSED; ignore */
		if (sendto(fd, payload, len, 0, (struct sockaddr *)&to,
			   tolen) < 0 && errno != ECONNREFUSED &&
		    errno != ENOBUFS) {
			perror("poisson: send");
			return 1;
		}
		pkts++;
	}
	t = now() - t0;
	printf("packets=%llu secs=%.3f mbps=%.3f\n", pkts, t,
	       pkts * len * 8 / t / 1e6);
	return 0;
}
