/* SPDX-License-Identifier: GPL-2.0 */
/* The generic netlink family "imtcp" (imtcp_nl.c). */
#ifndef _IMTCP_NL_H
#define _IMTCP_NL_H

#include "imtcp_registry.h"

int imtcp_nl_init(void);
void imtcp_nl_exit(void);
void imtcp_nl_estimate_event(const struct imtcp_entry *e);
void imtcp_nl_withdraw_event(const struct imtcp_entry *e, u64 withdrawn_bps);
void imtcp_nl_move_event(const struct imtcp_entry *e);

#endif /* _IMTCP_NL_H */
