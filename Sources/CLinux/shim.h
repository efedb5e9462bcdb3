#ifndef TICKERBOARD_CLINUX_SHIM_H
#define TICKERBOARD_CLINUX_SHIM_H
// Linux headers that the toolchain's Glibc module leaves out.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <linux/input.h>
#include <linux/cec.h>
#include <unistd.h>
#include <malloc.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <string.h>

// SCM_RIGHTS and SO_PEERCRED through macros and a _GNU_SOURCE struct Swift cannot reach: small,
// bounds-checked helpers for LinuxIO's UnixSocket (at most 4 descriptors a message).
// accept4 is declared only under _GNU_SOURCE; the call is in glibc since 2.10.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

static inline size_t tb_cmsg_space_fds(int count) { return CMSG_SPACE(sizeof(int) * (size_t)count); }

/// Writes one SCM_RIGHTS header carrying `fd` into `control` (`length` >= tb_cmsg_space_fds(1)).
static inline int tb_cmsg_put_fd(void *control, size_t length, int fd) {
    if (length < CMSG_SPACE(sizeof(int))) return -1;
    memset(control, 0, length);
    struct msghdr m; memset(&m, 0, sizeof m);
    m.msg_control = control; m.msg_controllen = CMSG_SPACE(sizeof(int));
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return 0;
}

/// Collects the descriptors of every SCM_RIGHTS header of a received message into `fds` (at most
/// `capacity`; any beyond are closed so none leaks); returns how many were stored.
static inline int tb_cmsg_take_fds(struct msghdr *m, int *fds, int capacity) {
    int n = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd; memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (n < capacity) fds[n++] = fd; else close(fd);
        }
    }
    return n;
}

/// The peer's process, user and group (SO_PEERCRED), without _GNU_SOURCE's struct ucred.
static inline int tb_peer_credentials(int fd, int *pid, unsigned *uid, unsigned *gid) {
    struct { int pid; unsigned uid; unsigned gid; } cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, 17 /* SO_PEERCRED */, &cred, &len) != 0) return -1;
    *pid = cred.pid; *uid = cred.uid; *gid = cred.gid;
    return 0;
}

/// The peer's supplementary groups (SO_PEERGROUPS, Linux 4.13); returns the count or -1.
static inline int tb_peer_groups(int fd, unsigned *groups, int capacity) {
    socklen_t len = (socklen_t)(sizeof(unsigned) * (size_t)capacity);
    if (getsockopt(fd, SOL_SOCKET, 59 /* SO_PEERGROUPS */, groups, &len) != 0) return -1;
    return (int)(len / sizeof(unsigned));
}

// An anonymous in-memory file (declared under _GNU_SOURCE only), close-on-exec.
extern int memfd_create(const char *name, unsigned int flags);
static inline int tb_memfd_create(const char *name) { return memfd_create(name, 1u /* MFD_CLOEXEC */); }

/// Fills a sockaddr_un for `path`; -1 when the path does not fit.
static inline int tb_unix_address(struct sockaddr_un *a, const char *path) {
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof a->sun_path) return -1;
    memcpy(a->sun_path, path, n);
    return 0;
}

// The CEC ioctls are function-like _IOWR macros, which Swift does not import.
static const unsigned long tb_cec_adap_g_caps = CEC_ADAP_G_CAPS;
static const unsigned long tb_cec_adap_g_phys_addr = CEC_ADAP_G_PHYS_ADDR;
static const unsigned long tb_cec_adap_g_log_addrs = CEC_ADAP_G_LOG_ADDRS;
static const unsigned long tb_cec_adap_s_log_addrs = CEC_ADAP_S_LOG_ADDRS;
static const unsigned long tb_cec_transmit = CEC_TRANSMIT;
static const unsigned long tb_cec_receive = CEC_RECEIVE;
static const unsigned long tb_cec_dqevent = CEC_DQEVENT;
static const unsigned long tb_cec_s_mode = CEC_S_MODE;
static const unsigned long tb_cec_adap_g_connector_info = CEC_ADAP_G_CONNECTOR_INFO;
/// prctl is variadic, which Swift cannot call.
static inline int tb_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

#endif
