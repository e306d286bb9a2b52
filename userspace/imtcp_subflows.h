/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which MPTCP connection a TCP socket is a subflow of, read from
 * sock_diag (see imtcp_subflows.c).
 */
#ifndef _IMTCP_SUBFLOWS_H
#define _IMTCP_SUBFLOWS_H

#include <stdbool.h>
#include <stdint.h>

struct imtcp_subflow {
	uint64_t cookie;	/* the subflow's socket cookie */
	uint32_t token;		/* its MPTCP connection's local token */
	uint8_t local_id;	/* the local address's id (0: the first) */
	bool backup;		/* this end asked for the backup flag */
};

struct imtcp_subflows {
	struct imtcp_subflow *sf;
	int n, cap;
};

int imtcp_subflows_read(struct imtcp_subflows *s);
const struct imtcp_subflow *imtcp_subflow_find(const struct imtcp_subflows *s,
					       uint64_t cookie);
void imtcp_subflows_free(struct imtcp_subflows *s);

#endif /* _IMTCP_SUBFLOWS_H */
