/* h5_vfd.c - the file driver the HDF5 writer writes through: POSIX I/O that
 * never reports a failed write to HDF5, keeps it for the writer to ask. */
#include "sp_h5_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why: HDF5 1.10 (Debian 12's 1.10.8) frees a file whose close failed (a
 * full disk while flushing) but leaves its id registered; the library's
 * exit handler then closes it again and crashes the process (fixed in
 * HDF5 1.14.1). So HDF5 must never see a write fail. After the first
 * failure this driver keeps every later write in memory (reads see it,
 * so HDF5's state stays consistent), the writer stops at its next check,
 * closes cleanly and removes the file. Memory after a failure is bounded
 * by what the writer still writes before that check (one batch). */

typedef struct vfd_extent {
  haddr_t addr;
  size_t size;
  unsigned char *data;
} vfd_extent;

typedef struct vfd_file {
  H5FD_t pub; /* first: HDF5 owns it */
  int fd;
  haddr_t eoa, eof;
  dev_t dev;
  ino_t ino;
  sp__h5_sink *sink;
  vfd_extent *ext; /* writes kept in memory after a failure, in order */
  size_t next, capext;
} vfd_file;

typedef struct vfd_info {
  sp__h5_sink *sink;
} vfd_info;

#define VFD_MAXADDR (((haddr_t)1 << (8 * sizeof(off_t) - 1)) - 1)

static void sink_fail(sp__h5_sink *s, int e) {
  if (!s->err)
    s->err = e ? e : EIO;
}

static H5FD_t *vfd_open(const char *name, unsigned flags, hid_t fapl,
                        haddr_t maxaddr) {
  const vfd_info *info = H5Pget_driver_info(fapl);
  (void)maxaddr;
  if (!info || !info->sink)
    return NULL;
  /* Only the writers' temporaries come here: never through a link. */
  int o = O_CLOEXEC | O_NOFOLLOW | ((flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY);
  if (flags & H5F_ACC_CREAT)
    o |= O_CREAT;
  if (flags & H5F_ACC_EXCL)
    o |= O_EXCL;
  if (flags & H5F_ACC_TRUNC)
    o |= O_TRUNC;
  int fd = open(name, o, 0666);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    info->sink->open_err = errno ? errno : EIO;
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  vfd_file *f = calloc(1, sizeof *f);
  if (!f) {
    info->sink->open_err = ENOMEM;
    close(fd);
    return NULL;
  }
  f->fd = fd;
  f->eof = (haddr_t)st.st_size;
  f->dev = st.st_dev;
  f->ino = st.st_ino;
  f->sink = info->sink;
  return &f->pub;
}

static herr_t vfd_close(H5FD_t *file) {
  vfd_file *f = (vfd_file *)file;
  if (close(f->fd) != 0) /* a delayed write error shows here */
    sink_fail(f->sink, errno);
  for (size_t i = 0; i < f->next; i++)
    free(f->ext[i].data);
  free(f->ext);
  free(f);
  return 0;
}

static int vfd_cmp(const H5FD_t *a, const H5FD_t *b) {
  const vfd_file *x = (const vfd_file *)a, *y = (const vfd_file *)b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static herr_t vfd_query(const H5FD_t *file, unsigned long *flags) {
  (void)file;
  /* As the sec2 driver: HDF5 may gather small pieces into larger writes. */
  *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
           H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

static haddr_t vfd_get_eoa(const H5FD_t *file, H5FD_mem_t type) {
  (void)type;
  return ((const vfd_file *)file)->eoa;
}

static herr_t vfd_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr) {
  (void)type;
  ((vfd_file *)file)->eoa = addr;
  return 0;
}

static haddr_t vfd_get_eof(const H5FD_t *file, H5FD_mem_t type) {
  (void)type;
  return ((const vfd_file *)file)->eof;
}

static herr_t vfd_get_handle(H5FD_t *file, hid_t fapl, void **handle) {
  (void)fapl;
  *handle = &((vfd_file *)file)->fd;
  return 0;
}

static herr_t vfd_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr,
                       size_t size, void *buf) {
  vfd_file *f = (vfd_file *)file;
  unsigned char *p = buf;
  (void)type, (void)dxpl;
  if (addr > VFD_MAXADDR || size > VFD_MAXADDR - addr)
    return -1;
  for (haddr_t a = addr; size > 0;) {
    ssize_t k = pread(f->fd, p, size, (off_t)a);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      return -1;
    if (k == 0) { /* past the end of what is on disk: zeros, as sec2 */
      memset(p, 0, size);
      break;
    }
    p += k, a += (haddr_t)k, size -= (size_t)k;
  }
  return 0;
}

/* Lays the writes kept in memory over what was read, later ones last. */
static void overlay(const vfd_file *f, haddr_t addr, size_t size, void *buf) {
  for (size_t i = 0; i < f->next; i++) {
    const vfd_extent *e = &f->ext[i];
    haddr_t lo = e->addr > addr ? e->addr : addr;
    haddr_t hi =
        e->addr + e->size < addr + size ? e->addr + e->size : addr + size;
    if (lo < hi)
      memcpy((unsigned char *)buf + (lo - addr), e->data + (lo - e->addr),
             (size_t)(hi - lo));
  }
}

static herr_t vfd_read_all(H5FD_t *file, H5FD_mem_t type, hid_t dxpl,
                           haddr_t addr, size_t size, void *buf) {
  if (vfd_read(file, type, dxpl, addr, size, buf) < 0)
    return -1;
  overlay((vfd_file *)file, addr, size, buf);
  return 0;
}

static void keep(vfd_file *f, haddr_t addr, size_t size, const void *data) {
  if (f->next == f->capext) {
    size_t cap = f->capext ? f->capext * 2 : 16;
    vfd_extent *e = realloc(f->ext, cap * sizeof *e);
    if (!e)
      return; /* the write is lost; the writer fails on the error anyway */
    f->ext = e;
    f->capext = cap;
  }
  unsigned char *copy = malloc(size ? size : 1);
  if (!copy)
    return;
  memcpy(copy, data, size);
  f->ext[f->next++] = (vfd_extent){addr, size, copy};
}

static herr_t vfd_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr,
                        size_t size, const void *buf) {
  vfd_file *f = (vfd_file *)file;
  const unsigned char *p = buf;
  haddr_t a = addr;
  size_t left = size;
  (void)type, (void)dxpl;
  if (addr > VFD_MAXADDR || size > VFD_MAXADDR - addr)
    return -1;
  while (left > 0 && !f->sink->err) {
    ssize_t k = pwrite(f->fd, p, left, (off_t)a);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      sink_fail(f->sink, k < 0 ? errno : ENOSPC);
      break;
    }
    p += k, a += (haddr_t)k, left -= (size_t)k;
  }
  if (left > 0)
    keep(f, a, left, p);
  if (addr + size > f->eof)
    f->eof = addr + size;
  return 0;
}

static herr_t vfd_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing) {
  vfd_file *f = (vfd_file *)file;
  (void)dxpl, (void)closing;
  if (f->eoa == f->eof)
    return 0;
  if (!f->sink->err && ftruncate(f->fd, (off_t)f->eoa) != 0)
    sink_fail(f->sink, errno);
  f->eof = f->eoa;
  return 0;
}

static const H5FD_class_t vfd_class = {
#if H5_VERSION_GE(1, 13, 2)
    .version = H5FD_CLASS_VERSION,
    .value = (H5FD_class_value_t)0x5350, /* user drivers: 256 and up */
#endif
    .name = "scopeprof_sink",
    .maxaddr = VFD_MAXADDR,
    .fc_degree = H5F_CLOSE_WEAK,
    .fapl_size = sizeof(vfd_info),
    .open = vfd_open,
    .close = vfd_close,
    .cmp = vfd_cmp,
    .query = vfd_query,
    .get_eoa = vfd_get_eoa,
    .set_eoa = vfd_set_eoa,
    .get_eof = vfd_get_eof,
    .get_handle = vfd_get_handle,
    .read = vfd_read_all,
    .write = vfd_write,
    .truncate = vfd_truncate,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

hid_t sp__h5_sink_fapl(sp__h5_sink *sink, hid_t *driver) {
  memset(sink, 0, sizeof *sink);
  *driver = H5FDregister(&vfd_class);
  if (*driver < 0)
    return -1;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  vfd_info info = {sink};
  if (fapl >= 0 && H5Pset_driver(fapl, *driver, &info) >= 0)
    return fapl;
  if (fapl >= 0)
    H5Pclose(fapl);
  H5FDunregister(*driver);
  *driver = -1;
  return -1;
}
