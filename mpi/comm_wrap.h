/* comm_wrap.h - the commonest recorded calls (the blocking sends, MPI_Recv)
 * recorded inline in their generated wrappers, and the thread's caches of
 * communicator and type that every recorded call looks up first: the
 * wrapper calls MPI, then the runtime once for the message and the
 * region's end (sp__mpi_note1_end). Included by comm.h only. */
#ifndef SP_MPI_COMM_WRAP_H
#define SP_MPI_COMM_WRAP_H

/* MPI_COMM_WORLD's info (size -1 until made). */
SP_MPI_HIDDEN extern sp_mpi__comm_info sp_mpi__world_info;
/* Bumped by every MPI_Comm_free / MPI_Type_free the layer sees: a freed
 * handle may come back as another communicator or type. */
SP_MPI_HIDDEN extern _Atomic unsigned sp_mpi__comm_gen, sp_mpi__type_gen;
/* A thread's last communicator other than MPI_COMM_WORLD and last type. */
typedef struct sp_mpi__last {
  MPI_Comm c;
  sp_mpi__comm_info *ci;
  unsigned cgen, tgen;
  MPI_Datatype t;
  int64_t tsize; /* < 0: no type kept */
} sp_mpi__last;
SP_MPI_HIDDEN extern __thread sp_mpi__last sp_mpi__last_seen
    __attribute__((tls_model("initial-exec")));
SP_MPI_HIDDEN sp_mpi__comm_info *sp_mpi__info_slow(MPI_Comm c);
SP_MPI_HIDDEN int64_t sp_mpi__tsize_slow(MPI_Datatype t);

static inline sp_mpi__comm_info *sp_mpi__info_of(MPI_Comm c) {
  if (c == MPI_COMM_WORLD &&
      __atomic_load_n(&sp_mpi__world_info.size, __ATOMIC_ACQUIRE) >= 0)
    return &sp_mpi__world_info;
  sp_mpi__last *l = &sp_mpi__last_seen;
  if (l->ci && l->c == c &&
      l->cgen == atomic_load_explicit(&sp_mpi__comm_gen, memory_order_relaxed))
    return l->ci;
  return sp_mpi__info_slow(c);
}

static inline int64_t sp_mpi__tsize(MPI_Datatype t) {
  sp_mpi__last *l = &sp_mpi__last_seen;
  if (l->t == t && l->tsize >= 0 &&
      l->tgen == atomic_load_explicit(&sp_mpi__type_gen, memory_order_relaxed))
    return l->tsize;
  return sp_mpi__tsize_slow(t);
}

static inline int32_t sp_mpi__world_of(const sp_mpi__comm_info *ci, int r) {
  if (r >= 0 && r < ci->size)
    return ci->world ? ci->world[r] : r;
  return r == MPI_ANY_SOURCE ? SP_MPI_ANY : SP_MPI_NONE;
}

/* The status's own count where this MPI's layout is known (no call), else
 * MPI_Get_count. */
static inline int64_t sp_mpi__status_bytes(const MPI_Status *st) {
#if defined(OPEN_MPI)
  return (int64_t)st->_ucount;
#elif defined(MPICH_VERSION)
  return (int64_t)((uint64_t)(uint32_t)st->count_lo |
                   (uint64_t)(st->count_hi_and_cancelled >> 1) << 32);
#else
  int n = 0;
  if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
    return 0;
  return n;
#endif
}

/* A blocking send's message and its region's end. */
static inline __attribute__((always_inline)) void
sp_mpi__send_end(int r, int ret, int count, MPI_Datatype type, int dest,
                 int tag, MPI_Comm comm) {
  sp_mpi__comm_info *ci;
  if (ret != MPI_SUCCESS || !(ci = sp_mpi__info_of(comm))) {
    sp_mpi__leave(r);
    return;
  }
  /* no bytes to MPI_PROC_NULL, where nothing goes */
  int64_t bytes = dest == MPI_PROC_NULL ? 0 : count * sp_mpi__tsize(type);
  sp__mpi_note1_end(r, SP_MPI_K_SEND, ci->id, sp_mpi__world_of(ci, dest), tag,
                    bytes);
}

#define XE_SEND(name)                                                          \
  static inline int sp_mpi__xe_##name(int r, const void *buf, int count,       \
                                      MPI_Datatype type, int dest, int tag,    \
                                      MPI_Comm comm) {                         \
    int ret = P##name(buf, count, type, dest, tag, comm);                      \
    sp_mpi__send_end(r, ret, count, type, dest, tag, comm);                    \
    return ret;                                                                \
  }
XE_SEND(MPI_Send)
XE_SEND(MPI_Ssend)
XE_SEND(MPI_Bsend)
XE_SEND(MPI_Rsend)
#undef XE_SEND

static inline int sp_mpi__xe_MPI_Recv(int r, void *buf, int count,
                                      MPI_Datatype type, int source, int tag,
                                      MPI_Comm comm, MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Recv(buf, count, type, source, tag, comm, st);
  sp_mpi__comm_info *ci;
  if (ret != MPI_SUCCESS || !(ci = sp_mpi__info_of(comm))) {
    sp_mpi__leave(r);
    return ret;
  }
  sp__mpi_note1_end(r, SP_MPI_K_RECV, ci->id,
                    sp_mpi__world_of(ci, st->MPI_SOURCE), st->MPI_TAG,
                    sp_mpi__status_bytes(st));
  return ret;
}

#endif
