/* mpi.c - a rank's MPI messages and communicators in memory (sp_fmt_mpi of
 * sp_rank.h): what the stream, the .h5 reader and writers pass along. */
#include "sp_rank.h"

#include <stdlib.h>
#include <string.h>

void sp_fmt_mpi_free(sp_fmt_mpi *m) {
  if (!m)
    return;
  for (int64_t i = 0; i < m->ncomms; i++)
    free(m->comms[i].members);
  for (int64_t i = 0; i < m->nnames; i++)
    free(m->names[i]);
  free(m->msgs);
  free(m->comms);
  free(m->names);
  memset(m, 0, sizeof *m);
}

/* Few names (the MPI functions a rank called): a linear search. */
int32_t sp_fmt_mpi_name(sp_fmt_mpi *m, const char *name) {
  for (int64_t i = 0; i < m->nnames; i++)
    if (strcmp(m->names[i], name) == 0)
      return (int32_t)i;
  char **v = realloc(m->names, (size_t)(m->nnames + 1) * sizeof *v);
  if (!v)
    return -1;
  m->names = v;
  if (!(v[m->nnames] = strdup(name)))
    return -1;
  return (int32_t)m->nnames++;
}
