/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The imtcp generic netlink family from userspace (libmnl): find the
 * family, send a request, read the replies, and parse one socket's
 * attributes. Shared by imtcp-stat and imtcp-mptcp-backup.
 */
#ifndef _IMTCP_GENL_H
#define _IMTCP_GENL_H

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "imtcp_subflows.h"

struct imtcp_genl {
	struct mnl_socket *nl;
	uint16_t family_id;
	uint32_t mcgrp_id;	/* IMTCP_MCGRP_ESTIMATES, 0: none */
	unsigned int seq;
	const char *prog;	/* names the tool in the kernel's messages */
};

/* One socket as the module lists it (IMTCP_CMD_GET_SOCK). */
struct imtcp_row {
	uint64_t cookie, est, raw, lo, hi, dlv, hold, stream, envelope;
	uint64_t probe_bps, busy_bps;
	uint64_t capacity_bps;		/* the path's, 0: none yet */
	uint64_t withdrawn_bps;		/* IMTCP_CMD_WITHDRAW's */
	uint32_t age, meas, fail, srtt, minrtt, cwnd;
	uint8_t family, state, m, reason, bound;
	uint8_t cmd;			/* the message's IMTCP_CMD_* */
	uint16_t sport, dport;
	char saddr[INET6_ADDRSTRLEN], daddr[INET6_ADDRSTRLEN];
	bool has_cookie;
	bool mptcp;			/* a subflow of an MPTCP connection */
	bool sf_known;			/* .. and sf holds which one */
	struct imtcp_subflow sf;
	int order;			/* where its connection is listed */
};

struct imtcp_rows {
	struct imtcp_row *r;
	int n, cap;
};

/*
 * Open a netlink socket and find the family. Returns 0, or -1 with errno
 * set (ENOENT: the module is not loaded).
 */
int imtcp_genl_open(struct imtcp_genl *g, const char *prog);
/* The same for another generic netlink family (ENOENT: not there). */
int imtcp_genl_open_family(struct imtcp_genl *g, const char *prog,
			   const char *family);
void imtcp_genl_close(struct imtcp_genl *g);

/* Start a generic netlink message in @buf (MNL_SOCKET_BUFFER_SIZE). */
struct nlmsghdr *imtcp_genl_request(struct imtcp_genl *g, char *buf,
				    uint16_t type, uint8_t cmd,
				    uint16_t flags, uint8_t version);

/*
 * Send @nlh and pass every reply to @cb until the ACK or the end of the
 * dump. Returns 0, or -1 with errno set; the kernel's extended ACK
 * message, if any, is printed on stderr.
 */
int imtcp_genl_run(struct imtcp_genl *g, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data);

void imtcp_row_parse(const struct nlmsghdr *nlh, struct imtcp_row *r);

/*
 * An IPv4 address inside a v4-mapped IPv6 one (a v4 connection on a
 * dual-stack socket shows as ::ffff:a.b.c.d), else the address itself.
 */
const char *imtcp_unmapped(const char *addr);
int imtcp_rows_add(struct imtcp_rows *rows, const struct imtcp_row *r);

/*
 * Every socket of this network namespace that the module lists, into
 * @rows (appended). Returns 0, or -1 with errno set.
 */
int imtcp_genl_dump(struct imtcp_genl *g, struct imtcp_rows *rows);

/* Tie MPTCP subflows to their connections (needs CAP_NET_ADMIN). */
void imtcp_rows_find_subflows(struct imtcp_row *r, int n);

#endif /* _IMTCP_GENL_H */
