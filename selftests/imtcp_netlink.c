// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "imtcp" from a raw netlink socket: GET by
 * cookie and by tuple, DUMP of this namespace's sockets, module
 * statistics; strict validation of malformed requests (each rejected
 * with an extended-ACK message, nothing changed); an unprivileged user
 * can read but not reset; TCP_CC_INFO agrees with netlink.
 * Needs imtcp loaded (skips otherwise) and root to drop privileges from.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "imtcp_nlerr.h"
#include "uapi/imtcp.h"

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif
#define NOBODY 65534

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	unsigned int seq;
	int error;		/* of the last request, -errno */
	char extack[256];	/* its extended-ACK message */
	int replies;
	uint64_t cookies[4096];	/* from GET_SOCK replies */
	uint16_t sport[4096];
	uint64_t estimate[4096];
	uint32_t stat_sockets;
};

static int cb_error(const struct nlmsghdr *nlh, void *data)
{
	struct nl *nl = data;

	nl->error = imtcp_nl_error(nlh, nl->extack, sizeof(nl->extack));
	return nl->error ? MNL_CB_ERROR : MNL_CB_STOP;
}

static int cb_reply(const struct nlmsghdr *nlh, void *data)
{
	struct nl *nl = data;
	const struct nlattr *a;
	int i = nl->replies;

	if (i >= 4096)
		return MNL_CB_ERROR;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (nlh->nlmsg_type == GENL_ID_CTRL)
				nl->family = mnl_attr_get_u16(a);
			break;
		}
		if (nlh->nlmsg_type == GENL_ID_CTRL)
			continue;
		switch (mnl_attr_get_type(a)) {
		case IMTCP_A_COOKIE: nl->cookies[i] = mnl_attr_get_u64(a); break;
		case IMTCP_A_SPORT: nl->sport[i] = mnl_attr_get_u16(a); break;
		case IMTCP_A_ESTIMATE: nl->estimate[i] = mnl_attr_get_u64(a); break;
		case IMTCP_A_STAT_SOCKETS: nl->stat_sockets = mnl_attr_get_u32(a); break;
		}
	}
	if (nlh->nlmsg_type != GENL_ID_CTRL)
		nl->replies++;
	return MNL_CB_OK;
}

/* Send @nlh (length as it says, or @len bytes if nonzero); collect. */
static int nl_run(struct nl *nl, struct nlmsghdr *nlh, size_t len)
{
	static char buf[65536];
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = cb_error, [NLMSG_DONE] = imtcp_nl_done,
	};
	int ret;

	nl->error = 0;
	nl->extack[0] = '\0';
	nl->replies = 0;
	if (mnl_socket_sendto(nl->sock, nlh, len ? len : nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ret = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (ret <= 0)
			return -errno;
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq,
				  mnl_socket_get_portid(nl->sock), cb_reply, nl,
				  ctl, NLMSG_MIN_TYPE);
	} while (ret == MNL_CB_OK);
	return nl->error;
}

static struct nlmsghdr *nl_req(struct nl *nl, char *buf, uint16_t type,
			       uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : IMTCP_GENL_VERSION;
	return nlh;
}

static int nl_open(struct nl *nl)
{
	char buf[1024];
	struct nlmsghdr *nlh;
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID))
		return -1;
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	nlh = nl_req(nl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, IMTCP_GENL_NAME);
	return nl_run(nl, nlh, 0) || !nl->family ? -1 : 0;
}

static int dump(struct nl *nl)
{
	char buf[256];

	return nl_run(nl, nl_req(nl, buf, nl->family, IMTCP_CMD_GET_SOCK,
				 NLM_F_DUMP), 0);
}

static int stat_sockets(struct nl *nl)
{
	char buf[256];

	if (nl_run(nl, nl_req(nl, buf, nl->family, IMTCP_CMD_GET_STATS, 0), 0))
		return -1;
	return nl->stat_sockets;
}

/* A connected imtcp pair over loopback; @fd[0] client, @fd[1] server. */
static int imtcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || setsockopt(l, IPPROTO_TCP, TCP_CONGESTION, "imtcp", 5) ||
	    bind(l, (void *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &len))
		return -1;
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (setsockopt(fd[0], IPPROTO_TCP, TCP_CONGESTION, "imtcp", 5) ||
	    connect(fd[0], (void *)&a, sizeof(a)))
		return -1;
	fd[1] = accept(l, NULL, NULL);
	close(l);
	return fd[1] < 0 ? -1 : 0;
}

static uint64_t cookie_of(int fd)
{
	uint64_t c = 0;
	socklen_t len = sizeof(c);

	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &len);
	return c;
}

static uint16_t port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	getsockname(fd, (void *)&a, &len);
	return ntohs(a.sin_port);
}

FIXTURE(nl) {
	struct nl nl;
	int fd[2];
};

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, nl_open(&self->nl));
	ASSERT_EQ(0, imtcp_pair(self->fd));
}

FIXTURE_TEARDOWN(nl)
{
	close(self->fd[0]);
	close(self->fd[1]);
	if (self->nl.sock)
		mnl_socket_close(self->nl.sock);
}

TEST_F(nl, get_by_cookie)
{
	uint64_t c = cookie_of(self->fd[0]);
	char buf[256];
	struct nlmsghdr *nlh;

	ASSERT_NE(0, c);
	nlh = nl_req(&self->nl, buf, self->nl.family, IMTCP_CMD_GET_SOCK, 0);
	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, c);
	ASSERT_EQ(0, nl_run(&self->nl, nlh, 0));
	ASSERT_EQ(1, self->nl.replies);
	EXPECT_EQ(c, self->nl.cookies[0]);
	EXPECT_EQ(port_of(self->fd[0]), self->nl.sport[0]);
}

TEST_F(nl, get_by_tuple)
{
	char buf[256];
	struct nlmsghdr *nlh;
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);

	getpeername(self->fd[0], (void *)&peer, &len);
	nlh = nl_req(&self->nl, buf, self->nl.family, IMTCP_CMD_GET_SOCK, 0);
	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, AF_INET);
	mnl_attr_put_u16(nlh, IMTCP_A_SPORT, port_of(self->fd[0]));
	mnl_attr_put_u16(nlh, IMTCP_A_DPORT, ntohs(peer.sin_port));
	mnl_attr_put_u32(nlh, IMTCP_A_DADDR4, htonl(INADDR_LOOPBACK));
	ASSERT_EQ(0, nl_run(&self->nl, nlh, 0));
	ASSERT_EQ(1, self->nl.replies);
	EXPECT_EQ(cookie_of(self->fd[0]), self->nl.cookies[0]);
}

TEST_F(nl, get_unknown_cookie)
{
	char buf[256];
	struct nlmsghdr *nlh;

	nlh = nl_req(&self->nl, buf, self->nl.family, IMTCP_CMD_GET_SOCK, 0);
	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, ~0ULL);
	EXPECT_EQ(-ENOENT, nl_run(&self->nl, nlh, 0));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(nl, get_without_key)
{
	char buf[256];

	EXPECT_EQ(-EINVAL, nl_run(&self->nl, nl_req(&self->nl, buf,
			self->nl.family, IMTCP_CMD_GET_SOCK, 0), 0));
	EXPECT_NE(0, self->nl.extack[0]);
}

TEST_F(nl, dump_lists_both_ends_once)
{
	uint64_t c0 = cookie_of(self->fd[0]), c1 = cookie_of(self->fd[1]);
	int i, n0 = 0, n1 = 0;

	ASSERT_EQ(0, dump(&self->nl));
	for (i = 0; i < self->nl.replies; i++) {
		n0 += self->nl.cookies[i] == c0;
		n1 += self->nl.cookies[i] == c1;
	}
	EXPECT_EQ(1, n0);
	EXPECT_EQ(1, n1);
}

/* Malformed requests: refused with a message, and nothing changes. */
static void expect_refused(struct __test_metadata *_metadata, struct nl *nl,
			   struct nlmsghdr *nlh, size_t len, const char *what)
{
	int before = stat_sockets(nl), err;

	err = nl_run(nl, nlh, len);
	EXPECT_TRUE(err == -EINVAL || err == -ERANGE) {
		TH_LOG("%s: error %d", what, err);
	}
	EXPECT_NE(0, nl->extack[0]) {
		TH_LOG("%s: no extack message", what);
	}
	TH_LOG("%s: %s", what, nl->extack);
	EXPECT_EQ(0, nl->replies);
	EXPECT_EQ(before, stat_sockets(nl));
}

TEST_F(nl, unknown_attribute)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, cookie_of(self->fd[0]));
	mnl_attr_put_u32(nlh, IMTCP_A_MAX + 10, 1);
	expect_refused(_metadata, &self->nl, nlh, 0, "unknown attribute");
}

TEST_F(nl, output_attribute_in_request)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, cookie_of(self->fd[0]));
	mnl_attr_put_u64(nlh, IMTCP_A_ESTIMATE, 1);
	expect_refused(_metadata, &self->nl, nlh, 0, "output-only attribute");
}

TEST_F(nl, wrong_type)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u16(nlh, IMTCP_A_COOKIE, 1);	/* u64 expected */
	expect_refused(_metadata, &self->nl, nlh, 0, "u16 for a u64");
}

TEST_F(nl, oversized_attribute)
{
	char buf[256], big[64] = { 0 };
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, AF_INET6);
	mnl_attr_put(nlh, IMTCP_A_SADDR6, sizeof(big), big);
	mnl_attr_put_u16(nlh, IMTCP_A_SPORT, 1);
	mnl_attr_put_u16(nlh, IMTCP_A_DPORT, 1);
	expect_refused(_metadata, &self->nl, nlh, 0, "64-byte IPv6 address");
}

TEST_F(nl, family_out_of_range)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, 99);
	mnl_attr_put_u16(nlh, IMTCP_A_SPORT, 1);
	mnl_attr_put_u16(nlh, IMTCP_A_DPORT, 1);
	expect_refused(_metadata, &self->nl, nlh, 0, "address family 99");
}

/* 3-9 lie within the policy's range but are not address families. */
TEST_F(nl, family_between_inet_and_inet6)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, AF_INET + 1);
	mnl_attr_put_u16(nlh, IMTCP_A_SPORT, port_of(self->fd[0]));
	mnl_attr_put_u16(nlh, IMTCP_A_DPORT, 1);
	expect_refused(_metadata, &self->nl, nlh, 0, "address family 3");
}

/* An address of the other family is refused, not ignored. */
TEST_F(nl, address_of_the_other_family)
{
	char buf[256], v6[16] = { 0 };
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);

	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, AF_INET);
	mnl_attr_put_u16(nlh, IMTCP_A_SPORT, port_of(self->fd[0]));
	mnl_attr_put_u16(nlh, IMTCP_A_DPORT, port_of(self->fd[1]));
	mnl_attr_put(nlh, IMTCP_A_DADDR6, sizeof(v6), v6);
	expect_refused(_metadata, &self->nl, nlh, 0, "IPv6 address with AF_INET");
	nlh = nl_req(&self->nl, buf, self->nl.family, IMTCP_CMD_GET_SOCK, 0);
	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, AF_INET6);
	mnl_attr_put_u16(nlh, IMTCP_A_SPORT, 1);
	mnl_attr_put_u16(nlh, IMTCP_A_DPORT, 1);
	mnl_attr_put_u32(nlh, IMTCP_A_SADDR4, htonl(INADDR_LOOPBACK));
	expect_refused(_metadata, &self->nl, nlh, 0, "IPv4 address with AF_INET6");
}

/* The statistics commands take no attributes (a per-command policy). */
TEST_F(nl, stats_take_no_attributes)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_STATS, 0);

	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, cookie_of(self->fd[0]));
	expect_refused(_metadata, &self->nl, nlh, 0, "GET_STATS with a cookie");
	nlh = nl_req(&self->nl, buf, self->nl.family, IMTCP_CMD_RESET_STATS, 0);
	mnl_attr_put_u8(nlh, IMTCP_A_FAMILY, AF_INET);
	expect_refused(_metadata, &self->nl, nlh, 0, "RESET_STATS with a family");
}

TEST_F(nl, truncated_attribute)
{
	char buf[256];
	struct nlmsghdr *nlh = nl_req(&self->nl, buf, self->nl.family,
				      IMTCP_CMD_GET_SOCK, 0);
	struct nlattr *a;

	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, cookie_of(self->fd[0]));
	a = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, 1);
	a->nla_len = 40;	/* claims more than the message holds */
	expect_refused(_metadata, &self->nl, nlh, 0, "attribute past the end");
}

TEST_F(nl, unprivileged_reads_but_cannot_reset)
{
	pid_t pid = fork();
	char rbuf[256];
	int status;

	ASSERT_GE(pid, 0);
	if (!pid) {
		struct nl nl;
		char buf[256];

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY) || nl_open(&nl))
			_exit(10);
		if (dump(&nl) || nl.replies < 2)
			_exit(11);
		if (stat_sockets(&nl) < 2)
			_exit(12);
		if (nl_run(&nl, nl_req(&nl, buf, nl.family,
				       IMTCP_CMD_RESET_STATS, 0), 0) != -EPERM)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* root may */
	EXPECT_EQ(0, nl_run(&self->nl, nl_req(&self->nl, rbuf, self->nl.family,
					      IMTCP_CMD_RESET_STATS, 0), 0));
}

static void *sink(void *arg)
{
	char buf[65536];
	int fd = *(int *)arg;

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

/*
 * The layout and its agreement with netlink on a socket without
 * estimates (loopback: no measurement results there); with estimates,
 * imtcp_netlink.sh compares the two on a shaped path.
 */
TEST_F(nl, cc_info_matches_netlink)
{
	struct imtcp_cc_info ci;
	socklen_t len = sizeof(ci);
	static char data[1 << 16];
	uint64_t est;
	pthread_t t;
	char buf[256];
	struct nlmsghdr *nlh;
	time_t end = time(NULL) + 2;

	ASSERT_EQ(0, pthread_create(&t, NULL, sink, &self->fd[1]));
	while (time(NULL) < end)
		ASSERT_LT(0, write(self->fd[0], data, sizeof(data)));
	usleep(300000);
	memset(&ci, 0, sizeof(ci));
	ASSERT_EQ(0, getsockopt(self->fd[0], IPPROTO_TCP, TCP_CC_INFO, &ci,
				&len));
	ASSERT_EQ(sizeof(ci), len);
	EXPECT_EQ(IMTCP_CC_INFO_VERSION, ci.version);
	est = (uint64_t)ci.estimate_hi << 32 | ci.estimate_lo;
	nlh = nl_req(&self->nl, buf, self->nl.family, IMTCP_CMD_GET_SOCK, 0);
	mnl_attr_put_u64(nlh, IMTCP_A_COOKIE, cookie_of(self->fd[0]));
	ASSERT_EQ(0, nl_run(&self->nl, nlh, 0));
	EXPECT_EQ(est, self->nl.estimate[0]);
	TH_LOG("loopback estimate %llu bit/s after %u measurements",
	       (unsigned long long)est, ci.measurements);
	shutdown(self->fd[0], SHUT_WR);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	struct nl nl;

	if (nl_open(&nl)) {
		printf("1..0 # SKIP imtcp's netlink family is not there (module not loaded?)\n");
		return KSFT_SKIP;
	}
	mnl_socket_close(nl.sock);
	return test_harness_run(argc, argv);
}
