// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "imtcp" (kmod/uapi/imtcp.h): the registry's
 * sockets (imtcp_registry.c) one by one or as a dump, a namespace's
 * counters, and to listeners an event per new estimate, per estimate
 * taken back, and per move of the figure shown between results that is
 * news (imtcp_busy_move_news).
 *
 * Dumps go in registry order and resume after the last socket sent, so a
 * socket that exists for the whole dump is reported exactly once. Only
 * sockets of the caller's network namespace are visible, and the
 * counters are the caller's namespace's.
 */
#include <net/genetlink.h>
#include <net/sock.h>

#include "imtcp_nl.h"
#include "imtcp_registry.h"
#include "core/imtcp_types.h"
#include "uapi/imtcp.h"

static struct genl_family imtcp_family;

static int put_addrs(struct sk_buff *skb, const struct imtcp_entry *e)
{
	if (nla_put_u8(skb, IMTCP_A_FAMILY, e->family) ||
	    nla_put_u8(skb, IMTCP_A_MPTCP, e->mptcp) ||
	    nla_put_u16(skb, IMTCP_A_SPORT, ntohs(e->sport)) ||
	    nla_put_u16(skb, IMTCP_A_DPORT, ntohs(e->dport)))
		return -EMSGSIZE;
	if (e->family == AF_INET)
		return nla_put_in_addr(skb, IMTCP_A_SADDR4, e->saddr.v4) ||
		       nla_put_in_addr(skb, IMTCP_A_DADDR4, e->daddr.v4) ?
		       -EMSGSIZE : 0;
	return nla_put_in6_addr(skb, IMTCP_A_SADDR6, &e->saddr.v6) ||
	       nla_put_in6_addr(skb, IMTCP_A_DADDR6, &e->daddr.v6) ?
	       -EMSGSIZE : 0;
}

static int put_figures(struct sk_buff *skb, const struct imtcp_pub *p)
{
	u64 est = READ_ONCE(p->estimate_bps);
	u32 age = est ? jiffies_to_msecs(jiffies -
					 READ_ONCE(p->est_jiffies)) : 0;

	if (nla_put_u64_64bit(skb, IMTCP_A_ESTIMATE, est, IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_RAW, READ_ONCE(p->raw_bps),
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_PROBE, READ_ONCE(p->probe_bps),
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_CAPACITY,
			      READ_ONCE(p->capacity_bps), IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_BUSY, READ_ONCE(p->busy_bps),
			      IMTCP_A_PAD) ||
	    nla_put_u8(skb, IMTCP_A_BOUND, READ_ONCE(p->bound)) ||
	    nla_put_u64_64bit(skb, IMTCP_A_RANGE_LO, READ_ONCE(p->range_lo_bps),
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_RANGE_HI, READ_ONCE(p->range_hi_bps),
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_DELIVERY,
			      imtcp_rate_bps(READ_ONCE(p->dlv_segs),
					     READ_ONCE(p->mss),
					     READ_ONCE(p->dlv_us)),
			      IMTCP_A_PAD) ||
	    nla_put_u32(skb, IMTCP_A_AGE_MS, age) ||
	    nla_put_u32(skb, IMTCP_A_MEASUREMENTS,
			READ_ONCE(p->measurements)) ||
	    nla_put_u32(skb, IMTCP_A_STREAMS_FAILED,
			READ_ONCE(p->streams_failed)) ||
	    nla_put_u8(skb, IMTCP_A_STATE, READ_ONCE(p->state)) ||
	    nla_put_u8(skb, IMTCP_A_M, READ_ONCE(p->m)) ||
	    nla_put_u32(skb, IMTCP_A_SRTT_US, READ_ONCE(p->srtt_us)) ||
	    nla_put_u32(skb, IMTCP_A_MIN_RTT_US, READ_ONCE(p->min_rtt_us)) ||
	    nla_put_u32(skb, IMTCP_A_CWND, READ_ONCE(p->cwnd)) ||
	    nla_put_u64_64bit(skb, IMTCP_A_HOLD_US, READ_ONCE(p->hold_us),
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_STREAM_US, READ_ONCE(p->stream_us),
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(skb, IMTCP_A_ENVELOPE,
			      READ_ONCE(p->envelope_bps), IMTCP_A_PAD) ||
	    nla_put_u8(skb, IMTCP_A_REASON, READ_ONCE(p->reason)))
		return -EMSGSIZE;
	return 0;
}

/* The size of fill_sock's message: every attribute it puts. */
static size_t sock_msg_size(const struct imtcp_entry *e)
{
	size_t addr = e->family == AF_INET ? sizeof(__be32) :
					     sizeof(struct in6_addr);

	return nlmsg_total_size(GENL_HDRLEN) +
	       13 * nla_total_size_64bit(sizeof(u64)) +	/* cookie .. capacity */
	       8 * nla_total_size(sizeof(u32)) +	/* ports, age .. cwnd */
	       6 * nla_total_size(sizeof(u8)) +		/* family .. mptcp */
	       2 * nla_total_size(addr);
}

/*
 * One socket as one message; a withdrawal's (IMTCP_CMD_WITHDRAW) also
 * carries the estimate taken back, @withdrawn_bps.
 */
static int fill_sock(struct sk_buff *skb, const struct imtcp_entry *e,
		     u32 portid, u32 seq, int flags, u8 cmd, u64 withdrawn_bps)
{
	void *hdr = genlmsg_put(skb, portid, seq, &imtcp_family, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, IMTCP_A_COOKIE, e->cookie, IMTCP_A_PAD) ||
	    put_addrs(skb, e) || put_figures(skb, &e->pub) ||
	    (cmd == IMTCP_CMD_WITHDRAW &&
	     nla_put_u64_64bit(skb, IMTCP_A_WITHDRAWN, withdrawn_bps,
			       IMTCP_A_PAD))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Does @e match the tuple in @attrs? (Ports and family are required.) */
static bool tuple_matches(const struct imtcp_entry *e, struct nlattr **attrs)
{
	if (e->family != nla_get_u8(attrs[IMTCP_A_FAMILY]) ||
	    ntohs(e->sport) != nla_get_u16(attrs[IMTCP_A_SPORT]) ||
	    ntohs(e->dport) != nla_get_u16(attrs[IMTCP_A_DPORT]))
		return false;
	if (e->family == AF_INET)
		return (!attrs[IMTCP_A_SADDR4] ||
			e->saddr.v4 == nla_get_in_addr(attrs[IMTCP_A_SADDR4])) &&
		       (!attrs[IMTCP_A_DADDR4] ||
			e->daddr.v4 == nla_get_in_addr(attrs[IMTCP_A_DADDR4]));
	return (!attrs[IMTCP_A_SADDR6] ||
		!memcmp(&e->saddr.v6, nla_data(attrs[IMTCP_A_SADDR6]), 16)) &&
	       (!attrs[IMTCP_A_DADDR6] ||
		!memcmp(&e->daddr.v6, nla_data(attrs[IMTCP_A_DADDR6]), 16));
}

/*
 * A GET_SOCK request names a socket by cookie, or by family and ports
 * (addresses optional); the family is AF_INET or AF_INET6, and addresses
 * are of that family (the policy checks only the type and the range).
 */
static int check_key(struct nlattr **attrs, struct netlink_ext_ack *extack)
{
	u8 family;

	if (attrs[IMTCP_A_COOKIE] && !attrs[IMTCP_A_FAMILY])
		return 0;
	if (!attrs[IMTCP_A_FAMILY] || !attrs[IMTCP_A_SPORT] ||
	    !attrs[IMTCP_A_DPORT]) {
		NL_SET_ERR_MSG(extack,
			       "need IMTCP_A_COOKIE, or IMTCP_A_FAMILY with IMTCP_A_SPORT and IMTCP_A_DPORT");
		return -EINVAL;
	}
	family = nla_get_u8(attrs[IMTCP_A_FAMILY]);
	if (family != AF_INET && family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[IMTCP_A_FAMILY],
				    "address family must be AF_INET or AF_INET6");
		return -EINVAL;
	}
	if (family == AF_INET &&
	    (attrs[IMTCP_A_SADDR6] || attrs[IMTCP_A_DADDR6])) {
		NL_SET_ERR_MSG(extack, "IPv6 address with AF_INET");
		return -EINVAL;
	}
	if (family == AF_INET6 &&
	    (attrs[IMTCP_A_SADDR4] || attrs[IMTCP_A_DADDR4])) {
		NL_SET_ERR_MSG(extack,
			       "IPv4 address with AF_INET6 (a v4-mapped address is ::ffff:a.b.c.d)");
		return -EINVAL;
	}
	return 0;
}

/* A GET_SOCK request's key, and the reply to fill with its socket. */
struct sock_query {
	struct nlattr **attrs;
	struct genl_info *info;
	struct sk_buff *msg;
	int err;
};

static int reply_if_asked(const struct imtcp_entry *e, void *arg)
{
	struct sock_query *q = arg;
	struct nlattr **attrs = q->attrs;

	if (attrs[IMTCP_A_COOKIE] ?
	    e->cookie != nla_get_u64(attrs[IMTCP_A_COOKIE]) :
	    !tuple_matches(e, attrs))
		return 0;
	q->err = fill_sock(q->msg, e, q->info->snd_portid, q->info->snd_seq,
			   0, IMTCP_CMD_GET_SOCK, 0);
	return 1;
}

static int get_sock_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sock_query q = { .attrs = info->attrs, .info = info,
				.err = -ENOENT };
	int err;

	err = check_key(info->attrs, info->extack);
	if (err)
		return err;
	q.msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!q.msg)
		return -ENOMEM;
	imtcp_registry_walk(genl_info_net(info), 0, reply_if_asked, &q);
	if (q.err) {
		nlmsg_free(q.msg);
		if (q.err == -ENOENT)
			NL_SET_ERR_MSG(info->extack,
				       "no imtcp socket like that in this network namespace");
		return q.err;
	}
	return genlmsg_reply(q.msg, info);
}

struct dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

static int dump_one(const struct imtcp_entry *e, void *arg)
{
	struct dump_ctx *d = arg;

	return fill_sock(d->skb, e, NETLINK_CB(d->cb->skb).portid,
			 d->cb->nlh->nlmsg_seq, NLM_F_MULTI,
			 IMTCP_CMD_GET_SOCK, 0);
}

/* cb->args[0]: the id to resume at (U64_MAX: done). */
static int get_sock_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx d = { .skb = skb, .cb = cb };
	u64 stop;

	if (cb->args[0] == U64_MAX)	/* every socket sent */
		return 0;
	stop = imtcp_registry_walk(sock_net(skb->sk), cb->args[0], dump_one,
				   &d);
	cb->args[0] = stop ? stop : U64_MAX;
	return skb->len;
}

static int get_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct imtcp_counts c;
	struct sk_buff *msg;
	void *hdr;

	imtcp_counts_read(genl_info_net(info), &c);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &imtcp_family, 0,
				IMTCP_CMD_GET_STATS);
	if (!hdr ||
	    nla_put_u32(msg, IMTCP_A_STAT_SOCKETS, c.sockets) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_ESTIMATES, c.estimates,
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_STREAMS_FAILED,
			      c.streams_failed, IMTCP_A_PAD) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_ALLOC_FAILED, c.alloc_failed,
			      IMTCP_A_PAD) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_OUT_OF_ENVELOPE,
			      c.out_of_envelope, IMTCP_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* The caller's namespace's counters; its admin may (GENL_UNS_ADMIN_PERM). */
static int reset_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	imtcp_counts_reset(genl_info_net(info));
	return 0;
}

/*
 * @cmd about one socket, to listeners in its namespace: its message, and
 * for a withdrawal the estimate taken back (@withdrawn_bps).
 */
static void sock_event(const struct imtcp_entry *e, u8 cmd, u64 withdrawn_bps)
{
	struct net *net = e->net;
	struct sk_buff *msg;

	if (!genl_has_listeners(&imtcp_family, net, 0))
		return;
	msg = genlmsg_new(sock_msg_size(e), GFP_ATOMIC);
	if (!msg)
		return;
	if (fill_sock(msg, e, 0, 0, 0, cmd, withdrawn_bps)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast_netns(&imtcp_family, net, msg, 0, 0, GFP_ATOMIC);
}

/* A new estimate. */
void imtcp_nl_estimate_event(const struct imtcp_entry *e)
{
	sock_event(e, IMTCP_CMD_ESTIMATE, 0);
}

/* The estimate shown, @withdrawn_bps, was taken back (e->pub.reason: why). */
void imtcp_nl_withdraw_event(const struct imtcp_entry *e, u64 withdrawn_bps)
{
	sock_event(e, IMTCP_CMD_WITHDRAW, withdrawn_bps);
}

/* The busy cap moved the figure shown (e->pub.estimate_bps) between results. */
void imtcp_nl_move_event(const struct imtcp_entry *e)
{
	sock_event(e, IMTCP_CMD_MOVE, 0);
}

/*
 * Requests may carry only these; anything else is refused (strict
 * validation: unknown types, types above the command's maxattr and
 * attributes of the wrong size). GET_SOCK takes a socket's key; the
 * statistics commands take nothing.
 */
static const struct nla_policy sock_policy[IMTCP_A_DPORT + 1] = {
	[IMTCP_A_UNSPEC] = { .type = NLA_REJECT },
	[IMTCP_A_PAD] = { .type = NLA_REJECT },
	[IMTCP_A_COOKIE] = { .type = NLA_U64 },
	[IMTCP_A_FAMILY] = NLA_POLICY_RANGE(NLA_U8, AF_INET, AF_INET6),
	[IMTCP_A_SADDR4] = { .type = NLA_BE32 },
	[IMTCP_A_DADDR4] = { .type = NLA_BE32 },
	[IMTCP_A_SADDR6] = NLA_POLICY_EXACT_LEN(16),
	[IMTCP_A_DADDR6] = NLA_POLICY_EXACT_LEN(16),
	[IMTCP_A_SPORT] = { .type = NLA_U16 },
	[IMTCP_A_DPORT] = { .type = NLA_U16 },
};

static const struct nla_policy no_attrs_policy[IMTCP_A_PAD + 1] = {
	[IMTCP_A_UNSPEC] = { .type = NLA_REJECT },
	[IMTCP_A_PAD] = { .type = NLA_REJECT },
};

static const struct genl_ops imtcp_ops[] = {
	{
		.cmd = IMTCP_CMD_GET_SOCK,
		.doit = get_sock_doit,
		.dumpit = get_sock_dumpit,
		.policy = sock_policy,
		.maxattr = ARRAY_SIZE(sock_policy) - 1,
	},
	{
		.cmd = IMTCP_CMD_GET_STATS,
		.doit = get_stats_doit,
		.policy = no_attrs_policy,
		.maxattr = ARRAY_SIZE(no_attrs_policy) - 1,
	},
	{
		.cmd = IMTCP_CMD_RESET_STATS,
		.doit = reset_stats_doit,
		.policy = no_attrs_policy,
		.maxattr = ARRAY_SIZE(no_attrs_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/*
 * Estimates as they come: one message per estimate of every imtcp socket
 * in the namespace, one per estimate withdrawn and one per move of the
 * figure shown between results that is news (GFP_ATOMIC, about
 * 260 bytes, made only while someone listens). Listening takes
 * CAP_NET_ADMIN over the namespace: it makes the kernel work per
 * estimate for every socket, which a dump does not; an unprivileged user
 * reads the same figures by dumping.
 */
static const struct genl_multicast_group imtcp_mcgrps[] = {
	{ .name = IMTCP_MCGRP_ESTIMATES, .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct genl_family imtcp_family __ro_after_init = {
	.name = IMTCP_GENL_NAME,
	.version = IMTCP_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = imtcp_ops,
	.n_ops = ARRAY_SIZE(imtcp_ops),
	.mcgrps = imtcp_mcgrps,
	.n_mcgrps = ARRAY_SIZE(imtcp_mcgrps),
};

int imtcp_nl_init(void)
{
	return genl_register_family(&imtcp_family);
}

void imtcp_nl_exit(void)
{
	genl_unregister_family(&imtcp_family);
}
