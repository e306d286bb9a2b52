// SPDX-License-Identifier: GPL-2.0
/*
 * Selecting imtcp per socket with setsockopt(TCP_CONGESTION), as an
 * unprivileged user, and using it for a connection over loopback; and
 * getsockopt(TCP_CC_INFO), which runs without the socket lock, hammered
 * while another thread switches the socket's congestion control (the
 * kernel log must stay clean: run_all.sh checks it after every program).
 * Needs imtcp loaded (skips otherwise) and root to drop privileges from.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "uapi/imtcp.h"

#define NOBODY 65534

static int imtcp_available(void)
{
	char list[512] = "";
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control",
			"r");

	if (!f)
		return 0;
	if (!fgets(list, sizeof(list), f))
		list[0] = '\0';
	fclose(f);
	return strstr(list, "imtcp") != NULL;
}

static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	return 0;
}

static int get_cc(int fd, char *name, size_t len)
{
	socklen_t l = len - 1;

	memset(name, 0, len);
	return getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &l);
}

FIXTURE(sock) {
	int fd;
};

FIXTURE_SETUP(sock)
{
	if (!imtcp_available())
		SKIP(return, "imtcp is not loaded");
	if (geteuid() != 0)
		SKIP(return, "needs root to drop privileges from");
	ASSERT_EQ(0, drop_privileges());
	self->fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(sock)
{
	if (self->fd > 0)
		close(self->fd);
}

TEST_F(sock, unprivileged_select)
{
	char name[32];

	ASSERT_EQ(0, setsockopt(self->fd, IPPROTO_TCP, TCP_CONGESTION,
				"imtcp", strlen("imtcp")));
	ASSERT_EQ(0, get_cc(self->fd, name, sizeof(name)));
	EXPECT_STREQ("imtcp", name);
	/* And back to reno, also allowed to everyone. */
	ASSERT_EQ(0, setsockopt(self->fd, IPPROTO_TCP, TCP_CONGESTION,
				"reno", strlen("reno")));
	ASSERT_EQ(0, get_cc(self->fd, name, sizeof(name)));
	EXPECT_STREQ("reno", name);
}

TEST_F(sock, unknown_name_rejected)
{
	EXPECT_EQ(-1, setsockopt(self->fd, IPPROTO_TCP, TCP_CONGESTION,
				 "imtcpx", strlen("imtcpx")));
	EXPECT_EQ(ENOENT, errno);
}

/* A loopback connection on imtcp carries 8 MB intact. */
TEST_F(sock, loopback_transfer)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	static unsigned char out[65536], in[65536];
	size_t total = 8 << 20, got = 0, i;
	char name[32];
	int lfd, cfd;
	pid_t pid;
	int status;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(lfd, 1));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&sa, &salen));

	ASSERT_EQ(0, setsockopt(self->fd, IPPROTO_TCP, TCP_CONGESTION,
				"imtcp", strlen("imtcp")));
	ASSERT_EQ(0, connect(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, get_cc(self->fd, name, sizeof(name)));
	EXPECT_STREQ("imtcp", name);
	cfd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, cfd);

	for (i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 131 + 7);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		size_t sent = 0;

		while (sent < total) {
			ssize_t n = write(self->fd, out, sizeof(out));

			if (n <= 0)
				_exit(1);
			sent += n;
		}
		_exit(0);
	}
	while (got < total) {
		ssize_t n = read(cfd, in, sizeof(in));

		ASSERT_LT(0, n);
		for (i = 0; i < (size_t)n; i++)
			ASSERT_EQ(out[(got + i) % sizeof(out)], in[i]);
		got += n;
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(total, got);
	close(cfd);
	close(lfd);
}

/* A loopback connection: @fd connected, *@peer the accepted end. */
static int loopback_pair(int fd, int *peer)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0)
		return -1;
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(lfd);
		return -1;
	}
	*peer = accept(lfd, NULL, NULL);
	close(lfd);
	return *peer < 0 ? -1 : 0;
}

struct hammer {
	int fd;
	const char * const *ccs;
	unsigned int nccs;
	volatile int stop;
	unsigned long switches, infos, errors;
};

/*
 * Switch the socket's congestion control as fast as it goes, between
 * imtcp and the others in h->ccs.
 */
static void *switcher(void *arg)
{
	struct hammer *h = arg;
	unsigned int i = 0;

	while (!h->stop) {
		const char *cc = i % 2 ? h->ccs[(i / 2) % h->nccs] : "imtcp";

		i++;

		if (setsockopt(h->fd, IPPROTO_TCP, TCP_CONGESTION, cc,
			       strlen(cc)))
			h->errors++;
		h->switches++;
	}
	return NULL;
}

/* Read TCP_CC_INFO as fast as it goes. */
static void *reader(void *arg)
{
	struct hammer *h = arg;

	while (!h->stop) {
		union {
			struct imtcp_cc_info imtcp;
			char any[64];
		} info;
		socklen_t len = sizeof(info);

		if (getsockopt(h->fd, IPPROTO_TCP, TCP_CC_INFO, &info, &len))
			h->errors++;
		h->infos++;
	}
	return NULL;
}

/*
 * Hammer TCP_CC_INFO on @fd (imtcp, loopback data flowing) for 5 s while
 * another thread switches between imtcp and @ccs.
 */
static void hammer_cc_info(struct __test_metadata *_metadata, int fd,
			   const char * const *ccs, unsigned int nccs)
{
	static unsigned char buf[65536];
	struct hammer h = { .fd = fd, .ccs = ccs, .nccs = nccs };
	pthread_t a, b;
	time_t end;
	int peer;
	pid_t pid;

	ASSERT_EQ(0, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION,
				"imtcp", strlen("imtcp")));
	ASSERT_EQ(0, loopback_pair(fd, &peer));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {		/* the receiver */
		while (read(peer, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(peer);
	ASSERT_EQ(0, pthread_create(&a, NULL, switcher, &h));
	ASSERT_EQ(0, pthread_create(&b, NULL, reader, &h));
	end = time(NULL) + 5;
	while (time(NULL) < end)
		if (write(fd, buf, sizeof(buf)) < 0)
			break;
	h.stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	shutdown(fd, SHUT_WR);
	waitpid(pid, NULL, 0);
	TH_LOG("%lu switches, %lu TCP_CC_INFO reads", h.switches, h.infos);
	EXPECT_EQ(0, h.errors);
	EXPECT_LT(1000, h.switches);
	EXPECT_LT(1000, h.infos);
}

/*
 * TCP_CC_INFO while the congestion control changes under it, data
 * flowing, for 5 s: no call fails and the kernel log stays clean (the
 * private area get_info reads may belong to another congestion control
 * by then; imtcp keeps no pointer there). As the unprivileged user, with
 * the congestion controls anyone may pick.
 */
TEST_F(sock, cc_info_while_switching)
{
	static const char * const ccs[] = { "reno", "cubic" };

	hammer_cc_info(_metadata, self->fd, ccs, 2);
}

/*
 * The same as root, with every congestion control this kernel has
 * loaded or can load (vegas, bbr, dctcp, ... write other bytes into the
 * private area), and no privileges dropped.
 */
TEST(cc_info_while_switching_all)
{
	static const char * const all[] = { "reno", "cubic", "vegas", "bbr",
					     "dctcp", "westwood", "htcp" };
	const char *ccs[7];
	unsigned int i, n = 0;
	int fd;

	if (!imtcp_available())
		SKIP(return, "imtcp is not loaded");
	if (geteuid() != 0)
		SKIP(return, "needs root for the restricted congestion controls");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	for (i = 0; i < 7; i++)
		if (!setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, all[i],
				strlen(all[i])))
			ccs[n++] = all[i];
	TH_LOG("switching between imtcp and %u others", n);
	hammer_cc_info(_metadata, fd, ccs, n);
	close(fd);
}

TEST_HARNESS_MAIN
