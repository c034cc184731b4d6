/*
 * net_mpi_recv.h - receiving and polling of the mpi:// transport
 * (net_mpi_recv.c), as net_mpi.c calls them: the ops table's recv,
 * msg_fini and poll, and freeing a received message. Private to
 * net_mpi*.c; control thread only (net_mpi_state.h).
 */
#ifndef DSANA_NET_MPI_RECV_H
#define DSANA_NET_MPI_RECV_H

#include <stdbool.h>
#include <stdint.h>

#include "net/mpi/net_mpi_state.h"

/* Free a received message (NULL: nothing). */
void mp_in_free(struct mp_in *in);
/* The ops table's recv, msg_fini and poll (transport_impl.h). */
int mp_recv(struct net_sock *s, struct net_msg *m);
void mp_msg_fini(struct net_msg *m);
int mp_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
            bool *ready, bool *fd_ready);

#endif
