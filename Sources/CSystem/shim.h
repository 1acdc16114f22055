#ifndef SQUALL_CSYSTEM_SHIM_H
#define SQUALL_CSYSTEM_SHIM_H
/* What Swift's Glibc module does not export. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <fcntl.h>
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags); /* _GNU_SOURCE only in glibc */
extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask); /* idem */
/* Bytes in a TCP socket's send queue not yet acknowledged by the peer (SIOCOUTQ), or -1. */
static inline int squall_unacknowledged_bytes(int fd) {
    int count = 0;
    return ioctl(fd, SIOCOUTQ, &count) == 0 ? count : -1;
}
extern int sched_getaffinity(int pid, size_t size, void *mask); /* _GNU_SOURCE only in glibc */
/* How many CPUs this process may run on (its affinity mask, as taskset sets it); 1 when it cannot be read. */
static inline int squall_allowed_cpus(void) {
    unsigned long mask[16] = {0};
    if (sched_getaffinity(0, sizeof mask, mask) != 0) return 1;
    int count = 0;
    for (int i = 0; i < 16; i++) count += __builtin_popcountl(mask[i]);
    return count > 0 ? count : 1;
}
/* O_DIRECT, which glibc's headers name only under _GNU_SOURCE (its value is always __O_DIRECT). */
static inline int squall_o_direct(void) { return __O_DIRECT; }
#include <sys/syscall.h>
#include <unistd.h>
/* A descriptor that polls readable once process `pid` (any process, not only a child) has ended: pidfd_open
   (Linux 5.3), which glibc 2.36 does not wrap; -1 with errno set when it fails (ESRCH: no such process). */
static inline int squall_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
#include <stdio.h>
/* A new pseudo-terminal: its primary side's descriptor (or -1 with errno), with the secondary side's path written
   to `name` (as posix_openpt, grantpt, unlockpt and ptsname do; glibc declares those only under _XOPEN_SOURCE). */
static inline int squall_open_pseudo_terminal(char *name, size_t size) {
    int primary = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (primary < 0) return -1;
    int unlock = 0;
    unsigned int number = 0;
    if (ioctl(primary, TIOCSPTLCK, &unlock) != 0 || ioctl(primary, TIOCGPTN, &number) != 0) {
        close(primary);
        return -1;
    }
    snprintf(name, size, "/dev/pts/%u", number);
    return primary;
}
/* The number of columns of the terminal on `fd` (TIOCGWINSZ), or 0 when it is not a terminal or does not say. */
static inline int squall_terminal_columns(int fd) {
    struct winsize size = {0};
    return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}
/* Sets the size of the terminal on `fd` (TIOCSWINSZ), for tests; 0 on success. */
static inline int squall_set_terminal_size(int fd, int rows, int columns) {
    struct winsize size = {0};
    size.ws_row = (unsigned short)rows;
    size.ws_col = (unsigned short)columns;
    return ioctl(fd, TIOCSWINSZ, &size);
}
#include <malloc.h>
/* Gives the free memory of every malloc arena back to the system (malloc_trim(0)); 1 when some was released. */
static inline int squall_release_free_memory(void) { return malloc_trim(0); }
#endif
