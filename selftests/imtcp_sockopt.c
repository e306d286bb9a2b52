// SPDX-License-Identifier: GPL-2.0
/*
 * Selecting imtcp per socket with setsockopt(TCP_CONGESTION), as an
 * unprivileged user, and using it for a connection over loopback.
 * Needs imtcp loaded (skips otherwise) and root to drop privileges from.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

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

TEST_HARNESS_MAIN
