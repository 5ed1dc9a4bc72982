// An I/O fault injector for Cairn's reliability tests, loaded into a child process with
// LD_PRELOAD (Linux only). It counts the calls that write to, flush, resize or open files under one
// directory and fails the n-th counted call, once or from then on, with EIO, ENOSPC, or a short
// write (part of the bytes written and the partial count returned).
//
// Environment (read once, when the library is loaded):
//   CAIRN_FAULT_DIR         count only calls on files under this directory (absolute, symlinks resolved)
//   CAIRN_FAULT_LOG         append one line per counted call: "<index> <call> <outcome>", where the
//                           outcome is "ok" for a call let through, and "EIO", "ENOSPC" or
//                           "short <written>/<requested>" for a call failed. A failed call's line is
//                           written where the failure is returned, after the decision to fail it, so
//                           the log names a fault only if one was injected: the tests assert that
//                           each case's fault fired, at the index it meant.
//   CAIRN_FAULT_INDEX       the 1-based index of the call to fail; 0 or unset counts without failing
//   CAIRN_FAULT_PERSISTENT  1: fail every counted call from the index on; otherwise only that one
//   CAIRN_FAULT_ERROR       EIO, ENOSPC or short. A short fault applies to writes; other calls pass.
//
// Counted calls: open/open64/openat/openat64/creat (and glibc's fortified __open_2 variants),
// write, pwrite/pwrite64, writev, pwritev/pwritev64, fsync, fdatasync, msync, ftruncate/ftruncate64.
// A descriptor counts when /proc/self/fd names a file under the directory, so dup() and close()
// need no bookkeeping; msync counts when /proc/self/maps names such a file at the address.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*creat_fn)(const char *, mode_t);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef int (*fd_fn)(int);
typedef int (*msync_fn)(void *, size_t, int);
typedef int (*ftruncate_fn)(int, off_t);

enum fault_kind { FAULT_NONE, FAULT_EIO, FAULT_ENOSPC, FAULT_SHORT };

static char directory[PATH_MAX];
static size_t directory_length;
static int log_fd = -1;
static long fault_index;
static int fault_persistent;
static enum fault_kind fault_kind;
static long counter;

static void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

#define REAL(type, name) ((type)real_symbol(&real_##name, #name))
static void *real_symbol(void **slot, const char *name) {
    void *symbol = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!symbol) {
        symbol = next_symbol(name);
        __atomic_store_n(slot, symbol, __ATOMIC_RELEASE);
    }
    return symbol;
}

static void *real_open, *real_open64, *real_openat, *real_openat64, *real_creat, *real_creat64;
static void *real___open_2, *real___open64_2, *real___openat_2, *real___openat64_2;
static void *real_write, *real_pwrite, *real_pwrite64, *real_writev, *real_pwritev, *real_pwritev64;
static void *real_fsync, *real_fdatasync, *real_msync, *real_ftruncate, *real_ftruncate64;

__attribute__((constructor)) static void fault_shim_load(void) {
    const char *dir = getenv("CAIRN_FAULT_DIR");
    if (!dir || !*dir) return;
    // The directory may not exist yet (a store being created): resolve what exists of it.
    if (!realpath(dir, directory)) {
        strncpy(directory, dir, sizeof directory - 1);
    }
    directory_length = strlen(directory);
    while (directory_length > 1 && directory[directory_length - 1] == '/') directory[--directory_length] = 0;

    const char *log = getenv("CAIRN_FAULT_LOG");
    if (log && *log) {
        log_fd = REAL(open_fn, open)(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    }
    const char *index = getenv("CAIRN_FAULT_INDEX");
    fault_index = index ? strtol(index, NULL, 10) : 0;
    const char *persistent = getenv("CAIRN_FAULT_PERSISTENT");
    fault_persistent = persistent && strcmp(persistent, "1") == 0;
    const char *error = getenv("CAIRN_FAULT_ERROR");
    fault_kind = FAULT_NONE;
    if (fault_index > 0 && error) {
        if (strcmp(error, "EIO") == 0) fault_kind = FAULT_EIO;
        else if (strcmp(error, "ENOSPC") == 0) fault_kind = FAULT_ENOSPC;
        else if (strcmp(error, "short") == 0) fault_kind = FAULT_SHORT;
    }
}

static int is_under_directory(const char *path) {
    if (!directory_length || !path) return 0;
    if (strncmp(path, directory, directory_length) != 0) return 0;
    return path[directory_length] == 0 || path[directory_length] == '/';
}

static int path_counts(int dirfd, const char *path) {
    if (!directory_length || !path) return 0;
    if (path[0] == '/') return is_under_directory(path);
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) return 0;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t length = readlink(link, base, sizeof base - 1);
        if (length <= 0) return 0;
        base[length] = 0;
    }
    char full[PATH_MAX * 2];
    snprintf(full, sizeof full, "%s/%s", base, path);
    return is_under_directory(full);
}

static int fd_counts(int fd) {
    if (!directory_length || fd < 0) return 0;
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, target, sizeof target - 1);
    if (length <= 0) return 0;
    target[length] = 0;
    return is_under_directory(target);
}

static int address_counts(const void *address) {
    if (!directory_length) return 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps) return 0;
    char line[PATH_MAX + 256];
    int counts = 0;
    unsigned long target = (unsigned long)address;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        int consumed = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &consumed) < 2) continue;
        if (target < start || target >= end) continue;
        char *path = line + consumed;
        path[strcspn(path, "\n")] = 0;
        counts = is_under_directory(path);
        break;
    }
    fclose(maps);
    return counts;
}

static void log_line(long index, const char *call, const char *outcome) {
    if (log_fd < 0) return;
    char line[256];
    int length = snprintf(line, sizeof line, "%ld %s %s\n", index, call, outcome);
    if (length > 0) REAL(write_fn, write)(log_fd, line, (size_t)length);
}

// Counts a call and decides its fate: FAULT_NONE lets it through.
static enum fault_kind decide(const char *call, int is_write, long *index) {
    *index = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
    enum fault_kind kind = FAULT_NONE;
    if (fault_kind != FAULT_NONE && (*index == fault_index || (fault_persistent && *index > fault_index))) {
        kind = fault_kind;
        if (kind == FAULT_SHORT && !is_write) kind = FAULT_NONE;
    }
    if (kind == FAULT_NONE) log_line(*index, call, "ok");
    return kind;
}

// Fails the call with EIO or ENOSPC and reports it in the log (errno is set after the log's write).
static int fail_with(enum fault_kind kind, long index, const char *call) {
    log_line(index, call, kind == FAULT_ENOSPC ? "ENOSPC" : "EIO");
    errno = kind == FAULT_ENOSPC ? ENOSPC : EIO;
    return -1;
}

static void log_short(long index, const char *call, size_t written, size_t requested) {
    char outcome[96];
    snprintf(outcome, sizeof outcome, "short %zu/%zu", written, requested);
    log_line(index, call, outcome);
}

// ---- open ----

static mode_t open_mode(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

#define OPEN_BODY(name, call)                                                                          \
    long index;                                                                                        \
    if (path_counts(AT_FDCWD, path)) {                                                                 \
        enum fault_kind kind = decide(name, 0, &index);                                                \
        if (kind != FAULT_NONE) return fail_with(kind, index, name);                                   \
    }                                                                                                  \
    return call;

int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = open_mode(flags, arguments);
    va_end(arguments);
    OPEN_BODY("open", REAL(open_fn, open)(path, flags, mode))
}

int open64(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = open_mode(flags, arguments);
    va_end(arguments);
    OPEN_BODY("open", REAL(open_fn, open64)(path, flags, mode))
}

int __open_2(const char *path, int flags) { OPEN_BODY("open", REAL(open2_fn, __open_2)(path, flags)) }
int __open64_2(const char *path, int flags) { OPEN_BODY("open", REAL(open2_fn, __open64_2)(path, flags)) }
int creat(const char *path, mode_t mode) { OPEN_BODY("open", REAL(creat_fn, creat)(path, mode)) }
int creat64(const char *path, mode_t mode) { OPEN_BODY("open", REAL(creat_fn, creat64)(path, mode)) }

#define OPENAT_BODY(call)                                                                              \
    long index;                                                                                        \
    if (path_counts(dirfd, path)) {                                                                    \
        enum fault_kind kind = decide("open", 0, &index);                                              \
        if (kind != FAULT_NONE) return fail_with(kind, index, "open");                                 \
    }                                                                                                  \
    return call;

int openat(int dirfd, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = open_mode(flags, arguments);
    va_end(arguments);
    OPENAT_BODY(REAL(openat_fn, openat)(dirfd, path, flags, mode))
}

int openat64(int dirfd, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = open_mode(flags, arguments);
    va_end(arguments);
    OPENAT_BODY(REAL(openat_fn, openat64)(dirfd, path, flags, mode))
}

int __openat_2(int dirfd, const char *path, int flags) {
    OPENAT_BODY(REAL(openat2_fn, __openat_2)(dirfd, path, flags))
}
int __openat64_2(int dirfd, const char *path, int flags) {
    OPENAT_BODY(REAL(openat2_fn, __openat64_2)(dirfd, path, flags))
}

// ---- writes ----

ssize_t write(int fd, const void *buffer, size_t count) {
    if (!fd_counts(fd)) return REAL(write_fn, write)(fd, buffer, count);
    long index;
    enum fault_kind kind = decide("write", 1, &index);
    if (kind == FAULT_SHORT) {
        ssize_t written = REAL(write_fn, write)(fd, buffer, count / 2);
        log_short(index, "write", written < 0 ? 0 : (size_t)written, count);
        return written;
    }
    if (kind != FAULT_NONE) return fail_with(kind, index, "write");
    return REAL(write_fn, write)(fd, buffer, count);
}

#define PWRITE_BODY(name)                                                                              \
    if (!fd_counts(fd)) return REAL(pwrite_fn, name)(fd, buffer, count, offset);                       \
    long index;                                                                                        \
    enum fault_kind kind = decide("pwrite", 1, &index);                                                \
    if (kind == FAULT_SHORT) {                                                                         \
        ssize_t written = REAL(pwrite_fn, name)(fd, buffer, count / 2, offset);                        \
        log_short(index, "pwrite", written < 0 ? 0 : (size_t)written, count);                          \
        return written;                                                                                \
    }                                                                                                  \
    if (kind != FAULT_NONE) return fail_with(kind, index, "pwrite");                                   \
    return REAL(pwrite_fn, name)(fd, buffer, count, offset);

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) { PWRITE_BODY(pwrite) }
ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) { PWRITE_BODY(pwrite64) }

// The first half of the bytes an iovec array describes, as a shorter array in `shortened`.
static int half_of(const struct iovec *vector, int count, struct iovec *shortened, size_t *total) {
    *total = 0;
    for (int i = 0; i < count; i++) *total += vector[i].iov_len;
    size_t remaining = *total / 2;
    int used = 0;
    for (int i = 0; i < count && remaining > 0 && used < 1024; i++) {
        shortened[used] = vector[i];
        if (shortened[used].iov_len > remaining) shortened[used].iov_len = remaining;
        remaining -= shortened[used].iov_len;
        used++;
    }
    return used;
}

ssize_t writev(int fd, const struct iovec *vector, int count) {
    if (!fd_counts(fd)) return REAL(writev_fn, writev)(fd, vector, count);
    long index;
    enum fault_kind kind = decide("writev", 1, &index);
    if (kind == FAULT_SHORT) {
        struct iovec shortened[1024];
        size_t total;
        int used = half_of(vector, count, shortened, &total);
        ssize_t written = used ? REAL(writev_fn, writev)(fd, shortened, used) : 0;
        log_short(index, "writev", written < 0 ? 0 : (size_t)written, total);
        return written;
    }
    if (kind != FAULT_NONE) return fail_with(kind, index, "writev");
    return REAL(writev_fn, writev)(fd, vector, count);
}

#define PWRITEV_BODY(name)                                                                             \
    if (!fd_counts(fd)) return REAL(pwritev_fn, name)(fd, vector, count, offset);                      \
    long index;                                                                                        \
    enum fault_kind kind = decide("pwritev", 1, &index);                                               \
    if (kind == FAULT_SHORT) {                                                                         \
        struct iovec shortened[1024];                                                                  \
        size_t total;                                                                                  \
        int used = half_of(vector, count, shortened, &total);                                          \
        ssize_t written = used ? REAL(pwritev_fn, name)(fd, shortened, used, offset) : 0;              \
        log_short(index, "pwritev", written < 0 ? 0 : (size_t)written, total);                         \
        return written;                                                                                \
    }                                                                                                  \
    if (kind != FAULT_NONE) return fail_with(kind, index, "pwritev");                                  \
    return REAL(pwritev_fn, name)(fd, vector, count, offset);

ssize_t pwritev(int fd, const struct iovec *vector, int count, off_t offset) { PWRITEV_BODY(pwritev) }
ssize_t pwritev64(int fd, const struct iovec *vector, int count, off_t offset) { PWRITEV_BODY(pwritev64) }

// ---- flushes and resizes ----

#define FD_BODY(name)                                                                                  \
    if (fd_counts(fd)) {                                                                               \
        long index;                                                                                    \
        enum fault_kind kind = decide(#name, 0, &index);                                               \
        if (kind != FAULT_NONE) return fail_with(kind, index, #name);                                  \
    }                                                                                                  \
    return REAL(fd_fn, name)(fd);

int fsync(int fd) { FD_BODY(fsync) }
int fdatasync(int fd) { FD_BODY(fdatasync) }

int msync(void *address, size_t length, int flags) {
    if (address_counts(address)) {
        long index;
        enum fault_kind kind = decide("msync", 0, &index);
        if (kind != FAULT_NONE) return fail_with(kind, index, "msync");
    }
    return REAL(msync_fn, msync)(address, length, flags);
}

#define FTRUNCATE_BODY(name)                                                                           \
    if (fd_counts(fd)) {                                                                               \
        long index;                                                                                    \
        enum fault_kind kind = decide("ftruncate", 0, &index);                                         \
        if (kind != FAULT_NONE) return fail_with(kind, index, "ftruncate");                            \
    }                                                                                                  \
    return REAL(ftruncate_fn, name)(fd, length);

int ftruncate(int fd, off_t length) { FTRUNCATE_BODY(ftruncate) }
int ftruncate64(int fd, off_t length) { FTRUNCATE_BODY(ftruncate64) }
