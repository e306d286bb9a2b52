// SPDX-License-Identifier: GPL-2.0
/*
 * The MPTCP subflows of this network namespace, from sock_diag: every TCP
 * socket whose upper-layer protocol is mptcp carries its connection's
 * local token (INET_DIAG_ULP_INFO, INET_ULP_INFO_MPTCP), the same for
 * all subflows of one connection. This is what ss shows as
 * "tcp-ulp-mptcp ... token:"; the kernel (6.1, net/ipv4/tcp_diag.c)
 * gives it only to a reader with CAP_NET_ADMIN, and to others the
 * sockets without it.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/mptcp.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "imtcp_subflows.h"

/* Every state but LISTEN (whose ULP data carries no token). */
#define NOT_LISTEN	(~0U & ~(1U << 10))

static int add(struct imtcp_subflows *s, const struct imtcp_subflow *sf)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		struct imtcp_subflow *p = realloc(s->sf, cap * sizeof(*p));

		if (!p)
			return -1;
		s->sf = p;
		s->cap = cap;
	}
	s->sf[s->n++] = *sf;
	return 0;
}

/* INET_ULP_INFO_MPTCP's token, local id and backup flag. */
static void parse_mptcp(const struct nlattr *nest, struct imtcp_subflow *sf)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case MPTCP_SUBFLOW_ATTR_TOKEN_LOC:
			sf->token = mnl_attr_get_u32(a);
			break;
		case MPTCP_SUBFLOW_ATTR_ID_LOC:
			sf->local_id = mnl_attr_get_u8(a);
			break;
		case MPTCP_SUBFLOW_ATTR_FLAGS:
			sf->backup = mnl_attr_get_u32(a) &
				     MPTCP_SUBFLOW_FLAG_BKUP_LOC;
			break;
		}
	}
}

/* INET_DIAG_ULP_INFO: true if the ULP is mptcp (and @sf filled). */
static bool parse_ulp(const struct nlattr *nest, struct imtcp_subflow *sf)
{
	const struct nlattr *a, *mptcp = NULL;
	bool is_mptcp = false;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == INET_ULP_INFO_NAME)
			is_mptcp = !strcmp(mnl_attr_get_str(a), "mptcp");
		else if (mnl_attr_get_type(a) == INET_ULP_INFO_MPTCP)
			mptcp = a;
	}
	if (!is_mptcp || !mptcp)
		return false;
	parse_mptcp(mptcp, sf);
	return true;
}

static int cb_sock(const struct nlmsghdr *nlh, void *data)
{
	const struct inet_diag_msg *msg = mnl_nlmsg_get_payload(nlh);
	struct imtcp_subflow sf = { 0 };
	const struct nlattr *a;

	sf.cookie = msg->id.idiag_cookie[0] |
		    (uint64_t)msg->id.idiag_cookie[1] << 32;
	mnl_attr_for_each(a, nlh, sizeof(*msg)) {
		if (mnl_attr_get_type(a) == INET_DIAG_ULP_INFO &&
		    parse_ulp(a, &sf))
			return add(data, &sf) ? MNL_CB_ERROR : MNL_CB_OK;
	}
	return MNL_CB_OK;
}

static int dump_family(struct mnl_socket *nl, uint8_t family,
		       struct imtcp_subflows *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = time(NULL), port = mnl_socket_get_portid(nl);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct inet_diag_req_v2 *req;
	int n;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_states = NOT_LISTEN;
	/* the ULP data comes with INET_DIAG_INFO (inet_sk_diag_fill) */
	req->idiag_ext = 1 << (INET_DIAG_INFO - 1);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		n = mnl_cb_run(buf, n, seq, port, cb_sock, s);
		if (n <= MNL_CB_STOP)
			return n;
	}
	return n;
}

/*
 * Read the subflows of this network namespace into @s (emptied first).
 * Returns 0, or -1 with errno set.
 */
int imtcp_subflows_read(struct imtcp_subflows *s)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_SOCK_DIAG);
	int err = -1;

	s->n = 0;
	if (!nl)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) == 0 &&
	    dump_family(nl, AF_INET, s) >= 0 &&
	    dump_family(nl, AF_INET6, s) >= 0)
		err = 0;
	mnl_socket_close(nl);
	return err;
}

const struct imtcp_subflow *imtcp_subflow_find(const struct imtcp_subflows *s,
					       uint64_t cookie)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->sf[i].cookie == cookie)
			return &s->sf[i];
	return NULL;
}

void imtcp_subflows_free(struct imtcp_subflows *s)
{
	free(s->sf);
	memset(s, 0, sizeof(*s));
}
