/* sp_h5_vlen.h - variable-length strings read without letting libhdf5
 * follow their references (h5_vlen.c). Internal, tools only. */
#ifndef SP_H5_VLEN_H
#define SP_H5_VLEN_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* The n variable-length strings of dataset obj (attr NULL; 1-D) or of
 * attribute attr of object obj, from the file's bytes: each reference
 * (length, global heap collection, object) checked against a collection
 * parsed and checked whole. 0 with *out n malloc'd strings; 1 when they
 * cannot be located here (another layout or filter, attributes in dense
 * storage, a user block, addresses other than 8 bytes: the caller reads
 * them through the library); -1 with err "<dataset or attribute>: <what
 * is wrong>" (one line). */
int sp__h5_vlen_read(hid_t obj, const char *attr, int64_t n, char ***out,
                     char *err, size_t errsize);

/* The reason of this thread's last -1 of sp__h5_vlen_read that a reader
 * passed on with sp__h5_vlen_keep, for its one error line, then cleared
 * (NULL: none). HDF5's own error stack cannot carry it: every API call
 * clears that stack, and the readers close their handles before they
 * report. */
void sp__h5_vlen_keep(const char *why);
const char *sp__h5_vlen_take(void);

#endif /* SP_H5_VLEN_H */
