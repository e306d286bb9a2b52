// SPDX-License-Identifier: GPL-2.0
/*
 * imtcp: the registry of measuring sockets and the generic netlink family
 * "imtcp" that lets userspace read them (kmod/uapi/imtcp.h).
 *
 * Registry. Every socket with measurement state is on one list, added in
 * the congestion control's init and removed in its release (both may run
 * in softirq: spin_lock_bh for writers), freed after an RCU grace period; readers
 * walk the list under RCU and read only the published copy of the
 * socket's figures (struct imtcp_pub), never the socket. Nothing is done
 * per ACK here: the ACK path only updates its own published copy.
 *
 * Dumps go in registry order (a 64-bit id given at insertion) and resume
 * after the last id sent, so a socket that exists for the whole dump is
 * reported exactly once, whatever comes and goes meanwhile. Only sockets
 * of the caller's network namespace are visible, and the counters are
 * the caller's namespace's.
 */
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "imtcp_meas.h"
#include "uapi/imtcp.h"

static LIST_HEAD(registry);
static DEFINE_SPINLOCK(registry_lock);
static u64 registry_next_id;

/*
 * The counters are per network namespace: a namespace's admin sees and
 * resets its own, and nobody sees another namespace's sockets.
 */
struct imtcp_net {
	atomic_t sockets;
	atomic64_t estimates;
	atomic64_t streams_failed;
	atomic64_t alloc_failed;
	atomic64_t out_of_envelope;
};

static unsigned int imtcp_net_id __read_mostly;

static struct pernet_operations imtcp_net_ops = {
	.id = &imtcp_net_id,
	.size = sizeof(struct imtcp_net),
};

static struct imtcp_net *imtcp_net(const struct net *net)
{
	return net_generic(net, imtcp_net_id);
}

static struct genl_family imtcp_family;

void imtcp_registry_add(struct imtcp_meas *m)
{
	spin_lock_bh(&registry_lock);
	m->id = ++registry_next_id;
	list_add_tail_rcu(&m->node, &registry);
	spin_unlock_bh(&registry_lock);
	atomic_inc(&imtcp_net(m->net)->sockets);
}

void imtcp_registry_del(struct imtcp_meas *m)
{
	spin_lock_bh(&registry_lock);
	list_del_rcu(&m->node);
	spin_unlock_bh(&registry_lock);
	atomic_dec(&imtcp_net(m->net)->sockets);
}

void imtcp_stat_alloc_failed(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->alloc_failed);
}

void imtcp_stat_estimate(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->estimates);
}

void imtcp_stat_stream_failed(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->streams_failed);
}

void imtcp_stat_out_of_envelope(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->out_of_envelope);
}

static int put_addrs(struct sk_buff *skb, const struct imtcp_meas *m)
{
	if (nla_put_u8(skb, IMTCP_A_FAMILY, m->family) ||
	    nla_put_u8(skb, IMTCP_A_MPTCP, m->mptcp) ||
	    nla_put_u16(skb, IMTCP_A_SPORT, ntohs(m->sport)) ||
	    nla_put_u16(skb, IMTCP_A_DPORT, ntohs(m->dport)))
		return -EMSGSIZE;
	if (m->family == AF_INET)
		return nla_put_in_addr(skb, IMTCP_A_SADDR4, m->saddr.v4) ||
		       nla_put_in_addr(skb, IMTCP_A_DADDR4, m->daddr.v4) ?
		       -EMSGSIZE : 0;
	return nla_put_in6_addr(skb, IMTCP_A_SADDR6, &m->saddr.v6) ||
	       nla_put_in6_addr(skb, IMTCP_A_DADDR6, &m->daddr.v6) ?
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
static size_t sock_msg_size(const struct imtcp_meas *m)
{
	size_t addr = m->family == AF_INET ? sizeof(__be32) :
					     sizeof(struct in6_addr);

	return nlmsg_total_size(GENL_HDRLEN) +
	       11 * nla_total_size_64bit(sizeof(u64)) +	/* cookie .. busy */
	       8 * nla_total_size(sizeof(u32)) +	/* ports, age .. cwnd */
	       6 * nla_total_size(sizeof(u8)) +		/* family .. mptcp */
	       2 * nla_total_size(addr);
}

/* One socket as one message. */
static int fill_sock(struct sk_buff *skb, const struct imtcp_meas *m,
		     u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr = genlmsg_put(skb, portid, seq, &imtcp_family, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, IMTCP_A_COOKIE, m->cookie, IMTCP_A_PAD) ||
	    put_addrs(skb, m) || put_figures(skb, &m->pub)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Does @m match the tuple in @attrs? (Ports and family are required.) */
static bool tuple_matches(const struct imtcp_meas *m, struct nlattr **attrs)
{
	if (m->family != nla_get_u8(attrs[IMTCP_A_FAMILY]) ||
	    ntohs(m->sport) != nla_get_u16(attrs[IMTCP_A_SPORT]) ||
	    ntohs(m->dport) != nla_get_u16(attrs[IMTCP_A_DPORT]))
		return false;
	if (m->family == AF_INET)
		return (!attrs[IMTCP_A_SADDR4] ||
			m->saddr.v4 == nla_get_in_addr(attrs[IMTCP_A_SADDR4])) &&
		       (!attrs[IMTCP_A_DADDR4] ||
			m->daddr.v4 == nla_get_in_addr(attrs[IMTCP_A_DADDR4]));
	return (!attrs[IMTCP_A_SADDR6] ||
		!memcmp(&m->saddr.v6, nla_data(attrs[IMTCP_A_SADDR6]), 16)) &&
	       (!attrs[IMTCP_A_DADDR6] ||
		!memcmp(&m->daddr.v6, nla_data(attrs[IMTCP_A_DADDR6]), 16));
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

static int get_sock_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct net *net = genl_info_net(info);
	const struct imtcp_meas *m, *found = NULL;
	struct sk_buff *msg;
	int err;

	err = check_key(attrs, info->extack);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	list_for_each_entry_rcu(m, &registry, node) {
		if (!net_eq(m->net, net))
			continue;
		if (attrs[IMTCP_A_COOKIE] ?
		    m->cookie == nla_get_u64(attrs[IMTCP_A_COOKIE]) :
		    tuple_matches(m, attrs)) {
			found = m;
			break;
		}
	}
	err = found ? fill_sock(msg, found, info->snd_portid, info->snd_seq,
				0, IMTCP_CMD_GET_SOCK) : -ENOENT;
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		if (err == -ENOENT)
			NL_SET_ERR_MSG(info->extack,
				       "no imtcp socket like that in this network namespace");
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int get_sock_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	const struct imtcp_meas *m;
	u64 start = cb->args[0];

	rcu_read_lock();
	list_for_each_entry_rcu(m, &registry, node) {
		if (m->id < start || !net_eq(m->net, net))
			continue;
		if (fill_sock(skb, m, NETLINK_CB(cb->skb).portid,
			      cb->nlh->nlmsg_seq, NLM_F_MULTI,
			      IMTCP_CMD_GET_SOCK)) {
			cb->args[0] = m->id;
			goto out;
		}
	}
	cb->args[0] = U64_MAX;
out:
	rcu_read_unlock();
	return skb->len;
}

static int get_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct imtcp_net *in = imtcp_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &imtcp_family, 0,
				IMTCP_CMD_GET_STATS);
	if (!hdr ||
	    nla_put_u32(msg, IMTCP_A_STAT_SOCKETS, atomic_read(&in->sockets)) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_ESTIMATES,
			      atomic64_read(&in->estimates), IMTCP_A_PAD) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_STREAMS_FAILED,
			      atomic64_read(&in->streams_failed), IMTCP_A_PAD) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_ALLOC_FAILED,
			      atomic64_read(&in->alloc_failed), IMTCP_A_PAD) ||
	    nla_put_u64_64bit(msg, IMTCP_A_STAT_OUT_OF_ENVELOPE,
			      atomic64_read(&in->out_of_envelope), IMTCP_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* The caller's namespace's counters; its admin may (GENL_UNS_ADMIN_PERM). */
static int reset_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct imtcp_net *in = imtcp_net(genl_info_net(info));

	atomic64_set(&in->estimates, 0);
	atomic64_set(&in->streams_failed, 0);
	atomic64_set(&in->alloc_failed, 0);
	atomic64_set(&in->out_of_envelope, 0);
	return 0;
}

/* A new estimate, to listeners in the socket's namespace. */
void imtcp_nl_estimate_event(const struct imtcp_meas *m)
{
	struct net *net = m->net;
	struct sk_buff *msg;

	if (!genl_has_listeners(&imtcp_family, net, 0))
		return;
	msg = genlmsg_new(sock_msg_size(m), GFP_ATOMIC);
	if (!msg)
		return;
	if (fill_sock(msg, m, 0, 0, 0, IMTCP_CMD_ESTIMATE)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast_netns(&imtcp_family, net, msg, 0, 0, GFP_ATOMIC);
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
 * in the namespace (GFP_ATOMIC, about 250 bytes, made only while someone
 * listens). Listening takes CAP_NET_ADMIN over the namespace: it makes
 * the kernel work per estimate for every socket, which a dump does not;
 * an unprivileged user reads the same figures by dumping.
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
	int err = register_pernet_subsys(&imtcp_net_ops);

	if (err)
		return err;
	err = genl_register_family(&imtcp_family);
	if (err)
		unregister_pernet_subsys(&imtcp_net_ops);
	return err;
}

void imtcp_nl_exit(void)
{
	genl_unregister_family(&imtcp_family);
	unregister_pernet_subsys(&imtcp_net_ops);
}
