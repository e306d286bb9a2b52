// SPDX-License-Identifier: GPL-2.0
/*
 * pick-rate: a sender that chooses its own sending rate from the
 * available-bandwidth estimate of its socket, the way a video sender
 * picks a bitrate from a ladder.
 *
 *   pick-rate HOST PORT [SECONDS]
 *
 * It connects with imtcp, sends at the lowest rung for a start, and once
 * a second reads getsockopt(TCP_CC_INFO) (struct imtcp_cc_info) and moves
 * to the highest rung below 80 % of the estimate. Without an estimate
 * (yet) it stays where it is. Each second it prints the estimate and the
 * rate it picked.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "uapi/imtcp.h"

static const double ladder_mbit[] = { 1, 2.5, 5, 8, 12, 20, 35, 50 };
#define RUNGS (sizeof(ladder_mbit) / sizeof(ladder_mbit[0]))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd;

	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "imtcp", 5) ||
	    connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		perror("pick-rate");
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* The socket's estimate in bit/s, 0 if none yet or not imtcp. */
static uint64_t estimate(int fd)
{
	struct imtcp_cc_info ci;
	socklen_t len = sizeof(ci);

	memset(&ci, 0, sizeof(ci));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &ci, &len) ||
	    len < sizeof(ci) || ci.version != IMTCP_CC_INFO_VERSION)
		return 0;
	return (uint64_t)ci.estimate_hi << 32 | ci.estimate_lo;
}

static unsigned int pick(uint64_t est, unsigned int cur)
{
	unsigned int i, best = 0;

	if (!est)
		return cur;
	for (i = 0; i < RUNGS; i++)
		if (ladder_mbit[i] * 1e6 <= 0.8 * est)
			best = i;
	return best;
}

int main(int argc, char **argv)
{
	static char chunk[16384];
	double start, next_pick, sent = 0, secs;
	unsigned int rung = 0;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: pick-rate HOST PORT [SECONDS]\n");
		return 2;
	}
	secs = argc > 3 ? atof(argv[3]) : 10;
	fd = dial(argv[1], argv[2]);
	if (fd < 0)
		return 1;
	start = now();
	next_pick = start + 1;
	while (now() - start < secs) {
		double t = now();

		if (t >= next_pick) {
			uint64_t est = estimate(fd);

			rung = pick(est, rung);
			printf("t=%.0fs estimate=%.1f Mbit/s rate=%.1f Mbit/s\n",
			       t - start, est / 1e6, ladder_mbit[rung]);
			fflush(stdout);
			next_pick += 1;
		}
		/* send what the chosen rate allows by now, in chunks */
		if (sent * 8 < ladder_mbit[rung] * 1e6 * (t - start)) {
			ssize_t n = write(fd, chunk, sizeof(chunk));

			if (n < 0) {
				perror("pick-rate: write");
				return 1;
			}
			sent += n;
		} else {
			usleep(1000);
		}
	}
	close(fd);
	return 0;
}
