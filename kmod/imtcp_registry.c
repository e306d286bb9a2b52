// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of measuring sockets, and the counters of each network
 * namespace.
 *
 * Every socket with measurement state is on one list, added in the
 * congestion control's init and removed in its release (both may run in
 * softirq: spin_lock_bh for writers), and freed by its owner after an
 * RCU grace period; readers walk the list under RCU and read only the
 * published copy of the socket's figures (struct imtcp_pub), never the
 * socket. Nothing is done per ACK here: the ACK path only updates its
 * own published copy.
 *
 * Entries carry a 64-bit id in registry order, so that a walk can resume
 * after the last one it saw: a socket that exists for a whole dump is
 * seen exactly once, whatever comes and goes meanwhile. A walk sees only
 * one network namespace's sockets, and each namespace counts its own.
 */
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <net/netns/generic.h>

#include "imtcp_registry.h"

static LIST_HEAD(registry);
static DEFINE_SPINLOCK(registry_lock);
static u64 registry_next_id;

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

void imtcp_registry_add(struct imtcp_entry *e)
{
	spin_lock_bh(&registry_lock);
	e->id = ++registry_next_id;
	list_add_tail_rcu(&e->node, &registry);
	spin_unlock_bh(&registry_lock);
	atomic_inc(&imtcp_net(e->net)->sockets);
}

void imtcp_registry_del(struct imtcp_entry *e)
{
	spin_lock_bh(&registry_lock);
	list_del_rcu(&e->node);
	spin_unlock_bh(&registry_lock);
	atomic_dec(&imtcp_net(e->net)->sockets);
}

/*
 * Call @fn, under RCU, for each entry of @net from id @from_id on, in
 * registry order, until it returns non-zero. Returns the id of the entry
 * it stopped at, 0 if it went through them all.
 */
u64 imtcp_registry_walk(const struct net *net, u64 from_id,
			int (*fn)(const struct imtcp_entry *e, void *arg),
			void *arg)
{
	const struct imtcp_entry *e;
	u64 stop = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &registry, node) {
		if (e->id < from_id || !net_eq(e->net, net))
			continue;
		if (fn(e, arg)) {
			stop = e->id;
			break;
		}
	}
	rcu_read_unlock();
	return stop;
}

void imtcp_counts_read(const struct net *net, struct imtcp_counts *c)
{
	struct imtcp_net *in = imtcp_net(net);

	c->sockets = atomic_read(&in->sockets);
	c->estimates = atomic64_read(&in->estimates);
	c->streams_failed = atomic64_read(&in->streams_failed);
	c->alloc_failed = atomic64_read(&in->alloc_failed);
	c->out_of_envelope = atomic64_read(&in->out_of_envelope);
}

/* Zero the counters; the socket count is not a counter and stays. */
void imtcp_counts_reset(const struct net *net)
{
	struct imtcp_net *in = imtcp_net(net);

	atomic64_set(&in->estimates, 0);
	atomic64_set(&in->streams_failed, 0);
	atomic64_set(&in->alloc_failed, 0);
	atomic64_set(&in->out_of_envelope, 0);
}

void imtcp_count_alloc_failed(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->alloc_failed);
}

void imtcp_count_estimate(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->estimates);
}

void imtcp_count_stream_failed(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->streams_failed);
}

void imtcp_count_out_of_envelope(const struct net *net)
{
	atomic64_inc(&imtcp_net(net)->out_of_envelope);
}

int imtcp_registry_init(void)
{
	return register_pernet_subsys(&imtcp_net_ops);
}

void imtcp_registry_exit(void)
{
	unregister_pernet_subsys(&imtcp_net_ops);
}
