// SPDX-License-Identifier: GPL-2.0
/*
 * The imtcp generic netlink family from userspace: see imtcp_genl.h.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imtcp_genl.h"
#include "imtcp_nlerr.h"
#include "uapi/imtcp.h"

/*
 * The tool named in the kernel's messages (libmnl's control callbacks
 * get the data callback's argument, not ours).
 */
static const char *err_prog = "imtcp";

/* Print an error from the kernel: the extended ACK's message if any. */
static int cb_error(const struct nlmsghdr *nlh, void *data)
{
	char msg[256];
	int err = imtcp_nl_error(nlh, msg, sizeof(msg));

	if (!err)
		return MNL_CB_STOP;
	errno = -err;
	if (msg[0])
		fprintf(stderr, "%s: kernel says: %s\n", err_prog, msg);
	return MNL_CB_ERROR;
}

int imtcp_genl_run(struct imtcp_genl *g, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	static char buf[32768];
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = cb_error, [NLMSG_DONE] = imtcp_nl_done,
	};
	int ret;

	err_prog = g->prog;
	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ret = mnl_socket_recvfrom(g->nl, buf, sizeof(buf));
		if (ret <= 0)
			return -1;
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq,
				  mnl_socket_get_portid(g->nl), cb, data, ctl,
				  NLMSG_MIN_TYPE);
	} while (ret == MNL_CB_OK);
	return ret < 0 ? -1 : 0;
}

struct nlmsghdr *imtcp_genl_request(struct imtcp_genl *g, char *buf,
				    uint16_t type, uint8_t cmd,
				    uint16_t flags, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++g->seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = version;
	return nlh;
}

static void cb_groups(const struct nlattr *grp, struct imtcp_genl *g)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
			name = mnl_attr_get_str(a);
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
			id = mnl_attr_get_u32(a);
	}
	if (name && !strcmp(name, IMTCP_MCGRP_ESTIMATES))
		g->mcgrp_id = id;
}

static int cb_family(const struct nlmsghdr *nlh, void *data)
{
	struct imtcp_genl *g = data;
	const struct nlattr *a, *grp;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			g->family_id = mnl_attr_get_u16(a);
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS)
			mnl_attr_for_each_nested(grp, a)
				cb_groups(grp, g);
	}
	return MNL_CB_OK;
}

int imtcp_genl_open_family(struct imtcp_genl *g, const char *prog,
			   const char *family)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int one = 1;

	memset(g, 0, sizeof(*g));
	g->prog = prog;
	g->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!g->nl)
		return -1;
	if (mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	nlh = imtcp_genl_request(g, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
				 NLM_F_ACK, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	if (imtcp_genl_run(g, nlh, cb_family, g) < 0)
		goto fail;
	if (!g->family_id) {
		errno = ENOENT;
		goto fail;
	}
	return 0;
fail:
	imtcp_genl_close(g);
	return -1;
}

int imtcp_genl_open(struct imtcp_genl *g, const char *prog)
{
	return imtcp_genl_open_family(g, prog, IMTCP_GENL_NAME);
}

void imtcp_genl_close(struct imtcp_genl *g)
{
	if (g->nl)
		mnl_socket_close(g->nl);
	g->nl = NULL;
}

const char *imtcp_unmapped(const char *addr)
{
	static const char prefix[] = "::ffff:";

	if (!strncasecmp(addr, prefix, sizeof(prefix) - 1) &&
	    strchr(addr + sizeof(prefix) - 1, '.'))
		return addr + sizeof(prefix) - 1;
	return addr;
}

static void put_addr(char *to, int family, const struct nlattr *a)
{
	inet_ntop(family, mnl_attr_get_payload(a), to, INET6_ADDRSTRLEN);
}

void imtcp_row_parse(const struct nlmsghdr *nlh, struct imtcp_row *r)
{
	const struct nlattr *a;

	memset(r, 0, sizeof(*r));
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(struct genlmsghdr))
		r->cmd = ((const struct genlmsghdr *)
			  mnl_nlmsg_get_payload(nlh))->cmd;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IMTCP_A_COOKIE: r->cookie = mnl_attr_get_u64(a);
			r->has_cookie = true; break;
		case IMTCP_A_FAMILY: r->family = mnl_attr_get_u8(a); break;
		case IMTCP_A_SADDR4: put_addr(r->saddr, AF_INET, a); break;
		case IMTCP_A_DADDR4: put_addr(r->daddr, AF_INET, a); break;
		case IMTCP_A_SADDR6: put_addr(r->saddr, AF_INET6, a); break;
		case IMTCP_A_DADDR6: put_addr(r->daddr, AF_INET6, a); break;
		case IMTCP_A_SPORT: r->sport = mnl_attr_get_u16(a); break;
		case IMTCP_A_DPORT: r->dport = mnl_attr_get_u16(a); break;
		case IMTCP_A_ESTIMATE: r->est = mnl_attr_get_u64(a); break;
		case IMTCP_A_RAW: r->raw = mnl_attr_get_u64(a); break;
		case IMTCP_A_RANGE_LO: r->lo = mnl_attr_get_u64(a); break;
		case IMTCP_A_RANGE_HI: r->hi = mnl_attr_get_u64(a); break;
		case IMTCP_A_DELIVERY: r->dlv = mnl_attr_get_u64(a); break;
		case IMTCP_A_AGE_MS: r->age = mnl_attr_get_u32(a); break;
		case IMTCP_A_MEASUREMENTS: r->meas = mnl_attr_get_u32(a); break;
		case IMTCP_A_STREAMS_FAILED: r->fail = mnl_attr_get_u32(a); break;
		case IMTCP_A_STATE: r->state = mnl_attr_get_u8(a); break;
		case IMTCP_A_M: r->m = mnl_attr_get_u8(a); break;
		case IMTCP_A_SRTT_US: r->srtt = mnl_attr_get_u32(a); break;
		case IMTCP_A_MIN_RTT_US: r->minrtt = mnl_attr_get_u32(a); break;
		case IMTCP_A_CWND: r->cwnd = mnl_attr_get_u32(a); break;
		case IMTCP_A_HOLD_US: r->hold = mnl_attr_get_u64(a); break;
		case IMTCP_A_STREAM_US: r->stream = mnl_attr_get_u64(a); break;
		case IMTCP_A_ENVELOPE: r->envelope = mnl_attr_get_u64(a); break;
		case IMTCP_A_REASON: r->reason = mnl_attr_get_u8(a); break;
		case IMTCP_A_PROBE: r->probe_bps = mnl_attr_get_u64(a); break;
		case IMTCP_A_CAPACITY: r->capacity_bps = mnl_attr_get_u64(a); break;
		case IMTCP_A_BUSY: r->busy_bps = mnl_attr_get_u64(a); break;
		case IMTCP_A_BOUND: r->bound = mnl_attr_get_u8(a); break;
		case IMTCP_A_MPTCP: r->mptcp = mnl_attr_get_u8(a); break;
		case IMTCP_A_WITHDRAWN:
			r->withdrawn_bps = mnl_attr_get_u64(a); break;
		}
	}
}

int imtcp_rows_add(struct imtcp_rows *rows, const struct imtcp_row *r)
{
	if (rows->n == rows->cap) {
		int cap = rows->cap ? 2 * rows->cap : 64;
		struct imtcp_row *p = realloc(rows->r, cap * sizeof(*p));

		if (!p)
			return -1;
		rows->r = p;
		rows->cap = cap;
	}
	rows->r[rows->n++] = *r;
	return 0;
}

static int cb_sock(const struct nlmsghdr *nlh, void *data)
{
	struct imtcp_row r;

	imtcp_row_parse(nlh, &r);
	if (!r.has_cookie)
		return MNL_CB_OK;
	return imtcp_rows_add(data, &r) ? MNL_CB_ERROR : MNL_CB_OK;
}

int imtcp_genl_dump(struct imtcp_genl *g, struct imtcp_rows *rows)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = imtcp_genl_request(g, buf, g->family_id,
						  IMTCP_CMD_GET_SOCK,
						  NLM_F_DUMP,
						  IMTCP_GENL_VERSION);

	return imtcp_genl_run(g, nlh, cb_sock, rows);
}

void imtcp_rows_find_subflows(struct imtcp_row *r, int n)
{
	struct imtcp_subflows sfs = { 0 };
	const struct imtcp_subflow *sf;
	int i;

	for (i = 0; i < n && !r[i].mptcp; i++)
		;
	if (i == n)
		return;
	if (imtcp_subflows_read(&sfs) < 0) {	/* shown as not known */
		imtcp_subflows_free(&sfs);
		return;
	}
	for (i = 0; i < n; i++) {
		sf = r[i].mptcp ? imtcp_subflow_find(&sfs, r[i].cookie) : NULL;
		if (sf) {
			r[i].sf = *sf;
			r[i].sf_known = true;
		}
	}
	imtcp_subflows_free(&sfs);
}
