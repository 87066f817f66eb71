#pragma once
// common/receive_time: when bytes reached this host — the kernel's software receive time of a
// TCP socket's next unread byte (SO_TIMESTAMPING, peeked), on the steady clock. The simulator
// stamps requests with it (its --trace truth); the client stamps the first token of a response
// with it, so the wait between the kernel having the bytes and the client reading them — the
// client's own part of TTFT — is measured, not guessed from its CPU share (metrics: ClientDelay).
#include <cstdint>

namespace tokbench {

/// Asks the kernel to stamp what `fd` receives (a listening socket's accepted sockets inherit
/// it). False when it cannot (then peek_receive_time gives -1).
bool stamp_receive_times(int fd);

/// The receive time of `fd`'s next unread byte, in steady_clock ns (nothing is consumed); -1
/// when nothing is waiting or the kernel gave no time. Where segments were merged in the queue
/// the time is the merged segment's, which may be later than the byte's own. A pending socket
/// error (a reset) is what a peek at an empty queue returns, and that read clears it: it is put
/// in `error` (else 0), for the caller's next recv() will no longer see it.
int64_t peek_receive_time(int fd, int* error = nullptr);

/// Linux turns receive stamping on for the whole host from a work queue when the first socket
/// asks, so packets of the next moments may come without a time: waits (up to `limit_ms`) until
/// a loopback datagram comes back stamped. True once it does.
bool wait_for_receive_stamps(int limit_ms = 200);

}  // namespace tokbench
