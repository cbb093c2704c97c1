/* out.c - output files written under a temporary name (created
 * exclusively, format/atomic.c) and renamed into place, so a failure never
 * leaves a partial file under the real name. */
#include "report.h"
#include "sp_tmp.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int rp_out_open(rp_out *o, const char *path, sp_fmt_err *err) {
  o->path = path;
  o->f = NULL;
  int fd = sp_fmt_tmp_create(path, o->tmp, sizeof o->tmp, err);
  if (fd < 0)
    return -1;
  if (!(o->f = fdopen(fd, "w"))) {
    sp_fmt_err_set(err, "%s: %s", path, strerror(errno));
    close(fd);
    sp_fmt_tmp_discard(o->tmp);
    return -1;
  }
  return 0;
}

int rp_out_commit(rp_out *o, sp_fmt_err *err) {
  int bad = ferror(o->f);
  int e = errno;
  if (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)
    bad = 1, e = errno;
  if (fclose(o->f) != 0)
    bad = 1, e = errno;
  o->f = NULL;
  if (bad) {
    sp_fmt_tmp_discard(o->tmp);
    sp_fmt_err_set(err, "%s: %s", o->path, strerror(e ? e : EIO));
    return -1;
  }
  return sp_fmt_tmp_commit(o->tmp, o->path, err);
}

void rp_out_abort(rp_out *o) {
  if (o->f)
    fclose(o->f);
  o->f = NULL;
  sp_fmt_tmp_discard(o->tmp);
}
