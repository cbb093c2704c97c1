/* h5_vlen.c - variable-length strings read from the file's bytes, every
 * reference checked against its global heap collection, where libhdf5 1.10
 * would follow a damaged one unchecked (a crash, or an endless loop). */
#include "sp_h5_vlen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* The HDF5 file format specification (version 3.0): "Global Heap",
 * "Data Object Headers" (versions 1 and 2, continuation blocks), the
 * attribute message (0x000C) and the layout message (0x0008). A collection
 * larger than this is refused rather than read. */
#define MAX_COLLECTION ((uint64_t)1 << 30)
#define MAX_BLOCKS 1000 /* continuation blocks of one object header */
#define MAX_HEAPS 64    /* collections kept parsed during one read */

typedef struct heap {
  uint64_t addr, size;
  unsigned char *body;
  int64_t *off;  /* per object index: offset of its data in body, or -1 */
  uint64_t *len; /* its size */
  uint32_t nidx; /* indices 0 .. nidx-1 */
} heap;

typedef struct vf {
  int fd;
  uint64_t size;
  const char *name; /* what is read, for the messages */
  char *err;
  size_t errsize;
  heap heaps[MAX_HEAPS];
  int nheaps;
} vf;

static int bad(vf *v, const char *fmt, ...) {
  va_list ap;
  int k = snprintf(v->err, v->errsize, "%s: ", v->name);
  va_start(ap, fmt);
  if (k >= 0 && (size_t)k < v->errsize)
    vsnprintf(v->err + k, v->errsize - (size_t)k, fmt, ap);
  va_end(ap);
  return -1;
}

static uint64_t le(const unsigned char *p, int n) {
  uint64_t x = 0;
  for (int i = n - 1; i >= 0; i--)
    x = x << 8 | p[i];
  return x;
}

/* n bytes at at into buf, all of them inside the file, or -1 said. */
static int get(vf *v, uint64_t at, uint64_t n, void *buf, const char *what) {
  if (at > v->size || n > v->size - at)
    return bad(v,
               "%s at byte %llu (+%llu) beyond the end of the file (%llu "
               "bytes)",
               what, (unsigned long long)at, (unsigned long long)n,
               (unsigned long long)v->size);
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(v->fd, (char *)buf + done, (size_t)(n - done),
                      (off_t)(at + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return bad(v, "%s at byte %llu: %s", what, (unsigned long long)at,
                 r < 0 ? strerror(errno) : "the file ends early");
    done += (size_t)r;
  }
  return 0;
}

/* A malloc'd copy of n bytes at at, or NULL said. */
static unsigned char *get_new(vf *v, uint64_t at, uint64_t n,
                              const char *what) {
  unsigned char *b = malloc(n ? (size_t)n : 1);
  if (!b) {
    bad(v, "%s: out of memory (%llu bytes)", what, (unsigned long long)n);
    return NULL;
  }
  if (get(v, at, n, b, what) != 0) {
    free(b);
    return NULL;
  }
  return b;
}

/* ---- global heap collections ---- */

/* The parsed collection at addr, or NULL said: HDF5's own walk over its
 * objects (each padded to 8 bytes; the free space, object 0, unpadded and
 * counting its own header), with what HDF5 1.10 leaves unchecked checked:
 * an object past the collection's end, a free space of under 16 bytes
 * (the walk would not advance), an index twice. */
static heap *heap_at(vf *v, uint64_t addr) {
  for (int i = 0; i < v->nheaps; i++)
    if (v->heaps[i].addr == addr)
      return &v->heaps[i];
  if (v->nheaps == MAX_HEAPS) {
    bad(v, "more than %d global heap collections", MAX_HEAPS);
    return NULL;
  }
  char what[96];
  snprintf(what, sizeof what, "global heap collection at byte %llu",
           (unsigned long long)addr);
  unsigned char head[16];
  if (get(v, addr, 16, head, what) != 0)
    return NULL;
  if (memcmp(head, "GCOL", 4) != 0 || head[4] != 1) {
    bad(v, "%s: bad signature or version", what);
    return NULL;
  }
  uint64_t size = le(head + 8, 8);
  if (size < 16 || size > v->size - addr || size > MAX_COLLECTION) {
    bad(v, "%s: size %llu beyond the end of the file", what,
        (unsigned long long)size);
    return NULL;
  }
  heap h = {addr, size, NULL, NULL, NULL, 0};
  h.body = get_new(v, addr, size, what);
  /* at most one object per 16 bytes, and indices are 16-bit */
  uint64_t most = size / 16 + 1;
  h.nidx = (uint32_t)(most < 65536 ? most : 65536);
  h.off = malloc(h.nidx * sizeof *h.off);
  h.len = malloc(h.nidx * sizeof *h.len);
  if (!h.body || !h.off || !h.len) {
    if (h.body)
      bad(v, "%s: out of memory", what);
    goto fail;
  }
  for (uint32_t i = 0; i < h.nidx; i++)
    h.off[i] = -1;
  for (uint64_t pos = 16; pos + 16 <= size;) {
    uint32_t idx = (uint32_t)le(h.body + pos, 2);
    uint64_t osize = le(h.body + pos + 8, 8);
    if (idx == 0) {
      if (osize < 16 || osize > size - pos) {
        bad(v, "%s: free space of %llu bytes at offset %llu", what,
            (unsigned long long)osize, (unsigned long long)pos);
        goto fail;
      }
      pos += osize;
      continue;
    }
    if (osize > size - pos - 16) {
      bad(v,
          "%s: object %u of %llu bytes goes beyond the collection (%llu "
          "bytes)",
          what, idx, (unsigned long long)osize, (unsigned long long)size);
      goto fail;
    }
    if (idx >= h.nidx) { /* more objects than 16-byte slots: impossible */
      bad(v, "%s: object %u in a collection of %llu bytes", what, idx,
          (unsigned long long)size);
      goto fail;
    }
    if (h.off[idx] >= 0) {
      bad(v, "%s: object %u twice", what, idx);
      goto fail;
    }
    h.off[idx] = (int64_t)(pos + 16);
    h.len[idx] = osize;
    pos += 16 + (osize + 7) / 8 * 8;
  }
  v->heaps[v->nheaps] = h;
  return &v->heaps[v->nheaps++];
fail:
  free(h.body);
  free(h.off);
  free(h.len);
  return NULL;
}

/* The n strings of the 16-byte references refs (length, collection's
 * address, object index) into out, or -1 said. */
static int strings(vf *v, const unsigned char *refs, int64_t n, char **out) {
  for (int64_t i = 0; i < n; i++) {
    const unsigned char *r = refs + 16 * i;
    uint64_t len = le(r, 4), addr = le(r + 4, 8);
    uint32_t idx = (uint32_t)le(r + 12, 4);
    if (addr == 0) {
      if (len)
        return bad(v, "string %lld: %llu bytes but no heap object",
                   (long long)i, (unsigned long long)len);
      if (!(out[i] = strdup("")))
        return bad(v, "out of memory");
      continue;
    }
    heap *h = heap_at(v, addr);
    if (!h)
      return -1;
    if (idx >= h->nidx || h->off[idx] < 0)
      return bad(v,
                 "string %lld: no object %u in the global heap collection "
                 "at byte %llu",
                 (long long)i, idx, (unsigned long long)addr);
    if (h->len[idx] != len)
      return bad(v, "string %lld: %llu bytes, its heap object %llu",
                 (long long)i, (unsigned long long)len,
                 (unsigned long long)h->len[idx]);
    if (!(out[i] = malloc((size_t)len + 1)))
      return bad(v, "out of memory");
    memcpy(out[i], h->body + h->off[idx], (size_t)len);
    out[i][len] = 0;
  }
  return 0;
}

/* ---- object headers ---- */

typedef struct msg {
  unsigned type;
  unsigned char *data; /* into a block of the list below */
  size_t size;
} msg;

typedef struct msgs {
  msg *m;
  int n, cap;
  unsigned char *blocks[MAX_BLOCKS + 1];
  int nblocks;
} msgs;

static void msgs_free(msgs *l) {
  for (int i = 0; i < l->nblocks; i++)
    free(l->blocks[i]);
  free(l->m);
}

static int add_msg(vf *v, msgs *l, unsigned type, unsigned char *data,
                   size_t size) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 32;
    msg *m = realloc(l->m, (size_t)cap * sizeof *m);
    if (!m)
      return bad(v, "out of memory");
    l->m = m;
    l->cap = cap;
  }
  l->m[l->n++] = (msg){type, data, size};
  return 0;
}

/* A block of the header read and kept, or NULL said. */
static unsigned char *block(vf *v, msgs *l, uint64_t at, uint64_t size,
                            const char *what) {
  if (l->nblocks > MAX_BLOCKS) {
    bad(v, "%s: more than %d continuation blocks", what, MAX_BLOCKS);
    return NULL;
  }
  unsigned char *b = get_new(v, at, size, what);
  if (b)
    l->blocks[l->nblocks++] = b;
  return b;
}

/* Every message of the object header at addr (versions 1 and 2, the
 * continuation blocks followed) into l, or -1 said. */
static int header_msgs(vf *v, uint64_t addr, msgs *l) {
  char what[96];
  snprintf(what, sizeof what, "object header at byte %llu",
           (unsigned long long)addr);
  unsigned char head[16];
  if (get(v, addr, 16, head, what) != 0)
    return -1;
  uint64_t todo[MAX_BLOCKS + 1][2];
  int ntodo = 0;
  if (memcmp(head, "OHDR", 4) == 0) {
    unsigned flags = head[5];
    uint64_t pos = addr + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
    int w = 1 << (flags & 3);
    unsigned char sz[8];
    if (get(v, pos, (uint64_t)w, sz, what) != 0)
      return -1;
    uint64_t size = le(sz, w);
    if (size < 4)
      return bad(v, "%s: a first block of %llu bytes", what,
                 (unsigned long long)size);
    todo[ntodo][0] = pos + (uint64_t)w;
    todo[ntodo++][1] = size - 4; /* less the checksum */
    size_t extra = flags & 0x04 ? 2 : 0;
    for (int t = 0; t < ntodo; t++) {
      unsigned char *b = block(v, l, todo[t][0], todo[t][1], what);
      if (!b)
        return -1;
      size_t bsz = (size_t)todo[t][1];
      for (size_t p = 0; p + 4 + extra <= bsz;) {
        unsigned type = b[p];
        size_t msize = (size_t)le(b + p + 1, 2);
        p += 4 + extra;
        if (msize > bsz - p)
          return bad(v, "%s: a message beyond its block", what);
        if (type == 0x10) {
          if (msize < 16 || ntodo > MAX_BLOCKS)
            return bad(v, "%s: bad continuation", what);
          uint64_t off = le(b + p, 8), len = le(b + p + 8, 8);
          unsigned char sig[4];
          if (len < 8 || get(v, off, 4, sig, what) != 0 ||
              memcmp(sig, "OCHK", 4) != 0)
            return v->err[0] ? -1 : bad(v, "%s: bad continuation block", what);
          todo[ntodo][0] = off + 4;
          todo[ntodo++][1] = len - 8;
        }
        if (add_msg(v, l, type, b + p, msize) != 0)
          return -1;
        p += msize;
      }
    }
    return 0;
  }
  if (head[0] != 1)
    return bad(v, "%s: unknown version %u", what, head[0]);
  uint64_t nmsgs = le(head + 2, 2);
  todo[ntodo][0] = addr + 16;
  todo[ntodo++][1] = le(head + 8, 4);
  for (int t = 0; t < ntodo && (uint64_t)l->n < nmsgs; t++) {
    unsigned char *b = block(v, l, todo[t][0], todo[t][1], what);
    if (!b)
      return -1;
    size_t bsz = (size_t)todo[t][1];
    for (size_t p = 0; p + 8 <= bsz && (uint64_t)l->n < nmsgs;) {
      unsigned type = (unsigned)le(b + p, 2);
      size_t msize = (size_t)le(b + p + 2, 2);
      p += 8;
      if (msize > bsz - p)
        return bad(v, "%s: a message beyond its block", what);
      if (type == 0x10) {
        if (msize < 16 || ntodo > MAX_BLOCKS)
          return bad(v, "%s: bad continuation", what);
        todo[ntodo][0] = le(b + p, 8);
        todo[ntodo++][1] = le(b + p + 8, 8);
      }
      if (add_msg(v, l, type, b + p, msize) != 0)
        return -1;
      p += msize;
    }
  }
  return 0;
}

/* The references of attribute attr in the messages l (attribute messages
 * versions 1-3): a pointer into l, 1 when the attributes are in dense
 * storage (not read here), -1 said. */
static int attr_refs(vf *v, const msgs *l, const char *attr, int64_t n,
                     const unsigned char **refs) {
  size_t want = strlen(attr);
  for (int i = 0; i < l->n; i++) {
    const msg *m = &l->m[i];
    if (m->type == 0x15)
      return 1;
    if (m->type != 0x0C || m->size < 8)
      continue;
    const unsigned char *d = m->data;
    unsigned ver = d[0];
    size_t nsz = (size_t)le(d + 2, 2), dsz = (size_t)le(d + 4, 2),
           ssz = (size_t)le(d + 6, 2), p;
    const unsigned char *nm;
    if (ver == 1) {
      p = 8;
      nm = d + p;
      p += (nsz + 7) / 8 * 8 + (dsz + 7) / 8 * 8 + (ssz + 7) / 8 * 8;
    } else if (ver == 2 || ver == 3) {
      p = ver == 2 ? 8 : 9;
      nm = d + p;
      p += nsz + dsz + ssz;
    } else {
      return bad(v, "attribute message version %u", ver);
    }
    if ((size_t)(nm - d) + nsz > m->size)
      return bad(v, "an attribute's name beyond its message");
    size_t k = nsz;
    while (k > 0 && nm[k - 1] == 0)
      k--;
    if (k != want || memcmp(nm, attr, want) != 0)
      continue;
    if (p > m->size || (uint64_t)(m->size - p) < 16 * (uint64_t)n)
      return bad(v, "attribute data shorter than %lld strings", (long long)n);
    *refs = d + p;
    return 0;
  }
  return 1;
}

/* The references of dataset ds (1-D, n strings) into a malloc'd buffer:
 * 0, 1 when its layout or filters are not read here, -1 said. */
static int dataset_refs(vf *v, hid_t ds, int64_t n, unsigned char **refs) {
  hid_t dcpl = H5Dget_create_plist(ds);
  if (dcpl < 0)
    return 1;
  int rc = 1;
  H5D_layout_t layout = H5Pget_layout(dcpl);
  unsigned char *out = calloc(n ? (size_t)n : 1, 16);
  if (!out) {
    H5Pclose(dcpl);
    return bad(v, "out of memory");
  }
  if (layout == H5D_CONTIGUOUS) {
    haddr_t off = H5Dget_offset(ds);
    /* never written: every element is the fill value, an empty string */
    rc = off == HADDR_UNDEF ? 0 : get(v, off, 16 * (uint64_t)n, out, v->name);
  } else if (layout == H5D_CHUNKED) {
    int nf = H5Pget_nfilters(dcpl);
    hsize_t chunk = 0, nchunks = 0;
    int deflate = 0, others = 0;
    for (int k = 0; k < nf; k++) {
      unsigned flags;
      size_t ncd = 0;
      H5Z_filter_t f =
          H5Pget_filter2(dcpl, (unsigned)k, &flags, &ncd, NULL, 0, NULL, NULL);
      if (f == H5Z_FILTER_DEFLATE)
        deflate = 1;
      else
        others = 1;
    }
    if (nf < 0 || others || H5Pget_chunk(dcpl, 1, &chunk) != 1 || chunk == 0 ||
        H5Dget_num_chunks(ds, H5S_ALL, &nchunks) < 0)
      goto done;
    rc = 0;
    uint64_t craw = 16 * (uint64_t)chunk;
    unsigned char *raw = NULL, *plain = malloc((size_t)craw);
    if (!plain)
      rc = bad(v, "out of memory");
    for (hsize_t k = 0; rc == 0 && k < nchunks; k++) {
      hsize_t first;
      unsigned mask;
      haddr_t addr;
      hsize_t size;
      if (H5Dget_chunk_info(ds, H5S_ALL, k, &first, &mask, &addr, &size) < 0) {
        rc = bad(v, "chunk %llu: no chunk information", (unsigned long long)k);
        break;
      }
      free(raw);
      if (size > craw + 1024 * 1024 && !deflate) {
        raw = NULL;
        rc = bad(v, "chunk at byte %llu: %llu bytes for %llu strings",
                 (unsigned long long)addr, (unsigned long long)size,
                 (unsigned long long)chunk);
        break;
      }
      if (!(raw = get_new(v, addr, size, v->name))) {
        rc = -1;
        break;
      }
      const unsigned char *src = raw;
      uLongf got = (uLongf)craw;
      if (deflate && !(mask & 1)) {
        int z = uncompress(plain, &got, raw, (uLong)size);
        if (z != Z_OK && z != Z_BUF_ERROR) {
          rc = bad(v, "chunk at byte %llu: %s", (unsigned long long)addr,
                   zError(z));
          break;
        }
        src = plain;
      } else {
        got = (uLongf)size;
      }
      if (first >= (hsize_t)n || first % chunk) {
        rc = bad(v, "chunk at byte %llu does not fit the dataset",
                 (unsigned long long)addr);
        break;
      }
      uint64_t m = (uint64_t)n - first < chunk ? (uint64_t)n - first : chunk;
      if (got < 16 * m) {
        rc = bad(v, "chunk at byte %llu does not fit the dataset",
                 (unsigned long long)addr);
        break;
      }
      memcpy(out + 16 * first, src, (size_t)(16 * m));
    }
    free(raw);
    free(plain);
  } else if (layout == H5D_COMPACT) {
    H5O_info_t oi;
    msgs l;
    memset(&l, 0, sizeof l);
    if (H5Oget_info2(ds, &oi, H5O_INFO_BASIC) < 0)
      goto done;
    rc = header_msgs(v, oi.addr, &l);
    int found = 0;
    for (int i = 0; rc == 0 && i < l.n; i++) {
      const msg *m = &l.m[i];
      if (m->type != 0x08 || m->size < 4 || m->data[0] != 3 || m->data[1] != 0)
        continue;
      size_t size = (size_t)le(m->data + 2, 2);
      if (size < 16 * (uint64_t)n || m->size < 4 + size)
        rc = bad(v, "compact data of %zu bytes for %lld strings", size,
                 (long long)n);
      else
        memcpy(out, m->data + 4, (size_t)(16 * n));
      found = 1;
      break;
    }
    msgs_free(&l);
    if (rc == 0 && !found)
      rc = 1;
  }
done:
  H5Pclose(dcpl);
  if (rc != 0) {
    free(out);
    return rc;
  }
  *refs = out;
  return 0;
}

/* The file's superblock says 8-byte addresses and lengths, at byte 0 (no
 * user block): what the reading here assumes. */
static int plain_superblock(vf *v) {
  unsigned char head[16];
  if (get(v, 0, 16, head, "superblock") != 0)
    return 0;
  if (memcmp(head, "\x89HDF\r\n\x1a\n", 8) != 0)
    return 0;
  const unsigned char *sizes = head[8] <= 1 ? head + 13 : head + 9;
  return sizes[0] == 8 && sizes[1] == 8;
}

int sp__h5_vlen_read(hid_t obj, const char *attr, int64_t n, char ***out,
                     char *err, size_t errsize) {
  vf v;
  memset(&v, 0, sizeof v);
  v.err = err;
  v.errsize = errsize;
  err[0] = 0;
  char path[4096], name[512];
  ssize_t pl = H5Fget_name(obj, path, sizeof path);
  if (pl <= 0 || (size_t)pl >= sizeof path)
    return 1;
  if (attr)
    snprintf(name, sizeof name, "attribute %s", attr);
  else if (H5Iget_name(obj, name, sizeof name) <= 0)
    snprintf(name, sizeof name, "a dataset");
  else if (name[0] == '/') /* as the readers name datasets */
    memmove(name, name + 1, strlen(name));
  v.name = name;
  v.fd = open(path, O_RDONLY | O_CLOEXEC);
  if (v.fd < 0)
    return 1;
  off_t end = lseek(v.fd, 0, SEEK_END);
  v.size = end > 0 ? (uint64_t)end : 0;
  int rc = 1;
  unsigned char *refs = NULL;
  const unsigned char *r = NULL;
  msgs l;
  memset(&l, 0, sizeof l);
  char **res = calloc(n ? (size_t)n : 1, sizeof *res);
  if (!res || n < 0 || !plain_superblock(&v))
    goto out;
  if (attr) {
    H5O_info_t oi;
    if (H5Oget_info2(obj, &oi, H5O_INFO_BASIC) < 0)
      goto out;
    rc = header_msgs(&v, oi.addr, &l);
    if (rc == 0)
      rc = attr_refs(&v, &l, attr, n, &r);
  } else {
    rc = dataset_refs(&v, obj, n, &refs);
    r = refs;
  }
  if (rc == 0)
    rc = strings(&v, r, n, res);
out:
  for (int i = 0; i < v.nheaps; i++) {
    free(v.heaps[i].body);
    free(v.heaps[i].off);
    free(v.heaps[i].len);
  }
  msgs_free(&l);
  free(refs);
  close(v.fd);
  if (rc != 0) {
    for (int64_t i = 0; res && i < n; i++)
      free(res[i]);
    free(res);
    return rc;
  }
  *out = res;
  return 0;
}

static __thread char kept[512], given[512];

void sp__h5_vlen_keep(const char *why) {
  snprintf(kept, sizeof kept, "%s", why);
}

const char *sp__h5_vlen_take(void) {
  if (!kept[0])
    return NULL;
  memcpy(given, kept, sizeof given);
  kept[0] = 0;
  return given;
}
