/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netlink control messages for libmnl users of the imtcp family
 * (imtcp-stat and the selftests).
 */
#ifndef _IMTCP_NLERR_H
#define _IMTCP_NLERR_H

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <stdio.h>

/* The end of a dump. (With a control array, libmnl calls only it.) */
static inline int imtcp_nl_done(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_STOP;
}

/*
 * An NLMSG_ERROR message: returns its error (0 for an ACK, or -errno) and
 * copies the extended ACK's message into @msg ("" if there is none).
 */
static inline int imtcp_nl_error(const struct nlmsghdr *nlh, char *msg,
				 size_t len)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	msg[0] = '\0';
	if (err->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		size_t off = sizeof(*err);

		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += mnl_nlmsg_get_payload_len(&err->msg);
		mnl_attr_for_each(a, nlh, off)
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
				snprintf(msg, len, "%s", mnl_attr_get_str(a));
	}
	return err->error;
}

#endif /* _IMTCP_NLERR_H */
